"""MathVista's rules, one by one from SCORING.md section 5, then the official outputs of the
fixture: every normalisation and verdict equal to the official ones."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, needs_fixture
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mathvista.rules import (
    FREE_FORM,
    MULTI_CHOICE,
    Problem,
    normalise,
    quick_extraction,
    verdict,
)
from lmmreview.engine.levenshtein import levenshtein

CHOICES = ("3/11", "8/11", "6/11", "3/5")
CHOICE = Problem(MULTI_CHOICE, "text", CHOICES, answer="8/11")
INTEGER = Problem(FREE_FORM, "integer", answer="14")
FLOAT = Problem(FREE_FORM, "float", precision=2, answer="1.45")
LIST = Problem(FREE_FORM, "list", answer="[2007, 2008]")


# --- extraction: the quick rules -------------------------------------------------------------------


def test_an_empty_response_extracts_nothing_and_a_choice_itself() -> None:
    assert quick_extraction("", CHOICE) == ("", "empty")
    assert quick_extraction("6/11", CHOICE) == ("6/11", "choice")
    assert quick_extraction(" 6/11", CHOICE) is None  # equal to a choice, not stripped
    assert quick_extraction("6/11", LIST) is None  # the choice rule is multiple choice's


def test_a_number_response_is_taken_as_python_reads_it() -> None:
    assert quick_extraction(" +14\n", INTEGER) == ("14", "integer")
    assert quick_extraction("1_000", INTEGER) == ("1000", "integer")
    assert quick_extraction("14.0", INTEGER) is None  # int() refuses it: the LLM's to extract
    assert quick_extraction("1.450", FLOAT) == ("1.45", "float")
    assert quick_extraction("1e3", FLOAT) == ("1000.0", "float")
    assert quick_extraction("14", LIST) is None  # only integer and float answers


def test_the_answer_is_quoted() -> None:
    response = 'Counting them.\nThe answer is "12". The answer is "13".'
    assert quick_extraction(response, INTEGER) == ('12". The answer is "13', "quoted")  # greedy
    assert quick_extraction('The answer is "(B) 8/11".', CHOICE) == ("(B) 8/11", "quoted")
    assert quick_extraction('The answer is "12"', INTEGER) is None  # no full stop after it
    assert quick_extraction('The answer is "1\n2".', INTEGER) is None  # one line only
    assert quick_extraction("The number missing is 14.", INTEGER) is None


# --- normalisation and comparison ------------------------------------------------------------------


def test_a_letter_picks_its_choice() -> None:
    assert normalise(" B ", CHOICE) == ("8/11", 1)
    assert normalise("The correct answer is (b) 6/11", CHOICE) == ("8/11", 1)  # first (x)
    assert normalise("(C) or (B)", CHOICE) == ("6/11", 2)
    assert normalise("E", CHOICE) == ("3/5", 3)  # no fifth choice: the nearest text


def test_anything_else_is_the_nearest_choice_ties_to_the_first() -> None:
    assert normalise("8/12", CHOICE) == ("8/11", 1)
    assert normalise("b", CHOICE) == ("3/5", 3)  # a lower-case letter alone is text, not B
    assert normalise("", CHOICE) == ("3/5", 3)  # the shortest choice
    assert normalise("x/11", CHOICE) == ("3/11", 0)  # three choices at 1: the first


def test_levenshtein_distance() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == levenshtein("abc", "") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("été", "ete") == 2  # characters, not bytes
    assert levenshtein("abc", "abc") == levenshtein("", "") == 0


def _table_distance(a: str, b: str) -> int:
    """The textbook dynamic-programming table, row by row: the reference."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
    return row[-1]


@given(st.text(alphabet="abcé ", max_size=80), st.text(alphabet="abcé ", max_size=80))
def test_levenshtein_equals_the_textbook_table(a: str, b: str) -> None:
    assert levenshtein(a, b) == _table_distance(a, b) == levenshtein(b, a)


def test_levenshtein_of_long_texts_and_token_lists() -> None:
    """OCRBench v2's full pages (nltk's edit_distance refuses over 2,000 characters) and
    its parsing scores' token lists."""
    page = "the quick brown fox jumps over the lazy dog " * 80  # 3,520 characters
    assert levenshtein(page, page.replace("fox", "cat")) == 3 * 80
    assert levenshtein(page, "") == len(page)
    assert levenshtein(["<td>", "a", "</td>"], ["<td>", "b", "</td>", "x"]) == 2


def test_integer_and_float_normalisation() -> None:
    assert normalise("14", INTEGER) == ("14", None)
    assert normalise(" 014 ", INTEGER) == ("14", None)
    # str(int(float(x))): a whole part, cut toward zero
    assert normalise("14.0", INTEGER) == ("14", None)
    assert normalise("14.75", INTEGER) == ("14", None)
    assert normalise("-2.5", INTEGER) == ("-2", None)
    assert normalise("1e3", INTEGER) == ("1000", None)
    assert normalise("inf", INTEGER) == normalise("nan", INTEGER) == (None, None)
    assert normalise("fourteen", INTEGER) == (None, None)
    assert normalise("1.4500", FLOAT) == ("1.45", None)
    assert normalise("1.456", FLOAT) == ("1.46", None)
    assert normalise("2605", FLOAT) == ("2605.0", None)
    assert normalise("N/A", FLOAT) == (None, None)
    assert normalise("1.5", Problem(FREE_FORM, "float")) == (None, None)  # no precision


def test_a_list_is_compared_as_written() -> None:
    assert verdict("[2007, 2008]", LIST).correct is True
    assert verdict("[2007,2008]", LIST).correct is False
    assert verdict(" [2007, 2008]", LIST).correct is False


def test_the_comparison_is_exact_and_an_unknown_gold_is_no_verdict() -> None:
    assert verdict("(B)", CHOICE) == verdict("8/11", CHOICE)
    assert verdict("B", CHOICE).correct is True and verdict("C", CHOICE).correct is False
    assert verdict("14", INTEGER).correct is True
    assert verdict("1.4", FLOAT).correct is False  # "1.4" is not "1.45"
    assert verdict("14", Problem(FREE_FORM, "integer")).correct is None


def test_a_multiple_choice_problem_needs_choices() -> None:
    with pytest.raises(ValueError, match="needs its choices"):
        normalise("A", Problem(MULTI_CHOICE, "text"))


# --- the official outputs ---------------------------------------------------------------------------


@needs_fixture("mathvista")
def test_every_official_prediction_and_verdict_of_the_fixture() -> None:
    """Our verdict on each official extraction is the official true_false, and our
    normalisation the official prediction except where the file's older integer rule read a
    non-integral number as none (the official code's `int(float(x))` reads its whole part); and where our quick rules extract, they extract what
    the official extractor did."""
    problems = json.loads((FIXTURES / "mathvista" / "output_claude.json").read_text())
    assert len(problems) == 1000
    quick = older = 0
    for pid, p in problems.items():
        problem = Problem(
            p["question_type"], p["answer_type"], tuple(p["choices"] or ()), p["precision"],
            p["answer"],
        )  # fmt: skip
        judged = verdict(p["extraction"], problem)
        assert judged.correct == p["true_false"], pid
        if judged.prediction != p["prediction"]:  # the file's older integer rule, int(x)
            assert p["answer_type"] == "integer" and p["prediction"] is None, pid
            assert judged.prediction == str(int(float(p["extraction"]))), pid
            older += 1
        extracted = quick_extraction(p["response"], problem)
        if extracted is not None:
            quick += 1
            assert extracted[0] == p["extraction"], pid
    assert quick == 10
    assert older < 10  # a few non-integral extractions of integer answers
