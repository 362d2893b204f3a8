"""The review screen's queries and writes: entries, one answer in detail, verdicts, flags.

Every write is one transaction, committed before the caller shows its result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter
from typing import NamedTuple

from lmmreview.db.answer_columns import ColumnReader, Judgments
from lmmreview.db.errata import ErrataStore, erratum_on
from lmmreview.db.sample_columns import read_samples
from lmmreview.db.store import Store, now
from lmmreview.engine import registry
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.causes import CauseChange
from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.errata import Erratum
from lmmreview.engine.review import (
    Entry,
    HistoryRow,
    current,
    in_force,
    undo_target,
)
from lmmreview.engine.reviewers import own_rows, own_verdict
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import GroupVerdict, Judge, Verdict
from lmmreview.engine.types import Sample

RETRY_WAIT_MS = 100  # how long a retried write waits for another process's write lock

# The tables another process can add rows to while the screen is open, and the answers a
# row newer than an id touches (an erratum, every answer to its sample).
_WATCHED = {
    **{
        t: f"SELECT answer_id FROM {t} WHERE id > ?"
        for t in ("judgments", "reviews", "flags", "causes")
    },
    "errata": (
        "SELECT a.id FROM errata e JOIN answers a ON a.sample_id = e.sample_id WHERE e.id > ?"
    ),
}


class Marks(NamedTuple):
    """Where to look for another process's changes from: the newest ids, and how many
    judgments and imports the file has (fewer than then plus those added: some removed)."""

    newest: tuple[int, ...]  # of each table of _WATCHED
    answer: int  # the newest answer id
    imported: int  # the newest import id (never reused)
    judgments: int  # as migration 10's triggers count them: a few rows to read
    imports: int

    def new_errata(self, before: Marks) -> bool:
        """Whether an erratum was given since `before`: it reads on its whole circular
        group (db.errata.on_row), not only on the answers to its sample."""
        return self.newest[_ERRATA] > before.newest[_ERRATA]


_ERRATA = list(_WATCHED).index("errata")
NO_MARKS = Marks((0,) * len(_WATCHED), 0, 0, 0, 0)

_LIKE = "LIKE ?2 ESCAPE '\\'"  # holds the searched text (see ReviewStore.search)


def _contains(text: str) -> str:
    """A LIKE pattern for any text holding `text` (its %, _ and \\ taken literally)."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


_IN_DATASET = (
    "JOIN answers a ON a.id = {t}.answer_id JOIN samples s ON s.id = a.sample_id "
    "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?"
)


class _ReviewRow(NamedTuple):
    """A review or cause row as far as "whose change is in force" needs it."""

    id: int
    answer_id: int
    action: str
    reviewer: str
    created_at: str


class _OwnRow(NamedTuple):
    """A review row as far as a reviewer's own verdict in force needs it (engine.reviewers)."""

    answer_id: int
    reviewer: str
    action: str
    score: float | None
    choice: str | None


@dataclass(frozen=True, slots=True)
class JudgeRecord:
    """One judge call as the reviewer sees it: what it said and how it was read."""

    id: int
    run: int
    kind: str
    model: str
    status: str
    score: float | None
    choice: str | None
    method: str
    reply: str
    error: str
    created_at: str
    source: str  # the file an imported judgment was read from
    prompt: str = ""  # the prompt version it was asked with

    @property
    def judge(self) -> Judge:
        return Judge.of(self.kind, self.model, self.prompt)


class FlagChange(NamedTuple):
    """One flag or unflag of an answer, as its history shows it."""

    flagged: bool
    reviewer: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Detail:
    """Everything the review screen shows about one answer."""

    answer_id: int
    model: str
    sample: Sample
    text: str
    image_hashes: list[str]
    judgments: list[JudgeRecord]
    history: list[HistoryRow]
    flagged: bool
    group_verdict: GroupVerdict | None = None  # another tool's verdict on the row's group
    causes: tuple[CauseChange, ...] = ()  # the error cause's history, oldest first
    flags: tuple[FlagChange, ...] = ()  # flagged and unflagged, oldest first
    erratum: Erratum | None = None  # the sample's ground-truth erratum in force (db.errata)
    # the erratum in force on the row: its own, or its circular group's (Erratum.origin)
    row_erratum: Erratum | None = None

    @property
    def cause(self) -> str | None:
        """The current error cause: the latest change's."""
        return self.causes[-1].cause if self.causes else None


