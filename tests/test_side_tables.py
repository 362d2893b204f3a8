"""Store.causes and Store.group_verdicts: each dataset gets its own latest rows, and the
work follows the rows of those tables, not the answers (a million answers with no cause
must cost nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import GroupVerdict
from lmmreview.engine.types import QuestionType, Sample

MODELS = ("m1", "m2")
STEP = 100  # SQLite virtual-machine instructions between two progress-handler calls


def _database(path: Path, samples_per_dataset: int) -> dict[tuple[str, str, str], int]:
    """Datasets "a" and "b" with the same sample keys, answered by both models;
    returns (dataset, model, key) -> answer id."""
    with Store.open(path) as store, store.transaction():
        for dataset in ("a", "b"):
            samples = [
                Sample(f"k{i}", "q?", QuestionType.OPEN, "x") for i in range(samples_per_dataset)
            ]
            ids = store.upsert_samples(store.dataset_id(dataset, "generic"), samples)
            for model in MODELS:
                store.add_answers(store.model_id(model), [(i, "x", "f") for i in ids.values()])
        return {
            (dataset, model, key): answer
            for dataset in ("a", "b")
            for (model, key), answer in store.answer_ids(dataset).items()
        }


def _verdict(key: str, model: str, score: float, log: str) -> GroupVerdict:
    return GroupVerdict(key, model, score, None, "gpt", log, "hits.xlsx")


def test_each_dataset_gets_its_own_latest_causes_and_group_verdicts(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    ids = _database(db, 3)
    with Store.open(db) as store:
        reviewer = ReviewStore(store, "me")
        reviewer.set_cause(ids["a", "m1", "k0"], "perceptual")
        reviewer.set_cause(ids["a", "m1", "k0"], "reasoning")  # the latest counts
        reviewer.set_cause(ids["a", "m2", "k1"], "perceptual")
        reviewer.set_cause(ids["a", "m2", "k2"], "knowledge")
        reviewer.set_cause(ids["a", "m2", "k2"], None)  # cleared: no cause
        reviewer.set_cause(ids["b", "m2", "k0"], "textual")
        with store.transaction():
            store.add_group_verdicts(
                [
                    (ids["a", "m1", "k0"], _verdict("k0", "m1", 0.0, "first")),
                    (ids["b", "m2", "k1"], _verdict("k1", "m2", 1.0, "only")),
                    (ids["a", "m1", "k0"], _verdict("k0", "m1", 1.0, "second")),
                ]
            )
        assert sorted(store.causes("a")) == [("m1", "reasoning"), ("m2", "perceptual")]
        assert store.causes("b") == [("m2", "textual")]
        assert store.group_verdicts("a") == {
            ids["a", "m1", "k0"]: _verdict("k0", "m1", 1.0, "second")
        }
        assert store.group_verdicts("b") == {
            ids["b", "m2", "k1"]: _verdict("k1", "m2", 1.0, "only")
        }


def _instructions(store: Store, read: Callable[[], object]) -> int:
    """About how many SQLite virtual-machine instructions `read` runs (a count, not a time)."""
    calls = 0

    def count() -> int:
        nonlocal calls
        calls += 1
        return 0  # go on

    store.conn.set_progress_handler(count, STEP)
    try:
        read()
    finally:
        store.conn.set_progress_handler(None, STEP)
    return calls * STEP


def test_reading_causes_and_group_verdicts_does_not_walk_the_answers(tmp_path: Path) -> None:
    """Empty tables cost the same with 10 answers and with 4,000; a few rows stay cheap."""
    small, large = tmp_path / "small.db", tmp_path / "large.db"
    _database(small, 5)
    ids = _database(large, 2_000)
    costs = {}
    for path in (small, large):
        with Store.open(path) as store:
            costs[path] = [
                _instructions(store, lambda s=store: s.causes("a")),
                _instructions(store, lambda s=store: s.group_verdicts("a")),
            ]
    assert costs[large] == costs[small]
    with Store.open(large) as store:
        ReviewStore(store, "me").set_cause(ids["a", "m1", "k7"], "perceptual")
        with store.transaction():
            store.add_group_verdicts([(ids["b", "m2", "k3"], _verdict("k3", "m2", 1.0, "log"))])
        answers = store.conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        assert _instructions(store, lambda: store.causes("a")) < answers
        assert _instructions(store, lambda: store.group_verdicts("a")) < answers
