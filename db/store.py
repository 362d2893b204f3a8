"""The store: one SQLite file, opened with WAL, a busy timeout and foreign keys.

Every SQL statement of the project lives in `db/`; the other layers call the small,
typed methods of `Store`.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import repeat
from operator import is_not, itemgetter
from pathlib import Path

from lmmreview.db.schema import (
    COUNT_JUDGMENTS_FROM,
    COUNTING_TRIGGER,
    JUDGE_READS,
    MIGRATIONS,
    SCHEMA_VERSION,
    TABLES,
    deciding_ids,
    judge_is,
    judge_reads,
    object_json,
    statements,
)
from lmmreview.db.watch import REWRITTEN, SAID, Watch, wal_of
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.registry import UnknownBenchmark, benchmark, official_rules
from lmmreview.engine.scoring import (
    DEFAULT_CHOICE,
    USABLE,
    GroupVerdict,
    Judge,
    JudgeChoice,
    Judgment,
    Status,
    UnknownJudge,
    judge_names,
)
from lmmreview.engine.types import QuestionType, Sample

BUSY_TIMEOUT_MS = 10_000
# SQLite's page cache for a bulk write (its default is 2 MiB): a million rows in one
# transaction spill and reread their index pages through the WAL with less, and take twice
# the time. Only there: the screen's connections keep the default (memory).
BULK_CACHE_KIB = 16 * 1024
# Files SQLite keeps beside a database (writing over one damages the database too).
COMPANIONS = ("-wal", "-shm", "-journal")
COPY_PAGES = 4096  # pages a copy takes per step when it tells how far it is (16 MiB)


class StoreError(Exception):
    """A database that cannot be used as asked; the message names the file."""


class FileChanged(StoreError):
    """The file was replaced, deleted or rewritten in place (`what`, see db/watch.py) while
    a connection had it open: nothing more was written to it."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


@dataclass(frozen=True, slots=True)
class StoredImage:
    """Image bytes with what Pillow read from them."""

    hash: str
    data: bytes
    format: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class ModelCounts:
    """Progress of one model on one dataset."""

    model: str
    answers: int
    judged: int  # a usable judgment decides one of its runs
    reviewed: int  # with a current human verdict
    unscored: int  # no score from either (e.g. a choice with no gold)
    offline: int  # scored by the offline rules (no human score replaces theirs)


@dataclass(frozen=True, slots=True)
class DatasetCounts:
    name: str
    kind: str
    samples: int
    images: int
    judge: str | None  # the judge whose judgments the counts read (None: none yet)
    models: list[ModelCounts]


_last_stamp = ""
_stamp_lock = threading.Lock()


@dataclass(frozen=True)
class JudgeCounts:
    """One judge's judgments of a dataset's answers (see schema migration 10)."""

    judgments: int
    usable: int
    matched: int  # option matches: they count for every judge
    first: int  # the lowest judgment id (deletions leave it: a lower bound)
    rules_first: bool  # the dataset's offline rules are its official scoring (migration 12)


def _by_default(counts: dict[Judge, JudgeCounts]) -> list[Judge]:
    """Judges in the order Store.judges gives them, the default first (as the `judges`
    view's `shown`)."""

    def rank(j: Judge) -> tuple[bool, bool, int]:
        rules_last = (j.kind == "offline") != counts[j].rules_first
        return not counts[j].usable, rules_last, counts[j].first

    return sorted(counts, key=rank)


def now() -> str:
    """A UTC timestamp as stored in every `created_at`, in milliseconds, and strictly
    increasing within this process: changes written one after another to different tables
    (a verdict, then an error cause) keep their order even within one millisecond."""
    global _last_stamp
    with _stamp_lock:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        if stamp <= _last_stamp:
            later = datetime.fromisoformat(_last_stamp) + timedelta(milliseconds=1)
            stamp = later.isoformat(timespec="milliseconds")
        _last_stamp = stamp
        return stamp


# Sample fields stored as plain columns, and those stored as JSON text.
_PLAIN = ("question", "question_type", "answer", "hint", "split")
_JSON = ("alt_answers", "options", "axes", "extra")
SAMPLE_COLUMNS = ("key", *_PLAIN, *_JSON)


def _sample_row(sample: Sample) -> dict[str, object]:
    row: dict[str, object] = {name: getattr(sample, name) for name in ("key", *_PLAIN)}
    row["question_type"] = sample.question_type.value
    for name in ("alt_answers", "options"):
        value = getattr(sample, name)
        row[name] = (
            json.dumps(list(value) if isinstance(value, tuple) else value) if value else None
        )
    row["axes"], row["extra"] = object_json(sample.axes), object_json(sample.extra)
    return row


_OPEN, _CHOICE = QuestionType.OPEN, QuestionType.CHOICE


def row_sample(row: tuple) -> Sample:
    """A Sample from a row of SAMPLE_COLUMNS (JSON decoded only where there is some)."""
    key, question, qtype, answer, hint, split, alt, options, axes, extra = row
    return Sample(
        key, question, _OPEN if qtype == "open" else _CHOICE, answer,
        tuple(json.loads(alt)) if alt else (), json.loads(options) if options else {},
        hint, split, _axes(axes) if axes else {}, json.loads(extra) if extra else {},
    )  # fmt: skip


_AXES: dict[str, dict[str, tuple[str, ...]]] = {}  # few distinct texts: decoded once each


