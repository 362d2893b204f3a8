"""MMStar's strict rule (engine.benchmarks.mmstar.rules), from the facts of the official
eval/vlmeval/evaluate/mmstar.py (@ 79e6d1c) and eval/README.md: each opening, the quirks
of reading the first character, and MG and ML. The answers are our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.mmstar import rules


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("B", "B"),  # the first character
        ("b", "B"),  # lowercased
        ("  C.  ", "C"),  # stripped
        ("D: the red one", "D"),
        ("(a)", "A"),  # "(" then the letter
        ("(A", "A"),
        ("Option c", "C"),  # "option " then the letter
        ("option\nb", "B"),  # a newline is a space
        ("The answer is D.", "D"),  # "the answer is " then the letter
        ("the answer is\na", "A"),
        ("A cat sits on the mat.", "A"),  # any first letter a-d counts as that option
        ("Based on the chart, C.", "B"),
        ("Correct answer: D", "C"),
        ("Due to the rain, A.", "D"),
        ("The answer is (B)", None),  # the 15th character is "("
        ("Answer: B", "A"),  # "a" is first
        ("Option (C)", None),  # the 8th character is "("
        ("option  b", None),  # two spaces: the 8th character is a space
        ("I think B", None),  # no opening: "i" is no option
        ("E", None),  # only A to D
        ("(", None),  # nothing after the opening
        ("option", None),
        ("", None),  # an empty answer is wrong
        ("   ", None),
        ("nan", None),  # how the official script sees a missing answer
    ],
)
def test_choice(answer: str, letter: str | None) -> None:
    assert rules.choice(answer) == letter


@pytest.mark.parametrize(
    ("answer", "gold", "right"),
    [
        ("B", "B", True),
        ("b", "B", True),
        ("B", "b", True),  # the gold is lowercased too
        ("B", " B\n", True),  # and stripped
        ("Based on the image, the answer is A.", "B", True),  # the quirk: first letter b
        ("Based on the image, the answer is A.", "A", False),
        ("The answer is (B)", "B", False),
        ("Answer: B", "A", True),
        ("Answer: B", "B", False),
        ("", "A", False),
    ],
)
def test_is_right(answer: str, gold: str, right: bool) -> None:
    assert rules.is_right(answer, gold) is right


def test_gain_and_leakage() -> None:
    # eval/README.md's LLaVA-Next-34B: S_v 52.1, S_wv 22.7, S_t 20.3 -> MG 29.4, ML 2.4
    assert rules.gain(52.1, 22.7) == pytest.approx(29.4)
    assert rules.leakage(22.7, 20.3) == pytest.approx(2.4)
    assert rules.gain(30.0, 35.0) == -5.0  # the images may hurt
    assert rules.leakage(20.0, 25.0) == 0.0  # no leakage below the language model


def test_capabilities() -> None:
    assert len(rules.CAPABILITIES) == 6
    assert len(rules.AXES) == 18
    assert [abbr for _, abbr, _ in rules.CAPABILITIES] == ["CP", "FP", "IR", "LR", "ST", "MA"]
