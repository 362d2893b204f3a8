"""LLaVA-Bench's Benchmark: the relative score by category and overall from the four
samples of each question (the two scores of each order), the mean scores x 10, the order
effect, and the review judge's calls and replies, on worked examples of our own."""

from __future__ import annotations

import pytest

from lmmreview.engine import registry
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.benchmarks.llava_bench import rules
from lmmreview.engine.benchmarks.llava_bench.benchmark import (
    CAPTION,
    CATEGORY,
    LLAVA_BENCH,
    MODEL,
    OFFICIAL,
    ORDER,
    QUESTION_ID,
    REFERENCE,
    SCORED,
    SWAPPED,
    Review,
    sample_key,
)
from lmmreview.engine.llm import Reply
from lmmreview.engine.scoring import Outcome
from lmmreview.engine.types import QuestionType, Sample
from tests.test_breakdown import Keyed, _cells, _layout

SCORES = (MODEL, REFERENCE)


def question(question_id: str, category: str) -> list[Sample]:
    """A question's four samples: each order's model and reference scores."""
    return [
        Sample(
            sample_key(question_id, order, scored),
            "What is on the table?",
            QuestionType.OPEN,
            "A red teapot.",
            axes={CATEGORY: (category,), ORDER: (order,), SCORED: (scored,)},
            extra={CAPTION: "A red teapot on a table.", QUESTION_ID: question_id},
        )
        for order in (OFFICIAL, SWAPPED)
        for scored in SCORES
    ]


# conv: (8, 6), (8, 6); detail: (6, 6), as (reference, model); swapped: all (7, 7)
SAMPLES = question("0", "conv") + question("1", "conv") + question("2", "detail")
PAIRS = {"0": (8, 6), "1": (8, 6), "2": (6, 6)}


def _scored(pairs: dict[str, tuple[float, float]], swapped: tuple[float, float]) -> Keyed:
    outcomes = {}
    for qid, official in pairs.items():
        for order, pair in ((OFFICIAL, official), (SWAPPED, swapped)):
            for scored, score in zip((REFERENCE, MODEL), pair, strict=True):
                outcomes[sample_key(qid, order, scored)] = Outcome.of((score / 10,))
    breakdown = Keyed(_layout("llava", LLAVA_BENCH, SAMPLES), runs=1)
    breakdown.load_keyed({"m": outcomes})
    return breakdown


def test_it_is_installed_after_mmstar() -> None:
    names = list(registry.OWN_ORDER)
    assert names.index("llava-bench") == names.index("mmstar") + 1
    assert registry.benchmark("llava-bench") is LLAVA_BENCH


def test_relative_scores_by_category_and_overall() -> None:
    breakdown = _scored(PAIRS, (7, 7))
    relative = {k: c.value for k, c in _cells(breakdown, "llava.relative").items()}
    # overall: the ratio of all questions' means, 6 / 7.333, not (75 + 100) / 2
    assert relative == {"conv": 75.0, "detail": 100.0, "all": 81.8}
    scores = _cells(breakdown, "llava.scores")
    assert scores["model_all"].value == pytest.approx(60.0)  # x 10
    assert scores["reference_all"].value == pytest.approx(220 / 3)
    assert scores["reference_conv"].n == 2
    order = {k: c.value for k, c in _cells(breakdown, "llava.order").items()}
    assert order["official"] == 81.8 and order["swapped"] == 100.0
    assert order["all_effect"] == 18.2 and order["conv_effect"] == 25.0
    assert order["detail_effect"] == 0.0


def test_a_reference_scored_zero_everywhere_leaves_the_cell_blank() -> None:
    """The official summary divides by the reference's mean and stops at 0; the table
    shows no value there (not NaN), and the other categories keep theirs."""
    breakdown = _scored({"0": (0, 6), "1": (0, 6), "2": (6, 6)}, (7, 7))
    relative = {k: c.value for k, c in _cells(breakdown, "llava.relative").items()}
    assert relative["conv"] is None and relative["detail"] == 100.0


def test_table_names_and_sample_keys() -> None:
    assert [t.name for t in _scored(PAIRS, (7, 7)).tables()] == [
        "llava.relative", "llava.scores", "llava.swapped_scores", "llava.order",
    ]  # fmt: skip
    keys = [s.key for s in question("7", "conv")]
    assert keys == ["7", "7/reference", "7/swapped", "7/swapped/reference"]


def _item(sample: Sample, work: Review) -> JudgeItem:
    return JudgeItem(1, 0, work, sample.question, tuple(sample.golds), "A teapot.")


@pytest.mark.parametrize("sample", question("0", "conv"), ids=lambda s: s.key)
def test_review_asks_each_order_and_reads_its_scores_back(sample: Sample) -> None:
    work = LLAVA_BENCH.judge_work(sample)
    assert isinstance(work, Review)
    item = _item(sample, work)
    [call] = work.ladder(item, "judge")
    assert (call.temperature, call.max_tokens) == (0.2, 1024)
    assert call.messages[0] == ("system", rules.SYSTEM)
    swapped = sample.first(ORDER) == SWAPPED
    first, second = ("A teapot.", "A red teapot.") if swapped else ("A red teapot.", "A teapot.")
    assert f"[Assistant 1]\n{first}\n\n[End of Assistant 1]" in call.messages[1][1]
    assert f"[Assistant 2]\n{second}\n\n[End of Assistant 2]" in call.messages[1][1]
    assert call.messages[1][1].startswith("[Context]\nA red teapot on a table.\n\n")
    judgment = work.interpret(item, call, Reply("9 4\nAssistant 1 is right."))
    assert judgment is not None
    # shown first: 9; the choice orders them as the official tuple, reference first
    reference, model = (4, 9) if swapped else (9, 4)
    assert judgment.choice == f"{reference} {model}"
    whose = reference if sample.first(SCORED) == REFERENCE else model
    assert judgment.score == whose / 10
    assert judgment.prompt_version == rules.PROMPT_VERSION


@pytest.mark.parametrize("reply", ["8, 9", "11 5", "Assistant 1: 8", "-1 5"])
def test_a_review_that_does_not_read_is_unparseable(reply: str) -> None:
    sample = question("0", "conv")[0]
    work = LLAVA_BENCH.judge_work(sample)
    assert work is not None
    item = _item(sample, work)
    [call] = work.ladder(item, "judge")
    assert work.interpret(item, call, Reply(reply)) is None
    failed = work.exhausted(item, "judge", reply)
    assert (failed.score, failed.status.value, failed.reply) == (None, "unparseable", reply)


def test_both_scores_of_a_review_form_one_chain() -> None:
    chains = [LLAVA_BENCH.chain(s) for s in question("3", "conv")]
    assert chains == [(("3", OFFICIAL), 0), (("3", OFFICIAL), 1),
                      (("3", SWAPPED), 0), (("3", SWAPPED), 1)]  # fmt: skip
    work = LLAVA_BENCH.judge_work(question("3", "conv")[0])
    assert work is not None and not work.ends_chain(0.0)
