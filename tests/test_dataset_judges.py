"""Each dataset's judges, kept by triggers in `dataset_judges` (schema migration 10): listing
them and naming the ones behind a table read that small table, with the results the
grouping of every judgment gave."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from lmmreview.db.schema import JUDGE_MODEL, JUDGE_PROMPT, MIGRATIONS
from lmmreview.db.store import IN_DATASET, Store, deciding_in_dataset, judge_parameters
from lmmreview.engine.benchmarks.mmvet.rules import PROMPT_VERSION
from lmmreview.engine.scoring import USABLE, Judge, Judgment, Status, judge_names
from lmmreview.engine.types import QuestionType, Sample

DATASETS = ("first", "second")
# The second's benchmark has official offline rules: they come before the other judges.
KINDS = {"first": "generic", "second": "mme"}
MODELS = ("m1", "m2")


def _spec(kind: str, model: str, prompt: str, method: str = "", failing: float = 0.0) -> dict:
    return {"kind": kind, "model": model, "prompt": prompt, "method": method, "failing": failing}


# Judges as their judgments name them: two prompts of one LLM, a judge that sometimes fails,
# one whose every call failed, the offline rules under two versions (one judge), option
# matches (they count for every judge), imported grades, some failed.
SPECS = (
    _spec("llm", "gpt-4-0613", PROMPT_VERSION),
    _spec("llm", "gpt-4-0613", f"{PROMPT_VERSION}+shots=1"),
    _spec("llm", "judge-b", PROMPT_VERSION, failing=0.4),
    _spec("llm", "broken", PROMPT_VERSION, failing=1.0),
    _spec("offline", "", "rules-1", "rules"),
    _spec("offline", "offline rules", "rules-2", "rules", failing=0.2),
    _spec("offline", "offline rules", "rules-2", "matched"),
    _spec("imported", "gpt-4", "official grader", "imported", failing=0.3),
)


def _judgment(spec: dict, run: int, rng: random.Random) -> Judgment:
    failed = rng.random() < spec["failing"]
    return Judgment(
        run=run,
        score=None if failed else rng.choice([0.0, 0.5, 1.0]),
        status=Status.ERROR if failed else rng.choice([Status.OK, Status.FALLBACK]),
        method=spec["method"],
        kind=spec["kind"],
        judge_model=spec["model"],
        prompt_version=spec["prompt"],
    )


def _answers(store: Store) -> dict[str, list[int]]:
    """Two datasets (of two benchmarks) of four samples by two models; dataset -> answer
    ids."""
    found: dict[str, list[int]] = {}
    with store.transaction():
        for name in DATASETS:
            dataset = store.dataset_id(name, KINDS[name])
            ids = store.upsert_samples(
                dataset, [Sample(f"k{i}", "Q?", QuestionType.OPEN, "a") for i in range(4)]
            )
            for model in MODELS:
                store.add_answers(store.model_id(model), [(i, "x", "f") for i in ids.values()])
            found[name] = [a for a, _, _ in store.answer_keys(name)]
    return found


def _judge(store: Store, answers: dict[str, list[int]], seed: int, count: int) -> None:
    """`count` judgments of random judges on random answers and runs of both datasets; the
    second dataset never sees the first two judges."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        name = rng.choice(DATASETS)
        spec = rng.choice(SPECS if name == "first" else SPECS[2:])
        rows.append((rng.choice(answers[name]), _judgment(spec, rng.randrange(3), rng)))
    with store.transaction():
        store.add_judgments(rows)
        # A judge with no model and no prompt recorded (NULL, not ""), as plain SQL writes.
        store.conn.execute(
            "INSERT INTO judgments (answer_id, run, judge_kind, status, score, created_at) "
            "VALUES (?, 0, 'imported', 'ok', 1.0, 'now')",
            (answers["second"][0],),
        )


# -- the answers as the grouping of every judgment gave them (the code before migration 10)


def _grouped_judges(store: Store, dataset: str) -> list[Judge]:
    query = (
        f"SELECT l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, "
        f"MAX(l.status IN {USABLE}), MIN(l.id) FROM judgments l {IN_DATASET} "
        "GROUP BY 1, 2, 3"
    )
    found = {
        Judge(kind, model, prompt): (bool(usable), first)
        for kind, model, prompt, usable, first in store.conn.execute(query, (dataset,))
    }
    rules_first = KINDS[dataset] == "mme"
    return sorted(
        found,
        key=lambda j: (not found[j][0], (j.kind == "offline") != rules_first, found[j][1]),
    )


