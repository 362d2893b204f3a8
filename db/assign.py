"""Assignments (`lmmreview assign`): a dataset's units and what is assigned already, each
reviewer's file (a copy of the database holding their assignments), every assignment
recorded in the database; and how far each reviewer is.

A reviewer's file is made under a temporary name in DIR (SQLite's backup API: a
consistent copy of a live WAL database, as a file copy is not), given that reviewer's
assignments, and linked into place in the transaction that records the assignments in
the database: all the files and the rows, or nothing (a file found in the way is never
replaced).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lmmreview.db.store import COMPANIONS, Store, StoreError, larger_cache, now
from lmmreview.engine.assign import (
    Assigned,
    Progress,
    Split,
    Unit,
    group_units,
    reviewed_by,
    safe_name,
    split,
    unassigned,
)
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.columns import Ints
from lmmreview.engine.scoring import Verdict

Report = Callable[[str], None]  # takes a progress line ("Copying results.db to team/ana.db: 40 %")
Row = tuple[int, str, bool]  # (answer, reviewer, in the overlap)

_ANSWERS = (
    "SELECT a.id, m.name, s.split, json_extract(s.extra, ?) FROM answers a "
    "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
    "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?"
)
# From the assignments to their datasets (CROSS JOIN keeps that order: SQLite would
# rather walk every answer of the dataset, 0.15 s at a million, to find none assigned).
_ASSIGNED = (
    "FROM assignments g CROSS JOIN answers a ON a.id = g.answer_id "
    "CROSS JOIN samples s ON s.id = a.sample_id CROSS JOIN datasets d ON d.id = s.dataset_id "
    "WHERE d.name = ?"
)
_INSERT = (
    "INSERT INTO assignments (answer_id, reviewer, overlap, seed, created_at) "
    "VALUES (?, ?, ?, ?, ?)"
)


@dataclass(frozen=True, slots=True)
class Plan:
    """One dataset's split: its units left to assign, split, and those skipped."""

    dataset: str
    split: Split
    units: int  # split among the reviewers
    skipped: int  # assigned already

    @property
    def answer_ids(self) -> set[int]:
        return {answer for answer, _, _ in self.split.rows()}

    @property
    def answers(self) -> int:
        return len(self.answer_ids)


def dataset_units(
    store: Store, dataset: str, benchmark: Benchmark, model: str | None = None
) -> list[Unit]:
    """The units of a dataset's answers (of `model` only, if given): an answer, or one
    model's answers to a group of samples (the benchmark's `group_by`, within a split)."""
    field = f"$.{benchmark.group_by[0]}" if benchmark.group_by else None
    query = _ANSWERS + (" AND m.name = ?" if model is not None else "")
    rows = store.conn.execute(query, (field, dataset, *([model] if model is not None else [])))
    return group_units(
        (answer, None if group is None else (name, part, group))
        for answer, name, part, group in rows
    )


def assigned_answers(store: Store, dataset: str) -> Iterator[int]:
    """The answers of a dataset assigned to anyone."""
    rows = store.conn.execute(f"SELECT g.answer_id {_ASSIGNED}", (dataset,))
    return (answer for (answer,) in rows)


def plan(
    store: Store,
    dataset: str,
    benchmark: Benchmark,
    reviewers: Sequence[str],
    overlap: float,
    seed: int,
    model: str | None = None,
) -> Plan:
    """The split of a dataset's units not assigned yet (engine.assign.split)."""
    units = dataset_units(store, dataset, benchmark, model)
    left, skipped = unassigned(units, assigned_answers(store, dataset))
    return Plan(dataset, split(left, reviewers, overlap, seed), len(left), skipped)


def assigned_to(store: Store, reviewer: str, answers: Ints) -> Assigned | None:
    """Which of `answers` (a dataset's ids) are assigned to `reviewer`, and those they gave
    a verdict that is in force (None: none is assigned to them). The reviewer's ids are
    read from the index alone and kept to the dataset's here: joined to their datasets,
    the 466,667 of a million-answer file took 0.53 s, against 0.17 s."""
    rows = store.conn.execute("SELECT answer_id FROM assignments WHERE reviewer = ?", (reviewer,))
    mine = np.fromiter((answer for (answer,) in rows), np.int64)
    kept = mine[np.isin(mine, answers)] if len(mine) else mine  # none: no sort of `answers`
    ids = frozenset(kept.tolist())
    if not ids:
        return None
    # Loaded only for a file with assignments: opening any other needs none of it.
    from lmmreview.db.reviewers import assigned_verdicts

    return Assigned(reviewer, ids, set(assigned_verdicts(store, reviewer)) & ids)


def sole_assignee(store: Store) -> str | None:
    """The reviewer a file's assignments name, when they name exactly one (a file that
    `lmmreview assign` wrote for them) by a name it could have written (a file edited to
    name "" or a line of control codes is worked on as anyone else's)."""
    # Two lookups in the reviewer index (min and max in one query read all of it)
    (first,) = store.conn.execute("SELECT min(reviewer) FROM assignments").fetchone()
    (last,) = store.conn.execute("SELECT max(reviewer) FROM assignments").fetchone()
    return first if first == last and isinstance(first, str) and safe_name(first) else None


def assigned_dataset(store: Store, reviewer: str) -> str | None:
    """The dataset of the first answer assigned to `reviewer` (None: none is)."""
    row = store.conn.execute(
        "SELECT d.name FROM answers a JOIN samples s ON s.id = a.sample_id JOIN datasets d "
        "ON d.id = s.dataset_id WHERE a.id = (SELECT min(answer_id) FROM assignments "
        "WHERE reviewer = ?)",
        (reviewer,),
    ).fetchone()
    return None if row is None else str(row[0])


