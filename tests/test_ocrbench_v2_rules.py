"""OCRBench v2's rules for its short-answer, counting and formula types
(engine.benchmarks.ocrbench.v2_rules), from the facts of the official eval.py and
vqa_metric.py (Yuliang-Liu/MultimodalOCR @ 7776efc). The answers are our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_rules as rules
from lmmreview.engine.benchmarks.ocrbench.v2 import RULES, WITH_POSITION
from lmmreview.engine.levenshtein import levenshtein

LONG = "apple pie and orange juice today"  # 6 words: scored by ANLS


@pytest.mark.parametrize(
    ("answer", "golds", "score"),
    [
        ("It says APPLE.", ["apple"], 1.0),  # short gold: a substring, lowercased
        ("apple pie and orange juice", [LONG], 1 - 6 / 32),  # ANLS 0.8125
        ("apple", [LONG], 0.0),  # ANLS under 0.5 counts 0
        ("nothing", ["x", LONG], 0.0),
        ("apple pie and orange juice today", ["pear", LONG], 1.0),  # the best gold
        ("one two three four", ["one two three four"], 1.0),  # 4 words: still short
        ("", ["apple"], 0.0),
    ],
)
def test_vqa(answer: str, golds: list[str], score: float) -> None:
    assert rules.vqa(answer, golds) == pytest.approx(score)


def test_the_case_sensitive_and_chinese_variants() -> None:
    assert rules.vqa_case_sensitive("It says Apple.", ["Apple"]) == 1.0
    assert rules.vqa_case_sensitive("It says apple.", ["Apple"]) == 0.0
    assert rules.vqa_chinese("答案 是 北京", ["北京"]) == 1.0  # spaces removed
    assert rules.vqa_chinese("a,b", ["a, b"]) == 1.0  # 2 comma parts: short
    # 4 comma parts: long, by ANLS on the spaceless forms "a,b,c,d" and "a,b,c,x"
    assert rules.vqa_chinese("a,b,c,x", ["a, b, c, d"]) == pytest.approx(1 - 1 / 7)


@pytest.mark.parametrize(
    ("answer", "score"),
    [("B", 1.0), ("(B)", 1.0), ("The answer is B", 0.0), ("b", 0.0), ("答B", 0.0)],
)  # letters only: "Theansweris B" is not "B"; case kept; Chinese characters are letters
def test_multiple_choice(answer: str, score: float) -> None:
    assert rules.multiple_choice(answer, ["B"]) == score


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("about 12", 0.8),  # 1 - 2/10
        ("10 words", 1.0),
        ("25", 0.0),  # at least twice the gold
        ("20", 0.0),
        ("4", 0.0),  # 1 - 6/10 = 0.4: not above 0.5
        ("0", 0.0),
        ("none", 0.0),  # no number
        ("12 or 10", 0.8),  # the first number counts
    ],
)
def test_counting_regression(answer: str, score: float) -> None:
    assert rules.counting_regression(answer, ["10"]) == pytest.approx(score)


def test_counting_exact_match_keeps_the_answers_case() -> None:
    assert rules.counting_exact("There are 7 words", ["7"]) == 1.0
    assert rules.counting_exact("SEVEN", ["Seven"]) == 0.0  # gold lowercased, answer not
    assert rules.counting_exact("seven", ["Seven"]) == 1.0


def test_formulas() -> None:
    assert rules.formula("$x^{2} + 1$", ["x ^ { 2 } + 1"]) == 1.0  # v1's handwritten-math rule
    assert rules.formula("X^{2}+1", ["x^{2}+1"]) == 0.0
    gold = "\\text{面积}=3"
    assert rules.formula_chinese("面积 = 3", [gold]) == 1.0  # \text{} dropped, text kept
    assert rules.formula_chinese("\\text{面积} = 3", [gold]) == 1.0
    assert rules.formula_chinese("NaN", ["nan"]) == 0.0  # read as a missing value


@pytest.mark.parametrize(
    ("kind", "method", "rule"),
    [
        ("math QA en", None, "VQA"),
        ("math QA en", "multiple choice", "multiple choice"),
        ("text recognition en", "case sensitive", "case-sensitive VQA"),
        ("reasoning VQA cn", None, "Chinese VQA"),
        ("text counting en", "regression", "counting regression"),
        ("text counting en", "exact match", "counting exact match"),
        ("formula recognition en", None, "formula"),
        ("formula recognition cn", None, "Chinese formula"),
        ("text grounding en", None, "IoU"),
        ("VQA with position en", None, WITH_POSITION),
    ],
)
def test_the_rule_of_each_type(kind: str, method: str | None, rule: str) -> None:
    assert rules.rule_of(kind, method) == rule
    assert rule in RULES or rule == WITH_POSITION


def test_edit_distance() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert rules.anls("", "") == 1.0
