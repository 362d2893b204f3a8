"""Bringing other reviewers' files into one: their verdicts and notes, flags and error causes.

Every history table is append-only, so a merge only appends. An answer is matched by what
it is (dataset name, sample key, model name), never by row id; a row is recognised by its
content (answer, every column but the id), so merging a file twice adds nothing. A row on
an answer this file lacks, or whose text, question or gold differ here, is counted and
left out: verdicts land only on the answers they were given to. All the files are read
before anything is written, and written in one transaction. A file of any size takes
bounded memory: its rows are read a chunk at a time and set aside, checked, in temporary
tables (SQLite's temporary files, gone when it closes) until they are written.

Another file is untrusted input. It is read in place, read-only, never copied nor migrated
(a column a history table gained later is read as its default from an older file); only
its plain tables
are read, never a view or a computed column (either could run forever), and Ctrl-C stops
a read. Every row is checked as the screen checks what it writes, before anything is
written; an error names the file, the table and the row.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from lmmreview.db.errata import erratum_of
from lmmreview.db.importers import IMPORT_ACTION
from lmmreview.db.importers.batch import quoted
from lmmreview.db.store import (
    SAMPLE_COLUMNS,
    Store,
    StoreError,
    _check_file,
    _lmmreview_version,
    is_busy,
    larger_cache,
    row_sample,
)
from lmmreview.engine.agreement import NO_OPTION
from lmmreview.engine.causes import MMMU_CAUSES
from lmmreview.engine.errata import problem as erratum_problem
from lmmreview.engine.history_values import name_problem, text_problem, texts_of, time_problem

AnswerKey = tuple[str, str, str]  # (dataset name, sample key, model name)
SampleKey = tuple[str, str]  # (dataset name, sample key): what an erratum is on
Check = Callable[[object], str | None]  # a column's value -> what is wrong with it, or None

_ANSWER_KEYS = (
    "SELECT a.id, d.name, s.key, m.name FROM answers a JOIN samples s ON s.id = a.sample_id "
    "JOIN datasets d ON d.id = s.dataset_id JOIN models m ON m.id = a.model_id"
)
_KEY_TABLES = ("answers", "samples", "datasets", "models")  # what names an answer
REVIEW_ACTIONS = ("accept", "grade", IMPORT_ACTION, "note", "undo")  # as the screen writes
CAUSE_ACTIONS = ("set", "undo")
LOCK_WAIT_S = 2.0  # how long a read waits for another program's lock on the other file
PROGRESS_STEPS = 100_000  # SQLite steps between two chances for Ctrl-C to stop a read
CHUNK_ROWS = 10_000  # rows read, checked and set aside at a time
MERGE_CACHE_KIB = 32_000  # SQLite's page cache while merging
Report = Callable[[str], None]  # takes a progress line ("Reading ben.db: 10,000 of 80,000 rows")


@dataclass(slots=True)
class FileMerge:
    """What one other file brought: per table, rows added and rows already here; and the
    rows left out because this file lacks their answer."""

    path: Path
    added: Counter[str] = field(default_factory=Counter)
    present: Counter[str] = field(default_factory=Counter)
    left_out: int = 0
    # Those answers, in file order (a dict: a file may hold rows on very many of them).
    missing: dict[AnswerKey, None] = field(default_factory=dict)
    # Rows left out because their answer's text, question or gold differs from this file's:
    # the verdict was given to something else.
    left_changed: int = 0
    changed: dict[AnswerKey, None] = field(default_factory=dict)
    # Errata rows left out: their sample is absent here, or its question or gold differs.
    errata_left_out: int = 0
    errata_samples: dict[SampleKey, None] = field(default_factory=dict)


@dataclass(slots=True)
class _Read:
    """One other file being read: its rows are set aside under its number `file`."""

    file: int
    merge: FileMerge
    keys: dict[int, AnswerKey]  # its answers
    landed: dict[int, int] = field(default_factory=dict)  # this file's answer -> the other's


@dataclass(frozen=True, slots=True)
class _Here:
    """What a row may point at and hold to land in this file."""

    answers: dict[AnswerKey, int]
    options: dict[int, frozenset[str]]  # an answer to a multiple-choice question -> letters
    causes: frozenset[str]  # the taxonomy's, and any this file already holds


def merge(
    store: Store,
    others: Sequence[Path],
    causes: Iterable[str] = MMMU_CAUSES,
    report: Report = lambda line: None,
) -> list[FileMerge]:
    """Append the history rows of `others` that `store` lacks, in time order, in one
    transaction; a file that cannot be read or holds a row that cannot land raises
    StoreError naming it (and the row), before any write. `causes`: the known causes;
    `report`: told how far the reading is."""
    here = _Here(_answer_keys(store.conn), _options(store.conn), _causes(store.conn, causes))
    with _set_aside(store.conn):
        merges = [
            _read(file, path, here, store.conn, report) for file, path in enumerate(others, 1)
        ]
        report(f"Writing to {store.path}")
        with store.transaction():
            for table, columns in ALL_COLUMNS.items():
                _append_table(store.conn, table, columns, merges)
    return merges


def _aside(table: str) -> str:
    """The temporary table holding the checked rows of the other files' `table`: each
    with its file's number and its row id there."""
    return f"temp.merging_{table}"