def _axes(text: str) -> dict[str, tuple[str, ...]]:
    axes = _AXES.get(text)
    if axes is None:
        axes = {name: tuple(values) for name, values in json.loads(text).items()}
        if len(_AXES) < 10_000:
            _AXES[text] = axes
    return axes


# `l` is a judgment of dataset ?.
IN_DATASET = (
    "JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id "
    "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?"
)


def deciding_in_dataset(judge: Judge | None) -> str:
    """The ids of the judgments deciding each (answer, run) of a dataset: among one judge's
    (parameters: the dataset, then `judge_parameters`), or among all when `judge` is None."""
    return deciding_ids(IN_DATASET + (f" AND {JUDGE_READS}" if judge else ""))


def judge_parameters(dataset: str, judge: Judge | None) -> tuple[str, ...]:
    return (dataset, *judge.parameters()) if judge else (dataset,)


# The judgments' columns, in the order Store.add_judgments gives them, and those that may be
# NULL (with no other default: leaving one out stores NULL).
_JUDGMENT_COLUMNS = (
    "answer_id", "run", "judge_kind", "judge_model", "prompt_hash", "settings", "raw_reply",
    "score", "choice", "method", "status", "error", "prompt_tokens", "completion_tokens",
    "latency_ms", "source", "import_id", "created_at",
)  # fmt: skip
_REQUIRED = ("answer_id", "run", "judge_kind", "status", "created_at")  # run: DEFAULT 0
_NULLABLE = frozenset(_JUDGMENT_COLUMNS) - frozenset(_REQUIRED)


def _all_null(rows: list[tuple], column: int) -> bool:
    """Whether `column` is None in every row (iterated in C: a Python loop over a million
    rows cost more than leaving the column out saved)."""
    return not any(map(is_not, map(itemgetter(column), rows), repeat(None)))


