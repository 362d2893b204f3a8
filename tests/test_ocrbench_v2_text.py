"""OCRBench v2's text-similarity rules (engine.benchmarks.ocrbench.v2_text): the mean of
BLEU, METEOR, the token-set F-measure and 1 - the normalised edit distance, as the
official page_ocr_metric.py computes them with nltk and jieba, and the handwritten
letters rule of eval.py (Yuliang-Liu/MultimodalOCR @ 7776efc). The answers are our own;
the figures were derived by hand where they can be, and each equals the official
cal_per_metrics on the same texts."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_parsing as parsing
from lmmreview.engine.benchmarks.ocrbench import v2_text as text
from lmmreview.engine.benchmarks.ocrbench.v2_extra import not_installed

# Four words, all right: BLEU 1, F 1, distance 0, METEOR 1 - 0.5 * (1 chunk / 4)^3.
SAME_FOUR = (3 + 1 - 0.5 / 64) / 4


@pytest.mark.parametrize(
    ("answer", "gold", "score"),
    [
        ("open late every day", "open late every day", SAME_FOUR),
        ("the cat sat on the mat", "the cat sat on the mat", (3 + 1 - 0.5 / 216) / 4),
        ("x", "y z", 0.0),  # no common token; 3 edits of 3 characters
        ("我爱北京天安门", "我爱北京", 0.5945980542754737),  # jieba's words
        ("a cat was sitting on the rug", "the cat sat on the mat", 0.3458073119958366),
    ],
)
def test_the_measures(answer: str, gold: str, score: float) -> None:
    assert text.measures(answer, gold) == pytest.approx(score, rel=1e-12)


def test_meteor_reads_wordnet_synonyms_from_the_package() -> None:
    # one word matched by WordNet 3.0 (car ~ auto): F 1, penalty 0.5 * (1/1)^3
    assert text.tools().meteor(["auto"], ["car"]) == 0.5
    assert text.tools().meteor(["auto"], ["pear"]) == 0.0
    # stems are matched first, and a stem has no synonyms: automobil ~ car is no match
    assert text.tools().meteor(["car"], ["automobile"]) == 0.0
    # BLEU ~0 (no 4-gram: nltk's tiny value), METEOR 1 - 0.5 / 64, F 3/4, 1 - 4/15
    assert text.measures("the car is red", "the auto is red") == pytest.approx(
        (0 + (1 - 0.5 / 64) + 0.75 + (1 - 4 / 15)) / 4
    )


def test_an_undefined_f_measure_counts_0() -> None:
    # whitespace only: no token, nltk's F-measure is None (the official en types count 0)
    assert text.measures("   ", "abc") == 0.0


def test_empty_answers() -> None:
    assert text.page_text("", ["open late"]) == 0.0
    assert text.essay("", ["open late"]) == 0.0  # measured: 0 + 0 + 0 + (1 - 1)


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("AB", 1.0), ("A、B", 1.0), ("选 A和B", 1.0), ("A; B", 1.0), ("A. B", 1.0),
        ("A / B", 0.0), ("B, A", 0.0), ("ab", 0.0), ("A", 0.0),
    ],
)  # fmt: skip
def test_handwritten_letters(answer: str, score: float) -> None:
    assert text.letters(answer, ["AB"]) == score


def test_a_single_letter_is_a_substring() -> None:
    assert text.letters("答案是C。", ["C"]) == 1.0


def test_a_library_not_installed_is_named_with_the_extra() -> None:
    assert not_installed("json", "lmmreview_no_such_module") == (
        "lmmreview_no_such_module is not installed: pip install 'lmmreview[ocrbench-v2]'"
    )
    assert text.missing() is None and parsing.missing() is None  # the test extra has them