def _new(table: str) -> str:
    """The temporary table holding the rows to append to `table`."""
    return f"temp.merging_{table}_new"


@contextmanager
def _set_aside(conn: sqlite3.Connection) -> Iterator[None]:
    """The temporary tables of a merge, for the block (on this file's connection; its
    own tables are not touched: SQLite keeps temporary ones in a file of their own); and
    Ctrl-C stops a long SQLite step of the connection."""
    for table, columns in ALL_COLUMNS.items():
        for name in (_aside(table), _new(table)):
            conn.execute(f"CREATE TABLE {name} (file, seq, {', '.join(columns)})")
    conn.set_progress_handler(lambda: 0, PROGRESS_STEPS)  # Ctrl-C stops a long step here too
    # Appending a million rows to the indexed history took 3.1 s with the default 2 MB of
    # cache, 1.3 s with 32 MB (SQLite's sorter takes as much: fewer passes on disk).
    try:
        with larger_cache(conn, MERGE_CACHE_KIB):
            yield
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode == sqlite3.SQLITE_INTERRUPT:
            raise KeyboardInterrupt from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
        for table in ALL_COLUMNS:
            conn.execute(f"DROP TABLE IF EXISTS {_aside(table)}")
            conn.execute(f"DROP TABLE IF EXISTS {_new(table)}")


def _answer_keys(conn: sqlite3.Connection) -> dict[AnswerKey, int]:
    """(dataset, sample key, model) -> answer id, for every answer of a file."""
    return {
        (dataset, key, model): answer for answer, dataset, key, model in conn.execute(_ANSWER_KEYS)
    }


def _options(conn: sqlite3.Connection) -> dict[int, frozenset[str]]:
    """The option letters of every answer to a multiple-choice question of this file."""
    rows = conn.execute(
        "SELECT a.id, s.options FROM answers a JOIN samples s ON s.id = a.sample_id "
        "WHERE s.question_type = 'choice'"
    )
    return {answer: frozenset(json.loads(options or "{}")) for answer, options in rows}


def _causes(conn: sqlite3.Connection, taxonomy: Iterable[str]) -> frozenset[str]:
    """The causes the screen offers: the taxonomy's and those answers already have (this
    file may predate the table: it is made when the merge writes)."""
    if _kind(conn, "causes") is None:
        return frozenset(taxonomy)
    held = conn.execute("SELECT DISTINCT cause FROM causes WHERE cause IS NOT NULL")
    return frozenset(taxonomy) | {cause for (cause,) in held}


# -- reading the other file ------------------------------------------------------------