class Store:
    """A lmmreview database. Open with `Store.open(path)`; close when done."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, pending_from: int = SCHEMA_VERSION
    ) -> None:
        self.conn = conn
        self.path = path
        # The schema version still to migrate from, until a write transaction does it.
        self._pending_from: int | None = pending_from if pending_from < SCHEMA_VERSION else None
        # The file as opened: SQLite keeps writing to it (and, through the WAL it finds by
        # name, damages a file put in its place) if another program replaces, deletes or
        # rewrites it.
        self._opened, self._watch = path, Watch()
        self._watch.opened(path)
        self._watch.left(path, self.data_version())

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, migrate: bool = True) -> Store:
        """Open the lmmreview database at `path`; with `create`, a new or empty file becomes one.

        Everything is checked before anything is written: a file that is empty (unless
        creating), not SQLite, another program's SQLite file, from a newer lmmreview or
        with a negative schema version is refused with a StoreError, left as it was. An
        older schema is brought up to date at once, or, with `migrate=False`, inside the
        first write transaction (so a write that fails leaves the old schema).
        """
        path = Path(path)
        _check_file(path, create)
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _open_error(path, exc) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = _lmmreview_version(conn, path, create)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error) and not is_busy(exc):
                raise _open_error(path, exc) from None
            raise  # busy, not broken: the command says so; or already a StoreError
        store = cls(conn, path, pending_from=version)
        if migrate and store._pending_from is not None:
            with store.transaction():
                pass  # the migration alone
        return store

    def _migrate(self) -> None:
        """Apply the migrations still pending; called inside a write transaction."""
        if self._pending_from is None:
            return
        for number in range(self._pending_from, SCHEMA_VERSION):
            migration = MIGRATIONS[number]
            if isinstance(migration, str):
                for statement in statements(migration):
                    self.conn.execute(statement)
            else:
                migration(self.conn)
        self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        self.conn.close()

    def data_version(self) -> int:
        """Changes whenever another connection commits to the file."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def checkpoint(self) -> bool:
        """Move the WAL into the file and empty it, unless another connection is in the way
        (False): a file moved over this one's path later finds no frame of this one to
        replay (that is what made it "malformed")."""
        (busy, _, _) = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not busy

    def copy_to(self, target: Path, progress: Callable[[int, int], None] | None = None) -> None:
        """Copy the database as this connection reads it (even when its path now names
        another file, or none) to `target`, a new file: an existing one is never replaced.
        A copy that is not sound (pages of another file read through the WAL they now
        share) is removed, with a StoreError. `progress`, if given, is told (pages copied,
        pages in all) as the copy goes, a step of COPY_PAGES at a time."""
        with target.open("xb"):
            pass
        told = None if progress is None else lambda _, left, total: progress(total - left, total)
        try:
            with closing(sqlite3.connect(target)) as copy:
                self.conn.backup(copy, pages=COPY_PAGES if progress else -1, progress=told)
                found = copy.execute("PRAGMA quick_check(1)").fetchone()[0]
            if found != "ok":
                raise StoreError(f"{target}: the copy is damaged ({found})")
        except BaseException:
            target.unlink(missing_ok=True)  # no half copy is left behind
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: commit on success, roll back on any exception.

        A pending migration runs first, in the same transaction: it lands only with a
        write that succeeds. Migrations may rebuild tables, which SQLite allows only with
        foreign keys off (they cannot be switched inside a transaction), so they are off
        for that transaction and every key is checked before it commits.
        """
        self.check_still_there()
        migrating = self._pending_from is not None
        if migrating:
            self.conn.execute("PRAGMA foreign_keys = OFF")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self._migrate()
                yield
                if migrating:
                    self._check_foreign_keys()
            except BaseException:
                if self.conn.in_transaction:  # an interrupted write rolled it back itself
                    self.conn.execute("ROLLBACK")
                raise
            if self._gone() is not None:  # replaced during a long write: commit nothing
                self.conn.execute("ROLLBACK")
                self.check_still_there()
            self.conn.execute("COMMIT")
            self._watch.left(self._opened, self.data_version())
        finally:
            if migrating:
                self.conn.execute("PRAGMA foreign_keys = ON")
        self._pending_from = None

    def _gone(self) -> str | None:
        """What became of the file this connection opened (db/watch.py): None while the
        path names it as this connection left it."""
        return self._watch.change(self._opened, self.data_version)

    @contextmanager
    def noticing(self) -> Iterator[None]:
        """A read that fails on a file changed under this connection (SQLite reads the new
        content as damaged) raises FileChanged, as a write would."""
        try:
            yield
        except sqlite3.DatabaseError:
            self.check_still_there()
            raise

    def check_still_there(self) -> None:
        """Raise FileChanged when the path no longer names the file this connection opened
        as it left it."""
        what = self._gone()
        if what is None:
            return
        if what == REWRITTEN:
            # The WAL holds pages of the file's old content: moved into the new content
            # (by this connection's close, or by the next to open it) they would damage it.
            with suppress(OSError):
                os.truncate(wal_of(self._opened), 0)
        else:
            # This connection's WAL, found by name, would be read as the new file's: fold
            # it into the file this connection has (gone from view) and empty it.
            with suppress(sqlite3.Error):
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raise FileChanged(
            f"{self.path}: the file was {SAID[what]} while this command had it open: nothing "
            "more is written to it (what the command did since is not saved; run it "
            "again on the file)",
            what,
        )

    def _check_foreign_keys(self) -> None:
        """Raise StoreError when a row points at nothing (checked while keys are off)."""
        broken = self.conn.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            table, rowid, parent, _ = broken[0]
            raise StoreError(
                f"{self.path}: {len(broken)} row(s) point at nothing (first: {table} row "
                f"{rowid} -> {parent}), so the schema upgrade stopped and the file was left "
                "as it was"
            )

    # -- datasets and samples --------------------------------------------------------

    def dataset_id(self, name: str, kind: str, source: str | None = None) -> int:
        """The id of dataset `name` of benchmark `kind`, created if new (recording whether
        the benchmark's offline rules are its official scoring). Its kind must match."""
        row = self.conn.execute("SELECT id, kind FROM datasets WHERE name = ?", (name,)).fetchone()
        if row is None:
            cursor = self.conn.execute(
                "INSERT INTO datasets (name, kind, source, rules_first, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, kind, source, official_rules(kind), now()),
            )
            return int(cursor.lastrowid or 0)
        if row[1] != kind:
            raise StoreError(
                f"{self.path}: dataset {name!r} holds {row[1]} data, not {kind}; "
                "choose another name with --dataset"
            )
        return int(row[0])

    def upsert_samples(self, dataset_id: int, samples: Sequence[Sample]) -> dict[str, int]:
        """Insert new samples; for known keys, fill only the fields still empty.

        Returns key -> sample id for every sample of the dataset.
        """
        columns = ", ".join(("dataset_id", *SAMPLE_COLUMNS))
        marks = ", ".join("?" for _ in range(len(SAMPLE_COLUMNS) + 1))
        fill = ", ".join(
            f"{c} = COALESCE(NULLIF(samples.{c}, ''), excluded.{c})"
            if c not in ("axes", "extra")
            # a JSON object gains the names it lacks; the values it has are kept
            else f"{c} = NULLIF(json_patch(COALESCE(excluded.{c}, '{{}}'), "
            f"COALESCE(samples.{c}, '{{}}')), '{{}}')"
            for c in SAMPLE_COLUMNS[1:]
        )
        sql = (
            f"INSERT INTO samples ({columns}) VALUES ({marks}) "
            f"ON CONFLICT (dataset_id, key) DO UPDATE SET {fill}"
        )
        rows = (_sample_row(s) for s in samples)
        self.conn.executemany(sql, ((dataset_id, *(r[c] for c in SAMPLE_COLUMNS)) for r in rows))
        return self.sample_ids(dataset_id)

    def sample_ids(self, dataset_id: int) -> dict[str, int]:
        """key -> sample id for one dataset."""
        query = "SELECT key, id FROM samples WHERE dataset_id = ?"
        return dict(self.conn.execute(query, (dataset_id,)))

    def samples(self, dataset: str) -> list[Sample]:
        """Every sample of a dataset, in import order."""
        return list(self.samples_by_id(dataset).values())

    def samples_by_id(self, dataset: str) -> dict[int, Sample]:
        """sample id -> sample, for every sample of a dataset, in import order."""
        columns = ", ".join(f"s.{c}" for c in SAMPLE_COLUMNS)
        query = (
            f"SELECT s.id, {columns} FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = ? ORDER BY s.id"
        )
        return {row[0]: row_sample(row[1:]) for row in self.conn.execute(query, (dataset,))}

    def sample(self, sample_id: int) -> Sample:
        """One sample, by its row id."""
        columns = ", ".join(SAMPLE_COLUMNS)
        row = self.conn.execute(f"SELECT {columns} FROM samples WHERE id = ?", (sample_id,))
        return row_sample(row.fetchone())

    # -- images ----------------------------------------------------------------------

    def add_images(self, images: Iterable[StoredImage]) -> None:
        """Store image bytes once per content hash."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO images (hash, bytes, size, format, width, height) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((i.hash, i.data, len(i.data), i.format, i.width, i.height) for i in images),
        )

    def link_images(self, links: Iterable[tuple[int, int, str]]) -> None:
        """Attach images to samples: (sample id, 1-based position, image hash)."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO sample_images (sample_id, position, image_hash) "
            "VALUES (?, ?, ?)",
            links,
        )

    def image_hashes(self, dataset: str, key: str) -> list[str]:
        """The image hashes of one sample, in position order."""
        query = (
            "SELECT si.image_hash FROM sample_images si JOIN samples s ON s.id = si.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND s.key = ? "
            "ORDER BY si.position"
        )
        return [row[0] for row in self.conn.execute(query, (dataset, key))]

    def image_bytes(self, image_hash: str) -> bytes | None:
        row = self.conn.execute("SELECT bytes FROM images WHERE hash = ?", (image_hash,)).fetchone()
        return None if row is None else bytes(row[0])

    # -- models and answers ------------------------------------------------------------

    def model_id(self, name: str) -> int:
        """The id of model `name`, created if new."""
        row = self.conn.execute("SELECT id FROM models WHERE name = ?", (name,)).fetchone()
        if row is not None:
            return int(row[0])
        cursor = self.conn.execute(
            "INSERT INTO models (name, created_at) VALUES (?, ?)", (name, now())
        )
        return int(cursor.lastrowid or 0)

    def answer_texts(self, model_id: int, dataset_id: int) -> dict[int, str]:
        """sample id -> stored answer text of one model on one dataset."""
        query = (
            "SELECT a.sample_id, a.text FROM answers a JOIN samples s ON s.id = a.sample_id "
            "WHERE a.model_id = ? AND s.dataset_id = ?"
        )
        return dict(self.conn.execute(query, (model_id, dataset_id)).fetchall())

    def add_answers(self, model_id: int, rows: Iterable[tuple[int, str, str]]) -> None:
        """Insert answers: (sample id, text, source file). Existing ones are kept."""
        stamp = now()
        self.conn.executemany(
            "INSERT OR IGNORE INTO answers (sample_id, model_id, text, source, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            ((sample_id, model_id, text, source, stamp) for sample_id, text, source in rows),
        )

    def answers(self, dataset: str, model: str) -> dict[str, str]:
        """sample key -> answer text of one model on one dataset."""
        query = (
            "SELECT s.key, a.text FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id JOIN models m ON m.id = a.model_id "
            "WHERE d.name = ? AND m.name = ?"
        )
        return dict(self.conn.execute(query, (dataset, model)).fetchall())

    # -- scoring -----------------------------------------------------------------------

    def datasets(self, only: Iterable[str] | None = None) -> list[tuple[str, Benchmark]]:
        """(name, benchmark) of every dataset (or those named in `only`), by name; a
        StoreError names a dataset whose benchmark is not installed."""
        query = "SELECT name, kind FROM datasets ORDER BY name"
        wanted = None if only is None else set(only)
        found = []
        for name, kind in self.conn.execute(query).fetchall():
            if wanted is not None and name not in wanted:
                continue
            try:
                found.append((name, benchmark(kind)))
            except UnknownBenchmark as exc:
                raise StoreError(f"{self.path}: dataset {name!r}: {exc}") from None
        return found

    def require_datasets(self, names: Iterable[str]) -> None:
        """Raise StoreError, naming the file, for any of `names` that is not a dataset here."""
        known = {name for (name,) in self.conn.execute("SELECT name FROM datasets")}
        unknown = sorted(set(names) - known)
        if unknown:
            raise StoreError(f"{self.path}: no dataset {', '.join(map(repr, unknown))}")

    def require_models(self, names: Iterable[str]) -> None:
        """Raise StoreError, naming the file, for any of `names` that is not a model here."""
        known = {name for (name,) in self.conn.execute("SELECT name FROM models")}
        unknown = sorted(set(names) - known)
        if unknown:
            raise StoreError(f"{self.path}: no model {', '.join(map(repr, unknown))}")

    def answer_keys(self, dataset: str) -> list[tuple[int, str, str]]:
        """(answer id, model, sample key) of every answer in a dataset."""
        query = (
            "SELECT a.id, m.name, s.key FROM answers a "
            "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? ORDER BY a.id"
        )
        return self.conn.execute(query, (dataset,)).fetchall()

    def unjudged_answers(
        self, dataset: str, judge: Judge, chunk: int
    ) -> Iterator[list[tuple[int, int, str]]]:
        """(answer id, sample id, text) of every answer in a dataset that no usable
        judgment of `judge` decides (in any run), in answer order, `chunk` rows at a time:
        a million answers are never all held at once."""
        # The dataset's sample ids are listed once, from an index (the unary + keeps the
        # answers scanned in id order): joined, each answer read its sample's row, and the
        # samples' pages, read again for each model, took half the time of the read.
        query = (
            "SELECT a.id, a.sample_id, a.text FROM answers a WHERE +a.sample_id IN ("
            "SELECT s.id FROM samples s JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?) "
            "AND a.id NOT IN (SELECT j.answer_id FROM judgments j JOIN "
            f"({deciding_in_dataset(judge)}) USING (id) WHERE j.status IN {USABLE}) ORDER BY a.id"
        )
        parameters = (dataset, *judge_parameters(dataset, judge))
        with closing(self.conn.execute(query, parameters)) as rows:
            yield from iter(lambda: rows.fetchmany(chunk), [])

    def answer_rows(self, dataset: str) -> list[tuple[int, str, str, str]]:
        """(answer id, model, sample key, text) of every answer in a dataset."""
        query = (
            "SELECT a.id, m.name, s.key, a.text FROM answers a "
            "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? ORDER BY a.id"
        )
        return self.conn.execute(query, (dataset,)).fetchall()

    def deciding_judgments(
        self, dataset: str, judge: Judge | None = None
    ) -> dict[int, dict[int, Judgment]]:
        """answer id -> run -> the run's latest judgment (of `judge`, or of any judge), where
        that one is usable (the raw reply is left out). A run whose latest judgment failed is
        left out: it is unscored until a new judgment replaces the failure, never scored by
        an older one."""
        query = (
            "SELECT j.answer_id, j.run, j.score, j.choice, j.status, j.method, j.judge_kind, "
            f"j.judge_model, j.prompt_hash FROM judgments j JOIN ({deciding_in_dataset(judge)}) "
            f"USING (id) WHERE j.status IN {USABLE}"
        )
        deciding: dict[int, dict[int, Judgment]] = {}
        for answer, run, score, choice, status, method, kind, model, version in self.conn.execute(
            query, judge_parameters(dataset, judge)
        ):
            deciding.setdefault(answer, {})[run] = Judgment(
                run=run,
                score=score,
                choice=choice,
                status=Status(status),
                method=method or "",
                kind=kind,
                judge_model=model or "",
                prompt_version=version or "",
            )
        return deciding

    def judge_runs(self, dataset: str, judge: Judge | None = None) -> int:
        """How many judge runs a dataset's tables have: every run a judgment (of `judge`, or
        of any) is for, failed ones too (a failed run is an unscored run, not a missing
        one); at least 1."""
        where = IN_DATASET + (f" AND {JUDGE_READS}" if judge else "")
        query = f"SELECT MAX(l.run) FROM judgments l {where}"
        (top,) = self.conn.execute(query, judge_parameters(dataset, judge)).fetchone()
        return 1 if top is None else top + 1

    def judge_names(self, dataset: str, judge: Judge | None) -> tuple[list[str], list[str]]:
        """The names of the judges behind the scores `judge`'s tables show (itself, and the
        offline rules where an option match settled a row), and of the dataset's other
        judges, which those tables leave out."""
        counts = self._judge_counts(dataset)
        names = judge_names(_by_default(counts))
        shown = {j for j in counts if self._shows(dataset, judge, j, counts[j])}
        others = [name for j, name in names.items() if j not in shown and j != judge]
        first = names.get(judge) if judge else None
        return sorted((names[j] for j in shown), key=lambda n: (n != first, n)), others

    def _shows(
        self, dataset: str, judge: Judge | None, candidate: Judge, counts: JudgeCounts
    ) -> bool:
        """Whether a usable judgment of `candidate` decides a run of `judge`'s tables (of
        every judge's, when None): one is enough, so the scan in id order from its first
        judgment stops at the first that no later judgment read by those tables replaces.
        Another judge's judgments count only where an option match settled a row."""
        if not counts.usable or (judge and candidate != judge and not counts.matched):
            return False
        reads, later_reads = (judge_reads("l"), judge_reads("x")) if judge else ("1", "1")
        query = (  # the dataset tested per judgment: joined, SQLite would scan it answer by answer
            "SELECT EXISTS (SELECT 1 FROM judgments l WHERE l.id >= ? "
            f"AND l.status IN {USABLE} AND {judge_is('l')} AND {reads} "
            "AND (SELECT d.name FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE a.id = l.answer_id) = ? AND NOT EXISTS ("
            "SELECT 1 FROM judgments x WHERE x.answer_id = l.answer_id AND x.run = l.run "
            f"AND x.id > l.id AND {later_reads}))"
        )
        reads_parameters = judge.parameters() if judge else ()
        parameters = (
            counts.first,
            *candidate.parameters(),
            *reads_parameters,
            dataset,
            *reads_parameters,
        )
        return bool(self.conn.execute(query, parameters).fetchone()[0])

    def judges(self, dataset: str) -> list[Judge]:
        """Every judge of a dataset, the default first: a judge with a usable judgment
        before one whose every call failed, an LLM or imported judge before the offline
        rules (after them where they are the benchmark's official scoring), then the one
        that came first, so a second judge never displaces the first."""
        return _by_default(self._judge_counts(dataset))

    def _judge_counts(self, dataset: str) -> dict[Judge, JudgeCounts]:
        """Each judge of a dataset with its counts (kept by migration 10's triggers)."""
        query = (
            "SELECT h.judge_kind, h.judge_model, h.prompt, h.judgments, h.usable, h.matched, "
            "h.first_judgment_id, d.rules_first FROM dataset_judges h "
            "JOIN datasets d ON d.id = h.dataset_id WHERE d.name = ?"
        )
        return {
            Judge(kind, model, prompt): JudgeCounts(*counts)
            for kind, model, prompt, *counts in self.conn.execute(query, (dataset,))
        }

    def chosen_judge(self, dataset: str, choice: JudgeChoice = DEFAULT_CHOICE) -> Judge | None:
        """The judge whose scores a dataset's tables show, as `choice` picks it among the
        dataset's judges (see `judges`); None when the dataset has no judgment yet.
        StoreError, naming the file and the dataset, for a judge named that it lacks."""
        try:
            return choice.pick(self.judges(dataset))
        except UnknownJudge as exc:
            raise StoreError(f"{self.path}: dataset {dataset!r}: {exc}") from None

    def answer_ids(self, dataset: str) -> dict[tuple[str, str], int]:
        """(model, sample key) -> answer id, for every answer in a dataset."""
        return {(model, key): answer for answer, model, key in self.answer_keys(dataset)}

    def latest_judgments(
        self, dataset: str, judge: Judge | None = None
    ) -> dict[tuple[int, int], Judgment]:
        """(answer id, run) -> the run's latest judgment (of `judge`, or of any), failed ones
        too, as stored."""
        query = (
            "SELECT j.answer_id, j.run, j.score, j.choice, j.status, COALESCE(j.method, ''), "
            "j.judge_kind, COALESCE(j.judge_model, ''), COALESCE(j.prompt_hash, ''), "
            "COALESCE(j.raw_reply, ''), COALESCE(j.error, ''), COALESCE(j.source, '') "
            f"FROM judgments j JOIN ({deciding_in_dataset(judge)}) USING (id)"
        )
        latest = {}
        for answer, run, *fields, source in self.conn.execute(
            query, judge_parameters(dataset, judge)
        ):
            score, choice, status, method, kind, model, version, reply, error = fields
            latest[answer, run] = Judgment(
                run=run,
                score=score,
                choice=choice,
                status=Status(status),
                method=method,
                kind=kind,
                judge_model=model,
                prompt_version=version,
                reply=reply,
                error=error,
                source=source,
            )
        return latest

    def add_group_verdicts(
        self, rows: Iterable[tuple[int, GroupVerdict]], import_id: int | None = None
    ) -> int:
        """Record circular verdicts another tool computed: (answer id of the group's main
        row, verdict), brought by import `import_id`. One equal to the latest of its answer
        is left out; returns how many were added."""
        latest = {
            answer: rest
            for answer, *rest in self.conn.execute(
                "SELECT answer_id, score, failed_at, COALESCE(judge_model, ''), "
                "COALESCE(raw_reply, '') FROM group_verdicts ORDER BY id"
            )
        }
        stamp, added = now(), 0
        for answer, v in rows:
            said = [v.score, v.failed_at, v.judge_model, v.log]
            if latest.get(answer) == said:
                continue
            latest[answer] = said
            self.conn.execute(
                "INSERT INTO group_verdicts (answer_id, score, failed_at, judge_model, "
                "raw_reply, source, import_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    answer,
                    v.score,
                    v.failed_at,
                    v.judge_model or None,
                    v.log,
                    v.source,
                    import_id,
                    stamp,
                ),
            )
            added += 1
        return added

    def causes(self, dataset: str) -> list[tuple[str, str]]:
        """(model, cause) of every answer in a dataset whose latest cause row gives one."""
        # CROSS JOIN keeps the causes as the outer loop: the cost follows the cause rows,
        # where the planner would otherwise walk every answer of the dataset.
        query = (
            "SELECT m.name, c.cause FROM causes c CROSS JOIN answers a ON a.id = c.answer_id "
            "JOIN models m ON m.id = a.model_id JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND c.cause IS NOT NULL "
            "AND c.id = (SELECT MAX(l.id) FROM causes l WHERE l.answer_id = c.answer_id)"
        )
        return self.conn.execute(query, (dataset,)).fetchall()

    def group_verdicts(self, dataset: str) -> dict[int, GroupVerdict]:
        """answer id of a group's main row -> the latest verdict imported for the group."""
        query = (
            "SELECT g.answer_id, m.name, s.key, g.score, g.failed_at, "
            "COALESCE(g.judge_model, ''), COALESCE(g.raw_reply, ''), g.source "
            "FROM group_verdicts g CROSS JOIN answers a ON a.id = g.answer_id "  # as causes
            "JOIN models m ON m.id = a.model_id JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? ORDER BY g.id"
        )
        return {
            answer: GroupVerdict(key, model, score, failed_at, judge, log, source)
            for answer, model, key, score, failed_at, judge, log, source in self.conn.execute(
                query, (dataset,)
            )
        }

    @contextmanager
    def judgments_counted_together(self) -> Iterator[None]:
        """Inside a write transaction: the judgments added in the block are counted in
        dataset_judges by one statement at its end, not by the trigger row by row (a
        million rows: a third of the time). The trigger is dropped and made again, as it
        was, inside the transaction: no other connection sees it missing, and a failure
        rolls both back."""
        query = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?"
        (trigger,) = self.conn.execute(query, (COUNTING_TRIGGER,)).fetchone()
        (first,) = self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM judgments").fetchone()
        self.conn.execute(f"DROP TRIGGER {COUNTING_TRIGGER}")
        yield
        self.conn.execute(COUNT_JUDGMENTS_FROM, (first,))
        self.conn.execute(trigger)

    def add_judgments(
        self, rows: Iterable[tuple[int, Judgment]], import_id: int | None = None
    ) -> None:
        """Record judge results: (answer id, judgment), brought by import `import_id` (None:
        made here)."""
        stamp = now()
        values = [
            (
                answer, j.run, j.kind, j.judge_model, j.prompt_version, j.settings or None,
                j.reply, j.score, j.choice, j.method, j.status.value, j.error or None,
                j.prompt_tokens, j.completion_tokens, j.latency_ms, j.source or None, import_id,
                stamp,
            )
            for answer, j in rows
        ]  # fmt: skip
        if not values:
            return
        # A column that may be NULL and is NULL in every row is left out (NULL all the
        # same): the offline rules leave 7 of 18 NULL, and binding a million rows' NULLs
        # took a quarter of the insert's time.
        kept = [
            column
            for column, name in enumerate(_JUDGMENT_COLUMNS)
            if name not in _NULLABLE or not _all_null(values, column)
        ]
        names = ", ".join(_JUDGMENT_COLUMNS[column] for column in kept)
        self.conn.executemany(
            f"INSERT INTO judgments ({names}) VALUES ({', '.join('?' * len(kept))})",
            map(itemgetter(*kept), values),
        )

    # -- overview ----------------------------------------------------------------------

    def counts(self, choice: JudgeChoice = DEFAULT_CHOICE) -> list[DatasetCounts]:
        """Per dataset: samples, images and the judge read (see `chosen_judge`); per model:
        answers, judged, reviewed, unscored, offline."""
        import sqlite_utils  # dict rows; here only: the other commands need not load it

        datasets = sqlite_utils.Database(self.conn).query(
            "SELECT d.id, d.name, d.kind, "
            "(SELECT COUNT(*) FROM samples s WHERE s.dataset_id = d.id) AS samples, "
            "(SELECT COUNT(DISTINCT si.image_hash) FROM sample_images si "
            " JOIN samples s ON s.id = si.sample_id WHERE s.dataset_id = d.id) AS images "
            "FROM datasets d ORDER BY d.name"
        )
        counts = []
        for d in datasets:
            judge = self.chosen_judge(d["name"], choice)
            names = judge_names(self.judges(d["name"]))
            rows = self.conn.execute(
                _model_counts(judge), (*judge_parameters(d["name"], judge), d["id"])
            )
            models = [
                ModelCounts(model, answers, judged, reviewed, answers - scored, offline)
                for model, answers, judged, reviewed, scored, offline in rows
            ]
            named = names[judge] if judge else None
            counts.append(
                DatasetCounts(d["name"], d["kind"], d["samples"], d["images"], named, models)
            )
        return counts


