"""One dataset open for review: the state every screen reads, free of Textual.

Built in the database thread (`Session.load`), then owned by the UI thread, which only
changes it in small steps: one entry at a time, each step a delta on the live tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from db.review import ReviewStore
from engine.breakdown import Breakdown
from engine.layouts import layout_for
from engine.review import Agreement, Entry, Filter
from engine.tables import Cell
from engine.types import DatasetKind, Sample


@dataclass(slots=True)
class Session:
    dataset: str
    kind: DatasetKind
    datasets: list[str]
    samples: dict[str, Sample]
    entries: list[Entry]
    breakdown: Breakdown
    agreement: Agreement
    runs: int
    filter: Filter = field(default_factory=Filter)
    visible: list[int] = field(default_factory=list)  # indices into entries
    by_id: dict[int, int] = field(default_factory=dict)  # answer id -> index

    @classmethod
    def load(cls, review: ReviewStore, dataset: str | None = None) -> Session:
        """Read a dataset (the first, by name, unless given) and compute its tables."""
        known = review.store.datasets()
        if not known:
            raise LookupError(f"{review.store.path}: no datasets (see lmmreview import --help)")
        names = [name for name, _ in known]
        if dataset is not None and dataset not in names:
            raise LookupError(f"{review.store.path}: no dataset {dataset!r}")
        name, kind = next((n, k) for n, k in known if n == (dataset or names[0]))
        samples = {s.key: s for s in review.store.samples(name)}
        entries = review.entries(name)
        runs = max((len(e.judged) for e in entries), default=1) or 1
        breakdown = Breakdown(layout_for(name, kind, list(samples.values())), runs)
        outcomes: dict[str, dict] = {}
        agreement = Agreement()
        for entry in entries:
            golds = samples[entry.key].golds
            outcomes.setdefault(entry.model, {})[entry.key] = entry.outcome(runs, golds)
            agreement.set(entry.answer_id, entry.disagreement(golds))
        breakdown.load(outcomes)
        session = cls(name, kind, names, samples, entries, breakdown, agreement, runs)
        session.by_id = {e.answer_id: i for i, e in enumerate(entries)}
        session.visible = list(range(len(entries)))
        return session

    def sample(self, entry: Entry) -> Sample:
        return self.samples[entry.key]

    def apply(self, flt: Filter) -> None:
        """Show only the entries `flt` lets through."""
        self.filter = flt
        self.visible = [
            i for i, e in enumerate(self.entries) if flt.matches(e, self.samples[e.key])
        ]

    def update(self, fresh: Entry) -> None:
        """Replace one entry (a verdict, a flag, a new judgment) and update the tables."""
        index = self.by_id[fresh.answer_id]
        self.entries[index] = fresh
        golds = self.samples[fresh.key].golds
        if len(fresh.judged) > self.runs:  # a new judge run appeared: recount everything
            self.runs = len(fresh.judged)
            self.breakdown = Breakdown(self.breakdown.layout, self.runs)
            outcomes: dict[str, dict] = {}
            for e in self.entries:
                outcomes.setdefault(e.model, {})[e.key] = e.outcome(
                    self.runs, self.samples[e.key].golds
                )
            self.breakdown.load(outcomes)
        else:
            self.breakdown.set(fresh.model, fresh.key, fresh.outcome(self.runs, golds))
        self.agreement.set(fresh.answer_id, fresh.disagreement(golds))

    def strip(self, entry: Entry) -> dict[str, Cell]:
        """The table cells this answer counts in: the live breakdown strip."""
        return self.breakdown.row_cells(entry.model, entry.key)

    def cell_answers(self, row: str, table: str, column: str) -> frozenset[int]:
        """The answers counted in one table cell (for a circular group: all its rows)."""
        layout = self.breakdown.layout
        keys = {
            key
            for key, units in layout.units_of.items()
            if any((table, column) in unit.cells for unit in units)
        }
        return frozenset(
            e.answer_id for e in self.entries if e.key in keys and layout.row(e.model, e.key) == row
        )

    def counts(self) -> tuple[int, int, int]:
        """(answers, reviewed, shown)."""
        return len(self.entries), sum(e.reviewed for e in self.entries), len(self.visible)