def _read(
    file: int, path: Path, here: _Here, mine: sqlite3.Connection, report: Report
) -> FileMerge:
    """Check the history rows of the file at `path` and set aside, under the number `file`,
    those that land, their answers translated (`mine`: this file's connection)."""
    report(f"Reading {path}")
    with _read_only(path) as other:
        for table in _KEY_TABLES:
            _require_table(other, path, table)
        keys = {answer: (d, k, m) for answer, d, k, m in other.execute(_ANSWER_KEYS)}
        read = _Read(file, FileMerge(path), keys)
        # An older schema may lack a table: it was made later.
        tables = [table for table in COLUMNS if _kind(other, table) is not None]
        for table in tables:
            _require_table(other, path, table, COLUMNS[table], LATER.get(table, {}))
        total, done = sum(_count(other, table) for table in tables), 0
        for table in tables:
            for chunk in _chunks(other, table, _selected(other, table)):
                _take(read, table, chunk, here, mine)
                done += len(chunk)
                report(f"Reading {path}: {done:,} of {total:,} rows")
        _leave_out_changed(read, other, mine)
        if _kind(other, ERRATA) is not None:  # an older file has none
            _require_table(other, path, ERRATA, ERRATA_COLUMNS)
            _take_errata(read, other, mine)
    return read.merge


_ERRATA_ROWS = (
    "SELECT e.rowid, d.name, s.key, s.question, s.answer, {columns} FROM errata e "
    "JOIN samples s ON s.id = e.sample_id JOIN datasets d ON d.id = s.dataset_id ORDER BY e.rowid"
)
_ERRATUM_COLUMNS = ("status", "gold", "alt_answers", "reason", "reviewer", "created_at")
_SAMPLE_HERE = (
    "SELECT s.id, {columns} FROM samples s JOIN datasets d ON d.id = s.dataset_id "
    "WHERE d.name = ? AND s.key = ?"
).format(columns=", ".join(f"s.{c}" for c in SAMPLE_COLUMNS))


def _take_errata(read: _Read, other: sqlite3.Connection, mine: sqlite3.Connection) -> None:
    """Check the other file's errata rows and set aside those whose sample (by dataset
    and key) this file holds with the same question and gold; count and name the others.
    Errata are few: each row's sample is looked up on its own."""
    columns = ", ".join(f"e.{c}" for c in ERRATA_COLUMNS[1:])
    kept = []
    for rowid, dataset, key, question, gold, *values in other.execute(
        _ERRATA_ROWS.format(columns=columns)
    ):
        row = dict(zip(ERRATA_COLUMNS[1:], values, strict=True))
        problem = next(
            (p for c, check in ERRATA_CHECKS.items() if (p := _column_problem(c, row[c], check))),
            None,
        )
        if problem is not None:
            raise StoreError(f"{read.merge.path}: {ERRATA} row {rowid}: {problem}")
        here = mine.execute(_SAMPLE_HERE, (dataset, key)).fetchone()
        sample = None if here is None else row_sample(here[1:])
        if sample is None or (sample.question, sample.answer) != (question, gold):
            read.merge.errata_left_out += 1
            read.merge.errata_samples[(dataset, key)] = None
            continue
        erratum = erratum_of((key, *(row[c] for c in _ERRATUM_COLUMNS)))
        problem = erratum_problem(sample, erratum)  # as `errata` checks what it writes
        if problem is not None:
            raise StoreError(
                f"{read.merge.path}: {ERRATA} row {rowid}: {dataset} sample {key}: {problem}"
            )
        kept.append((read.file, rowid, here[0], *values))
    marks = ", ".join("?" * (len(ERRATA_COLUMNS) + 2))
    mine.executemany(f"INSERT INTO {_aside(ERRATA)} VALUES ({marks})", kept)


def _take(
    read: _Read,
    table: str,
    chunk: list[tuple[int, dict[str, object]]],
    here: _Here,
    mine: sqlite3.Connection,
) -> None:
    """Check a chunk of rows of `table`; set aside those on an answer this file holds, and
    count the others left out."""
    kept = []
    for rowid, row in chunk:
        key, answer = _checked(read.merge.path, table, rowid, row, read.keys, here)
        if answer is None:
            read.merge.left_out += 1
            read.merge.missing[key] = None
            continue
        read.landed[answer], row["answer_id"] = cast(int, row["answer_id"]), answer
        kept.append((read.file, rowid, *row.values()))
    marks = ", ".join("?" * (len(COLUMNS[table]) + 2))
    mine.executemany(f"INSERT INTO {_aside(table)} VALUES ({marks})", kept)


_ANSWER_TEXTS = (
    "SELECT a.id, a.text, s.question, s.answer FROM answers a JOIN samples s ON s.id = "
    "a.sample_id WHERE a.id IN (SELECT value FROM json_each(?))"
)


