"""LLaVA-Bench (in-the-wild)'s rules (engine.benchmarks.llava_bench.rules), from the facts of
the official eval_gpt_review_bench.py and summarize_gpt_review.py (haotian-liu/LLaVA @
ce1aa08). No reviews are published (and the judge gpt-4-0314 is retired), so these are
worked examples of each rule; the reviews are our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.llava_bench import rules

FAILED = (-1.0, -1.0)  # what the official code records for a review that does not read


@pytest.mark.parametrize(
    ("review", "scores"),
    [
        ("9 7\nAssistant 1 is more detailed.", (9.0, 7.0)),
        ("8.5 6", (8.5, 6.0)),
        ("7,8\nBoth are fine.", (7.0, 8.0)),  # a comma is a space
        ("8, 9", None),  # comma then space: two spaces, three parts
        ("8 9 ", None),  # a trailing space is a third, empty part
        ("8  9", None),  # two spaces
        ("Assistant 1: 8", None),
        ("Assistant 1: 8\nAssistant 2: 9", None),
        ("eight nine", None),  # two parts, not numbers
        ("", None),
        ("\n8 9", None),  # only the first line counts
    ],
)
def test_first_line_reads_as_two_scores(review: str, scores: tuple[float, float] | None) -> None:
    assert rules.parse_scores(review) == scores


def test_review_input_puts_the_first_answer_as_assistant_1() -> None:
    text = rules.review_input(rules.context(["A cat.", "On a mat."]), "What?", "ref", "model")
    assert text.startswith("[Context]\nA cat.\nOn a mat.\n\n[Question]\nWhat?\n\n")
    assert "[Assistant 1]\nref\n\n[End of Assistant 1]\n\n[Assistant 2]\nmodel\n\n" in text
    assert "[End of Assistant 2]\n\n[System]\nWe would like to request" in text
    assert text.endswith("does not affect your judgment.\n\n")
    assert rules.context("One sentence.") == "One sentence."


def test_a_failed_review_pulls_both_means_down() -> None:
    # (8, 7), (9, 9) and a failed review: 16/3 -> 5.333 and 15/3 -> 5.0 (rounded first)
    with_failure = rules.means([(8, 7), (9, 9), FAILED])
    assert with_failure == (5.333, 5.0)
    assert rules.relative(*with_failure) == 93.8
    assert rules.relative(*rules.means([(8, 7), (9, 9)])) == 94.1  # (8.5, 8.0)


def test_overall_is_the_ratio_of_all_questions_means() -> None:
    conv, detail = [(8.0, 6.0), (8.0, 6.0)], [(6.0, 6.0)]
    assert rules.relative(*rules.means(conv)) == 75.0
    assert rules.relative(*rules.means(detail)) == 100.0
    assert rules.means(conv + detail) == (7.333, 6.0)
    assert rules.relative(*rules.means(conv + detail)) == 81.8  # not (75 + 100) / 2


def test_means_are_rounded_before_the_ratio() -> None:
    # 2/3 and 1/3 rounded first: 0.333 / 0.667 = 49.9, not 50.0
    assert rules.relative(*rules.means([(1, 0), (1, 1), (0, 0)])) == 49.9


def test_table_cells_hold_means_times_ten() -> None:
    # cells of 53.333... and 50.0 are the means 5.333 and 5.0 of the first example
    assert rules.relative_of_cells(50.0, 160 / 3) == 93.8
    assert rules.order_effect(50.0, 160 / 3, 60.0, 60.0) == 6.2  # 100.0 - 93.8
    assert rules.relative(0.0, 5.0) != rules.relative(0.0, 5.0)  # NaN: no reference score