@contextmanager
def new_database(path: Path) -> Iterator[Store]:
    """A new lmmreview database that appears at `path` only if the block succeeds.

    It is built under a temporary name in the same folder and linked into place at the
    end, so a failure leaves nothing behind and never deletes a file another process
    made meanwhile; if `path` appeared during the block, it is left as it is (StoreError).
    A symbolic link to nothing is followed: the database is made where it points, as
    SQLite itself would.
    """
    target = _creation_target(path)
    _check_file(target, create=True)
    if not _writable(target.parent):
        raise StoreError(f"{path}: cannot create it: the folder {target.parent} is read-only")
    temp = _new_file_beside(target)
    try:
        try:
            opened = Store.open(temp)
        except StoreError as exc:  # a full disk: name the file the user asked for
            raise StoreError(str(exc).replace(str(temp), str(path), 1)) from None
        with opened as store, _written_alone(store.conn):
            store.path = path  # messages name the file the user asked for
            yield store
        _link_new(temp, target, path)
    finally:
        for leftover in (temp, *(temp.with_name(temp.name + end) for end in COMPANIONS)):
            leftover.unlink(missing_ok=True)


@contextmanager
def _written_alone(conn: sqlite3.Connection) -> Iterator[None]:
    """Fill a new file, which no other connection can have open under its temporary name,
    with a rollback journal in memory: WAL writes every page twice (to the log, then into
    the file). A failure leaves nothing behind to recover: the file is deleted. Then WAL,
    as every lmmreview database has."""
    conn.execute("PRAGMA journal_mode = MEMORY")
    yield
    conn.execute("PRAGMA journal_mode = WAL")


