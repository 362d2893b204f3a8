"""MathVista's answer rules: SCORING.md section 5, restated from the official
`evaluation/extract_answer.py` and `evaluation/calculate_score.py` (lupantech/MathVista at
53d5258).

An answer is scored in three steps: extraction (the answer in the model's response: the quick
rules here, else the official LLM extractor), normalisation of the extraction to the problem's
answer type (the prediction), and an exact comparison of the prediction with the gold answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from lmmreview.engine.levenshtein import levenshtein

MULTI_CHOICE, FREE_FORM = "multi_choice", "free_form"
INTEGER, FLOAT, LIST, TEXT = "integer", "float", "list", "text"
ANSWER_TYPES = (TEXT, INTEGER, FLOAT, LIST)

# `The answer is "..."`. on one line (`.` stops at a line break; greedy, as the official rule)
_QUOTED = re.compile(r'The answer is "(.*)"\.')
_LETTER_IN_PARENS = re.compile(r"\(([a-zA-Z])\)")  # ASCII letters only
_Number = TypeVar("_Number", int, float)


@dataclass(frozen=True, slots=True)
class Problem:
    """What the rules read of a problem."""

    question_type: str  # multi_choice | free_form
    answer_type: str  # text | integer | float | list
    choices: tuple[str, ...] = ()  # a multiple-choice problem's, in order
    precision: int | None = None  # a float answer's number of decimals
    answer: str | None = None  # the gold; None when unknown (the test split)


@dataclass(frozen=True, slots=True)
class Verdict:
    """An extraction normalised and compared with the gold."""

    prediction: str | None  # None: the extraction is no number of the answer type
    correct: bool | None  # None: the gold is unknown
    choice: int | None = None  # the index of the chosen choice (multiple choice)


def quick_extraction(
    response: str, problem: Problem, *, quoted: bool = True
) -> tuple[str, str] | None:
    """The answer the official extractor takes without asking its LLM, and the rule's name
    ("empty", "choice", "integer", "float", "quoted"); None: only the LLM can extract it.

    An empty response extracts ''; a multiple-choice response equal to a choice is that
    choice; for an integer (float) answer, a response Python's int() (float()) reads is that
    number written back; else, when `quoted`, the first `The answer is "..."`. phrase's
    quoted text (the official extractor's optional quick rule, off by default there).
    """
    if response == "":
        return "", "empty"
    if problem.question_type == MULTI_CHOICE and response in problem.choices:
        return response, "choice"
    if problem.answer_type == INTEGER and (number := _read(int, response)) is not None:
        return str(number), "integer"
    if problem.answer_type == FLOAT and (decimal := _read(float, response)) is not None:
        return str(decimal), "float"
    if quoted and (found := _QUOTED.search(response)):
        return found[1], "quoted"
    return None


def _read(kind: Callable[[str], _Number], text: str) -> _Number | None:
    """`text` as Python's int() or float() reads it (spaces, `_` and `+` included), else None."""
    try:
        return kind(text)
    except ValueError:
        return None


def _whole(number: float | None) -> int | None:
    """A number's whole part, as int() cuts it; None for none, an infinity or NaN."""
    return None if number is None or not math.isfinite(number) else int(number)


def normalise(extraction: str, problem: Problem) -> tuple[str | None, int | None]:
    """The prediction an extraction stands for, and the chosen choice's index (multiple
    choice only).

    Multiple choice: the stripped extraction's first `(x)` letter, upper-cased, replaces it; a
    letter among A, B, ... picks that choice; anything else the choice nearest by Levenshtein
    distance (ties: the first). Integer: `str(int(float(x)))` ("13.0" and "13.75" are 13);
    float: `str(round(float(x), precision))`; None when that fails. List (and free-form
    text, for which the official code has no rule): the extraction as it is.
    """
    if problem.question_type == MULTI_CHOICE:
        index = choice_index(extraction, problem.choices)
        return problem.choices[index], index
    if problem.answer_type == INTEGER:
        integer = _whole(_read(float, extraction))
        return (None if integer is None else str(integer)), None
    if problem.answer_type == FLOAT:
        number = _read(float, extraction)
        if number is None or problem.precision is None:
            return None, None
        return str(round(number, problem.precision)), None
    return extraction, None


def choice_index(extraction: str, choices: tuple[str, ...]) -> int:
    """The index of the choice an extraction names (see `normalise`); ValueError when there
    are no choices."""
    if not choices:
        raise ValueError("a multiple-choice problem needs its choices")
    text = extraction.strip()
    if letter := _LETTER_IN_PARENS.search(text):
        text = letter[1].upper()
    if len(text) == 1 and 0 <= (index := ord(text) - ord("A")) < len(choices):
        return index  # a letter among A, B, ... (as many as the choices)
    distances = [levenshtein(text, choice) for choice in choices]
    return distances.index(min(distances))


def verdict(extraction: str, problem: Problem) -> Verdict:
    """The extraction normalised, and whether it equals the gold exactly."""
    prediction, index = normalise(extraction, problem)
    correct = None if problem.answer is None else prediction == problem.answer
    return Verdict(prediction, correct, index)
