"""Bringing other reviewers' files into one: their verdicts and notes, flags and error causes.

Every history table is append-only, so a merge only appends. An answer is matched by what
it is (dataset name, sample key, model name), never by row id; a row is recognised by its
content (answer, every column but the id), so merging a file twice adds nothing. A row on
an answer this file lacks is counted and left out: verdicts land only on answers imported
here. All the files are read before anything is written, and written in one transaction.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lmmreview.db.store import Store, StoreError

# The append-only history a reviewer writes; a table the other file lacks is skipped.
HISTORY_TABLES = ("reviews", "flags", "causes")

AnswerKey = tuple[str, str, str]  # (dataset name, sample key, model name)

_ANSWER_KEYS = (
    "SELECT a.id, d.name, s.key, m.name FROM answers a JOIN samples s ON s.id = a.sample_id "
    "JOIN datasets d ON d.id = s.dataset_id JOIN models m ON m.id = a.model_id"
)


@dataclass(slots=True)
class FileMerge:
    """What one other file brought: per table, rows added and rows already here; and the
    rows left out because this file lacks their answer."""

    path: Path
    added: Counter[str] = field(default_factory=Counter)
    present: Counter[str] = field(default_factory=Counter)
    left_out: int = 0
    missing: list[AnswerKey] = field(default_factory=list)  # those answers, in file order


@dataclass(slots=True)
class _Read:
    """One other file's history rows, their answers translated to this file's ids."""

    merge: FileMerge
    rows: dict[str, list[tuple]] = field(default_factory=dict)  # table -> contents
    columns: dict[str, list[str]] = field(default_factory=dict)  # table -> names, id left out


def merge(store: Store, others: Sequence[Path]) -> list[FileMerge]:
    """Append the history rows of `others` that `store` lacks, in time order, in one
    transaction; a file that cannot be read raises StoreError naming it, before any write."""
    answers = _answer_keys(store.conn)
    reads = [_read(path, answers) for path in others]
    with store.transaction():
        for table in HISTORY_TABLES:
            _append_table(store, table, reads)
    return [read.merge for read in reads]


def _read(path: Path, answers: dict[AnswerKey, int]) -> _Read:
    """The history rows of the file at `path` (only read, through a migrated copy)."""
    read = _Read(FileMerge(path))
    with _opened_copy(path) as other:
        try:
            _read_tables(other, read, answers)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot read its review history ({exc})") from None
    return read


def _read_tables(other: Store, read: _Read, answers: dict[AnswerKey, int]) -> None:
    """Fill `read` with each history table's rows, answer ids translated; a row whose
    answer this file lacks is counted in `read.merge` instead."""
    keys = {answer: key for key, answer in _answer_keys(other.conn).items()}
    for table in HISTORY_TABLES:
        columns = _columns(other.conn, table)
        if not columns:
            continue
        at = columns.index("answer_id")
        read.columns[table], read.rows[table] = columns, []
        for row in other.conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"):
            key = keys[row[at]]
            mine = answers.get(key)
            if mine is None:
                read.merge.left_out += 1
                if key not in read.merge.missing:
                    read.merge.missing.append(key)
                continue
            read.rows[table].append((*row[:at], mine, *row[at + 1 :]))


def _answer_keys(conn: sqlite3.Connection) -> dict[AnswerKey, int]:
    """(dataset, sample key, model) -> answer id, for every answer of a file."""
    return {
        (dataset, key, model): answer for answer, dataset, key, model in conn.execute(_ANSWER_KEYS)
    }


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """A table's columns but its row id (none when the table is absent)."""
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[1] != "id"]


def _append_table(store: Store, table: str, reads: list[_Read]) -> None:
    """Append to `table` each content the files hold more often than it does, in created_at
    order (so each reviewer's latest row stays their latest)."""
    columns = _columns(store.conn, table)
    if not columns:
        return
    names = ", ".join(columns)
    here = Counter(store.conn.execute(f"SELECT {names} FROM {table}"))
    new: list[tuple] = []
    for read in reads:
        if read.columns.get(table) != columns:  # absent there (a schema without the table)
            continue
        wanted = Counter(read.rows[table])
        for content, count in wanted.items():
            extra = max(0, count - here[content])
            new += [content] * extra
            read.merge.added[table] += extra
            read.merge.present[table] += count - extra
        here |= wanted  # the next file is compared with this one too
    at = columns.index("created_at")
    new.sort(key=lambda content: content[at])  # stable: a file's own order breaks ties
    marks = ", ".join("?" * len(columns))
    store.conn.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", new)


@contextmanager
def _opened_copy(path: Path) -> Iterator[Store]:
    """The database at `path` as a Store over a private copy brought to this schema: the
    file itself is opened read-only and never changed. StoreError names `path`."""
    if not path.is_file():
        raise StoreError(f"{path}: no such database")
    with tempfile.TemporaryDirectory(prefix="lmmreview-merge-") as folder:
        copy = Path(folder) / "other.db"
        try:
            source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            target = sqlite3.connect(copy)
            try:
                source.backup(target)
            finally:
                source.close()
                target.close()
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: not a lmmreview database ({exc})") from None
        try:
            store = Store.open(copy, create=False)  # refuses a newer schema, migrates an older
        except StoreError as exc:
            raise StoreError(str(exc).replace(str(copy), str(path))) from None
        with store:
            yield store