def reviewer_progress(
    store: Store, dataset: str, verdicts: Mapping[int, Mapping[str, Verdict]]
) -> list[Progress]:
    """Each reviewer's assignments in a dataset, by name, done (their own verdict in force,
    from db.reviewers.reviewer_verdicts's `verdicts`) and in the overlap. Counted by
    SQLite: a million-answer file holds 1.4 million assignments, read as rows in 1.6 s."""
    rows = store.conn.execute(
        f"SELECT g.reviewer, count(*), sum(g.overlap) {_ASSIGNED} GROUP BY g.reviewer",
        (dataset,),
    )
    reviewed = reviewed_by(verdicts)
    found = []
    for reviewer, assigned, overlap in sorted(rows):
        done, overlap_done = _done(store, reviewer, reviewed.get(reviewer, []))
        found.append(Progress(reviewer, assigned, done, overlap, overlap_done))
    return found


def _done(store: Store, reviewer: str, answers: Sequence[int]) -> tuple[int, int]:
    """How many of `answers` are assigned to `reviewer`, and how many of those are in the
    overlap (one index lookup each)."""
    if not answers:
        return 0, 0
    done, overlap_done = store.conn.execute(
        "SELECT count(*), coalesce(sum(g.overlap), 0) FROM json_each(?) j "
        "CROSS JOIN assignments g ON g.answer_id = j.value AND g.reviewer = ?",
        (json.dumps(answers), reviewer),
    ).fetchone()
    return done, overlap_done


def files_for(out: Path, reviewers: Sequence[str]) -> dict[str, Path]:
    """Each reviewer's file in `out`; StoreError naming one that is in the way."""
    if out.exists() and not out.is_dir():
        raise StoreError(f"{out}: is not a folder; nothing was written")
    files = {reviewer: out / f"{reviewer}.db" for reviewer in reviewers}
    for path in files.values():
        if path.exists() or path.is_symlink():
            raise StoreError(
                f"{path}: exists already; nothing was written (move it, or give another --out)"
            )
    return files


def write_assignments(
    store: Store, plans: Sequence[Plan], seed: int, files: Mapping[str, Path], report: Report
) -> None:
    """Write each reviewer's file (`files`, from files_for) and record every assignment of
    `plans` in the database: all of it, or nothing."""
    rows = [row for p in plans for row in p.split.rows()]
    stamp = now()
    next(iter(files.values())).parent.mkdir(parents=True, exist_ok=True)
    made: dict[str, Path] = {}
    try:
        for reviewer, path in files.items():
            mine = [row for row in rows if row[1] == reviewer]
            made[reviewer] = _reviewer_copy(store, path, mine, seed, stamp, report)
        report(f"Recording the assignments in {store.path}")
        with _removed_on_failure() as linked, store.transaction(), larger_cache(store.conn):
            _require_unassigned(store, plans)
            store.conn.executemany(_INSERT, _values(rows, seed, stamp))
            for reviewer, path in files.items():
                _link(made[reviewer], path)
                linked.append(path)
    finally:
        for temporary in made.values():
            _remove(temporary)


def _require_unassigned(store: Store, plans: Sequence[Plan]) -> None:
    """StoreError unless every answer planned is unassigned still: plan() read the
    assignments outside this transaction, and another `assign` may have recorded some of
    them while the files were copied."""
    for p in plans:
        taken = p.answer_ids.intersection(assigned_answers(store, p.dataset))
        if taken:
            raise StoreError(
                f"{store.path}: {p.dataset}: {len(taken)} of the answers planned were assigned "
                "by another run meanwhile; nothing was written (run assign again to split "
                "what is left)"
            )


def _values(rows: Sequence[Row], seed: int, stamp: str) -> Iterator[tuple[int, str, int, int, str]]:
    return ((answer, reviewer, int(overlap), seed, stamp) for answer, reviewer, overlap in rows)


def _reviewer_copy(
    store: Store, path: Path, rows: Sequence[Row], seed: int, stamp: str, report: Report
) -> Path:
    """A copy of the database under a temporary name beside `path`, holding the
    assignments `rows` (one reviewer's) and no other."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")

    def told(done: int, total: int) -> None:
        report(f"Copying {store.path} to {path}: {done * 100 // max(total, 1)} %")

    try:
        told(0, 1)
        store.copy_to(temporary, told)
        with closing(sqlite3.connect(temporary)) as copy:
            # No other connection has the copy: its rollback journal can stay in memory
            # (WAL writes each page twice), as the copy's is WAL again after.
            copy.execute("PRAGMA journal_mode = MEMORY")
            with copy:
                copy.execute("DELETE FROM assignments")  # an earlier round's, another's
                copy.executemany(_INSERT, _values(rows, seed, stamp))
            copy.execute("PRAGMA journal_mode = WAL")
    except BaseException:
        _remove(temporary)
        raise
    return temporary


@contextmanager
def _removed_on_failure() -> Iterator[list[Path]]:
    """The files linked into place in the block (appended to the list yielded), removed
    again if it fails: the transaction recording their assignments rolled back."""
    linked: list[Path] = []
    try:
        yield linked
    except BaseException:
        for path in linked:
            path.unlink(missing_ok=True)
        raise


def _link(temporary: Path, path: Path) -> None:
    """Give a finished copy its name, never replacing a file that appeared meanwhile."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise StoreError(
            f"{path}: another process created it meanwhile; nothing was written"
        ) from None


def _remove(temporary: Path) -> None:
    for path in (temporary, *(temporary.with_name(temporary.name + end) for end in COMPANIONS)):
        path.unlink(missing_ok=True)
