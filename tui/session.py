"""One dataset open for review: the state every screen reads, free of Textual.

Opened in two steps, both in the database thread: `open` reads the answers (enough to
show the list and the first answer), `compute` then reads the samples and builds the
tables. The UI thread owns the session and changes it in small steps: one entry at a
time, each a delta on the live tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lmmreview.db.answer_columns import Judgments
from lmmreview.db.aside import Aside
from lmmreview.db.assign import assigned_to
from lmmreview.db.review import EntryReader, ReviewStore
from lmmreview.db.scoring import DatasetScores
from lmmreview.db.store import Store
from lmmreview.engine.assign import Assigned
from lmmreview.engine.benchmark import Benchmark, Unit
from lmmreview.engine.blind import shuffled
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.columns import AnswerColumns, Bools, GoldsOf, Ints, matching
from lmmreview.engine.errata import with_errata
from lmmreview.engine.layouts import Layout, layout_for
from lmmreview.engine.ordering import LIST_ORDER, ORDERS, sorted_rows
from lmmreview.engine.review import Agreement, Entry, Filter
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import (
    DEFAULT_CHOICE,
    MICRO,
    Judge,
    JudgeChoice,
    Outcome,
    judge_names,
)
from lmmreview.engine.tables import Cell, Table
from lmmreview.engine.uncertainty import RESAMPLES, SEED, Difference

# Samples whose answers are read before the first screen: many screens of the list, read
# in milliseconds whatever the dataset's size (the rest come a moment later).
HEAD = 2_000
NO_SAMPLE = -1  # no sample index: matches no answer


@dataclass(frozen=True, slots=True)
class Tables:
    """What `compute` makes: the answers filled in (judge scores, verdicts, marks), their
    samples, the live tables and the judge-human agreement."""

    answers: AnswerColumns
    samples: SampleSet  # by sample index, as answers.sample counts them
    breakdown: Breakdown
    agreement: Agreement
    judge: Judge | None = None  # whose scores they are
    judges: dict[Judge, str] = field(default_factory=dict)  # the dataset's, by name
    assigned: Assigned | None = None  # what is assigned to the reviewer (lmmreview assign)


class Beside(NamedTuple):
    """The long reads of `Session.compute`, made on connections of their own (see
    `Session.read_beside`)."""

    judgments: Aside[Judgments | None]
    samples: Aside[SampleSet]
    answers: Aside[AnswerColumns] | None = None  # every answer, when the top comes first


@dataclass(slots=True)
class Session:
    dataset: str
    benchmark: Benchmark
    datasets: list[str]
    answers: AnswerColumns
    visible: Ints  # rows of `answers`, in list order
    filter: Filter = field(default_factory=Filter)
    tables: Tables | None = None  # None until `compute` has run
    # Answers changed while tables are being made from a copy: replayed on them.
    replay: dict[int, Entry] | None = field(default_factory=dict)
    reviewed: int = 0  # kept as entries change: counting a million per verdict is too slow
    judge: Judge | None = None  # whose scores the list and the tables show
    judges: dict[Judge, str] = field(default_factory=dict)  # the dataset's, by name
    order: str = LIST_ORDER  # how the visible answers are sorted (engine.ordering)
    partial: bool = False  # only the top of the list is read yet (see `take_answers`)
    seed: int | None = None  # the list order is shuffled by this seed (None: as imported)
    assignment: Assigned | None = None  # what is assigned to the reviewer (lmmreview assign)
    # Blind review: the answers with the reviewer's own verdict in force, the only ones it
    # counts as reviewed (None: anyone's verdict counts).
    own: set[int] | None = None

    @classmethod
    def open(
        cls,
        review: ReviewStore,
        dataset: str | None = None,
        judge: Judge | None = None,
        head: int | None = None,
    ) -> Session:
        """Read a dataset's answers (the first dataset by name, unless one is given); the
        judge (`judge`, or the one `compute` chooses) comes with the tables. `head`: read
        only the answers to the first `head` samples, the top of the list, for a first
        screen that does not wait for a million; `every_answer` reads them all."""
        name, kind, names = _dataset(review.store, dataset)
        _read_as(review, judge)  # until `compute` chooses, a read finds the default itself
        answers = _bare(review, name, head)  # scores come with the tables, a moment later
        partial = head is not None and len(answers.keys) >= head  # else it was all of them
        return cls(name, kind, names, answers, np.arange(len(answers)), judge=judge,
                   partial=partial)  # fmt: skip

    @staticmethod
    def name_of(store: Store, dataset: str | None) -> str:
        """The dataset `dataset` names, else the first by name (LookupError: none)."""
        return _dataset(store, dataset)[0]

    @staticmethod
    def every_answer(
        review: ReviewStore, dataset: str, beside: Beside | None = None
    ) -> AnswerColumns:
        """In the database thread: every answer of the dataset, for `take_answers` (as
        read beside, if it was)."""
        read = beside.answers.take() if beside and beside.answers else None
        return read if read is not None else _bare(review, dataset, None)

    def take_answers(self, answers: AnswerColumns) -> None:
        """Every answer, read after the top of the list: listed in its place, each
        changed since the top was read as it is now."""
        for entry in (self.replay or {}).values():
            row = answers.index_of(entry.answer_id)
            if row is not None:
                answers.put(row, entry)
        self.answers, self.partial = answers, False
        self.apply(self.filter)

    @staticmethod
    def read_beside(
        path: Path,
        dataset: str,
        judge: Judge | None,
        choice: JudgeChoice,
        every: bool = False,
    ) -> Beside:
        """Start the long reads the tables need, each on a connection of its own beside
        `open`'s: the judgments (of `judge`, else the one `choice` picks), the samples
        and, if `every`, every answer (for `every_answer`, when `open` reads only the top
        of the list)."""
        return Beside(
            Aside(path, lambda store: Session.judgments(store, dataset, judge, choice)),
            Aside(path, lambda store: Session.samples(store, dataset)),
            Aside(path, lambda store: _bare(EntryReader(store), dataset, None)) if every else None,
        )

    @staticmethod
    def judgments(
        store: Store, dataset: str | None, judge: Judge | None, choice: JudgeChoice
    ) -> Judgments | None:
        """The judgments `compute` reads (of `judge`, else the one `choice` picks)."""
        name = Session.name_of(store, dataset)
        chosen = judge or choice.pick(store.judges(name))
        return EntryReader(store, chosen).judgments(name)

    @staticmethod
    def samples(store: Store, dataset: str | None) -> SampleSet:
        """The samples `compute` reads."""
        name, benchmark, _ = _dataset(store, dataset)
        return EntryReader(store).table_samples(name, benchmark)

    @staticmethod
    def compute(
        review: ReviewStore,
        dataset: str,
        benchmark: Benchmark,
        answers: AnswerColumns,
        judge: Judge | None = None,
        choice: JudgeChoice = DEFAULT_CHOICE,
        beside: Beside | None = None,
    ) -> Tables:
        """Fill `answers` anew as `judge` scored them (else the judge `choice` picks) and
        build the samples and every table; `beside`: the reads `read_beside` started, if
        it did (what they read is checked and read again here if it does not fit).

        Safe beside the UI thread: the answers it changes meanwhile are replayed on the
        new columns by `complete`."""
        found = review.store.judges(dataset)
        judge = _read_as(review, judge or choice.pick(found))
        read = beside.samples.take() if beside else None
        samples = review.samples_of(dataset, benchmark, answers, read)
        filled = answers.unfilled()
        runs = review.fill(dataset, filled, beside.judgments.take() if beside else None)
        tables = _read_tables(dataset, benchmark, samples, filled, runs, judge, found)
        # Read with the tables, which the filter waits for anyway, not before the first row.
        return replace(tables, assigned=assigned_to(review.store, review.reviewer, filled.ids))

    @staticmethod
    def grow(
        review: ReviewStore, dataset: str, benchmark: Benchmark, judge: Judge | None
    ) -> Tables:
        """In the database thread: the dataset read again with the answers another process
        imported, and its tables (a new answer can bring a new sample or judge)."""
        _read_as(review, judge)
        samples = review.table_samples(dataset, benchmark)
        answers = review.bare_columns(dataset, samples.keys)
        runs = review.fill(dataset, answers)
        found = review.store.judges(dataset)
        return _read_tables(dataset, benchmark, samples, answers, runs, judge, found)

    def start_reading(self) -> None:
        """Tables are being made from the answers as they are now: keep what changes."""
        self.replay = {}

    def complete(self, tables: Tables) -> None:
        """Take the tables and their answers; replay the answers that changed while they
        were made, and list them again under the filter and order."""
        replay, self.replay = self.replay or {}, None
        if tables.assigned is not None and self.assignment is None:  # theirs come first
            self.assignment = tables.assigned
            self.filter = replace(self.filter, assigned=tables.assigned.ids)
        self.tables, self.answers = tables, tables.answers
        self.judge, self.judges = tables.judge, tables.judges
        self.reviewed = int(self.answers.reviewed.sum())
        for entry in replay.values():
            self.update(entry)
        self.apply(self.filter)

    @property
    def judge_name(self) -> str:
        """The judge shown; "loading…" until the tables say which (and whether one is)."""
        if self.tables is None:
            return "loading…"
        return self.judges.get(self.judge, "none yet") if self.judge else "none yet"

    def golds(self, key: str) -> list[str] | None:
        """A sample's golds (None before the tables came)."""
        found = self._located(key)
        return None if found is None else found[0].golds(found[1])

    def _located(self, key: str) -> tuple[SampleSet, int] | None:
        samples = self.tables.samples if self.tables else None
        index = samples.index.get(key) if samples else None
        return None if samples is None or index is None else (samples, index)

    @property
    def entries(self) -> AnswerColumns:
        """The answers, as a sequence of entries (made one per access)."""
        return self.answers

    def listed(self, index: int) -> Entry:
        """The answer at place `index` of the list."""
        return self.answers.entry(int(self.visible[index]))

    def place(self, answer_id: int) -> int | None:
        """Where an answer is in the list (None: not listed)."""
        row = self.answers.index_of(answer_id)
        if row is None:
            return None
        found = np.flatnonzero(self.visible == row)
        return int(found[0]) if len(found) else None

    def listed_keys(self) -> list[str]:
        """The sample ids of the listed answers, each once, in list order."""
        samples = self.answers.sample[self.visible]
        _, first = np.unique(samples, return_index=True)
        return [self.answers.keys[i] for i in samples[np.sort(first)].tolist()]

    def first_place(self, key: str) -> int | None:
        """Where the list's first answer to sample `key` is (None: none is listed)."""
        keys = self.answers.keys
        sample = keys.index(key) if key in keys else NO_SAMPLE
        found = np.flatnonzero(self.answers.sample[self.visible] == sample)
        return int(found[0]) if len(found) else None

    def has(self, answer_id: int) -> bool:
        return self.answers.index_of(answer_id) is not None

    def find(self, answer_id: int) -> Entry | None:
        """An answer by id (None: not in this dataset)."""
        row = self.answers.index_of(answer_id)
        return None if row is None else self.answers.entry(row)

    def apply(self, flt: Filter) -> None:
        """Show only the answers `flt` lets through (needs the tables' samples for any
        condition: before them, every answer)."""
        self.filter = flt
        if self.tables is None:
            self.visible = self._listed(np.arange(len(self.answers)))
            return
        self.visible = self._listed(np.flatnonzero(self._matching(flt, self.answers, self.tables)))
        if self.order != LIST_ORDER:
            self.sort(self.order)

    def shuffle(self, seed: int | None) -> None:
        """List the answers in the order `seed` shuffles them (None: as imported)."""
        self.seed = seed
        self.apply(self.filter)

    def _listed(self, rows: Ints) -> Ints:
        """`rows`, ascending, in list order: as imported, or shuffled by the seed."""
        return rows if self.seed is None else shuffled(rows, self.answers.ids, self.seed)

    def count(self, flt: Filter) -> int | None:
        """How many answers the list would show under `flt` (None before the tables)."""
        tables = self.tables
        if tables is None:
            return None
        return int(np.count_nonzero(self._matching(flt, self.answers, tables)))

    def _matching(self, flt: Filter, answers: AnswerColumns, tables: Tables) -> Bools:
        mine = self._mine(flt)
        reviewed = None  # anyone's verdict counts
        if flt.unreviewed and mine is not None:
            reviewed = np.isin(answers.ids, np.fromiter(mine, np.int64, len(mine)))
        return matching(flt, answers, tables.samples, self.benchmark.filter_axes, reviewed)

    def _mine(self, flt: Filter) -> set[int] | None:
        """The answers `flt` counts as reviewed when only the reviewer's own verdicts count:
        in blind review and on their assignments, where `n` and "unreviewed" must not pass
        over an answer someone else graded, which they are to grade too (None: anyone's)."""
        if self.own is not None:
            return self.own
        assignment = self.assignment
        return assignment.done if assignment is not None and flt.assigned is not None else None

    def reviewed_here(self, entry: Entry) -> bool:
        """Whether the list's filter counts `entry` as reviewed (see `_mine`)."""
        mine = self._mine(self.filter)
        return entry.reviewed if mine is None else entry.answer_id in mine

    def own_changed(self, answer_id: int, in_force: bool) -> None:
        """The reviewer's own verdict on an answer is in force now, or not (blind review)."""
        if self.own is not None:
            (self.own.add if in_force else self.own.discard)(answer_id)

    def sort(self, order: str) -> None:
        """Sort the visible answers (needs the tables' samples); the scores as they are
        now: a grade does not move its answer until the list is sorted again."""
        golds_of = self.tables.samples.golds if self.tables else _no_golds
        self.visible = sorted_rows(self.visible, self.answers, golds_of, order)
        if order == LIST_ORDER:
            self.visible = self._listed(self.visible)
        self.order = order

    @property
    def order_name(self) -> str:
        return ORDERS[self.order]

    def reveal(self, answer_id: int) -> int | None:
        """The answer's place in the list, added in its place if the filter now lets it
        through (an undone verdict makes an answer unreviewed again); None if it hides it."""
        row = self.answers.index_of(answer_id)
        if row is None:
            return None
        listed = self.order == LIST_ORDER and self.seed is None
        place = self.place(answer_id)
        if place is not None:
            return place
        tables = self.tables
        if tables is None:
            return None
        one = self.answers.take(np.array([row]))
        if not self._matching(self.filter, one, tables)[0]:
            return None
        at = int(np.searchsorted(self.visible, row)) if listed else len(self.visible)
        self.visible = np.insert(self.visible, at, row)  # a sorted or shuffled list: at the end
        return at

    def update(self, fresh: Entry) -> None:
        """Replace one answer (a verdict, a flag, a new judgment) and update the tables."""
        row = self.answers.index_of(fresh.answer_id)
        if row is None:
            return
        old = self.answers.entry(row)
        self.reviewed += fresh.reviewed - old.reviewed
        if self.replay is not None:
            self.replay[fresh.answer_id] = fresh
        tables = self.tables
        if tables is None:
            self.answers.put(row, fresh)
            return
        golds = tables.samples.golds_for(fresh.key)
        breakdown = tables.breakdown
        runs = breakdown.runs
        if len(fresh.judged) > runs:  # a new judge run appeared: count again
            self.answers.put(row, fresh)
            self.tables = _tables(
                breakdown.layout, self.answers, len(fresh.judged), tables.judge, tables.judges
            )
            return
        before, after = old.outcome(runs, golds), fresh.outcome(runs, golds)
        breakdown.set(fresh.model, fresh.key, before, after, self.outcome_of)
        self.answers.put(row, fresh)
        tables.agreement.set(fresh.answer_id, fresh.disagreement(golds))

    def outcome_of(self, model: str, key: str) -> Outcome | None:
        """One answer's outcome as the tables count it (None: the model did not answer)."""
        row = self.answers.row_of(model, key)
        if row is None or self.tables is None:
            return None
        golds = self.tables.samples.golds_for(key)
        return self.answers.entry(row).outcome(self.tables.breakdown.runs, golds)

    def group_of(self, key: str) -> Unit:
        """The group sample `key` counts in with others (MMBench's circular group: its
        rotations, in order), else the sample alone; needs the tables."""
        assert self.tables is not None
        layout = self.tables.breakdown.layout
        units = [unit for unit in layout.units(key) if len(unit.members) > 1]
        return units[0] if units else Unit(key, (), (key,))

    def group_outcome(
        self, model: str, group: Unit, corrected: Mapping[int, list[str] | None] | None = None
    ) -> Outcome:
        """A model's outcome on a group, as the tables count it (a rotation the model did
        not answer is unscored); with `corrected` (sample index -> golds with errata, see
        engine.errata.with_errata), as the tables with errata count it."""
        assert self.tables is not None
        runs = self.tables.breakdown.runs
        golds_of: GoldsOf = self.tables.samples.golds
        found = [self.answers.row_of(model, key) for key in group.members]
        answers = self.answers.take(np.array([r for r in found if r is not None], np.int64))
        if corrected:  # a rotation no rule scores again leaves, as from those tables
            errata = with_errata(answers, runs, golds_of, corrected, None)
            answers, golds_of = errata.answers, errata.golds_of
        by_key = {
            answers.key(row): answers.entry(row).outcome(runs, golds_of(int(answers.sample[row])))
            for row in range(len(answers))
        }
        unscored = Outcome((None,) * runs, False)
        return Layout.combine(group)([by_key.get(key, unscored) for key in group.members])

    def strip(self, entry: Entry) -> dict[str, Cell]:
        """The table cells this answer counts in: the live breakdown strip."""
        return self.tables.breakdown.row_cells(entry.model, entry.key) if self.tables else {}

    def cell_answers(self, row: str, table: str, column: str) -> frozenset[int]:
        """The answers counted in one table cell (for a circular group: all its rows)."""
        assert self.tables is not None
        layout = self.tables.breakdown.layout
        answers = self.answers
        rows = np.flatnonzero(layout.in_cell(table, column)[answers.sample])
        return frozenset(
            int(answers.ids[r])
            for r in rows
            if layout.row(answers.models[answers.model[r]], answers.key(int(r))) == row
        )

    def rightness(self, entry: Entry) -> str | None:
        """ "right", "wrong" or "partial" by the answer's effective score, as the tables
        count it (a chosen option is right when it is the gold); None while unscored or
        before the tables came."""
        tables, golds = self.tables, self.golds(entry.key)
        if tables is None or golds is None:
            return None
        scores = [s for s in entry.outcome(tables.breakdown.runs, golds).micro if s is not None]
        if not scores:
            return None
        mean = sum(scores) / len(scores) / MICRO
        return "right" if mean >= 1 else "wrong" if mean <= 0 else "partial"

    def counts(self) -> tuple[int, int, int]:
        """(answers, reviewed, shown); reviewed by the reviewer themselves in blind review."""
        reviewed = self.reviewed if self.own is None else len(self.own)
        return len(self.answers), reviewed, len(self.visible)

    def frozen(self) -> Frozen:
        """The tables' inputs as they are now, the answers copied: what a worker thread
        computes intervals and paired differences from while this session changes."""
        tables = self.tables
        assert tables is not None
        answers = self.answers.take(np.arange(len(self.answers)))
        breakdown = tables.breakdown
        return Frozen(self.dataset, self.benchmark, tables.samples, answers, breakdown.layout,
                      breakdown.runs, self.judge)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Frozen:
    """A session's answers at one moment (Session.frozen), for the slow statistics of the
    screen (engine.uncertainty), each run in a worker thread; as the screen's tables,
    unscored answers are left out."""

    dataset: str
    benchmark: Benchmark
    samples: SampleSet
    answers: AnswerColumns
    layout: Layout
    runs: int
    judge: Judge | None = None  # whose judgments score the answers (None: the default)

    def intervals(self) -> list[Table]:
        """Every table, each cell with its 95 % bootstrap interval."""
        scores = self.scores()
        return scores.with_intervals(scores.breakdown.tables(), False, RESAMPLES, SEED)

    def versus(self, a: str, b: str) -> list[Difference]:
        """Model (row) `a` minus model `b`, cell by cell, paired."""
        return self.scores().versus(a, b, False, RESAMPLES, SEED)

    def scores(self) -> DatasetScores:
        """The answers' tables as the screen's: the base of the slow statistics, and of
        the tables with errata (db.scoring.with_errata_scores)."""
        breakdown, found = Breakdown.of(self.layout, self.answers, self.runs, self.samples.golds)
        return DatasetScores(
            self.dataset, self.benchmark, self.samples, self.answers, found, breakdown,
            judge=self.judge,
        )  # fmt: skip


