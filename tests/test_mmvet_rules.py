"""MM-Vet rules: the judge prompt byte for byte, reply parsing, retries, the offline grader,
integration names and order."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, needs_fixture
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mmvet.rules import (
    DEFAULT_JUDGE_MODEL,
    EMPTY_ANSWER_REASON,
    INTEGRATION_ORDER,
    JUDGE_PROMPT,
    JUDGE_SETTINGS,
    LONG_ANSWER_REASON,
    MAX_JUDGE_CALLS,
    NO_GROUND_TRUTH_REASON,
    PROMPT_VERSION,
    RETRY_SUFFIX,
    RETRY_TEMPERATURES,
    OfflineGrade,
    best_offline_grade,
    canonical_capabilities,
    integration_name,
    integration_title,
    judge_prompt,
    offline_grade,
    order_integrations,
    parse_score,
    retry_ladder,
    retry_prompt,
)

GOLDEN = Path(__file__).parent / "golden" / "mmvet"
GOLDEN_FILES = ("judge_prompt.txt", "filled_prompt_example.txt", "retry_prompt_example.txt")

# The sample of the fixture files. The raw ground truth has no spaces around <OR>: the
# reference's literal replace adds one each side, and the file shows exactly one.
EXAMPLE = (
    "How many gallons of supreme gasoline can I get with $50?",
    "13.6<OR>13.7",
    "You can get approximately 13.7 gallons of supreme gasoline with $50.",
)


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


# --- The judge prompt -----------------------------------------------------------------------


def test_judge_prompt_template_is_byte_identical_to_the_protocol() -> None:
    assert JUDGE_PROMPT.encode("utf-8") == golden("judge_prompt.txt")


def test_filled_and_retry_prompts_are_byte_identical_to_the_protocol() -> None:
    assert judge_prompt(*EXAMPLE).encode("utf-8") == golden("filled_prompt_example.txt")
    assert retry_prompt(*EXAMPLE).encode("utf-8") == golden("retry_prompt_example.txt")


@needs_fixture("mmvet/judge_prompt.txt")
@pytest.mark.parametrize("name", [*GOLDEN_FILES, "LICENSE-MM-Vet"])
def test_golden_copies_match_the_shared_fixtures(name: str) -> None:
    assert golden(name) == (FIXTURES / "mmvet" / name).read_bytes()


def test_prompt_holds_the_seven_few_shot_rows_in_order() -> None:
    lines = JUDGE_PROMPT.split("\n")
    assert lines[1:4] == [
        "",
        "Question | Ground truth | Prediction | Correctness",
        "--- | --- | --- | ---",
    ]
    rows = [line.split(" | ") for line in lines[4:11]]
    assert [row[2] for row in rows[:5]] == [
        "x = 3",
        "x = -1",
        "x = -5",
        "x = -5 or 5",
        "x = -1 or x = -5",
    ]
    assert all(row[:2] == ["What is x in the equation?", "-1 <AND> -5"] for row in rows[:5])
    assert all(row[0] == "Can you explain this meme?" for row in rows[5:])
    assert [row[3] for row in rows] == ["0.0", "0.5", "0.5", "0.5", "1.0", "0.4", "1.0"]
    assert lines[11:] == [""]  # the template ends with one newline


def test_query_row_layout() -> None:
    prompt = judge_prompt("Q?", "a<AND>b<OR>c", "P")
    assert prompt == JUDGE_PROMPT + "\nQ? | a <AND> b <OR> c | P | "
    # A literal replace, as the reference does: markers already spaced get doubled spaces.
    assert judge_prompt("Q?", "a <AND> b", "P").endswith("| a  <AND>  b | P | ")
    assert retry_prompt("Q?", "a", "P") == JUDGE_PROMPT + "\nQ? | a | P | " + RETRY_SUFFIX
    assert RETRY_SUFFIX == "\nPredict the correctness of the answer (digit): "


def test_prompt_version_and_reference_settings() -> None:
    assert hashlib.sha256(golden("judge_prompt.txt")).hexdigest()[:12] == PROMPT_VERSION
    assert DEFAULT_JUDGE_MODEL == "gpt-4-0613"
    assert JUDGE_SETTINGS == {"temperature": 0.0, "max_tokens": 3}


def test_retry_ladder_plain_call_then_five_retries_with_rising_temperature() -> None:
    assert RETRY_TEMPERATURES == (0.0, 0.5, 1.0, 1.5, 2.0)
    assert retry_ladder() == [
        (False, 0.0),
        (True, 0.0),
        (True, 0.5),
        (True, 1.0),
        (True, 1.5),
        (True, 2.0),
    ]
    assert len(retry_ladder()) == MAX_JUDGE_CALLS == 6


# --- Reading the judge's reply --------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("0.7", 0.7),
        (" 0.7", 0.7),  # the reference's split(" ") fails here; we strip first
        ("0.7\n", 0.7),
        ("1.0", 1.0),
        ("1", 1.0),
        ("0", 0.0),
        ("0.5 because", 0.5),
        ("0.5\nThe prediction", 0.5),
        ("1.", 1.0),  # a complete number, as float() reads it
        (".5", 0.5),
        ("-0", 0.0),
        ("nan", None),
        ("NaN", None),
        ("inf", None),
        ("-inf", None),
        ("1e999", None),
        ("-0.1", None),
        ("1.5", None),
        ("", None),
        ("  \n", None),
        ("abc", None),
        ("Score: 0.5", None),
        ("0.5.", None),  # trailing punctuation: refused, the retry ladder asks again
        ("0.5,", None),
        ("**0.5**", None),
        ("1_0", None),  # float() would read 10
        ("\u0660.\u0665", None),  # Arabic-Indic digits: float() would read 0.5
    ],
)
def test_parse_score(reply: str, score: float | None) -> None:
    assert parse_score(reply) == score


def test_parse_score_of_minus_zero_is_plain_zero() -> None:
    assert str(parse_score("-0.0")) == "0.0"


@given(st.text(max_size=12))
def test_parse_score_is_none_or_in_range(reply: str) -> None:
    score = parse_score(reply)
    assert score is None or 0.0 <= score <= 1.0


# --- Offline grader -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "score", "reason"),
    [
        ("x = 3", 0.0, "matched 0 of 2; missing: -1, -5"),
        ("x = -1", 0.5, "matched 1 of 2: -1; missing: -5"),
        ("x = -5", 0.5, "matched 1 of 2: -5; missing: -1"),
        ("x = -5 or 5", 0.5, "matched 1 of 2: -5; missing: -1"),
        ("x = -1 or x = -5", 1.0, "matched 2 of 2: -1, -5"),
    ],
)
def test_offline_grader_reproduces_table_1(prediction: str, score: float, reason: str) -> None:
    assert offline_grade("-1 <AND> -5", prediction) == OfflineGrade(score, reason)
    assert offline_grade("-1<AND>-5", prediction) == OfflineGrade(
        score, reason
    )  # spacing does not matter


@pytest.mark.parametrize(
    ("truth", "prediction", "score"),
    [
        ("$12.99", "it costs 12.99 dollars", 1.0),
        ("12.99", "It costs $12.99.", 1.0),
        ("3.5", "about 3.50 metres", 1.0),
        ("3.50", "3.5", 1.0),
        ("1,234", "There are 1234 people.", 1.0),
        ("1234", "There are 1,234 people.", 1.0),
        ("1,000 feet", "about 1000 ft", 1.0),  # the unit is not checked
        ("30%", "30 percent", 1.0),
        ("14", "The answer is 14.", 1.0),
        ("14", "on the 14th floor", 1.0),
        ("14", "114", 0.0),
        ("14", "1.14", 0.0),
        ("14", "A14 road", 0.0),
        ("-1", "x = 1", 0.0),
        ("1", "x = -1", 0.0),
        ("-5", "x = \u22125", 1.0),  # Unicode minus sign
        ("1", "3-1 = 2", 1.0),  # a minus after a digit is an operator
        ("2005", "from 2004-2005", 1.0),
        ("4", "four", 1.0),  # number words are read (rule 5)
        ("13.6<OR>13.7", EXAMPLE[2], 1.0),  # "$50" from the question is no hedge
        ("$7.45 <OR> 7.45", "$7.45", 1.0),
    ],
)
def test_offline_grader_numbers(truth: str, prediction: str, score: float) -> None:
    assert offline_grade(truth, prediction).score == score


@pytest.mark.parametrize(
    ("truth", "prediction", "score"),
    [
        ("red", "It is red.", 1.0),
        ("red", "The RED light", 1.0),
        ("red", "they reduce costs", 0.0),
        ("Maple Ave <OR> Maple Avenue", "It is on Maple Ave.", 1.0),
        ("Maple Avenue", "Maple Ave", 0.0),
        ("Maple Ave", "maple-ave", 1.0),  # punctuation separates words
        ("Iceland", "Iceland's landscapes", 1.0),
        ("5 <OR> five", "Five apples.", 1.0),
        ("5 <OR> five", "5 apples", 1.0),
        ("3:30 <OR> half past three", "At 3:30 pm.", 1.0),
        ("3:30 <OR> half past three", "At 13:30.", 0.0),
        ("Café", "CAFÉ", 1.0),
    ],
)
def test_offline_grader_text(truth: str, prediction: str, score: float) -> None:
    assert offline_grade(truth, prediction).score == score


def test_offline_grader_or_takes_the_best_alternative() -> None:
    grade = offline_grade("13.6<OR>13.7", "About 13.7 gallons.")
    assert grade == OfflineGrade(1.0, "alternative 2 of 2: matched 1 of 1: 13.7")
    none = offline_grade("13.6 <OR> 13.7", "About 12 gallons.")
    assert none == OfflineGrade(0.0, "matched none of 2 alternatives: 13.6 | 13.7")


def test_offline_grader_and_gives_the_fraction_present_rounded_half_up() -> None:
    assert offline_grade("kitchen <AND> bedroom", "The kitchen.") == OfflineGrade(
        0.5,
        "matched 1 of 2: kitchen; missing: bedroom",
    )
    assert offline_grade("a1 <AND> b2 <AND> c3", "a1 and b2").score == 0.7  # 2/3
    assert offline_grade("a1 <AND> b2 <AND> c3", "c3").score == 0.3  # 1/3
    four = "a1 <AND> b2 <AND> c3 <AND> d4"
    assert offline_grade(four, "a1").score == 0.3  # 1/4 = 0.25, half up
    assert offline_grade(four, "a1 b2 c3").score == 0.8  # 3/4 = 0.75
    best = offline_grade("red <AND> stop <OR> octagon", "A red sign.")
    assert best == OfflineGrade(0.5, "alternative 1 of 2: matched 1 of 2: red; missing: stop")


@pytest.mark.parametrize(
    ("truth", "prediction", "score"),
    [
        ("4", "1, 2, 3, 4 or 5", 0.5),
        ("4", "either 4 or 5", 0.5),
        ("4", "4, or 5", 0.5),
        ("-5", "x = -5 or 5", 0.5),
        ("4", "4 or 5 people", 0.5),
        ("4", "1, 2, 3 or 5", 0.0),
        ("4", "4, 5, 6", 1.0),  # no "or": a list, not alternatives
        ("4", "4 people: 2 men or 2 women", 1.0),  # the "or" list does not hold the gold
        ("4", "4 or 4.0", 1.0),  # the same value twice
        ("13.6 <OR> 13.7", "13.6 or 13.7", 1.0),  # every number offered is a gold
        ("-1 <AND> -5", "x = -1 or x = -5", 1.0),  # several golds: listing them is expected
    ],
)
def test_offline_grader_hedging_halves_a_single_number(
    truth: str, prediction: str, score: float
) -> None:
    assert offline_grade(truth, prediction).score == score


def test_offline_grader_says_when_it_halved() -> None:
    assert offline_grade("4", "1, 2, 3, 4 or 5").reason == (
        "matched 1 of 1: 4; hedged among 1, 2, 3, 4, 5: credit halved"
    )


@pytest.mark.parametrize(
    "truth",
    [
        "The image most likely shows winter because the ground is covered in snow.",
        "red <OR> a bright red stop sign with white letters",  # an element of 9 words
        "making small things look bigger <OR> magnifying <OR> enlarging small text",  # 61 chars
    ],
)
def test_offline_grader_leaves_long_answers_to_a_judge(truth: str) -> None:
    assert offline_grade(truth, "winter, red, magnifying") == OfflineGrade(None, LONG_ANSWER_REASON)


def test_offline_grader_thresholds_are_inclusive() -> None:
    five_words = "one two three four five"
    assert offline_grade(five_words, five_words).score == 1.0
    sixty = "a" * 30 + " <AND> " + "b" * 30
    assert offline_grade(sixty, "a" * 30 + " " + "b" * 30).score == 1.0


@pytest.mark.parametrize("prediction", ["", "   ", "\n\t"])
def test_offline_grader_empty_answer_is_zero(prediction: str) -> None:
    assert offline_grade("-1 <AND> -5", prediction) == OfflineGrade(0.0, EMPTY_ANSWER_REASON)
    assert offline_grade("a long answer " * 10, prediction) == OfflineGrade(
        0.0, EMPTY_ANSWER_REASON
    )


def test_offline_grader_without_anything_to_match_needs_a_human() -> None:
    assert offline_grade("", "x = 1") == OfflineGrade(None, NO_GROUND_TRUTH_REASON)
    assert offline_grade(" <OR> ", "x = 1") == OfflineGrade(None, NO_GROUND_TRUTH_REASON)
    assert offline_grade("?", "x = 1").score is None


@given(st.text(max_size=30), st.text(max_size=60))
def test_offline_grade_is_a_tenth_or_none(truth: str, prediction: str) -> None:
    grade = offline_grade(truth, prediction)
    assert grade.reason
    assert grade.score is None or grade.score in {i / 10 for i in range(11)}


@pytest.mark.parametrize(
    ("truth", "prediction", "grade"),
    [
        ("red", "It is not red, it is blue.", OfflineGrade(0.0, "matched 0 of 1; negated: 'not red'")),
        ("red", "It isn't red.", OfflineGrade(0.0, "matched 0 of 1; negated: 'not red'")),
        ("red", "It isn\u2019t red.", OfflineGrade(0.0, "matched 0 of 1; negated: 'not red'")),
        ("red", "It's not a red car.", OfflineGrade(0.0, "matched 0 of 1; negated: 'not a red'")),
        ("red", "Neither red nor blue.", OfflineGrade(0.0, "matched 0 of 1; negated: 'neither red'")),
        ("red apple", "There is no red apple.", OfflineGrade(0.0, "matched 0 of 1; negated: 'no red apple'")),
        ("4", "There are not 4, there are 5.", OfflineGrade(0.0, "matched 0 of 1; negated: 'not 4'")),
        ("yes", "No, it is not yes.", OfflineGrade(0.0, "matched 0 of 1; negated: answers 'no'")),
        ("yes", "no", OfflineGrade(0.0, "matched 0 of 1; negated: answers 'no'")),
        ("no", "Yes, there is no dog.", OfflineGrade(0.0, "matched 0 of 1; negated: answers 'yes'")),
        (
            "kitchen <AND> bedroom",
            "The kitchen, not the bedroom.",
            OfflineGrade(0.5, "matched 1 of 2: kitchen; negated: 'not the bedroom'"),
        ),
    ],
)  # fmt: skip
def test_offline_grader_does_not_credit_an_answer_that_negates_the_gold(
    truth: str, prediction: str, grade: OfflineGrade
) -> None:
    assert offline_grade(truth, prediction) == grade


@pytest.mark.parametrize(
    ("truth", "prediction"),
    [
        ("yes", "Yes, there is no doubt."),
        ("yes", "No doubt, yes."),
        ("red", "No, it is red."),  # the clause ends at the comma
        ("red", "Not blue but red."),
        ("red", "There is no doubt it is red."),  # too far from "red" to govern it
        ("red", "It is not only red."),
        ("red", "Is it not red? Yes, it is red."),  # one free mention is enough
        ("no", "No, it is not."),
        ("4", "4, not 5."),
        ("3.5", "Not 3, 3.5."),
    ],
)
def test_offline_grader_credits_a_gold_that_a_negation_does_not_govern(
    truth: str, prediction: str
) -> None:
    assert offline_grade(truth, prediction).score == 1.0


@pytest.mark.parametrize(
    ("truth", "prediction", "score"),
    [
        ("6", "six", 1.0),
        ("6", "There are Six cats.", 1.0),
        ("six", "6", 1.0),
        ("five apples", "5", 1.0),
        ("0", "zero", 1.0),
        ("13", "thirteen", 1.0),
        ("40", "forty", 1.0),
        ("21", "twenty-one", 1.0),
        ("21", "Twenty one", 1.0),
        ("99", "ninety-nine", 1.0),
        ("4", "four or five", 0.5),  # a hedge in words is still a hedge
        ("6", "the sixth", 0.0),  # ordinals are not numbers
        ("20", "the twenty-first", 0.0),
        ("7", "seventeen", 0.0),
        ("70", "seven", 0.0),
        ("1", "one hundred", 0.0),  # larger numbers in words are not read
        ("2", "two thirds", 0.0),
        ("6", "sixes", 0.0),
    ],
)
def test_offline_grader_reads_number_words(truth: str, prediction: str, score: float) -> None:
    assert offline_grade(truth, prediction).score == score


@pytest.mark.parametrize(
    ("truth", "prediction", "score"),
    [
        ("apple", "Two apples.", 1.0),
        ("apples", "an apple", 1.0),
        ("box", "boxes", 1.0),
        ("boxes", "a box", 1.0),
        ("berry", "berries", 1.0),
        ("berries", "a berry", 1.0),
        ("tomato", "tomatoes", 1.0),
        ("glass", "glasses", 1.0),
        ("red apple", "red apples", 1.0),
        ("day", "days", 1.0),
        ("mouse", "mice", 0.0),  # irregular plurals are not known
        ("day", "daies", 0.0),
        ("it", "its", 0.0),  # too short to tell a plural
        ("cat", "category", 0.0),
    ],
)
def test_offline_grader_matches_regular_plurals(truth: str, prediction: str, score: float) -> None:
    assert offline_grade(truth, prediction).score == score


def test_best_offline_grade_keeps_the_best_of_every_ground_truth() -> None:
    assert best_offline_grade(["red", "crimson"], "Crimson.") == OfflineGrade(
        1.0, "ground truth 2 of 2: matched 1 of 1: crimson"
    )
    assert best_offline_grade(["red <AND> round", "crimson"], "A red ball.") == OfflineGrade(
        0.5, "ground truth 1 of 2: matched 1 of 2: red; missing: round"
    )
    assert best_offline_grade(["red", "crimson"], "It is not red, it is blue.") == OfflineGrade(
        0.0,
        "matched none of 2 ground truths: red (matched 0 of 1; negated: 'not red') | "
        "crimson (matched 0 of 1; missing: crimson)",
    )
    # One ground truth alone grades as offline_grade does, and the same reason is said once.
    assert best_offline_grade(["red"], "It is red.") == offline_grade("red", "It is red.")
    assert best_offline_grade(["red", "blue"], " ") == OfflineGrade(0.0, EMPTY_ANSWER_REASON)
    assert best_offline_grade([], "red") == OfflineGrade(None, NO_GROUND_TRUTH_REASON)


def test_best_offline_grade_leaves_to_a_judge_what_a_long_ground_truth_might_credit() -> None:
    long = "a bright red stop sign with white letters"
    assert best_offline_grade(["crimson", long], "A stop sign.") == OfflineGrade(
        None, f"ground truth 2 of 2: {LONG_ANSWER_REASON}"
    )
    assert best_offline_grade([long, "stop sign"], "A stop sign.") == OfflineGrade(
        1.0, "ground truth 2 of 2: matched 1 of 1: stop sign"
    )


# A row of the examples in docs/scoring.md: | `ground truth` | answer | score | why |
_README_EXAMPLE = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| ([01]\.[0-9]) \|", re.MULTILINE)


def test_the_documented_examples_of_the_offline_grader_hold() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "scoring.md"
    heading = "## What the offline grader understands, and what it does not"
    section = page.read_text(encoding="utf-8").split(heading, 1)[1].split("\n#", 1)[0]
    examples = _README_EXAMPLE.findall(section)
    assert len(examples) >= 15
    for truth, prediction, score in examples:
        assert offline_grade(truth, prediction).score == float(score), (truth, prediction)


# --- Integrations ---------------------------------------------------------------------------


def test_integration_order_has_the_16_sets_of_table_3() -> None:
    assert len(INTEGRATION_ORDER) == 16
    assert len({frozenset(caps) for caps in INTEGRATION_ORDER}) == 16
    assert all(canonical_capabilities(caps) == caps for caps in INTEGRATION_ORDER)
    assert INTEGRATION_ORDER[0] == ("rec", "know", "gen")
    assert INTEGRATION_ORDER[8] == ("rec", "ocr", "know", "gen")  # {ocr,rec,know,gen}
    assert INTEGRATION_ORDER[-1] == ("rec", "ocr", "spat", "math")


def test_integration_title_is_in_paper_order() -> None:
    assert integration_title(("gen", "rec", "know")) == "Rec+Know+Gen"
    assert integration_title(("math", "ocr")) == "OCR+Math"
    assert integration_title(("rec",)) == "Rec"


def test_order_integrations_puts_unknown_sets_after_by_count_then_name() -> None:
    counts = {
        ("ocr",): 20,
        ("know",): 2,
        ("gen", "math"): 3,
        ("know", "rec", "gen"): 40,
        ("spat",): 2,
        ("math",): 7,
    }
    assert order_integrations(counts) == [
        ("rec", "know", "gen"),
        ("ocr",),
        ("math",),
        ("gen", "math"),
        ("know",),
        ("spat",),
    ]


def test_order_integrations_matches_sets_not_spellings() -> None:
    counts = {("know", "rec"): 2, ("rec", "know"): 3, ("spat", "gen"): 1}
    assert order_integrations(counts) == [("rec", "know"), ("gen", "spat")]


def test_one_name_per_set_whatever_the_order() -> None:
    assert canonical_capabilities(["math", "ocr"]) == canonical_capabilities("ocr,math")
    assert integration_name(["gen", "rec", "know"]) == integration_name(["rec", "know", "gen"])
    assert integration_name(["gen", "rec", "know"]) == "rec_know_gen"