def _scanned_names(store: Store, dataset: str, judge: Judge | None) -> tuple[list[str], list[str]]:
    names = judge_names(_grouped_judges(store, dataset))
    query = (
        "SELECT DISTINCT j.judge_kind, COALESCE(j.judge_model, ''), "
        "COALESCE(j.prompt_hash, '') FROM judgments j "
        f"JOIN ({deciding_in_dataset(judge)}) USING (id) WHERE j.status IN {USABLE}"
    )
    rows = store.conn.execute(query, judge_parameters(dataset, judge))
    shown = {Judge.of(kind, model, prompt) for kind, model, prompt in rows}
    others = [name for j, name in names.items() if j not in shown and j != judge]
    first = names.get(judge) if judge else None
    return sorted((names[j] for j in shown if j in names), key=lambda n: (n != first, n)), others


def _grouped_counts(conn: sqlite3.Connection) -> dict[tuple, tuple[int, int, int, int]]:
    query = (
        f"SELECT s.dataset_id, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, COUNT(*), "
        f"SUM(l.status IN {USABLE}), SUM(l.method IS 'matched'), MIN(l.id) "
        "FROM judgments l JOIN answers a ON a.id = l.answer_id "
        "JOIN samples s ON s.id = a.sample_id GROUP BY 1, 2, 3, 4"
    )
    return {tuple(row[:4]): tuple(row[4:]) for row in conn.execute(query)}


def _kept_counts(conn: sqlite3.Connection) -> dict[tuple, tuple[int, int, int, int]]:
    query = (
        "SELECT dataset_id, judge_kind, judge_model, prompt, judgments, usable, matched, "
        "first_judgment_id FROM dataset_judges"
    )
    return {tuple(row[:4]): tuple(row[4:]) for row in conn.execute(query)}


def _assert_counts_kept(conn: sqlite3.Connection) -> None:
    """Every count equals the grouping's; the first id is at most the first one left."""
    grouped, kept = _grouped_counts(conn), _kept_counts(conn)
    assert kept.keys() == grouped.keys()
    for key, (judgments, usable, matched, first) in grouped.items():
        assert kept[key][:3] == (judgments, usable, matched)
        assert kept[key][3] <= first


def _assert_same_as_grouped(store: Store) -> None:
    _assert_counts_kept(store.conn)
    for dataset in DATASETS:
        judges = store.judges(dataset)
        assert judges == _grouped_judges(store, dataset)
        query = "SELECT judge_kind, judge_model, prompt FROM judges WHERE shown AND dataset = ?"
        assert [Judge(*row) for row in store.conn.execute(query, (dataset,))] == judges[:1]
        for judge in [None, *judges, Judge("llm", "never-judged", "")]:
            assert store.judge_names(dataset, judge) == _scanned_names(store, dataset, judge)


