"""Ground-truth errata in the store (schema 14's `errata` table): set, undo, read.

Append-only as the error causes are: each change is a row naming its reviewer; a
sample's latest row, by (created_at, id), is its erratum in force (status NULL: none): a
merge or an import appends older rows after newer ones, which must not take over. An undo
appends the state it restores, so undo goes back more than one step (engine.review.in_force).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from lmmreview.db.store import SAMPLE_COLUMNS, Store, StoreError, now, row_sample
from lmmreview.engine.errata import Erratum, Record, problem, spread
from lmmreview.engine.review import in_force
from lmmreview.engine.types import Sample

_COLUMNS = "s.key, e.status, e.gold, e.alt_answers, e.reason, e.reviewer, e.created_at"
_LATEST = (
    "e.id = (SELECT l.id FROM errata l WHERE l.sample_id = e.sample_id "
    "ORDER BY l.created_at DESC, l.id DESC LIMIT 1)"
)


@dataclass(frozen=True, slots=True)
class ErratumRow:
    """One row of a sample's errata history (for the undo stack)."""

    erratum: Erratum
    action: str  # set | undo


def erratum_of(row: tuple) -> Erratum:
    """An Erratum from (sample key, status, gold, alt_answers, reason, reviewer, created_at)."""
    key, status, gold, alternatives, reason, reviewer, created_at = row
    alts = tuple(json.loads(alternatives)) if alternatives else ()
    return Erratum(key, status, gold, alts, reason or "", reviewer, created_at)


