"""OCRBench's matching rules (engine.benchmarks.ocrbench.rules), from the facts of the
official scoring in OCRBench/example.py (Yuliang-Liu/MultimodalOCR @ f5cbec6): the general
rule, the handwritten-math rule of HME100k, and their quirks. The answers are our own; the
golds are shaped as OCRBench.json's are (a string, or a list of strings)."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench import rules

WORDS = "IIIT5K"  # a dataset the general rule reads


@pytest.mark.parametrize(
    ("answer", "golds", "right"),
    [
        ('The word is "Centre".', ["CENTRE"], True),  # lowercased, found inside the sentence
        ("CENTRES", ["CENTRE"], True),  # a substring is enough: a longer word passes
        ("CENTER", ["CENTRE"], False),
        ("  centre \n", ["CENTRE"], True),  # the answer's ends stripped
        ("centre", [" CENTRE\n"], True),  # the gold's too
        ("open\nlate", ["open late"], True),  # a newline is a space on both sides
        ("open  late", ["open late"], False),  # inner spaces kept: two are not one
        ("openlate", ["open late"], False),  # spaces are not removed outside HME100k
        (
            "\uff23\uff25\uff2e\uff34\uff32\uff25",
            ["CENTRE"],
            False,
        ),  # full-width letters are not folded
        ("Total: 12.50", ["12.50", "$12.50"], True),  # any gold of a list will do
        ("Total: $12.5", ["12.50", "$12.50"], False),  # no number reading: text only
        ("", ["CENTRE"], False),  # an empty answer is scored, and fails
        ("ß", ["SS"], False),  # lower() does not fold ß to ss
    ],
)
def test_general_rule(answer: str, golds: list[str], right: bool) -> None:
    assert rules.is_right(answer, golds, WORDS) is right


@pytest.mark.parametrize(
    ("answer", "right"),
    [
        ("$y_{2} = -1$", True),  # spaces removed: "$y_{2}=-1$" holds "y_{2}=-1"
        ("y_2 = -1", True),  # the second gold, "y_2 = - 1\n" -> "y_2=-1"
        ("Y_{2}=-1", False),  # case kept
        ("y _ {\n2 } = - 1", True),  # a newline becomes a space, then goes
        ("y\t_{2}=-1", False),  # a tab is no space: it stays
        ("y_{2}=-1.5", True),  # a substring again: the gold is inside
    ],
)
def test_handwritten_math_rule(answer: str, right: bool) -> None:
    golds = ["y _ { 2 } = - 1", "y_2 = - 1\n"]
    assert rules.is_right(answer, golds, rules.HANDWRITTEN_MATH) is right


def test_the_rule_follows_the_dataset_not_the_type() -> None:
    """The handwritten-math rule is chosen by the dataset's name, HME100k, exactly."""
    assert rules.is_right("a b", ["AB"], "IIIT5K") is False  # lowercased, spaces kept
    assert rules.is_right("a b", ["ab"], rules.HANDWRITTEN_MATH) is True
    assert rules.is_right("A B", ["ab"], rules.HANDWRITTEN_MATH) is False
    assert rules.is_right("a b", ["ab"], "hme100k") is False  # another name: the general rule


def test_types_in_the_official_order() -> None:
    assert len(rules.RECOGNITION) == 6
    assert rules.TYPES[-1] == "Handwritten Mathematical Expression Recognition"
