"""MME's rules (engine.benchmarks.mme.rules), from the facts of the official
eval_tool/calculation.py (tools/eval_tool.zip @ 1c1d69e): the answer's parse and its edge
cases, acc, acc+ and the subtask score, and the two totals. The answers are our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.mme import rules
from lmmreview.engine.benchmarks.mme.rules import NO, OTHER, YES


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("yes", YES),  # exact
        ("No", NO),  # lowercased first
        ("Yes, the kite is red.", YES),  # "yes," in the first four characters
        ("no, there is no kite.", NO),
        ("No.", NO),
        ("nope", NO),  # "no" in "nope"
        ("None of them", NO),  # "none": a no by the prefix
        ("not sure", NO),
        (" yes", YES),  # nothing is stripped: " yes" still holds "yes"
        ("  yes", OTHER),  # two spaces: the first four characters are "  ye"
        ("yes\n", YES),  # the line's newline stays, and the prefix holds "yes"
        ("**yes**", OTHER),  # "**ye"
        ("There is no kite.", OTHER),  # "ther": the no comes too late
        ("I think yes", OTHER),
        ("y", OTHER),  # one letter is no label
        ("", OTHER),
        ("yesno", YES),  # yes is looked for first
        ("a no", NO),  # "a no" holds "no"
        ("Kno", NO),  # any "no" in the prefix, even inside a word
    ],
)
def test_parse(answer: str, label: str) -> None:
    assert rules.parse(answer) == label


def test_other_is_wrong_whatever_the_gold() -> None:
    assert not rules.is_right("maybe", "Yes")
    assert not rules.is_right("maybe", "No")
    assert rules.is_right("No, it is not.", "No")
    assert rules.is_right("YES", "yes")


def test_subtask_counts_and_score() -> None:
    # three images: both right, one right, none right -> acc 3/6, acc+ 1/3
    found = rules.subtask([(True, True), (True, False), (False, False)])
    assert found == rules.Subtask(questions=6, right=3, images=3, both_right=1)
    assert found.acc == pytest.approx(50.0)
    assert found.acc_plus == pytest.approx(100 / 3)
    assert found.score == pytest.approx(50 + 100 / 3)


def test_a_perfect_subtask_scores_200() -> None:
    assert rules.subtask([(True, True)] * 4).score == 200.0


def test_totals_sum_subtask_scores() -> None:
    perfect = rules.subtask([(True, True)])
    half = rules.subtask([(True, False)])  # acc 50, acc+ 0
    found = {name: perfect for name in rules.PERCEPTION} | {
        "commonsense_reasoning": half,
        "code_reasoning": perfect,
    }
    assert rules.totals(found) == {"perception": 2000.0, "cognition": 250.0}


def test_groups() -> None:
    assert len(rules.PERCEPTION) == 10 and len(rules.COGNITION) == 4
    assert rules.group_of("OCR") == "perception"
    assert rules.group_of("code_reasoning") == "cognition"
