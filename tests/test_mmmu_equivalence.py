"""The fast MMMU parser is the plain rule of SCORING.md section 3, answer for answer.

The parser takes shortcuts for speed (one regex scan for the letter forms, a bare letter
answered at once, the seeded fallback drawn once per sample and option count, float() tried
only on text with a digit). Each test here states the rule the slow, obvious way and checks
the parser against it on many generated inputs; the parity corpus (test_mmmu_parity.py)
checks it against the official code's own results.
"""

from __future__ import annotations

import math
import random
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.mmmu import rules as mmmu
from lmmreview.engine.benchmarks.mmmu.rules import normalize_gold, parse_choice

PREFIX = "mmmu-fallback:"
SEED_KEYS = [f"validation_Subject_{n}" for n in range(600)]
OPTION_COUNTS = range(1, 11)


def _seeded_reference(letters: list[str], seed_key: str) -> str:
    """The fallback as SCORING.md states it: a fresh generator seeded by the sample's key."""
    return random.Random(f"{PREFIX}{seed_key}").choice(letters)


def _letters(count: int) -> dict[str, str]:
    return {chr(ord("A") + n): f"option {n}" for n in range(count)}


def test_fallback_equals_a_fresh_seeded_generator_for_every_key_and_option_count() -> None:
    # Every count per key, twice over: the second round is answered from the cache, so a cache
    # keyed on the sample alone would hand one count's draw to another.
    for _ in range(2):
        for seed_key in SEED_KEYS:
            for count in OPTION_COUNTS:
                options = _letters(count)
                expected = _seeded_reference(list(options), seed_key)
                assert parse_choice("?", options, seed_key) == (expected, "fallback"), (
                    seed_key,
                    count,
                )


def test_fallback_draws_depend_on_the_key_and_the_count() -> None:
    # Guards the test above from passing on a constant: the draws really vary.
    picks = {parse_choice("?", _letters(count), key)[0] for key in SEED_KEYS for count in (4, 9)}
    assert picks == set(_letters(9))


class _CountingRandom(random.Random):
    """A random.Random that counts how often a generator is created (each one is seeded)."""

    created = 0

    def __init__(self, seed: object = None) -> None:
        type(self).created += 1
        super().__init__(seed)


def test_a_samples_fallback_seeds_one_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    seed_key = f"validation_Seeded_{uuid.uuid4().hex}"  # drawn by no other test
    options = _letters(5)
    expected = _seeded_reference(list(options), seed_key)
    monkeypatch.setattr(mmmu.random, "Random", _CountingRandom)
    # Fifty models that all fail to name a letter for one sample.
    picks = {parse_choice(f"no idea {n}", options, seed_key) for n in range(50)}
    assert picks == {(expected, "fallback")}
    assert _CountingRandom.created == 1


# --- Letter forms: the rule stated with one search per letter and form ---------------------------


def _rule_choice(response: str, options: dict[str, str]) -> tuple[str, str] | None:
    """SCORING.md section 3 steps 1, 2 and 4, with one rfind per letter and form (None: no
    candidate, the random fallback)."""
    for char in ",.!?;:'":
        response = response.strip(char)
    padded = f" {response} "
    stages = [
        ("paren", padded, {letter: f"({letter})" for letter in options}),
        ("spaced", padded, {letter: f" {letter} " for letter in options}),
    ]
    if len(padded.split()) > 5:
        texts = {letter: text.lower() for letter, text in options.items() if text.strip()}
        stages.append(("option_text", padded.lower(), texts))
    for method, text, forms in stages:
        starts = {letter: text.rfind(form) for letter, form in forms.items()}
        found = {letter: start for letter, start in starts.items() if start >= 0}
        if found:
            # max keeps the first letter (the earlier option) among equal starts.
            return max(found, key=found.__getitem__), method
    return None


# Pieces that make and break letter forms: brackets, spaces, edge marks, letters glued to
# words, and multi-character keys that contain other keys.
PIECES = ["(", ")", " ", "  ", "A", "B", "C", "AB", "A B", "(A", "a", ",", ".", "!", "'", "\n"]
PIECES += ["x", "apple", "red apple", "banana", "the answer is", "Apple"]
ODD_LETTERS = ["A", "B", "C", "D", "AB", "A B", "(A", "A)", "(A)", "", " ", "a", ".", "apple"]
TEXTS = ["apple", "red apple", "banana", "", "  ", "Apple", "A", "x"]


@st.composite
def _options(draw: st.DrawFn) -> dict[str, str]:
    letters = draw(st.lists(st.sampled_from(ODD_LETTERS), min_size=1, max_size=6, unique=True))
    return {letter: draw(st.sampled_from(TEXTS)) for letter in letters}


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join), _options())
def test_letter_and_text_forms_follow_the_rule(response: str, options: dict[str, str]) -> None:
    expected = _rule_choice(response, options)
    letter, method = parse_choice(response, options, "k")
    if expected is None:
        assert method == "fallback" and letter in options
    else:
        assert (letter, method) == expected


def test_bare_letters_of_every_shape_follow_the_rule() -> None:
    # The shortcut for an answer that is a key itself, for keys with and without spaces,
    # brackets and edge marks, among keys that contain one another.
    options = dict.fromkeys(ODD_LETTERS, "t")
    for key in ODD_LETTERS:
        for answer in (key, f"{key}.", f"'{key}'", f"({key})", f" {key}"):
            expected = _rule_choice(answer, options)
            assert expected is not None, answer
            assert parse_choice(answer, options, "k") == expected, answer


# --- Numbers: float() is tried only where a digit is ---------------------------------------------


def _rule_normalise(text: str) -> list[str | float]:
    """SCORING.md section 3 step 6 as written: float() on the comma-free text; nan and inf
    (which hold no digit) stay text, a digit string too large for a float reads as infinity."""
    text = text.strip()
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        value = None
    if value is not None and (math.isfinite(value) or any(char.isdigit() for char in text)):
        return [round(value, 2)]
    text = text.lower()
    return [f" {text}", f"{text} "] if len(text) == 1 else [text]


# ASCII and other Unicode digits (float() reads Arabic-Indic and full-width ones), a
# superscript that isdigit() but float() refuses, the nan/inf words, signs, marks, exponents.
NUMBER_CHARS = [*"0123456789", "\u0663", "\uff17", "\u00b2", "nan", "inf", "infinity", "NaN"]
NUMBER_CHARS += ["-", "+", ".", ",", "_", "e", "E", " ", "x"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_CHARS), min_size=1, max_size=8).map("".join))
def test_numbers_are_read_as_the_rule_reads_them(text: str) -> None:
    if text.strip():
        assert normalize_gold(text) == _rule_normalise(text)


def test_unicode_digits_and_huge_numbers_read_as_numbers() -> None:
    assert normalize_gold("\u0663") == [3.0]  # ARABIC-INDIC DIGIT THREE
    assert normalize_gold("1e999") == [float("inf")]
    assert normalize_gold("\u00b2") == [" \u00b2", "\u00b2 "]  # isdigit(), but no number
    assert normalize_gold("-inf") == ["-inf"]