class EntryReader:
    """A dataset's answers as review entries, read one way for the review screen's list
    and for the tables, exports and notes of the command line."""

    def __init__(self, store: Store, judge: Judge | None = None) -> None:
        self.store = store
        self.conn = store.conn
        self.judge = judge  # whose judgments the entries show (None: the dataset's default)

    # -- the list ----------------------------------------------------------------------

    def entries(self, dataset: str) -> list[Entry]:
        """One entry per answer, by sample then model, with scores, verdicts and flags."""
        return list(self.columns(dataset).entries())

    def columns(self, dataset: str) -> AnswerColumns:
        """Every answer as columns, by sample then model, with scores, verdicts and flags."""
        answers = self.bare_columns(dataset)
        self.fill(dataset, answers)
        return answers

    def bare_columns(
        self, dataset: str, keys: list[str] | None = None, head: int | None = None
    ) -> AnswerColumns:
        """Every answer, by sample then model (import order): ids only, quickly; `head`:
        only the answers to the first `head` samples (the top of the list)."""
        return ColumnReader(self.conn, self._dataset_id(dataset)).answers(keys, head)

    def samples(
        self,
        dataset: str,
        by_profile: bool,
        known: list[str] | None = None,
        group_by: tuple[str, str] | None = None,
    ) -> SampleSet:
        """Every sample, by id, as columns (see read_samples for `by_profile`, `group_by`
        and `known`)."""
        return read_samples(self.conn, self._dataset_id(dataset), by_profile, known, group_by)

    def table_samples(
        self, dataset: str, benchmark: Benchmark, known: list[str] | None = None
    ) -> SampleSet:
        """`samples`, profiled as `benchmark`'s tables read them."""
        return self.samples(dataset, benchmark.by_profile, known, benchmark.group_by)

    def samples_of(
        self, dataset: str, benchmark: Benchmark, answers: AnswerColumns, read: SampleSet | None
    ) -> SampleSet:
        """The samples of `answers`: `read` (on another connection, maybe before the
        answers were) if it has every one, else read here, another process having added
        some since."""
        if read is None or not read.has_all(answers.keys):
            return self.table_samples(dataset, benchmark, answers.keys)
        return read

    def fill(self, dataset: str, answers: AnswerColumns, read: Judgments | None = None) -> int:
        """Add judge scores (of `self.judge`, else the dataset's default judge), failures,
        verdicts and flags to answers read by bare_columns (`read`: the judgments, if
        read already, as `judgments` reads them); returns the judge's runs."""
        reader = ColumnReader(self.conn, self._dataset_id(dataset))
        return reader.fill(answers, self.judge_of(dataset), read)

    def judgments(self, dataset: str) -> Judgments | None:
        """The judgments `fill` reads, of every answer of the dataset (None: no judge): a
        long read, which another connection can make beside this one's."""
        judge = self.judge_of(dataset)
        if judge is None:
            return None
        return ColumnReader(self.conn, self._dataset_id(dataset)).judgments(judge)

    def judge_of(self, dataset: str) -> Judge | None:
        """Whose judgments the entries show: `self.judge`, else the dataset's default."""
        return self.judge or self.store.chosen_judge(dataset)

    def refresh(self, dataset: str, answer_ids: set[int]) -> list[Entry]:
        """Fresh entries for some answers (after another process wrote to the file)."""
        reader = ColumnReader(self.conn, self._dataset_id(dataset), sorted(answer_ids))
        answers = reader.answers()
        reader.fill(answers, self.judge_of(dataset))
        return list(answers.entries())

    def _dataset_id(self, dataset: str) -> int:
        found = self.conn.execute("SELECT id FROM datasets WHERE name = ?", (dataset,)).fetchone()
        if found is None:
            raise LookupError(f"{self.store.path}: no dataset {dataset!r}")
        return int(found[0])