def _delete_some(conn: sqlite3.Connection, seed: int) -> None:
    """Delete judgments with plain SQL: a random third of them (but no judge's first in a
    dataset, which stays as a lower bound), and every one of one judge in one dataset."""
    firsts = {first for *_, first in _grouped_counts(conn).values()}
    ids = [i for (i,) in conn.execute("SELECT id FROM judgments") if i not in firsts]
    doomed = random.Random(seed).sample(ids, len(ids) // 3)
    with conn:
        conn.executemany("DELETE FROM judgments WHERE id = ?", [(i,) for i in doomed])
        conn.execute(
            "DELETE FROM judgments WHERE judge_model = 'judge-b' AND answer_id IN "
            "(SELECT a.id FROM answers a JOIN samples s ON s.id = a.sample_id "
            "WHERE s.dataset_id = 2)"
        )


@pytest.mark.parametrize("seed", range(4))
def test_judges_and_their_names_equal_the_grouping_of_every_judgment(
    tmp_path: Path, seed: int
) -> None:
    with Store.open(tmp_path / "j.db") as store:
        answers = _answers(store)
        _judge(store, answers, seed, 400)
        _assert_same_as_grouped(store)
        assert Judge("llm", "broken", "") in store.judges("first")  # failed-only, listed last
        _delete_some(store.conn, seed)
        assert Judge("llm", "judge-b", "") not in store.judges("second")
        _assert_same_as_grouped(store)
        with store.conn:  # a judgment changed in place moves between judges' counts
            store.conn.execute("UPDATE judgments SET status = 'error', judge_model = 'judge-b'")
        _assert_same_as_grouped(store)


def test_the_migration_counts_the_judgments_a_file_already_holds(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store.open(path) as store:
        _judge(store, _answers(store), 7, 300)
        expected = {d: store.judges(d) for d in DATASETS}
    with sqlite3.connect(path) as conn:  # back to schema 9, with the same judgments
        conn.executescript(
            "DROP TABLE errata; DROP TABLE assignments; "  # migration 14
            "ALTER TABLE reviews DROP COLUMN blind; "
            "DROP INDEX judgments_import; DROP INDEX group_verdicts_import; "  # migration 11
            "ALTER TABLE judgments DROP COLUMN import_id; DROP TABLE imports; "
            "ALTER TABLE group_verdicts DROP COLUMN import_id; "
            "DROP VIEW judges; DROP VIEW effective_scores; "  # migration 12, then 8's views
            "ALTER TABLE datasets DROP COLUMN rules_first; CREATE VIEW effective_scores AS SELECT 1; "
            "DROP TABLE dataset_judges; DROP TRIGGER dataset_judges_insert; "
            "DROP TRIGGER dataset_judges_delete; DROP TRIGGER dataset_judges_update; "
            "PRAGMA user_version = 9;" + str(MIGRATIONS[7])
        )
    with Store.open(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        _assert_counts_kept(store.conn)
        assert {d: store.judges(d) for d in DATASETS} == expected


def test_deleting_the_default_judges_first_judgment_keeps_it_the_default(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "j.db") as store:
        answers = _answers(store)["first"]
        a, b = (
            Judgment(run=0, score=1.0, kind="llm", judge_model=m) for m in ("judge-a", "judge-b")
        )
        with store.transaction():
            store.add_judgments([(answers[0], a), (answers[1], b), (answers[2], a)])
        first_id = min(i for (i,) in store.conn.execute("SELECT id FROM judgments"))
        with store.conn:
            store.conn.execute("DELETE FROM judgments WHERE id = ?", (first_id,))
        assert [j.model for j in store.judges("first")] == ["judge-a", "judge-b"]
        (row,) = store.conn.execute(
            "SELECT judgments, first_judgment_id FROM dataset_judges WHERE judge_model = 'judge-a'"
        )
        assert row == (1, first_id)  # a lower bound: the deleted id


def _tables_read(store: Store, call: Callable[[], object]) -> set[str]:
    """The tables SQLite reads a column of while `call` runs."""
    read: set[str] = set()

    def note(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table:
            read.add(table)
        return sqlite3.SQLITE_OK

    store.conn.set_authorizer(note)
    try:
        call()
    finally:
        store.conn.set_authorizer(None)
    return read


def _instructions(store: Store, call: Callable[[], object]) -> int:
    """How many SQLite virtual machine instructions `call` costs (in thousands): the work
    its queries do, whatever the machine's speed."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    store.conn.set_progress_handler(count, 1000)
    try:
        call()
    finally:
        store.conn.set_progress_handler(None, 0)
    return steps[0]


@pytest.fixture
def many_judgments(tmp_path: Path) -> Store:
    """A dataset judged by one LLM (two runs, one call failed) and the offline rules, with
    no option match: 4,000 judgments."""
    store = Store.open(tmp_path / "many.db")
    with store.transaction():
        dataset = store.dataset_id("big", "generic")
        ids = store.upsert_samples(
            dataset, [Sample(f"k{i}", "Q?", QuestionType.OPEN, "a") for i in range(1000)]
        )
        store.add_answers(store.model_id("m"), [(i, "x", "f") for i in ids.values()])
        answers = [a for a, _, _ in store.answer_keys("big")]
        llm = dict(kind="llm", judge_model="judge-a", prompt_version=PROMPT_VERSION)
        store.add_judgments([(a, Judgment(run=0, score=1.0, method="rules")) for a in answers])
        store.add_judgments(
            [(a, Judgment(run=r, score=0.5, **llm)) for a in answers for r in (0, 1)]
        )
        store.add_judgments([(a, Judgment(run=1, score=1.0, method="rules")) for a in answers])
        store.add_judgments([(answers[0], Judgment(run=1, score=None, status=Status.ERROR, **llm))])
    return store


def test_listing_a_datasets_judges_reads_no_judgment(many_judgments: Store) -> None:
    store = many_judgments
    assert _tables_read(store, lambda: store.judges("big")) == {"dataset_judges", "datasets"}
    assert "judgments" not in _tables_read(store, lambda: store.chosen_judge("big"))


def test_naming_the_judges_behind_a_table_without_option_matches_reads_few_judgments(
    many_judgments: Store,
) -> None:
    store = many_judgments
    judge = store.chosen_judge("big")
    assert judge == Judge("llm", "judge-a", "")
    assert store.judge_names("big", judge) == (["judge-a"], ["offline rules"])
    # Grouping the 4,000 judgments costs hundreds of thousands of instructions.
    assert _instructions(store, lambda: store.judge_names("big", judge)) < 5