def _texts(conn: sqlite3.Connection, answers: Iterable[int]) -> dict[int, tuple]:
    """The answer text, question and gold of each of `answers`."""
    rows = conn.execute(_ANSWER_TEXTS, (json.dumps(sorted(answers)),))
    return {answer: tuple(texts) for answer, *texts in rows}


def _leave_out_changed(read: _Read, other: sqlite3.Connection, mine: sqlite3.Connection) -> None:
    """Leave out the rows on answers whose text, question or gold differ between the two
    files (matched by dataset, sample key and model, they are not the same answer)."""
    theirs, ours = _texts(other, read.landed.values()), _texts(mine, read.landed)
    changed = sorted(a for a, o in read.landed.items() if ours.get(a) != theirs.get(o))
    if not changed:
        return
    read.merge.changed.update(dict.fromkeys(read.keys[read.landed[a]] for a in changed))
    for table in COLUMNS:
        dropped = mine.execute(
            f"DELETE FROM {_aside(table)} WHERE file = ? AND answer_id IN "
            "(SELECT value FROM json_each(?))",
            (read.file, json.dumps(changed)),
        )
        read.merge.left_changed += dropped.rowcount


@contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """The file at `path`, open read-only where it is: a lock held too long, a damaged
    file or one that is not lmmreview's raises StoreError naming it; Ctrl-C stops a read."""
    _check_file(path, create=False)  # a folder, a missing or empty file (a FIFO, a device)
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_WAIT_S)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc})") from None
    try:
        # Text that is not UTF-8 is read as it is; the row's check names it.
        conn.text_factory = lambda data: data.decode("utf-8", "surrogateescape")
        # A Python callback lets the interpreter see Ctrl-C during a long SQLite step.
        conn.set_progress_handler(lambda: 0, PROGRESS_STEPS)
        _lmmreview_version(conn, path, create=False)
        yield conn
    except sqlite3.Error as exc:
        raise _read_error(path, exc) from None
    finally:
        conn.close()