def _creation_target(path: Path) -> Path:
    """Where a new database asked for at `path` is made: `path` itself, or the file a
    symbolic link to nothing points at."""
    if not path.is_symlink():
        return path
    _refuse_link_loop(path)
    return Path(os.path.realpath(path))


def _refuse_link_loop(path: Path) -> None:
    """Refuse a symbolic link that leads, through links, back to itself."""
    if path.is_symlink() and Path(os.path.realpath(path)).is_symlink():  # realpath stops at a loop
        raise StoreError(f"{path}: a symbolic link in a loop, leading to no file")


def _new_file_beside(path: Path) -> Path:
    """A new, empty file with a unique temporary name in `path`'s folder, with the mode any
    new file gets (0666 less the umask; mkstemp's 0600 would stay with the database)."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return temp


def _link_new(temp: Path, target: Path, path: Path) -> None:
    """Give the finished file its name, never replacing a file that appeared meanwhile."""
    try:
        os.link(temp, target)  # atomic, and fails if `target` exists
    except FileExistsError:
        raise StoreError(
            f"{path}: another process created this file during the import; it was left as "
            "it is and nothing was imported (run the import again to add to it)"
        ) from None


def _model_counts(judge: Judge | None) -> str:
    """Per model of one dataset (parameters: `judge_parameters`, then the dataset id):
    answers, judged, reviewed, scored, offline.

    An answer is judged when a usable judgment of `judge` decides one of its runs (is the
    judge's latest for the run), reviewed when its latest review carries a verdict (an
    undo back to "no verdict" leaves it unreviewed); unscored when neither the judge nor a
    human gives it a score (a choice with no gold to score it against gives none); offline
    when no human score replaces a score of the judge's that a usable offline judgment
    decides, as engine.scoring.effective has it. The tables' notes, `score` and the
    review screen count alike (tests/test_counts.py).
    """
    return f"""
    WITH decided AS (
        SELECT j.answer_id, MAX(j.score IS NOT NULL) AS scored,
            MAX(j.judge_kind = 'offline') AS offline FROM judgments j
        JOIN ({deciding_in_dataset(judge)}) USING (id)
        WHERE j.status IN {USABLE} GROUP BY j.answer_id
    ), flags AS (
        SELECT m.name AS model, c.answer_id IS NOT NULL AS judged,
            COALESCE(c.scored, 0) AS judge_scored, COALESCE(c.offline, 0) AS by_rules,
            COALESCE(r.score IS NOT NULL OR r.choice IS NOT NULL, 0) AS reviewed,
            COALESCE(CASE WHEN r.choice IS NULL THEN r.score IS NOT NULL
                          ELSE s.answer IS NOT NULL END, 0) AS human_scored
        FROM answers a JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id
        LEFT JOIN decided c ON c.answer_id = a.id
        LEFT JOIN reviews r ON r.id = (SELECT MAX(l.id) FROM reviews l WHERE l.answer_id = a.id)
        WHERE s.dataset_id = ?
    )
    SELECT model, COUNT(*), SUM(judged), SUM(reviewed), SUM(judge_scored OR human_scored),
        SUM(by_rules AND judge_scored AND NOT human_scored)
    FROM flags GROUP BY model ORDER BY model
    """


def _check_file(path: Path, create: bool) -> None:
    """Refuse, before SQLite touches anything, what is plainly not a database to open."""
    if path.is_dir():
        raise StoreError(f"{path}: is a folder, not a database file")
    _refuse_link_loop(path)
    if path.exists() and not path.is_file():
        raise StoreError(f"{path}: not a regular file ({_file_kind(path)})")
    if not path.exists():
        if not create:
            raise StoreError(f"{path}: no such database")
        if not path.parent.is_dir():
            raise StoreError(f"{path}: no folder {path.parent} to create it in")
    elif not create and path.stat().st_size == 0:
        raise StoreError(f"{path}: not a lmmreview database (empty file)")


def _file_kind(path: Path) -> str:
    """What a path that is neither a folder nor a regular file is, in words."""
    mode = path.stat().st_mode
    kinds = {
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "a special file")


def _lmmreview_version(conn: sqlite3.Connection, path: Path, create: bool) -> int:
    """The file's schema version, read without writing; refuses what lmmreview cannot use."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: written by a newer lmmreview (schema version {version}; "
            f"this version reads up to {SCHEMA_VERSION}). Upgrade lmmreview to open it."
        )
    if version < 0:
        raise StoreError(f"{path}: not a lmmreview database (schema version {version})")
    marks = ", ".join("?" * len(TABLES))
    edited = conn.execute(
        f"SELECT name, type FROM sqlite_master WHERE name IN ({marks}) AND (type != 'table' "
        "OR sql LIKE 'CREATE VIRTUAL%') LIMIT 1",
        sorted(TABLES),
    ).fetchone()
    if edited is not None:
        raise StoreError(
            f"{path}: {edited[0]} is a {edited[1]}, not a table (was the file edited?)"
        )
    if version == 0:
        if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            raise StoreError(f"{path}: an SQLite file that is not a lmmreview database")
        if not create:  # only import and demo make a new database
            raise StoreError(f"{path}: not a lmmreview database (an SQLite file with no tables)")
    return version


