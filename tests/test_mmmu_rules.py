"""MMMU rule-based scoring, rule by rule from SCORING.md section 3, then the official fixture."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import FIXTURES, needs_fixture
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mmmu.rules import (
    DISCIPLINE_OF,
    MmmuVerdict,
    judge,
    normalize_gold,
    open_correct,
    parse_choice,
    parse_open,
    question_type_of,
    subject_of,
)
from lmmreview.engine.types import QuestionType, Sample

OPTIONS = {"A": "Josef Albers", "B": "George Eastman", "C": "Gosnell Hall", "D": "Tea Server 1925"}


def choice(response: str, options: dict[str, str] = OPTIONS, key: str = "k") -> tuple[str, str]:
    return parse_choice(response, options, key)


# --- Multiple choice -----------------------------------------------------------------------------


def test_parenthesised_letter() -> None:
    assert choice("The answer is (B) of course") == ("B", "paren")
    # (X) is looked for before the spaced form: the spaced A does not count here.
    assert choice("A is wrong, (C) is right") == ("C", "paren")


def test_spaced_letter() -> None:
    assert choice("I pick B because of the colour") == ("B", "spaced")
    assert choice("D") == ("D", "spaced")  # the padding makes a bare letter spaced
    assert choice("Bees like honey")[1] == "fallback"  # a letter inside a word is no letter
    assert choice("b")[1] == "fallback"  # letters are case-sensitive


def test_option_text_only_beyond_five_words() -> None:
    assert choice("I think it was made by George Eastman") == ("B", "option_text")
    assert choice("i think it was made by GEORGE EASTMAN") == ("B", "option_text")
    assert choice("It is by Mr George Eastman") == ("B", "option_text")  # 6 words
    assert choice("It is by George Eastman")[1] == "fallback"  # exactly 5 words
    assert choice("made by George Eastman")[1] == "fallback"


def test_last_parenthesised_occurrence_wins() -> None:
    # Compared by the last occurrence of each: (A) appears first and last.
    assert choice("(A) or (D), finally (A)") == ("A", "paren")
    assert choice("(D) no wait (A)") == ("A", "paren")


def test_last_spaced_occurrence_wins() -> None:
    assert choice("A or D , final A") == ("A", "spaced")
    assert choice("A or maybe D") == ("D", "spaced")


def test_last_option_text_occurrence_wins() -> None:
    response = "Not George Eastman nor Josef Albers but George Eastman indeed"
    assert choice(response) == ("B", "option_text")
    assert choice("Not George Eastman nor Josef Albers but surely Josef Albers") == (
        "A",
        "option_text",
    )


def test_edge_punctuation_is_stripped() -> None:
    assert choice("B.") == ("B", "spaced")
    assert choice("C!") == ("C", "spaced")
    assert choice("(C)!") == ("C", "paren")
    assert choice("'D'") == ("D", "spaced")
    assert choice("B!.") == ("B", "spaced")
    # One character after another in the order , . ! ? ; : ' — "." goes before "!" is reached.
    assert choice("B.!")[1] == "fallback"


def test_whitespace_is_not_stripped() -> None:
    assert choice("B\n")[1] == "fallback"
    assert choice("\nB")[1] == "fallback"
    assert choice("B \n") == ("B", "spaced")


def test_random_fallback_is_seeded_per_sample_and_marked() -> None:
    first = choice("no idea", key="validation_Art_1")
    random.seed(1)
    again = choice("no idea", key="validation_Art_1")
    random.seed(2)
    assert choice("something else entirely", key="validation_Art_1") == first == again
    assert first[1] == "fallback" and first[0] in OPTIONS
    picks = {choice("no idea", key=f"validation_Art_{n}")[0] for n in range(60)}
    assert picks <= set(OPTIONS) and len(picks) > 1  # varies with the key, never off-list


def test_random_fallback_does_not_depend_on_the_hash_seed() -> None:
    code = "from lmmreview.engine.benchmarks.mmmu.rules import parse_choice; print(parse_choice('?', dict.fromkeys('ABCDE', 'x'), 'id_7'))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1 and "fallback" in outputs.pop()


def test_no_options_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs options"):
        parse_choice("A", {}, "k")


@given(st.text(max_size=80), st.text(max_size=20))
def test_choice_is_always_one_of_the_letters(response: str, key: str) -> None:
    letter, method = parse_choice(response, OPTIONS, key)
    assert letter in OPTIONS
    assert method in {"paren", "spaced", "option_text", "fallback"}
    assert parse_choice(response, OPTIONS, key) == (letter, method)


# --- Open answers --------------------------------------------------------------------------------


def test_comma_grouped_numbers() -> None:
    candidates = parse_open("The answer is 1,234 dollars")
    # The plain-number search also reads the last group "234" (the official output does too).
    assert candidates == ["1,234 dollars", 1234.0, 234.0]
    assert open_correct(candidates, ["1234"])
    assert normalize_gold("1,234") == [1234.0]


def test_decimals_are_rounded_to_two_places() -> None:
    assert parse_open("3.14159") == [3.14]
    assert open_correct(parse_open("3.14159"), ["3.141"])
    assert not open_correct(parse_open("3.15"), ["3.14"])


def test_scientific_numbers() -> None:
    assert 450.0 in parse_open("the value is 4.5e2")
    assert 450.0 in parse_open("roughly 4.5E+2 metres")
    assert open_correct(parse_open("roughly 4.5E+2 metres"), ["450"])
    assert parse_open("1.2e-3")[0] == 0.0  # rounded to two decimals like every number


def test_leading_point_decimals() -> None:
    assert parse_open("the answer is .5") == [0.5]
    assert open_correct(parse_open("about .5 of it"), ["0.5"])


def test_negative_numbers() -> None:
    assert parse_open("x = -3.5") == [-3.5]
    assert open_correct(parse_open("it is -3.5 degrees"), ["-3.5"])
    assert not open_correct(parse_open("3.5"), ["-3.5"])


def test_trailing_point_is_dropped_and_text_lowercased() -> None:
    assert parse_open("  Paris.  ") == ["paris"]
    assert parse_open("5.") == [5.0]


def test_every_leading_and_trailing_point_is_stripped() -> None:
    assert parse_open("..5..") == [5.0]
    assert parse_open(".5") == [5.0]  # the point goes before any number is read
    assert parse_open("...Paris...") == ["paris"]
    assert parse_open("...") == [""]


def test_an_integer_needs_a_word_boundary_after_it() -> None:
    assert parse_open("100V") == ["100v"]
    assert parse_open("2nd") == ["2nd"]
    assert parse_open("30 cm") == ["30 cm", 30.0]
    assert parse_open("30cm, 12.5kg") == ["30cm, 12.5kg", 12.5]  # a decimal needs none
    assert not open_correct(parse_open("100V"), ["100"])


def test_indicators_match_as_plain_substrings() -> None:
    assert parse_open("This works") == ["works"]  # "this " contains "is "
    assert parse_open("It also fails") == ["fails"]  # "also " contains "so "
    assert parse_open("Paris") == ["paris"]  # no indicator: the whole answer


def test_text_after_the_last_occurrence_of_an_indicator() -> None:
    assert parse_open("it is 5 and it is 6") == [6.0]


def test_equals_sign_only_in_the_last_piece() -> None:
    assert parse_open("a = 1\nthe value is 2") == [2.0]
    assert parse_open("the value is 2\na = 1") == [2.0, 1.0]
    assert parse_open("a = 1\nb = 2") == [2.0]


def test_shortest_tail_of_a_piece_is_kept() -> None:
    # "could be " -> "paris", "thus " and "answer " give longer tails.
    assert parse_open("Thus the answer could be Paris") == ["paris"]
    assert parse_open("The final answer is 7") == [7.0]


def test_an_empty_tail_after_an_indicator() -> None:
    # "so " leaves "5 is", then "is " leaves nothing, and the empty tail is the shorter one:
    # the line gives no key response, so the whole answer is the key response.
    assert parse_open("so 5 is \nParis") == ["so 5 is \nparis", 5.0]
    # An empty tail kept ("so ") counts as none kept: the next tail ("is ") replaces it although
    # the earlier "could be " tail "1 so" was shorter.
    assert parse_open("is 333 could be 1 so \nok") == ["333 could be 1 so", 333.0, 1.0]


def test_lone_punctuation_tail_is_no_key_response() -> None:
    assert parse_open("the answer is !") == ["the answer is !"]


def test_numbers_follow_key_responses_and_duplicates_go() -> None:
    assert parse_open("Room 101") == ["room 101", 101.0]
    assert parse_open("x is 2\ny is 2") == [2.0]
    assert parse_open("36 watts") == ["36 watts", 36.0]


def test_single_character_becomes_two_spaced_strings() -> None:
    assert parse_open("C") == [" c", "c "]
    assert normalize_gold("B") == [" b", "b "]
    assert open_correct(parse_open("Step b"), ["B"])
    assert not open_correct(parse_open("cab"), ["b"])  # only as a word of its own
    assert not open_correct(parse_open("C"), ["A"])


def test_text_never_equals_a_number() -> None:
    assert not open_correct(["3"], ["3"])  # text "3" against the number 3.0
    assert not open_correct([3.0], ["three"])
    assert not open_correct([3.0], ["3 apples"])  # a text gold is only found inside text
    assert open_correct(parse_open("3 apples"), ["3"])  # through the number found in it


def test_text_gold_is_a_substring_of_a_candidate() -> None:
    assert open_correct(parse_open("It is in Florida, USA"), ["florida"])
    assert not open_correct(parse_open("Flor"), ["Florida"])


def test_any_acceptable_gold_counts() -> None:
    assert open_correct(parse_open("It is Florida"), ["Tampa", "Florida"])
    assert open_correct(parse_open("3.429"), ["24/7", "3.429"])
    assert not open_correct(parse_open("Miami"), ["Tampa", "Florida"])


def test_nan_and_inf_words_stay_text() -> None:
    # float() would take "nan" and "inf"; nan never equals itself, so they stay text.
    assert parse_open("nan") == ["nan"]
    assert normalize_gold("inf") == ["inf"]
    assert parse_open("-Infinity") == ["-infinity"]
    assert open_correct(parse_open("NaN"), ["nan"])


def test_a_number_too_large_for_a_float_is_infinity() -> None:
    assert parse_open("1e350") == [math.inf, 350.0]
    assert parse_open("-1e999") == [-math.inf, 999.0]


def test_blank_gold_accepts_nothing() -> None:
    assert normalize_gold("  ") == []
    assert not open_correct(parse_open("anything"), [""])


@given(st.text(max_size=120))
def test_open_candidates_are_unique_and_typed(response: str) -> None:
    candidates = parse_open(response)
    assert candidates and len(candidates) == len(set(candidates))
    assert all(isinstance(c, str | float) for c in candidates)


# --- judge ---------------------------------------------------------------------------------------


def test_judge_multiple_choice() -> None:
    sample = Sample("validation_Art_1", "", QuestionType.CHOICE, "B", options=OPTIONS)
    assert judge(sample, "(B)") == MmmuVerdict("B", True, "paren", False)
    assert judge(sample, "A") == MmmuVerdict("A", False, "spaced", False)
    unsure = judge(sample, "hmm")
    assert unsure.method == "fallback" and unsure.fallback
    assert unsure.prediction == choice("hmm", key="validation_Art_1")[0]


def test_judge_multiple_choice_with_several_golds() -> None:
    sample = Sample("v_Art_2", "", QuestionType.CHOICE, "A", ("C",), options=OPTIONS)
    assert judge(sample, "(C)").correct and judge(sample, "(A)").correct
    assert not judge(sample, "(D)").correct


def test_judge_open() -> None:
    sample = Sample("validation_Geography_4", "", QuestionType.OPEN, "Tampa", ("Florida",))
    assert judge(sample, "Florida") == MmmuVerdict(["florida"], True, "open", False)
    assert not judge(sample, "Beach").correct


def test_unknown_gold_is_never_correct() -> None:
    assert not judge(Sample("k", "", QuestionType.CHOICE, options=OPTIONS), "(A)").correct
    assert not judge(Sample("k", "", QuestionType.OPEN), "5").correct


# --- The official output on LLaVA-1.5-13B --------------------------------------------------------

MMMU = FIXTURES / "mmmu"


@dataclass(frozen=True)
class Judged:
    """Our verdict on one fixture record beside the official one."""

    key: str
    ours: MmmuVerdict
    expected: dict[str, Any]
    discipline: str


def _sample(record: dict[str, Any], ground_truth: str | list[str]) -> Sample:
    golds = ground_truth if isinstance(ground_truth, list) else [ground_truth]
    letters = record.get("all_choices", [])
    return Sample(
        key=record["id"],
        question="",
        question_type=question_type_of(record["question_type"]),
        answer=golds[0],
        alt_answers=tuple(golds[1:]),
        options={letter: record["index2ans"][letter] for letter in letters},
    )


Official = tuple[list[Judged], dict[str, Any]]  # our verdicts, the expected file


@pytest.fixture(scope="module")
def official() -> Official:
    expected = json.loads((MMMU / "llava1.5_13b.expected.json").read_text(encoding="utf-8"))
    golds = json.loads((MMMU / "answer_dict_val.json").read_text(encoding="utf-8"))
    judged = []
    for path in sorted((MMMU / "llava1.5_13b").glob("*/output.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            key = record["id"]
            sample = _sample(record, golds[key]["ground_truth"])
            discipline = DISCIPLINE_OF[subject_of(key)]
            judged.append(
                Judged(
                    key, judge(sample, record["response"]), expected["per_sample"][key], discipline
                )
            )
    return judged, expected


def _same_prediction(ours: str | list[str | float], expected: str | list[str | float]) -> bool:
    """Letters compare as is; the official open candidates come from a set, so compare sets."""
    if isinstance(ours, list) and isinstance(expected, list):
        return len(ours) == len(expected) and set(ours) == set(expected)
    return ours == expected


@needs_fixture("mmmu")
def test_every_non_fallback_sample_matches_the_official_output(official: Official) -> None:
    judged, expected = official
    assert len(judged) == 900
    fallback_ids = set(expected["random_fallback_ids"])
    mismatches = [
        (j.key, j.ours, j.expected)
        for j in judged
        if j.key not in fallback_ids
        and not (
            _same_prediction(j.ours.prediction, j.expected["parsed_pred"])
            and j.ours.correct == j.expected["correct"]
        )
    ]
    assert mismatches == []


@needs_fixture("mmmu")
def test_fallback_ids_are_exactly_ours(official: Official) -> None:
    judged, expected = official
    ours = {j.key for j in judged if j.ours.method == "fallback"}
    assert ours == set(expected["random_fallback_ids"])
    assert all(j.ours.fallback == (j.ours.method == "fallback") for j in judged)


@needs_fixture("mmmu")
def test_totals_match_the_official_figures(official: Official) -> None:
    judged, expected = official
    fallback_ids = set(expected["random_fallback_ids"])
    ours = Counter(j.discipline for j in judged if j.ours.correct)
    settled = Counter(
        j.discipline
        for j in judged
        if (j.expected["correct"] if j.key in fallback_ids else j.ours.correct)
    )
    margin = len(fallback_ids)
    assert abs(sum(ours.values()) - expected["overall"]["correct"]) <= margin
    assert sum(settled.values()) == expected["overall"]["correct"] == 330
    for discipline, figures in expected["per_discipline"].items():
        assert abs(ours[discipline] - figures["correct"]) <= margin, discipline
        assert settled[discipline] == figures["correct"], discipline
        assert sum(j.discipline == discipline for j in judged) == figures["num"], discipline