def _read_error(path: Path, exc: sqlite3.Error) -> BaseException:
    """What a failed read of the other file means for the user."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_INTERRUPT:
        return KeyboardInterrupt()  # Ctrl-C, seen by the progress handler
    if is_busy(exc):
        return StoreError(
            f"{path}: locked by another program for over {LOCK_WAIT_S:g} s (a write in "
            "progress?); merge again when it is done"
        )
    return StoreError(f"{path}: cannot read it as a lmmreview database ({exc})")


def _require_table(
    conn: sqlite3.Connection,
    path: Path,
    table: str,
    columns: Sequence[str] | None = None,
    later: Mapping[str, object] | None = None,
) -> None:
    """Raise StoreError naming the file unless `table` is a plain table there, with
    `columns` (this schema's, its id aside) when they are given; an older file may lack
    the `later` ones."""
    kind = _kind(conn, table)
    if kind != "table":
        what = "missing" if kind is None else f"a {kind}"
        raise StoreError(f"{path}: {table} is {what}, not a table (was the file edited?)")
    found = [row[1] for row in conn.execute(f"PRAGMA table_xinfo({table})") if row[1] != "id"]
    older = [column for column in columns or () if column not in (later or {})]
    if columns is not None and sorted(found) not in (sorted(columns), sorted(older)):
        raise StoreError(
            f"{path}: table {table} has the columns {', '.join(found) or 'none'}, not "
            f"{', '.join(columns)} (was the file edited?)"
        )


def _kind(conn: sqlite3.Connection, name: str) -> str | None:
    """What `name` is in a file's schema (table, view...), None when absent; a table with
    a computed column is named so (reading it, as reading a view, runs the file's code)."""
    row = conn.execute(
        "SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE AND type IN "
        "('table', 'view')",
        (name,),
    ).fetchone()
    if row is None or row[0] != "table":
        return None if row is None else str(row[0])
    hidden = conn.execute(f"SELECT 1 FROM pragma_table_xinfo('{name}') WHERE hidden != 0")
    return "table with computed columns" if hidden.fetchone() else "table"


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _selected(conn: sqlite3.Connection, table: str) -> list[str]:
    """What to select of the other file's `table`: this schema's columns, a column it gained
    later (absent from an older file) as its default."""
    found = {row[1] for row in conn.execute(f"PRAGMA table_xinfo({table})")}
    later = LATER.get(table, {})
    return [c if c in found else f"{later[c]!r} AS {c}" for c in COLUMNS[table]]


def _chunks(
    conn: sqlite3.Connection, table: str, selected: Sequence[str]
) -> Iterator[list[tuple[int, dict[str, object]]]]:
    """(rowid, column -> value) of the rows of `table`, in the order they were added,
    CHUNK_ROWS at a time (`selected`: _selected's)."""
    columns = COLUMNS[table]
    rows = conn.execute(f"SELECT rowid, {', '.join(selected)} FROM {table} ORDER BY rowid")
    while chunk := rows.fetchmany(CHUNK_ROWS):
        yield [(rowid, dict(zip(columns, values, strict=True))) for rowid, *values in chunk]


# -- checking a row --------------------------------------------------------------------


def _checked(
    path: Path,
    table: str,
    rowid: int,
    row: dict[str, object],
    keys: dict[int, AnswerKey],
    here: _Here,
) -> tuple[AnswerKey, int | None]:
    """The answer of a row, as its key and as this file's id (None: this file lacks it);
    StoreError naming the file, the table and the row when the row points at no answer
    or holds a value the screen would never write."""
    answer = row["answer_id"]
    key = keys.get(answer) if isinstance(answer, int) else None
    mine = None if key is None else here.answers.get(key)
    problem = None if key is not None else f"answer_id {quoted(answer)} is no answer of the file"
    for column, check in CHECKS[table].items():
        problem = problem or _column_problem(column, row[column], check)
    problem = problem or _row_problem(table, row, mine, here)
    if key is None or problem is not None:
        raise StoreError(f"{path}: {table} row {rowid}: {problem}")
    return key, mine


def _column_problem(column: str, value: object, check: Check) -> str | None:
    problem = check(value)
    return None if problem is None else f"{column} {quoted(value)} {problem}"


def _row_problem(
    table: str, row: Mapping[str, object], answer: int | None, here: _Here
) -> str | None:
    """What is wrong with a row as a whole, on this file's answer (None: left out)."""
    if table == "causes":
        for column in ("cause", "previous"):
            cause = row[column]
            if cause is not None and cause not in here.causes:
                return (
                    f"{column} {quoted(cause)} is no known cause ({', '.join(sorted(here.causes))})"
                )
    if table != "reviews" or answer is None:
        return None
    options = here.options.get(answer)
    for prefix in ("", "previous_"):
        score, choice = row[f"{prefix}score"], row[f"{prefix}choice"]
        problem = _verdict_problem(score, choice, options)
        if problem is not None:
            return f"{prefix}score {quoted(score)}, {prefix}choice {quoted(choice)}: {problem}"
    if row["action"] not in ("undo", "note") and row["score"] is None and row["choice"] is None:
        return f"a {row['action']} without a verdict (no score, no choice)"
    return None


def _verdict_problem(score: object, choice: object, options: frozenset[str] | None) -> str | None:
    """Why (score, choice) is no verdict the screen would give this answer: a score, or
    for a multiple-choice question one of its letters or X (none matches)."""
    if score is not None and choice is not None:
        return "a verdict is a score or a choice, not both"
    if choice is None:
        return None
    if options is None:
        return "a choice on an open question"
    if choice != NO_OPTION and choice not in options:
        return f"not one of the options ({', '.join(sorted(options))}) or {NO_OPTION}"
    return None


def _optional_text(value: object) -> str | None:
    return None if value is None else text_problem(value)


def _score(value: object) -> str | None:
    """None, or a number from 0 to 1 (as the schema's CHECK wants)."""
    if value is None:
        return None
    if not isinstance(value, int | float) or not math.isfinite(value):
        return "is not a number"
    return None if 0 <= value <= 1 else "is not between 0 and 1"


def _one_of(allowed: Sequence[object]) -> Check:
    def check(value: object) -> str | None:
        return None if value in allowed else f"is not one of {', '.join(map(str, allowed))}"

    return check


def _answer(value: object) -> str | None:
    return None  # looked up among the file's answers before the other columns are checked


# Each history table's columns (this schema's, its id left out) and how each is checked.
CHECKS: dict[str, dict[str, Check]] = {
    "reviews": {
        "answer_id": _answer, "score": _score, "choice": _optional_text,
        "previous_score": _score, "previous_choice": _optional_text,
        "action": _one_of(REVIEW_ACTIONS), "reviewer": name_problem, "note": _optional_text,
        "created_at": time_problem, "blind": _one_of((0, 1)),
    },
    "flags": {
        "answer_id": _answer, "flagged": _one_of((0, 1)), "reviewer": name_problem,
        "created_at": time_problem,
    },
    "causes": {
        "answer_id": _answer, "cause": _optional_text, "previous": _optional_text,
        "action": _one_of(CAUSE_ACTIONS), "reviewer": name_problem, "created_at": time_problem,
    },
}  # fmt: skip
COLUMNS: dict[str, tuple[str, ...]] = {table: tuple(checks) for table, checks in CHECKS.items()}


def _json_texts(value: object) -> str | None:
    """None, or a JSON list of texts (an erratum's further acceptable answers)."""
    if value is None:
        return None
    problem = text_problem(value)
    if problem is not None:
        return problem
    return None if texts_of(value) is not None else "is not a JSON list of texts"


# The errata (schema 14) are on samples, not answers: matched by dataset and sample key.
ERRATA = "errata"
ERRATA_CHECKS: dict[str, Check] = {
    "status": _one_of((None, "wrong", "ambiguous")), "gold": _optional_text,
    "alt_answers": _json_texts, "reason": _optional_text, "action": _one_of(CAUSE_ACTIONS),
    "reviewer": name_problem, "created_at": time_problem,
}  # fmt: skip
ERRATA_COLUMNS = ("sample_id", *ERRATA_CHECKS)
ALL_COLUMNS = {**COLUMNS, ERRATA: ERRATA_COLUMNS}  # every table a merge appends to
# The columns a history table gained after it was made, and their defaults (schema 14:
# whether a verdict was given blind).
LATER: dict[str, dict[str, object]] = {"reviews": {"blind": 0}}


# -- writing ---------------------------------------------------------------------------


def _append_table(
    conn: sqlite3.Connection, table: str, columns: Sequence[str], merges: list[FileMerge]
) -> None:
    """Append to `table` each content the files hold more often than it does (and than
    the files before them), in created_at order (so each reviewer's latest row stays their
    latest; a file's own order breaks ties). All in SQL: a row costs no Python object."""
    names = ", ".join(columns)
    conn.execute(_EXTRA.format(names=names, aside=_aside(table), new=_new(table), table=table))
    added = dict(conn.execute(f"SELECT file, count(*) FROM {_new(table)} GROUP BY file"))
    for file, held in conn.execute(f"SELECT file, count(*) FROM {_aside(table)} GROUP BY file"):
        merges[file - 1].added[table] += added.get(file, 0)
        merges[file - 1].present[table] += held - added.get(file, 0)
    conn.execute(
        f"INSERT INTO main.{table} ({names}) SELECT {names} FROM {_new(table)} "
        "ORDER BY created_at, file, seq"
    )


# The copies of each content a file adds to a table: how often the file holds it (n) less
# the most this file (0) or an earlier one holds it (before); its first row id breaks ties.
_EXTRA = """
WITH RECURSIVE counted AS (
    SELECT {names}, file, count(*) AS n, min(seq) AS first FROM (
        SELECT {names}, 0 AS file, NULL AS seq FROM main.{table}
        UNION ALL SELECT {names}, file, seq FROM {aside})
    GROUP BY {names}, file
), ranked AS (
    SELECT *, coalesce(max(n) OVER (PARTITION BY {names} ORDER BY file
                                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
        AS before
    FROM counted
), copies AS (
    SELECT {names}, file, first, n - before AS left FROM ranked WHERE file > 0 AND n > before
    UNION ALL SELECT {names}, file, first, left - 1 FROM copies WHERE left > 1
)
INSERT INTO {new} (file, seq, {names}) SELECT file, first, {names} FROM copies
"""
