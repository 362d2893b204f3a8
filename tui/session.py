"""One dataset open for review: the state every screen reads, free of Textual.

Opened in two steps, both in the database thread: `open` reads the answers (enough to
show the list and the first answer), `compute` then reads the samples and builds the
tables. The UI thread owns the session and changes it in small steps: one entry at a
time, each a delta on the live tables.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field, replace
from operator import attrgetter

from lmmreview.db.review import ReviewStore
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.layouts import Layout, layout_for
from lmmreview.engine.ordering import LIST_ORDER, ORDERS, sorted_rows
from lmmreview.engine.review import Agreement, Entry, Filter
from lmmreview.engine.scoring import MICRO, Judge, Outcome, judge_names, preferred_judge
from lmmreview.engine.tables import Cell
from lmmreview.engine.types import Sample


@dataclass(frozen=True, slots=True)
class Tables:
    """What `compute` makes: the samples, the live tables and the judge-human agreement."""

    samples: dict[str, Sample]
    breakdown: Breakdown
    agreement: Agreement
    judge: Judge | None = None  # whose scores they are
    judges: dict[Judge, str] = field(default_factory=dict)  # the dataset's, by name


@dataclass(slots=True)
class Session:
    dataset: str
    benchmark: Benchmark
    datasets: list[str]
    entries: list[Entry]
    by_id: dict[int, int]  # answer id -> index in entries
    visible: list[int]  # indices into entries, in list order
    filter: Filter = field(default_factory=Filter)
    tables: Tables | None = None  # None until `compute` has run
    changed: set[int] = field(default_factory=set)  # answers updated before the tables came
    reviewed: int = 0  # kept as entries change: counting 100,000 per verdict is too slow
    judge: Judge | None = None  # whose scores the list and the tables show
    judges: dict[Judge, str] = field(default_factory=dict)  # the dataset's, by name
    order: str = LIST_ORDER  # how the visible entries are sorted (engine.ordering)

    @classmethod
    def open(
        cls, review: ReviewStore, dataset: str | None = None, judge: Judge | None = None
    ) -> Session:
        """Read a dataset's answers (the first dataset by name, unless one is given); the
        judge (`judge`, or the one `compute` chooses) comes with the tables."""
        known = review.store.datasets()
        if not known:
            raise LookupError(f"{review.store.path}: no datasets (see lmmreview import --help)")
        names = [name for name, _ in known]
        if dataset is not None and dataset not in names:
            raise LookupError(f"{review.store.path}: no dataset {dataset!r}")
        name, kind = next((n, k) for n, k in known if n == (dataset or names[0]))
        review.judge = judge  # until `compute` chooses, a read finds the default itself
        entries = review.bare_entries(name)  # scores come with the tables, a moment later
        by_id = {e.answer_id: i for i, e in enumerate(entries)}
        return cls(name, kind, names, entries, by_id, list(range(len(entries))), judge=judge)

    @staticmethod
    def compute(
        review: ReviewStore,
        dataset: str,
        benchmark: Benchmark,
        entries: list[Entry],
        judge: Judge | None = None,
        preferred: str | None = None,
    ) -> Tables:
        """Score the entries (in place) as `judge` did (else the judge `preferred` names,
        else the default) and build the samples and every table.

        Safe beside the UI thread: it replaces an entry it changes with a new object, and
        `complete` replays those, so filling the old object in place loses nothing.
        """
        found = review.store.judges(dataset)  # off the first screen's path: it reads them all
        judge = judge or preferred_judge(found, preferred)
        review.judge = judge
        review.fill(dataset, entries)
        return _read_tables(review, dataset, benchmark, entries, judge, found)

    @staticmethod
    def grow(
        review: ReviewStore,
        dataset: str,
        benchmark: Benchmark,
        entries: list[Entry],
        added: frozenset[int],
        judge: Judge | None,
    ) -> tuple[list[Entry], Tables]:
        """In the database thread: the answers `added` to the dataset since it was read
        (another process imported them), and the tables over `entries` and them; samples
        and judges are read again, as a new answer can bring a new sample or judge."""
        fresh = sorted(review.refresh(dataset, set(added)), key=attrgetter("answer_id"))
        found = review.store.judges(dataset)
        return fresh, _read_tables(review, dataset, benchmark, [*entries, *fresh], judge, found)

    def add(self, snapshot: list[Entry], fresh: list[Entry], tables: Tables) -> None:
        """Add the answers `grow` read at the end of the list, and take its tables (made
        from `snapshot`: the entries that changed since are replayed)."""
        new = [e for e in fresh if e.answer_id not in self.by_id]
        # `snapshot` is a prefix of `entries`: replaced entries are not the same objects
        replaced = zip(snapshot, self.entries, strict=False)
        self.changed |= {e.answer_id for old, e in replaced if e is not old}
        for entry in new:
            self.by_id[entry.answer_id] = len(self.entries)
            self.entries.append(entry)
        self.complete(tables)
        test = self.filter.predicate(self.benchmark.filter_axes)
        self.visible += [self.by_id[e.answer_id] for e in new if test(e, self.samples[e.key])]

    def complete(self, tables: Tables) -> None:
        """Take the tables; replay the entries that changed while they were computed."""
        self.tables = tables
        self.judge, self.judges = tables.judge, tables.judges
        self.reviewed = sum(e.reviewed for e in self.entries)  # `compute` filled in verdicts
        for answer_id in self.changed:
            self.update(self.entries[self.by_id[answer_id]])
        self.changed.clear()

    @property
    def judge_name(self) -> str:
        return self.judges.get(self.judge, "none yet") if self.judge else "none yet"

    @property
    def samples(self) -> dict[str, Sample]:
        return self.tables.samples if self.tables else {}

    def apply(self, flt: Filter) -> None:
        """Show only the entries `flt` lets through (needs the tables' samples)."""
        samples, test = self.samples, flt.predicate(self.benchmark.filter_axes)
        self.filter = flt
        self.visible = [i for i, e in enumerate(self.entries) if test(e, samples[e.key])]
        if self.order != LIST_ORDER:
            self.sort(self.order)

    def sort(self, order: str) -> None:
        """Sort the visible entries (needs the tables' samples); the scores as they are
        now: a grade does not move its answer until the list is sorted again."""
        self.visible = sorted_rows(self.visible, self.entries, self.samples, order)
        self.order = order

    @property
    def order_name(self) -> str:
        return ORDERS[self.order]

    def reveal(self, answer_id: int) -> int | None:
        """The answer's row in the list, added in its place if the filter now lets it
        through (an undone verdict makes an answer unreviewed again); None if it hides it."""
        index = self.by_id[answer_id]
        listed = self.order == LIST_ORDER
        row = bisect_left(self.visible, index) if listed else _find(self.visible, index)
        if row < len(self.visible) and self.visible[row] == index:
            return row
        entry = self.entries[index]
        sample = self.samples.get(entry.key)
        if sample is None or not self.filter.matches(entry, sample, self.benchmark.filter_axes):
            return None
        self.visible.insert(row, index)  # a sorted list: at the end, where it is seen
        return row

    def update(self, fresh: Entry) -> None:
        """Replace one entry (a verdict, a flag, a new judgment) and update the tables."""
        index = self.by_id[fresh.answer_id]
        self.reviewed += fresh.reviewed - self.entries[index].reviewed
        self.entries[index] = fresh
        tables = self.tables
        if tables is None:
            self.changed.add(fresh.answer_id)
            return
        golds = tables.samples[fresh.key].golds
        breakdown = tables.breakdown
        if len(fresh.judged) > breakdown.runs:  # a new judge run appeared: count again
            fresh_tables = _tables(tables.samples, breakdown.layout, self.entries)
            self.tables = replace(fresh_tables, judge=tables.judge, judges=tables.judges)
        else:
            breakdown.set(fresh.model, fresh.key, fresh.outcome(breakdown.runs, golds))
            tables.agreement.set(fresh.answer_id, fresh.disagreement(golds))

    def strip(self, entry: Entry) -> dict[str, Cell]:
        """The table cells this answer counts in: the live breakdown strip."""
        return self.tables.breakdown.row_cells(entry.model, entry.key) if self.tables else {}

    def cell_answers(self, row: str, table: str, column: str) -> frozenset[int]:
        """The answers counted in one table cell (for a circular group: all its rows)."""
        assert self.tables is not None
        layout = self.tables.breakdown.layout
        keys = {
            key
            for key, units in layout.units_of.items()
            if any((table, column) in unit.cells for unit in units)
        }
        return frozenset(
            e.answer_id for e in self.entries if e.key in keys and layout.row(e.model, e.key) == row
        )

    def rightness(self, entry: Entry) -> str | None:
        """ "right", "wrong" or "partial" by the answer's effective score, as the tables
        count it (a chosen option is right when it is the gold); None while unscored or
        before the tables came."""
        tables = self.tables
        sample = tables.samples.get(entry.key) if tables else None
        if tables is None or sample is None:
            return None
        scores = [
            s for s in entry.outcome(tables.breakdown.runs, sample.golds).micro if s is not None
        ]
        if not scores:
            return None
        mean = sum(scores) / len(scores) / MICRO
        return "right" if mean >= 1 else "wrong" if mean <= 0 else "partial"

    def counts(self) -> tuple[int, int, int]:
        """(answers, reviewed, shown)."""
        return len(self.entries), self.reviewed, len(self.visible)


def _find(rows: list[int], index: int) -> int:
    """Where `index` is in `rows`, else len(rows)."""
    try:
        return rows.index(index)
    except ValueError:
        return len(rows)


def _read_tables(
    review: ReviewStore,
    dataset: str,
    benchmark: Benchmark,
    entries: list[Entry],
    judge: Judge | None,
    found: list[Judge],
) -> Tables:
    """The samples and every table of the dataset's `entries` as `judge` scored them;
    `found` are the dataset's judges."""
    samples = {s.key: s for s in review.store.samples(dataset)}
    layout = layout_for(dataset, benchmark, list(samples.values()))
    names = judge_names([*found, *([judge] if judge and judge not in found else [])])
    return replace(_tables(samples, layout, entries), judge=judge, judges=names)


def _tables(samples: dict[str, Sample], layout: Layout, entries: list[Entry]) -> Tables:
    runs = max((len(e.judged) for e in entries), default=1) or 1
    breakdown = Breakdown(layout, runs)
    outcomes: dict[str, dict[str, Outcome]] = {}
    agreement = Agreement()
    for entry in entries:
        golds = samples[entry.key].golds
        outcomes.setdefault(entry.model, {})[entry.key] = entry.outcome(runs, golds)
        if entry.reviewed:
            agreement.set(entry.answer_id, entry.disagreement(golds))
    breakdown.load(outcomes)
    return Tables(samples, breakdown, agreement)