def _read_tables(
    dataset: str,
    benchmark: Benchmark,
    samples: SampleSet,
    answers: AnswerColumns,
    runs: int,
    judge: Judge | None,
    found: list[Judge],
) -> Tables:
    """Every table of the dataset's `answers` to `samples` as `judge` scored them in
    `runs` runs; `found` are the dataset's judges."""
    answers.share_keys(samples)
    layout = layout_for(dataset, benchmark, samples)
    names = judge_names([*found, *([judge] if judge and judge not in found else [])])
    return _tables(layout, answers, runs, judge, names)


def _tables(
    layout: Layout, answers: AnswerColumns, runs: int, judge: Judge | None,
    judges: dict[Judge, str],
) -> Tables:  # fmt: skip
    samples = layout.samples
    breakdown, _ = Breakdown.of(layout, answers, runs, samples.golds)
    agreement = Agreement()
    reviewed = np.flatnonzero(answers.reviewed)  # few: the others have no difference
    differences = answers.take(reviewed).disagreement(samples.golds).tolist()
    for answer_id, difference in zip(answers.ids[reviewed].tolist(), differences, strict=True):
        agreement.set(answer_id, None if math.isnan(difference) else difference)
    return Tables(answers, samples, breakdown, agreement, judge, judges)


def _bare(review: EntryReader, dataset: str, head: int | None) -> AnswerColumns:
    """A dataset's answers, nothing filled in (the first `head` samples' only, if given)."""
    answers = review.bare_columns(dataset, head=head)
    answers.locate(answers.ids[:1])  # sort the ids here, not on the UI thread's first look
    return answers


def _dataset(store: Store, dataset: str | None) -> tuple[str, Benchmark, list[str]]:
    """The dataset `dataset` names (else the first by name): its name and benchmark, and
    every dataset's name."""
    known = store.datasets()
    if not known:
        raise LookupError(f"{store.path}: no datasets (see lmmreview import --help)")
    names = [name for name, _ in known]
    if dataset is not None and dataset not in names:
        raise LookupError(f"{store.path}: no dataset {dataset!r}")
    name, kind = next((n, k) for n, k in known if n == (dataset or names[0]))
    return name, kind, names


def _read_as(review: ReviewStore, judge: Judge | None) -> Judge | None:
    """The screen's connection reads the scores of `judge` from now on (None: the
    dataset's default): the one place it is told which; returns `judge`."""
    review.judge = judge
    return judge


def _no_golds(index: int) -> list[str]:
    return []