@contextmanager
def larger_cache(conn: sqlite3.Connection, kib: int = BULK_CACHE_KIB) -> Iterator[None]:
    """SQLite's page cache of `conn` at `kib` KiB for the block (a bulk write), then back."""
    (before,) = conn.execute("PRAGMA main.cache_size").fetchone()
    conn.execute(f"PRAGMA main.cache_size = {-kib}")  # negative: in KiB, not pages
    try:
        yield
    finally:
        conn.execute(f"PRAGMA main.cache_size = {before}")


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds the lock (SQLITE_BUSY or SQLITE_LOCKED)."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # not every DatabaseError has one
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc)


def is_read_only(exc: sqlite3.Error) -> bool:
    """SQLite may not write the file (SQLITE_READONLY and its extended codes)."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return code == sqlite3.SQLITE_READONLY or "readonly" in str(exc)


def _open_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """Why SQLite could not open the file: a read-only place, or not a database at all."""
    cannot_write = is_read_only(exc) or "unable to open" in str(exc)
    if cannot_write and _read_only_part(path):
        return read_only_error(path)
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL:  # the disk, not the file
        return StoreError(f"{path}: cannot be written: the disk is full")
    if code == sqlite3.SQLITE_IOERR:
        return StoreError(f"{path}: cannot be opened: {exc} (is the disk full?)")
    return StoreError(f"{path}: not a lmmreview database ({exc})")


def read_only_error(path: Path) -> StoreError:
    """SQLite may not write the database at `path`: say which part is read-only."""
    where = _read_only_part(path) or "the database"
    return StoreError(
        f"{path}: cannot write here: {where} is read-only (SQLite writes the database "
        "and its -wal and -shm files beside it; copy it to a writable folder)"
    )


def _read_only_part(path: Path) -> str | None:
    """The folder, the file, or a -wal, -shm or -journal file beside it that this process
    may not write (those are left by another user, or made read-only with a read-only file)."""
    if not _writable(path.parent):
        return f"the folder {path.parent}"
    if path.exists() and not _writable(path):
        return "the file"
    for end in COMPANIONS:
        beside = path.with_name(path.name + end)
        if beside.exists() and not _writable(beside):
            return f"its {beside.name} file"
    return None


def _writable(path: Path) -> bool:
    """Whether this process (by its effective user, as the kernel checks) may write `path`."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)
