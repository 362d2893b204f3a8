"""MMBench choice extraction and CircularEval, as SCORING.md section 2 states them."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mmbench.rules import (
    EXTRACTION_PROMPT_VERSION,
    L2_ABBREVIATIONS,
    L3_ABILITIES,
    OPTION_LETTERS,
    Extraction,
    extract_offline,
    extraction_prompt,
    fallback_choice,
    match_choice,
    parse_extraction_reply,
)
from lmmreview.engine.scoring import unit_passes

FOUR = {"A": "teddy bear", "B": "rabbit", "C": "cat", "D": "dog"}
THREE = {"A": "teddy bear", "B": "rabbit", "C": "cat"}


# --- the ability hierarchy ---------------------------------------------------------------


def test_l3_abilities_are_the_twenty_leaves_grouped_in_l2_order() -> None:
    assert len(L3_ABILITIES) == 20
    parents = list(L3_ABILITIES.values())
    assert set(parents) == set(L2_ABBREVIATIONS)
    groups = list(dict.fromkeys(parents))  # L-2 abilities in order of first appearance
    assert groups == list(L2_ABBREVIATIONS)
    assert parents == sorted(parents, key=groups.index)  # each L-2 group is contiguous
    assert [parents.count(l2) for l2 in L2_ABBREVIATIONS] == [5, 4, 3, 3, 3, 2]


@pytest.mark.parametrize(
    ("l3", "l2"),
    [
        ("image_style", "coarse_perception"),
        ("image_topic", "coarse_perception"),
        ("celebrity_recognition", "finegrained_perception (instance-level)"),
        ("OCR", "finegrained_perception (instance-level)"),
        ("action_recognition", "finegrained_perception (cross-instance)"),
        ("physical_property_reasoning", "attribute_reasoning"),
        ("nature_relation", "relation_reasoning"),
        ("structuralized_imagetext_understanding", "logic_reasoning"),
        ("future_prediction", "logic_reasoning"),
    ],
)
def test_l3_ability_parents(l3: str, l2: str) -> None:
    assert L3_ABILITIES[l3] == l2


def test_l3_abilities_follow_the_paper_tables_within_a_group() -> None:
    coarse = [l3 for l3, l2 in L3_ABILITIES.items() if l2 == "coarse_perception"]
    assert coarse == ["image_style", "image_scene", "image_emotion", "image_quality", "image_topic"]


# --- step 1: matching --------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    ["C", "C.", "(C)", "C,", "(C).", "C)", "C:", "The answer is C.", "**C**", "C. cat"],
)
def test_letter_forms_are_matched(answer: str) -> None:
    assert match_choice(answer, FOUR) == "C"


@pytest.mark.parametrize(
    "answer",
    [
        "A",
        "A.",
        "A)",
        "(A)",
        "A:",
        "A,",
        "The answer is A",
        "The answer is A.",
        "Option A",
        "Option A is correct",
        "Option A fits best",
        "The answer is A because of its fur",  # after a cue word, even before a word
        "My choice: A because the bear is brown",
        "Answer: A",
        "My choice: A",
        "I would pick A",  # last word of the answer
        "A\nBecause it is brown.",  # an article never ends a line
    ],
)
def test_a_as_the_choice(answer: str) -> None:
    assert match_choice(answer, THREE) == "A"


def test_a_comma_followed_by_words_is_the_choice() -> None:
    # Only a bare A before a word is the article; the article never takes a comma.
    assert match_choice("A, because the bear is brown", THREE) == "A"


def test_a_followed_by_a_verb_or_a_dash_is_the_choice() -> None:
    assert match_choice("A is the correct answer", THREE) == "A"
    assert match_choice("A - teddy bear", THREE) == "A"


def test_the_article_a_is_skipped() -> None:
    assert match_choice("A dog is sitting", THREE) is None


def test_the_article_a_is_skipped_and_the_option_text_decides() -> None:
    assert match_choice("A dog is sitting", FOUR) == "D"


def test_the_article_a_does_not_hide_another_letter() -> None:
    assert match_choice("A small animal: B", FOUR) == "B"


@pytest.mark.parametrize("answer", ["A or B", "B and C", "A. or (C)", "B, C", "It is B, not D"])
def test_several_letters_give_no_result(answer: str) -> None:
    assert match_choice(answer, FOUR) is None


def test_the_same_letter_twice_is_one_match() -> None:
    assert match_choice("C. The answer is C.", FOUR) == "C"


def test_a_letter_that_is_not_an_option_is_ignored() -> None:
    assert match_choice("D", THREE) is None
    assert match_choice("D or B", THREE) == "B"


def test_empty_option_texts_are_not_valid_options() -> None:
    assert match_choice("D", {**THREE, "D": ""}) is None
    assert match_choice("D", {**THREE, "D": "  "}) is None


def test_lower_case_letters_are_words_not_letters() -> None:
    assert match_choice("b", FOUR) is None


@pytest.mark.parametrize("answer", ["", "   ", "\n"])
def test_empty_answer_gives_no_result(answer: str) -> None:
    assert match_choice(answer, FOUR) is None


def test_option_text_alone_names_the_option() -> None:
    assert match_choice("I think it's a rabbit", FOUR) == "B"
    assert match_choice("A TEDDY BEAR, clearly", FOUR) == "A"


def test_two_option_texts_give_no_result() -> None:
    assert match_choice("a rabbit next to a cat", FOUR) is None


def test_option_text_must_be_whole_words() -> None:
    assert match_choice("this category is hard", FOUR) is None  # "cat" inside "category"
    assert match_choice("rabbits", FOUR) is None
    assert match_choice("a bobcat", FOUR) is None


def test_an_option_text_inside_a_longer_one_does_not_count() -> None:
    options = {"A": "cat", "B": "black cat", "C": "dog"}
    assert match_choice("It shows a black cat.", options) == "B"
    assert match_choice("A black cat chasing a cat.", options) is None


def test_options_with_the_same_text_name_neither() -> None:
    assert match_choice("a cat", {"A": "cat", "B": "Cat", "C": "dog"}) is None


def test_option_text_ignores_trailing_punctuation_and_spacing() -> None:
    options = {"A": "The cup is on the table.", "B": "The cup is under the table."}
    assert match_choice("the cup is   on the table", options) == "A"


def test_letters_win_over_option_texts() -> None:
    assert match_choice("B, not the rabbit", FOUR) == "B"
    assert match_choice("C, the rabbit", FOUR) == "C"


# --- step 2: the LLM prompt and its reply ------------------------------------------------


def test_extraction_prompt_has_the_paper_examples_and_ends_with_the_question() -> None:
    prompt = extraction_prompt("What is the animal", FOUR, "a fluffy rabbit")
    assert prompt.startswith("You are an AI assistant to help me matching an answer")
    assert (
        "Your should output a single uppercase character in A, B, C, D "
        "(if they are valid options), and X. \n" in prompt
    )
    example_options = "Options: A. teddy bear B. rabbit C. cat D. dog\n"
    assert "Example 1: \nQuestion: What is the main object in image?\n" + example_options in prompt
    assert "Answer: a cute teddy bear\nYour output: A\n" in prompt
    assert "Example 2: \n" in prompt and "Answer: Spider\nYour output: X\n" in prompt
    assert prompt.endswith(
        "Example 3: \nQuestion: What is the animal?\n" + example_options
        + "Answer: a fluffy rabbit\nYour output: "
    )  # fmt: skip


def test_extraction_prompt_renders_only_valid_options() -> None:
    prompt = extraction_prompt("Which", {"A": "yes", "B": " no ", "C": "", "D": ""}, "no")
    assert "\nOptions: A. yes B. no\nAnswer: no\n" in prompt
    # The instruction keeps the paper's fixed letters, whatever the options.
    assert "in A, B, C, D (if they are valid options)" in prompt


def test_extraction_prompt_keeps_braces_in_the_inputs() -> None:
    prompt = extraction_prompt("What is {x}", {"A": "{y}", "B": "z"}, "{y}")
    assert "Question: What is {x}?\nOptions: A. {y} B. z\nAnswer: {y}\n" in prompt


def test_extraction_prompt_version_is_a_short_sha256_hex() -> None:
    assert len(EXTRACTION_PROMPT_VERSION) == 12
    assert set(EXTRACTION_PROMPT_VERSION) <= set(string.hexdigits.lower())


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("X", "X"),
        ("X.", "X"),
        ("B", "B"),
        (" B.", "B"),
        ("The answer is C", "C"),
        ("A", "A"),
        ("garbage", None),
        ("", None),
        ("B or C", None),
        ("B or X", None),
        ("rabbit", "B"),  # step 1's matcher also reads option texts
    ],
)
def test_parse_extraction_reply(reply: str, expected: str | None) -> None:
    assert parse_extraction_reply(reply, FOUR) == expected


def test_parse_extraction_reply_ignores_letters_that_are_not_options() -> None:
    assert parse_extraction_reply("D", THREE) is None


# --- step 3 and the offline mode ---------------------------------------------------------


def test_fallback_is_deterministic_per_seed_and_a_valid_label() -> None:
    for key in ("0", "17", "1000017", "validation_Art_1"):
        choice = fallback_choice(FOUR, key)
        assert choice in {*FOUR, "X"}
        assert fallback_choice(FOUR, key) == choice


def test_fallback_does_not_depend_on_the_global_random_state() -> None:
    random.seed(1)
    first = [fallback_choice(FOUR, str(i)) for i in range(20)]
    random.seed(2)
    assert [fallback_choice(FOUR, str(i)) for i in range(20)] == first


def test_fallback_varies_with_the_seed_and_reaches_every_label() -> None:
    choices = {fallback_choice(FOUR, str(i)) for i in range(200)}
    assert choices == {"A", "B", "C", "D", "X"}


def test_fallback_only_picks_valid_letters() -> None:
    choices = {fallback_choice({"A": "yes", "B": "no", "C": ""}, str(i)) for i in range(200)}
    assert choices == {"A", "B", "X"}


def test_extract_offline_matches_first() -> None:
    assert extract_offline("(B)", FOUR, "5") == Extraction("B", "matched", False)


def test_extract_offline_falls_back_and_says_so() -> None:
    extraction = extract_offline("I cannot tell", FOUR, "5")
    assert extraction == Extraction(fallback_choice(FOUR, "5"), "fallback", True)


# --- CircularEval ------------------------------------------------------------------------


def test_circular_fails_at_the_third_rotation() -> None:
    assert unit_passes([True, True, False, True]) is False


def test_circular_unknown_after_a_wrong_row_still_fails() -> None:
    assert unit_passes([True, False, None, None]) is False


def test_circular_unknown_with_none_wrong_is_unknown() -> None:
    assert unit_passes([True, None, True]) is None


def test_circular_passes_when_every_row_is_right() -> None:
    assert unit_passes([True, True, True, True]) is True
    assert unit_passes([True, True]) is True  # a two-choice question


def test_circular_rows_in_any_order() -> None:
    """In rotation order a group stops at its first wrong row: wherever it sits, it fails."""
    assert unit_passes([False, None, True, True]) is False
    assert unit_passes([True, True, True]) is True
    assert unit_passes([None, True, True]) is None


def test_circular_empty_group_is_unknown() -> None:
    assert unit_passes([]) is None


# --- properties --------------------------------------------------------------------------

option_texts = st.text(alphabet=string.ascii_letters + " .", max_size=12)
option_sets = st.dictionaries(st.sampled_from(OPTION_LETTERS), option_texts, max_size=4)
answers = st.text(
    alphabet=st.sampled_from([*string.ascii_letters, " ", "\n", ".", ",", "(", ")", ":", "X"]),
    max_size=40,
)


def _valid(options: dict[str, str]) -> set[str]:
    return {letter for letter, text in options.items() if text.strip()}


@given(answers, option_sets)
def test_match_choice_only_returns_valid_options(answer: str, options: dict[str, str]) -> None:
    choice = match_choice(answer, options)
    assert choice is None or choice in _valid(options)


@given(answers, option_sets, st.text(max_size=10))
def test_extract_offline_returns_a_valid_option_or_x(
    answer: str, options: dict[str, str], seed: str
) -> None:
    extraction = extract_offline(answer, options, seed)
    assert extraction.choice in _valid(options) | {"X"}
    assert extraction.fallback == (extraction.method == "fallback")


def test_an_answer_remembered_for_some_letters_is_read_afresh_for_others() -> None:
    """The letters an answer names are remembered by its text and the letters looked
    for: the same text against other options, or as a reply that may say X, is read again."""
    assert match_choice("D", THREE) is None  # no option D: nor a text naming one
    assert match_choice("D", FOUR) == "D"
    assert match_choice("The answer is X.", FOUR) is None
    assert parse_extraction_reply("The answer is X.", FOUR) == "X"
    assert match_choice("a rabbit", THREE) == "B"  # no letter: the option texts decide
    assert match_choice("a rabbit", {"A": "rabbit", "B": "cat"}) == "A"
