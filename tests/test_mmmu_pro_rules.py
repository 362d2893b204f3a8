"""MMMU-Pro's parser, rule by rule from SCORING.md section 4, then the official GPT-4o outputs."""

from __future__ import annotations

import ast
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import FIXTURES, needs_fixture
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mmmu.rules import MmmuVerdict
from lmmreview.engine.benchmarks.mmmu_pro.rules import judge, parse_choice
from lmmreview.engine.types import QuestionType, Sample

OPTIONS = dict(zip("ABCDEFGHIJ", ["Josef Albers", "George Eastman", "Gosnell Hall", "Tea Server 1925",
                                  "Paris", "Rome", "Oslo", "Lima", "Quito", "Bern"], strict=True))  # fmt: skip


def choice(response: str, options: dict[str, str] = OPTIONS, key: str = "k") -> tuple[str, str]:
    return parse_choice(response, options, key)


# --- (1) the text after the last "Answer:" ----------------------------------------------------------


def test_one_letter_after_the_last_answer_mark() -> None:
    assert choice("Answer: B") == ("B", "answer_line")
    assert choice("(C) is tempting.\nAnswer: **J**") == ("J", "answer_line")
    # The last mark counts: the first one's B is not looked at.
    assert choice("Answer: B\nOn second thought, Answer: D") == ("D", "answer_line")


def test_the_answer_mark_is_a_plain_substring_test_over_the_letters() -> None:
    # A and B both occur after the mark: no unique letter, so rule (2) decides: (B).
    assert choice("Answer: (B) because A is wrong") == ("B", "paren")
    # "The" holds no letter A-J ("T", "h", "e"): B is the only one.
    assert choice("Answer: The answer is B") == ("B", "answer_line")
    # Case-sensitive, as the letters are: "answer:" is no mark, and "b" is no letter.
    assert choice("answer: B\nI first said (C)") == ("C", "paren")
    assert choice("Answer: b")[1] == "fallback"


def test_letters_beyond_the_options_do_not_count_after_the_mark() -> None:
    four = dict(list(OPTIONS.items())[:4])
    assert choice("Answer: E or B", four) == ("B", "answer_line")  # E is no option here


# --- (2) MMMU-like rules on the whole response ---------------------------------------------------------


def test_parenthesised_letter_first() -> None:
    assert choice("I think (C) fits") == ("C", "paren")
    assert choice("A is wrong, (C) is right") == ("C", "paren")  # (X) before X
    assert choice("(D) no wait (A)") == ("A", "paren")  # the last (X) wins


def test_letter_then_space_needs_no_space_before_it() -> None:
    # MMMU needs " X "; MMMU-Pro takes "X " anywhere, so "J. A dramatic" finds A, not J.
    assert choice("J. A dramatic increase") == ("A", "letter")
    assert choice("xB is it") == ("B", "letter")
    assert choice("B") == ("B", "letter")  # padded: " B "


def test_letter_then_point_when_no_letter_then_space() -> None:
    assert choice("see xC.y.") == ("C", "letter_dot")
    # A final "C." loses its point to the stripping, and the padding makes it "C ".
    assert choice("see option.C.") == ("C", "letter")


def test_the_latest_spaced_letter_wins_and_unspaced_ones_lose_ties_to_the_first() -> None:
    assert choice("A or maybe D") == ("D", "letter")
    # Found as "X " both; neither occurs as " X ": rfind is -1 for both, the first wins.
    assert choice("xD xA ") == ("A", "letter")
    assert choice("xA xD ") == ("A", "letter")
    # D occurs as " D ", A only inside "xA ": D is later by the spaced measure.
    assert choice("D then xA ") == ("D", "letter")
    # Ten options make "I " a letter: "GEORGE " holds "E " too, measured -1 as " E ".
    assert choice("I think it is GEORGE EASTMAN") == ("I", "letter")
    # Found as "X." both, measured by " X ", which cannot occur (else "X " would have found
    # it): every measure is -1, and the first option wins.
    assert choice("xC.yB.z") == ("B", "letter_dot")


def test_edge_punctuation_is_stripped_but_not_whitespace() -> None:
    assert choice("'(C)'!") == ("C", "paren")
    assert choice("B\n")[1] == "fallback"  # " B\n ": neither "B " nor "B."
    assert choice("B \n") == ("B", "letter")
    assert choice("B.") == ("B", "letter")  # the point goes, the padding adds the space


