"""VLMEvalKit's verdict on a MathVista extraction, `post_check` (vlmeval/dataset/utils/
mathvista.py, open-compass/VLMEvalKit @ e8e78f0, lines 77-104), restated to compare with the
official rules' (rules.verdict): its files keep the extraction (`res`), not the verdict.

Multiple choice: the option VLMEvalKit's can_infer reads in the extraction must be the
gold's (no nearest choice). Integer: int() of both equal ("14.0" is no integer there);
float: float() of both equal, unrounded. Any other answer type is never right (post_check
compares the text "None" with the gold).
"""

from __future__ import annotations

from collections.abc import Callable
from string import ascii_uppercase

from lmmreview.engine.benchmarks.mathvista.rules import FLOAT, INTEGER, MULTI_CHOICE, Problem
from lmmreview.engine.vlmevalkit import can_infer


def vlmevalkit_right(extraction: str, problem: Problem) -> bool:
    """Whether VLMEvalKit counts `extraction` right on `problem`."""
    if problem.question_type == MULTI_CHOICE:
        options = dict(zip(ascii_uppercase, problem.choices, strict=False))
        letter = can_infer(extraction, options)
        return letter is not None and options.get(letter) == problem.answer
    if problem.answer_type == INTEGER:
        return _equal(int, extraction, problem.answer)
    if problem.answer_type == FLOAT:
        return _equal(float, extraction, problem.answer)
    return False


def _equal(kind: Callable[[str], float], extraction: str, gold: str | None) -> bool:
    """Both read as `kind` and equal; False when either is not one."""
    try:
        return gold is not None and kind(extraction) == kind(gold)
    except ValueError:
        return False
