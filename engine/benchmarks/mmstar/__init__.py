"""MMStar: the strict multiple-choice rule, the 6 core capabilities x 18 axes, MG and ML."""