def erratum_on(conn: sqlite3.Connection, sample_id: int) -> Erratum | None:
    """The erratum in force on a sample (its latest row; None: none, or cleared)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM errata e JOIN samples s ON s.id = e.sample_id "
        "WHERE e.sample_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT 1",
        (sample_id,),
    ).fetchone()
    found = None if row is None else erratum_of(row)
    return found if found is not None and found.status is not None else None


class ErrataStore:
    """A database's errata, written as one reviewer."""

    def __init__(self, store: Store, reviewer: str) -> None:
        self.store = store
        self.conn = store.conn
        self.reviewer = reviewer

    # -- reads -------------------------------------------------------------------------

    def in_force(self, dataset: str) -> dict[str, Erratum]:
        """Sample key -> the erratum in force, for every sample of `dataset` that has one,
        in the order they were given (engine.errata.spread: a group's latest wins)."""
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM errata e JOIN samples s ON s.id = e.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND "
            f"{_LATEST} AND e.status IS NOT NULL ORDER BY e.created_at, e.id",
            (dataset,),
        )
        return {row[0]: erratum_of(row) for row in rows}

    def on_row(self, sample_id: int, sample: Sample, group_field: str | None) -> Erratum | None:
        """The erratum in force on a sample's row: its own; with `group_field` (a benchmark's
        rotations), its group's latest, mapped onto it (engine.errata.spread)."""
        group = None if group_field is None else sample.extra.get(group_field)
        if group_field is None or group is None:
            return erratum_on(self.conn, sample_id)
        # the errata are few: read from them (CROSS JOIN keeps that order), never a scan
        # of the dataset's samples for the group
        rows = self.conn.execute(
            f"SELECT e.sample_id, {_COLUMNS} FROM errata e CROSS JOIN samples s "
            "ON s.id = e.sample_id JOIN samples mine ON mine.id = ? "
            "WHERE s.dataset_id = mine.dataset_id AND s.split IS mine.split "
            f"AND json_extract(s.extra, ?) = ? AND {_LATEST} AND e.status IS NOT NULL "
            "ORDER BY e.created_at, e.id",
            (sample_id, f"$.{group_field}", group),
        ).fetchall()
        errata = {row[1]: erratum_of(row[1:]) for row in rows}
        samples = [sample, *(self.store.sample(row[0]) for row in rows if row[0] != sample_id)]
        return spread(errata, samples, group_field).get(sample.key)

    def of_sample(self, dataset: str, key: str) -> Erratum | None:
        """The erratum in force on one sample (None: none)."""
        return erratum_on(self.conn, self._sample_id(dataset, key))

    def upstream(self, datasets: list[str] | None = None) -> list[Record]:
        """Every erratum in force (in `datasets`, or in all), by dataset then sample."""
        rows = self.conn.execute(
            f"SELECT d.name, s.question, s.answer, {_COLUMNS} FROM errata e "
            "JOIN samples s ON s.id = e.sample_id JOIN datasets d ON d.id = s.dataset_id "
            f"WHERE {_LATEST} AND e.status IS NOT NULL ORDER BY d.name, s.id"
        )
        wanted = None if datasets is None else set(datasets)
        return [
            Record(row[0], row[1], row[2], erratum_of(row[3:]))
            for row in rows
            if wanted is None or row[0] in wanted
        ]

    # -- writes ------------------------------------------------------------------------

    def set(self, dataset: str, erratum: Erratum) -> bool:
        """Put `erratum` in force on its sample (status None clears it), committed on
        return; the state already in force adds no row (a repeat, an import run twice).
        Whether a row was added. StoreError: the sample is unknown or the erratum cannot
        stand on it (engine.errata.problem)."""
        with self.store.transaction():
            return self.put(dataset, erratum)

    def put(self, dataset: str, erratum: Erratum, where: str = "") -> bool:
        """`set` inside the caller's transaction; `where` begins an error's message (the
        file's row), else the database's name does."""
        found = self._find(dataset, erratum.key)
        if found is None:
            raise StoreError(f"{where or self.store.path}: no sample {erratum.key!r} in "
                             f"dataset {dataset!r}")  # fmt: skip
        sample_id, sample = found
        wrong = problem(sample, erratum)
        if wrong:
            raise StoreError(f"{where or self.store.path}: {dataset} sample {erratum.key}: {wrong}")
        if erratum.same_state(erratum_on(self.conn, sample_id)) or self._held(sample_id, erratum):
            return False
        self._append(sample_id, erratum, "set")
        return True

    def add_records(self, records: list[tuple[str, Record]]) -> int:
        """Put each record's erratum in force (each named by where it was read: "FILE row
        N"), all or none; how many rows were added (none for errata already in force). A
        record whose question or published gold is not this file's is refused, and so is a
        second record on one sample."""
        added = 0
        seen: dict[tuple[str, str], str] = {}
        with self.store.transaction():
            for where, record in records:
                first = seen.setdefault((record.dataset, record.erratum.key), where)
                if first != where:  # two states in force at once: a second import would differ
                    raise StoreError(f"{where}: {record.dataset} sample {record.erratum.key} "
                                     f"has an erratum already ({first})")  # fmt: skip
                found = self._find(record.dataset, record.erratum.key)
                if found is not None and (record.question, record.published) != (
                    found[1].question, found[1].answer,
                ):  # fmt: skip
                    raise StoreError(
                        f"{where}: {record.dataset} sample {record.erratum.key}: its question "
                        "or published gold differs from this database's"
                    )
                added += self.put(record.dataset, record.erratum, where)
        return added

    def undoable(self, dataset: str, key: str) -> bool:
        """Whether `undo` has a state to go back to on a sample (a clear can be undone)."""
        return bool(in_force(self._history(self._sample_id(dataset, key))))

    def undo(self, dataset: str, key: str) -> Erratum | None:
        """Restore the state before the erratum in force on a sample, as a new row by this
        reviewer; the erratum now in force (None: none). Nothing to undo adds nothing."""
        with self.store.transaction():
            sample_id = self._sample_id(dataset, key)
            stack = in_force(self._history(sample_id))
            if not stack:
                return None
            restored = stack[-2].erratum if len(stack) > 1 else Erratum(key, None)
            self._append(sample_id, restored, "undo")
            return restored if restored.status is not None else None

    def samples(self, dataset: str, keys: list[str]) -> dict[str, Sample]:
        """Sample key -> the whole sample, for those of `keys` the dataset has."""
        columns = ", ".join(f"s.{c}" for c in SAMPLE_COLUMNS)
        rows = self.conn.execute(
            f"SELECT {columns} FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = ? AND s.key IN (SELECT value FROM json_each(?))",
            (dataset, json.dumps(keys)),
        )
        return {(sample := row_sample(row)).key: sample for row in rows}

    # -- the rows ----------------------------------------------------------------------

    def _sample_id(self, dataset: str, key: str) -> int:
        found = self._id(dataset, key)
        if found is None:
            raise StoreError(f"{self.store.path}: dataset {dataset!r} has no sample {key!r}")
        return found

    def _find(self, dataset: str, key: str) -> tuple[int, Sample] | None:
        """A sample's row id and the sample, or None when the dataset lacks it."""
        found = self._id(dataset, key)
        return None if found is None else (found, self.store.sample(found))

    def _id(self, dataset: str, key: str) -> int | None:
        row = self.conn.execute(
            "SELECT s.id FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = ? AND s.key = ?",
            (dataset, key),
        ).fetchone()
        return None if row is None else int(row[0])

    def _history(self, sample_id: int) -> list[ErratumRow]:
        rows = self.conn.execute(
            f"SELECT {_COLUMNS}, e.action FROM errata e JOIN samples s ON s.id = e.sample_id "
            "WHERE e.sample_id = ? ORDER BY e.created_at, e.id",
            (sample_id,),
        )
        return [ErratumRow(erratum_of(row[:-1]), row[-1]) for row in rows]

    def _held(self, sample_id: int, erratum: Erratum) -> bool:
        """Whether the sample has this very row already (an older import read again: not
        in force, yet nothing new)."""
        row = self.conn.execute(
            "SELECT 1 FROM errata WHERE sample_id = ? AND action = 'set' AND status IS ? "
            "AND gold IS ? AND alt_answers IS ? AND reason IS ? AND reviewer = ? "
            "AND created_at = ?",
            (sample_id, *self._values(erratum), erratum.reviewer, erratum.created_at),
        ).fetchone()
        return row is not None

    @staticmethod
    def _values(erratum: Erratum) -> tuple[str | None, str | None, str | None, str | None]:
        """status, gold, alt_answers and reason as a row holds them."""
        alternatives = json.dumps(list(erratum.alternatives)) if erratum.alternatives else None
        return erratum.status, erratum.gold, alternatives, erratum.reason or None

    def _append(self, sample_id: int, erratum: Erratum, action: str) -> None:
        """One row: the erratum's own reviewer and time where it has them (an import, a
        merge), else this reviewer's, now."""
        self.conn.execute(
            "INSERT INTO errata (sample_id, status, gold, alt_answers, reason, action, "
            "reviewer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                sample_id, *self._values(erratum), action,
                erratum.reviewer if action == "set" and erratum.reviewer else self.reviewer,
                erratum.created_at if action == "set" and erratum.created_at else now(),
            ),
        )  # fmt: skip
