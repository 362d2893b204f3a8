"""OCRBench v2's text spotting (engine.benchmarks.ocrbench.v2_spotting): the answer's words
as extract_bounding_boxes_robust reads them, and the F-measure of the ICDAR end-to-end
evaluator that spotting_metric.py runs (Yuliang-Liu/MultimodalOCR @ 7776efc). The words
are our own; each figure equals the official evaluator's on the same texts."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_spotting as spotting


def _golds(*words: tuple[int, int, int, int, str]) -> list[str]:
    boxes = [[x1, y1, x2, y1, x2, y2, x1, y2] for x1, y1, x2, y2, _ in words]
    return [spotting.words_text(spotting.gold_words(boxes, [w[4] for w in words]))]


SALE = _golds((10, 10, 60, 30, "SALE"))


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("[[10, 10, 60, 30, 'sale']]", 1.0),  # texts compared in upper case
        ("[(10, 10, 60, 30, 'SALE', 0.9)]", 1.0),  # entries past the fifth value unread
        ("Found (12, 10, 60, 30, SALE) and [0, 0, 2000, 5, x]", 1.0),  # by brackets; > 1000
        ("[[10, 10, 60, 30, 'SALE'], [10, 10, 60, 30, 'SALE']]", 1.0),  # a repeat counts once
        ("[[10, 10, 60, 30, '\"SALE\"']]", 1.0),  # quotes stripped
        ("[[10, 10, 60, 30, 'SALE'], [0, 0, 5, 5, 'x']]", 2 / 3),  # precision 1/2, recall 1
        ("[[10, 10, 60, 20, 'SALE']]", 0.0),  # IoU 0.5 exactly: not above
        ("[[60, 30, 10, 10, 'SALE']]", 0.0),  # an inverted box is dropped
        ("[[10.0, 10, 60, 30, 'SALE']]", 0.0),  # no whole number
        ("{'SALE': [10, 10, 60, 30]}", 0.0),  # a literal that is no list
        ("SALE", 0.0),
    ],
)
def test_one_word(answer: str, score: float) -> None:
    assert spotting.text_spotting(answer, SALE) == pytest.approx(score)


@pytest.mark.parametrize(
    ("gold", "answer", "score"),
    [
        ("(SALE)", "SALE", 1.0),  # special characters of the gold's ends may be missing
        ("(SALE)", "(SALE", 1.0),
        ("SALE", "SALE!", 0.0),  # not the word's
        ("SA.LE", "SALE", 0.0),  # nor inside
    ],
)
def test_special_characters(gold: str, answer: str, score: float) -> None:
    golds = _golds((10, 10, 60, 30, gold))
    assert spotting.text_spotting(f"[[10, 10, 60, 30, {answer!r}]]", golds) == score


def test_dont_care_golds_and_the_words_on_them_are_not_counted() -> None:
    golds = _golds((0, 0, 100, 100, "###"), (200, 200, 300, 300, "OPEN"))
    answer = "[[0, 0, 100, 60, 'x'], [200, 200, 300, 300, 'open']]"
    assert spotting.text_spotting(answer, golds) == 1.0


def test_matching_is_greedy_in_the_answers_order() -> None:
    golds = _golds((0, 0, 100, 100, "A"))
    # the first word overlapping enough takes the gold, though its text is wrong
    assert spotting.text_spotting("[[0, 0, 100, 90, 'B'], [0, 0, 100, 100, 'A']]", golds) == 0.0


def test_a_gold_box_is_the_rectangle_of_its_points() -> None:
    words = spotting.gold_words([[10, 30, 60, 10, 40, 50], [1, 2]], ["a", "b", "c"])
    assert words == [
        spotting.Word((10, 10, 60, 50), "a"), spotting.Word((1, 2, 1, 2), "b"),
    ]  # fmt: skip
