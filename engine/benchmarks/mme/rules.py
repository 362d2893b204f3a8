"""MME's rules, restated from the official `eval_tool/calculation.py` (BradyFU/Awesome-
Multimodal-Large-Language-Models, branch `Evaluation`, tools/eval_tool.zip @ 1c1d69e).

Every image has two yes/no questions, the yes-gold one first. An answer is read by a fixed
rule, no judge: lowercased, an exact "yes" or "no" is that label; otherwise only its first
four characters count, "yes" in them is yes, else "no" in them is no, else the answer is
"other" and simply wrong. A subtask's score is acc + acc+ in percent (acc+: the images
with both questions right), at most 200; Perception sums its 10 subtasks' scores (at most
2000), Cognition its 4 (at most 800).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

YES, NO, OTHER = "yes", "no", "other"
PREFIX = 4  # the characters the rule reads when the answer is not exactly yes or no

PERCEPTION = (
    "existence", "count", "position", "color", "posters",
    "celebrity", "scene", "landmark", "artwork", "OCR",
)  # fmt: skip
COGNITION = (
    "commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning",
)  # fmt: skip
GROUPS = (("perception", "Perception", PERCEPTION), ("cognition", "Cognition", COGNITION))
SUBTASKS = PERCEPTION + COGNITION


def group_of(subtask: str) -> str:
    """The total a subtask counts in: "perception" or "cognition"."""
    return "perception" if subtask in PERCEPTION else "cognition"


def parse(answer: str) -> str:
    """YES, NO or OTHER, as the official tool reads an answer: nothing is stripped, so
    " yes" is yes, "**yes**" other (its first four characters are "**ye"), "none" and
    "not sure" no, "y" other."""
    text = answer.lower()
    if text in (YES, NO):
        return text
    head = text[:PREFIX]
    if YES in head:
        return YES
    if NO in head:
        return NO
    return OTHER


def is_right(answer: str, gold: str) -> bool:
    """Whether the answer's label is the gold's (Yes or No, any case); OTHER never is."""
    return parse(answer) == gold.lower()


@dataclass(frozen=True, slots=True)
class Subtask:
    """One subtask's counts: questions and those right, images and those with both right."""

    questions: int
    right: int
    images: int
    both_right: int

    @property
    def acc(self) -> float:
        return 100 * self.right / self.questions

    @property
    def acc_plus(self) -> float:
        return 100 * self.both_right / self.images

    @property
    def score(self) -> float:
        """acc + acc+, in percent: at most 200."""
        return self.acc + self.acc_plus


def subtask(pairs: Iterable[tuple[bool, bool]]) -> Subtask:
    """A subtask's counts from each image's two verdicts (right or not), in order."""
    verdicts = list(pairs)
    right = sum(first + second for first, second in verdicts)
    both = sum(first and second for first, second in verdicts)
    return Subtask(2 * len(verdicts), right, len(verdicts), both)


def totals(found: Mapping[str, Subtask]) -> dict[str, float]:
    """Perception's and Cognition's scores: the sums of their subtasks' scores (of those
    in `found`, by name), unrounded."""
    return {
        key: sum(found[name].score for name in names if name in found) for key, _, names in GROUPS
    }
