"""VLMEvalKit's option matching restated (engine/vlmevalkit.py), case by case as
vlmeval/utils/matching_util.py (open-compass/VLMEvalKit @ e8e78f0) reads an answer, and its
MathVista verdict (engine/benchmarks/mathvista/vlmevalkit.py, after utils/mathvista.py)."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.mathvista.rules import Problem
from lmmreview.engine.benchmarks.mathvista.vlmevalkit import vlmevalkit_right
from lmmreview.engine.vlmevalkit import REFUSAL, can_infer

CHOICES = {"A": "red", "B": "green", "C": "blue"}


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("B", "B"),
        ("The answer is (B).", "B"),  # marks are spaces: B alone among the words
        ("B is right, as I said at length before", None),  # B not among the last five
        ("A is wrong, so the answer is (B).", None),  # two letters; "is (B" is no "is B"
        ("the correct answer is **c**", "C"),  # "answer is" in any case
        ("I'd say blue", "C"),  # no letter: the one option text in it
        ("greenish blue", None),  # two options' texts
        ("Z", REFUSAL),
        ("Cannot determine the answer", REFUSAL),
        ("Failed to obtain answer via API.", None),
    ],
)
def test_can_infer_reads_as_vlmevalkit(answer: str, found: str | None) -> None:
    assert can_infer(answer, CHOICES) == found


@pytest.mark.parametrize(
    ("problem", "extraction", "right"),
    [
        (Problem("multi_choice", "text", ("red", "green"), None, "green"), "B", True),
        (Problem("multi_choice", "text", ("red", "green"), None, "green"), "gren", False),
        (Problem("free_form", "integer", (), None, "3"), " 3", True),
        (Problem("free_form", "integer", (), None, "3"), "3.0", False),
        (Problem("free_form", "float", (), 2, "1.45"), "1.450", True),
        (Problem("free_form", "float", (), 2, "1.45"), "1.449", False),  # unrounded
        (Problem("free_form", "list", (), None, "[1, 2]"), "[1, 2]", False),  # never
    ],
)
def test_the_mathvista_verdict_is_post_checks(
    problem: Problem, extraction: str, right: bool
) -> None:
    assert vlmevalkit_right(extraction, problem) is right