def test_option_text_only_beyond_five_words_and_the_latest_wins() -> None:
    assert choice("i think it was made by george EASTMAN") == ("B", "option_text")
    assert choice("It is by George Eastman")[1] == "fallback"  # five words
    assert choice("Not George Eastman nor Josef Albers but surely Josef Albers") == (
        "A",
        "option_text",
    )


def test_a_blank_option_text_matches_nothing() -> None:
    # The official code would find "" in every long response; we do not (SCORING.md s. 3).
    options = {"A": " ", "B": "gray cat"}
    assert choice("it could have been the gray cat there", options) == ("B", "option_text")
    assert choice("none of these six words match", options)[1] == "fallback"


# --- (3) the seeded, marked fallback ------------------------------------------------------------------


def test_the_fallback_is_seeded_per_sample_and_marked() -> None:
    first = choice("no idea", key="test_Art_8")
    random.seed(1)
    assert choice("hmm", key="test_Art_8") == first
    assert first[1] == "fallback" and first[0] in OPTIONS
    picks = {choice("?", key=f"test_Art_{n}")[0] for n in range(60)}
    assert picks <= set(OPTIONS) and len(picks) > 1


def test_no_options_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs options"):
        parse_choice("A", {}, "k")


@given(st.text(max_size=80), st.text(max_size=20))
def test_the_choice_is_always_one_of_the_letters(response: str, key: str) -> None:
    letter, method = parse_choice(response, OPTIONS, key)
    assert letter in OPTIONS
    assert method in {"answer_line", "paren", "letter", "letter_dot", "option_text", "fallback"}


def test_judge() -> None:
    sample = Sample("test_Art_1", "", QuestionType.CHOICE, "B", options=OPTIONS)
    assert judge(sample, "Answer: B") == MmmuVerdict("B", True, "answer_line", False)
    assert judge(sample, "(A)") == MmmuVerdict("A", False, "paren", False)
    assert judge(sample, "?").fallback
    assert not judge(Sample("k", "", QuestionType.CHOICE, options=OPTIONS), "B").correct


# --- The official GPT-4o outputs (standard, 10 options) ----------------------------------------------

FILES = {prompt: FIXTURES / "mmmu-pro" / f"gpt-4o_standard(10 options)_{prompt}.jsonl"
         for prompt in ("cot", "direct")}  # fmt: skip


@dataclass(frozen=True)
class Judged:
    """Our verdict on one record of an official output file beside the official one."""

    key: str
    ours: MmmuVerdict
    official: str  # pred_indexs
    official_right: bool  # if_right


def _judged(record: dict[str, Any]) -> Judged:
    texts = ast.literal_eval(record["options"])
    options = {chr(ord("A") + i): str(text) for i, text in enumerate(texts)}
    sample = Sample(record["id"], "", QuestionType.CHOICE, record["answer"], options=options)
    ours = judge(sample, record["response"])
    return Judged(record["id"], ours, record["pred_indexs"], record["if_right"])


def _official(prompt: str) -> list[Judged]:
    lines = FILES[prompt].read_text(encoding="utf-8").splitlines()
    return [_judged(json.loads(line)) for line in lines if line.strip()]


@needs_fixture("mmmu-pro")
@pytest.mark.parametrize("prompt", ["cot", "direct"])
def test_every_non_fallback_verdict_equals_the_official_one(prompt: str) -> None:
    judged = _official(prompt)
    assert len(judged) == 1730
    differ = [
        (j.key, j.ours, j.official)
        for j in judged
        if not j.ours.fallback
        and (j.ours.prediction, j.ours.correct) != (j.official, j.official_right)
    ]
    assert differ == []


@needs_fixture("mmmu-pro")
@pytest.mark.parametrize(("prompt", "official", "fallbacks"), [("cot", 952, 0), ("direct", 695, 7)])
def test_the_official_accuracy_from_our_verdicts_and_the_fallback_ids(
    prompt: str, official: int, fallbacks: int
) -> None:
    """README: cot 952/1730 (no fallback), direct 695/1730 give or take its 7 fallbacks."""
    judged = _official(prompt)
    fallback = [j for j in judged if j.ours.fallback]
    right = sum(j.ours.correct for j in judged if not j.ours.fallback)
    assert len(fallback) == fallbacks
    assert right <= official <= right + fallbacks
    # The file records one run of the official code: its fallbacks' luck completes our count.
    recorded = sum(j.official_right for j in judged)
    assert right + sum(j.official_right for j in fallback) == recorded
    assert round(100 * recorded / 1730, 2) == {"cot": 55.03, "direct": 40.12}[prompt]
