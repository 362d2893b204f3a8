"""OCRBench's Benchmark: its tables (counts of right answers per question type, of their
totals; Text Recognition and the Final Score their sums; accuracy per source dataset) and
the offline rule, on a small dataset of our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench.benchmark import DATASET, OCRBENCH, TYPE
from lmmreview.engine.scoring import Outcome
from lmmreview.engine.types import QuestionType, Sample
from tests.test_breakdown import Keyed, _cells, _layout


def item(source: str, number: int, kind: str, *golds: str) -> Sample:
    return Sample(
        f"{source}/{number}", "what is written in the image?", QuestionType.OPEN, golds[0],
        golds[1:], axes={TYPE: (kind,), DATASET: (source,)},
    )  # fmt: skip


REGULAR, DIGITS = "Regular Text Recognition", "Digit String Recognition"
SCENE, MATH = "Scene Text-centric VQA", "Handwritten Mathematical Expression Recognition"
SAMPLES = [
    item("IIIT5K", 1, REGULAR, "CENTRE"),
    item("svt", 2, REGULAR, "HOTEL"),
    item("svt", 3, REGULAR, "PARK"),
    item("ORAND", 4, DIGITS, "1250"),
    item("ORAND", 5, DIGITS, "77"),
    item("STVQA", 6, SCENE, "stop", "stop sign"),
    item("textVQA", 7, SCENE, "coca cola"),
    item("HME100k", 8, MATH, "x ^ { 2 }", "x^2"),
]
RIGHT, WRONG = Outcome.of((1.0,)), Outcome.of((0.0,))


def _scored(right: set[str]) -> Keyed:
    breakdown = Keyed(_layout("ocrbench", OCRBENCH, SAMPLES), runs=1)
    breakdown.load_keyed({"m": {s.key: RIGHT if s.key in right else WRONG for s in SAMPLES}})
    return breakdown


RIGHT_KEYS = {"IIIT5K/1", "svt/3", "ORAND/4", "ORAND/5", "textVQA/7", "HME100k/8"}


def test_the_counts_per_type_and_their_sums() -> None:
    breakdown = _scored(RIGHT_KEYS)
    scores = _cells(breakdown, "ocrbench.scores")
    detail = _cells(breakdown, "ocrbench.recognition")
    assert detail[REGULAR].value == pytest.approx(2.0)  # 2 of 3: a count, not 66.7 %
    assert detail[DIGITS].value == pytest.approx(2.0)
    assert scores["Text Recognition"].value == pytest.approx(4.0)  # of 5
    assert scores[SCENE].value == pytest.approx(1.0)
    assert scores[MATH].value == pytest.approx(1.0)
    assert scores["Final Score"].value == pytest.approx(6.0)  # of 8
    assert scores["Final Score"].n == 8
    accuracy = _cells(breakdown, "ocrbench.dataset")
    assert accuracy["svt"].value == pytest.approx(50.0)  # a percentage, as the official prints
    assert accuracy["ORAND"].value == pytest.approx(100.0)


def test_the_tables_columns_say_their_totals() -> None:
    tables = _scored(set()).tables()
    assert [t.name for t in tables] == [
        "ocrbench.scores",
        "ocrbench.recognition",
        "ocrbench.dataset",
    ]
    assert [c.title for c in tables[0].columns] == [
        "Text Recognition (of 5)", f"{SCENE} (of 2)", "HMER (of 1)", "Final Score (of 8)",
    ]  # fmt: skip
    assert [c.title for c in tables[1].columns] == [f"{REGULAR} (of 3)", f"{DIGITS} (of 2)"]
    # the datasets in OCRBench.json's order, not by count
    assert [c.key for c in tables[2].columns] == [
        "IIIT5K",
        "svt",
        "ORAND",
        "STVQA",
        "textVQA",
        "HME100k",
    ]
    assert _cells(_scored(set()), "ocrbench.scores")["Final Score"].value == 0.0


def test_a_changed_answer_updates_the_counts_as_a_full_recompute() -> None:
    breakdown = _scored(set())
    for key in sorted(RIGHT_KEYS):
        breakdown.put("m", key, RIGHT)
    assert breakdown.tables() == _scored(RIGHT_KEYS).tables()
    assert breakdown.row_cells("m", "svt/3")["ocrbench.recognition/" + REGULAR].value == 2.0


@pytest.mark.parametrize(
    ("index", "answer", "score", "said"),
    [
        (0, "The word is Centre.", 1.0, "a gold occurs in the answer (the general rule)"),
        (5, "A STOP SIGN", 1.0, "a gold occurs"),  # the second gold, lowercased
        (7, "$x^{2}$", 1.0, "a gold occurs in the answer (the handwritten-math rule)"),
        (7, "X^2", 0.0, "no gold occurs in the answer (the handwritten-math rule)"),
    ],
)
def test_the_offline_rule_is_the_official_match(
    index: int, answer: str, score: float, said: str
) -> None:
    judgment = OCRBENCH.offline(SAMPLES[index], answer)
    assert judgment is not None
    assert judgment.score == score and judgment.reply.startswith(said)
    assert OCRBENCH.judge_work(SAMPLES[index]) is None  # no judge: the rule decides all