class ReviewStore(EntryReader):
    """The review screen's access to one database, as one reviewer."""

    def __init__(self, store: Store, reviewer: str) -> None:
        super().__init__(store)
        self.reviewer = reviewer
        # A verdict is on disk before the screen shows it: synced at every commit, so it
        # survives a power cut too, not only a crash (one fsync per verdict is cheap).
        self.conn.execute("PRAGMA synchronous = FULL")

    def search(self, dataset: str, text: str) -> frozenset[int]:
        """Answers whose answer text, question, hint or an option contains `text`
        (case-insensitive for ASCII, as SQLite's LIKE). The samples are searched first, once
        each (not once per answer); an option's JSON is parsed only where its raw text holds
        `text` as JSON escapes it, non-ASCII escaped or not (escaping is per character, so
        it must): 0.62 s at 1,000,000 answers, as the question and answer alone took."""
        escaped = [_contains(json.dumps(text, ensure_ascii=a)[1:-1]) for a in (True, False)]
        rows = self.conn.execute(
            "WITH hit AS (SELECT s.id FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            f"WHERE d.name = ?1 AND (s.question {_LIKE} OR s.hint {_LIKE} OR "
            "((s.options LIKE ?3 ESCAPE '\\' OR s.options LIKE ?4 ESCAPE '\\') AND EXISTS "
            f"(SELECT 1 FROM json_each(s.options) o WHERE o.value {_LIKE})))) "
            "SELECT a.id FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?1 "
            f"AND (a.sample_id IN hit OR a.text {_LIKE})",
            (dataset, _contains(text), *escaped),
        )
        return frozenset(row[0] for row in rows)

    # -- one answer --------------------------------------------------------------------

    def detail(self, answer_id: int) -> Detail:
        model, text, sample_id = self.conn.execute(
            "SELECT m.name, a.text, a.sample_id FROM answers a JOIN models m ON m.id = a.model_id "
            "WHERE a.id = ?",
            (answer_id,),
        ).fetchone()
        sample = self.store.sample(sample_id)
        hashes = [
            row[0]
            for row in self.conn.execute(
                "SELECT si.image_hash FROM sample_images si JOIN answers a "
                "ON a.sample_id = si.sample_id WHERE a.id = ? ORDER BY si.position",
                (answer_id,),
            )
        ]
        judgments = [
            JudgeRecord(*row)
            for row in self.conn.execute(
                "SELECT id, run, judge_kind, judge_model, status, score, choice, "
                "COALESCE(method, ''), COALESCE(raw_reply, ''), COALESCE(error, ''), created_at, "
                "COALESCE(source, ''), COALESCE(prompt_hash, '') "
                "FROM judgments WHERE answer_id = ? ORDER BY run, id",
                (answer_id,),
            )
        ]
        flags = tuple(
            FlagChange(bool(flagged), reviewer, created_at)
            for flagged, reviewer, created_at in self.conn.execute(
                "SELECT flagged, reviewer, created_at FROM flags WHERE answer_id = ? ORDER BY id",
                (answer_id,),
            )
        )
        own = erratum_on(self.conn, sample_id)
        return Detail(
            answer_id, model, sample, text, hashes, judgments, self.history(answer_id),
            bool(flags and flags[-1].flagged), self._group_verdict(answer_id, sample),
            tuple(self.cause_history(answer_id)), flags, own,
            self._row_erratum(sample_id, sample, own),
        )  # fmt: skip

    def _row_erratum(self, sample_id: int, sample: Sample, own: Erratum | None) -> Erratum | None:
        """The erratum in force on the sample's row: `own`, or its rotations' (db.errata)."""
        (kind,) = self.conn.execute(
            "SELECT d.kind FROM datasets d JOIN samples s ON s.dataset_id = d.id WHERE s.id = ?",
            (sample_id,),
        ).fetchone()
        field = registry.benchmark(kind).rotation_field
        return ErrataStore(self.store, "").on_row(sample_id, sample, field) if field else own

    def _group_verdict(self, answer_id: int, sample: Sample) -> GroupVerdict | None:
        """The latest verdict imported for the group of this answer's row (its benchmark's
        `group_by`: MMBench's circular group), from the same model's answer to the group's
        main row."""
        if not self._holds_group_verdicts():
            return None
        (kind,) = self.conn.execute(
            "SELECT d.kind FROM datasets d JOIN answers a JOIN samples s "
            "ON s.id = a.sample_id AND d.id = s.dataset_id WHERE a.id = ?",
            (answer_id,),
        ).fetchone()
        group_by = registry.benchmark(kind).group_by
        group = sample.extra.get(group_by[0]) if group_by else None
        if group_by is None or group is None:
            return None
        row = self.conn.execute(
            "SELECT s.key, m.name, g.score, g.failed_at, COALESCE(g.judge_model, ''), "
            "COALESCE(g.raw_reply, ''), g.source FROM group_verdicts g "
            "JOIN answers a ON a.id = g.answer_id JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id JOIN answers this ON this.id = ? "
            "JOIN samples mine ON mine.id = this.sample_id "
            "WHERE a.model_id = this.model_id AND s.dataset_id = mine.dataset_id "
            "AND s.split IS mine.split AND json_extract(s.extra, ?) = ? "
            "ORDER BY g.id DESC LIMIT 1",
            (answer_id, f"$.{group_by[0]}", group),
        ).fetchone()
        return None if row is None else GroupVerdict(*row)

    def _holds_group_verdicts(self) -> bool:
        """Whether the file holds any imported group verdict: most hold none, and looking
        for one searches every sample of the dataset (no index holds a group; at 200,000
        samples 0.14 s per answer shown)."""
        return bool(self.conn.execute("SELECT EXISTS (SELECT 1 FROM group_verdicts)").fetchone()[0])

    def history(self, answer_id: int) -> list[HistoryRow]:
        rows = self.conn.execute(
            "SELECT id, score, choice, previous_score, previous_choice, action, reviewer, note, "
            "created_at FROM reviews WHERE answer_id = ? ORDER BY id",
            (answer_id,),
        )
        return [HistoryRow(*row) for row in rows]

    def cause_history(self, answer_id: int) -> list[CauseChange]:
        """Every change of an answer's error cause, oldest first."""
        rows = self.conn.execute(
            "SELECT id, cause, previous, action, reviewer, created_at FROM causes "
            "WHERE answer_id = ? ORDER BY id",
            (answer_id,),
        )
        return [CauseChange(*row) for row in rows]

    def model_names(self) -> list[str]:
        """The name of every model of the file: a few rows, where the models of one dataset
        take a walk over its answers (0.13 s at a million)."""
        return [row[0] for row in self.conn.execute("SELECT name FROM models")]

    def own_answers(self, dataset: str) -> tuple[frozenset[int], frozenset[int]]:
        """The answers of `dataset` this reviewer has given a verdict (graded or accepted,
        whether or not it is still in force), and those on which their own verdict is in
        force. Read from their review rows, each looked up in its dataset (CROSS JOIN keeps
        that order): a few, where a walk from the dataset reads every answer (0.08 s at a
        million)."""
        rows = self.conn.execute(
            "SELECT r.answer_id, r.reviewer, r.action, r.score, r.choice FROM reviews r "
            "CROSS JOIN answers a ON a.id = r.answer_id CROSS JOIN samples s "
            "ON s.id = a.sample_id WHERE r.reviewer = ? AND s.dataset_id = ? "
            "ORDER BY r.answer_id, r.created_at, r.id",
            (self.reviewer, self._dataset_id(dataset)),
        )
        own = list(map(_OwnRow._make, rows))
        given = frozenset(row.answer_id for row in own if row.action in ("grade", "accept"))
        return given, frozenset(own_rows(own))

    def answers_to(self, dataset: str, key: str) -> list[tuple[int, str, str]]:
        """(answer id, model, text) of every model's answer to one sample, the models in
        the list's order (as imported)."""
        return self.conn.execute(
            "SELECT a.id, m.name, a.text FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = ? AND s.key = ? ORDER BY a.model_id",
            (dataset, key),
        ).fetchall()

    def image(self, image_hash: str) -> bytes | None:
        return self.store.image_bytes(image_hash)

    # -- writes --------------------------------------------------------------------------

    def grade(
        self, answer_id: int, score: float | None = None, choice: str | None = None,
        action: str = "grade", blind: bool = False,
    ) -> Verdict | None:  # fmt: skip
        """Append a verdict (committed on return); returns the verdict now in force.
        `blind`: it was given with the model and the judges hidden (blind review).

        The verdict already in force adds no row when it is this reviewer's own too: a
        repeated key would otherwise take as many undos as presses to take back. Another
        reviewer's equal verdict is a row of its own (their agreement counts).
        """
        verdict = Verdict(score, choice)
        with self.store.transaction():
            self.put(answer_id, verdict, action, blind)
        return verdict

    def put(self, answer_id: int, verdict: Verdict, action: str, blind: bool = False) -> bool:
        """`grade` inside the caller's transaction: append the verdict unless it is both the
        one in force and this reviewer's own in force (a repeat; an import run twice); whether
        it was appended."""
        history = self.history(answer_id)
        before = current(history)
        own = own_verdict(history, self.reviewer)
        added = verdict != before or verdict != own
        if added:
            self._append(answer_id, verdict, before, action, None, blind)
        return added

    def undo_last(self, dataset: str) -> int | None:
        """Undo this reviewer's latest change in `dataset` still in force, a verdict or an
        error cause (as a new row); the answer it was on, or None when there is none."""
        undone = self.undo_change(dataset)
        return None if undone is None else undone[0]

    def undo_change(self, dataset: str) -> tuple[int, str] | None:
        """As `undo_last`, also saying what was undone: "verdict" or "cause". Of the two
        newest changes in force, the later one (by time, then by being a cause) goes."""
        with self.store.transaction():
            newest = self.newest_change(dataset)
            if newest is None:
                return None
            answer_id, kind = newest
            if kind == "verdict":
                self._undo(answer_id)
            else:
                self._undo_cause(answer_id)
            return answer_id, kind

    def newest_change(self, dataset: str) -> tuple[int, str] | None:
        """(answer, "verdict" or "cause") of the change `undo_change` would take back."""
        verdict = self._last_verdict(dataset)
        cause = self._last_cause(dataset)
        newest = max((found for found in (verdict, cause) if found is not None), default=None)
        return None if newest is None else (newest[2], newest[1])

    def _undo(self, answer_id: int) -> None:
        """Restore the verdict before the one in force on an answer, as a new row."""
        history = self.history(answer_id)
        possible, restored = undo_target(history)
        if possible:
            self._append(
                answer_id, restored or Verdict(None), current(history), "undo", None, False
            )

    def _last_verdict(self, dataset: str) -> tuple[str, str, int] | None:
        """The answer whose verdict in force is this reviewer's newest one.

        Each answer's verdicts stack as in `engine.review` (a verdict pushes, an undo pops);
        only the top of a stack is in force, so a verdict someone else has since replaced is
        not undone from here.
        """
        return self._newest_in_force("reviews", "verdict", "r.action != 'note'", dataset)

    def _last_cause(self, dataset: str) -> tuple[str, str, int] | None:
        """The answer whose error cause in force is this reviewer's newest change; its
        changes stack as verdicts do."""
        return self._newest_in_force("causes", "cause", "1", dataset)

    def _newest_in_force(
        self, table: str, kind: str, where: str, dataset: str
    ) -> tuple[str, str, int] | None:
        """(created_at, kind, answer) of this reviewer's newest row of `table` on top of
        its answer's stack (see `engine.review.in_force`), or None."""
        rows = self.conn.execute(
            f"SELECT r.id, r.answer_id, r.action, r.reviewer, r.created_at FROM {table} r "
            f"{_IN_DATASET.format(t='r')} AND {where} ORDER BY r.answer_id, r.id",
            (dataset,),
        )
        tops = [
            stack[-1]
            for _, history in groupby(map(_ReviewRow._make, rows), key=attrgetter("answer_id"))
            if (stack := in_force(history))
        ]
        mine = [top for top in tops if top.reviewer == self.reviewer]
        if not mine:
            return None
        top = max(mine, key=attrgetter("id"))
        return top.created_at, kind, top.answer_id

    def note(self, answer_id: int, text: str, blind: bool = False) -> None:
        """Attach a note to the answer's current verdict (as a history row); `blind`: as
        `grade`."""
        with self.store.transaction():
            verdict = current(self.history(answer_id)) or Verdict(None)
            self._append(answer_id, verdict, verdict, "note", text, blind)

    def _append(
        self, answer_id: int, new: Verdict, old: Verdict | None, action: str, note: str | None,
        blind: bool,
    ) -> None:  # fmt: skip
        self.conn.execute(
            "INSERT INTO reviews (answer_id, score, choice, previous_score, previous_choice, "
            "action, reviewer, note, created_at, blind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                answer_id, new.score, new.choice, old.score if old else None,
                old.choice if old else None, action, self.reviewer, note, now(), int(blind),
            ),
        )  # fmt: skip

    def set_cause(self, answer_id: int, cause: str | None) -> str | None:
        """Give an answer an error cause (None clears it), committed on return; the cause
        already in force adds no row. Returns the cause now in force."""
        with self.store.transaction():
            before = self._cause(answer_id)
            if cause != before:
                self._append_cause(answer_id, cause, before, "set")
            return cause

    def _undo_cause(self, answer_id: int) -> None:
        """Restore the cause before the one in force on an answer, as a new row."""
        stack = in_force(self.cause_history(answer_id))
        if stack:
            self._append_cause(answer_id, stack[-1].previous, stack[-1].cause, "undo")

    def _cause(self, answer_id: int) -> str | None:
        row = self.conn.execute(
            "SELECT cause FROM causes WHERE answer_id = ? ORDER BY id DESC LIMIT 1", (answer_id,)
        ).fetchone()
        return None if row is None else row[0]

    def _append_cause(
        self, answer_id: int, cause: str | None, previous: str | None, action: str
    ) -> None:
        self.conn.execute(
            "INSERT INTO causes (answer_id, cause, previous, action, reviewer, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (answer_id, cause, previous, action, self.reviewer, now()),
        )

    def set_flag(self, answer_id: int, flagged: bool) -> None:
        with self.store.transaction():
            self.conn.execute(
                "INSERT INTO flags (answer_id, flagged, reviewer, created_at) VALUES (?, ?, ?, ?)",
                (answer_id, int(flagged), self.reviewer, now()),
            )

    @contextmanager
    def impatient(self) -> Iterator[None]:
        """Wait only briefly for another process's write lock in this block: a retry must
        not hold up the reads queued behind it."""
        (usual,) = self.conn.execute("PRAGMA busy_timeout").fetchone()
        self.conn.execute(f"PRAGMA busy_timeout = {RETRY_WAIT_MS}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(usual)}")

    # -- other writers ---------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection commits to the file."""
        return self.store.data_version()

    def marks(self) -> Marks:
        """The newest judgment, review, flag, cause, erratum and answer ids: where to look
        for changes from."""
        newest = ", ".join(
            f"(SELECT COALESCE(MAX(id), 0) FROM {t})" for t in (*_WATCHED, "answers", "imports")
        )
        counts = "(SELECT COALESCE(SUM(judgments), 0) FROM dataset_judges), " + (
            "(SELECT COUNT(*) FROM imports)"
        )
        *ids, answer, imported, judgments, imports = map(
            int, self.conn.execute(f"SELECT {newest}, {counts}").fetchone()
        )
        return Marks(tuple(ids), answer, imported, judgments, imports)

    def touched_since(self, marks: Marks) -> set[int]:
        """Answers with a judgment, review, flag, cause or erratum newer than `marks`."""
        rows = self.conn.execute(" UNION ".join(_WATCHED.values()), marks.newest)
        return {row[0] for row in rows}

    def added_since(self, dataset: str, marks: Marks) -> set[int]:
        """The dataset's answers imported after `marks` (by another process)."""
        rows = self.conn.execute(
            "SELECT a.id FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? AND a.id > ?",
            (dataset, marks.answer),
        )
        return {row[0] for row in rows}

    def removed_between(self, before: Marks, after: Marks) -> bool:
        """Whether judgments or imports were removed between two marks: fewer after than
        before plus those added between (found by id: few rows, not a scan)."""
        judged, imported = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM judgments WHERE id > ? AND id <= ?), "
            "(SELECT COUNT(*) FROM imports WHERE id > ? AND id <= ?)",
            (before.newest[0], after.newest[0], before.imported, after.imported),
        ).fetchone()
        return (
            after.newest[0] < before.newest[0]  # the newest went: its id can come again
            or after.judgments < before.judgments + judged
            or after.imports < before.imports + imported
        )

    def dataset_names(self) -> list[str]:
        """Every dataset of the file, by name (as `Store.datasets` lists them)."""
        return [row[0] for row in self.conn.execute("SELECT name FROM datasets ORDER BY name")]
