"""Live breakdown tables: a full recompute, and delta updates one override at a time.

Each cell keeps running sums per judge run, so an override subtracts the unit's old
outcome and adds its new one without touching anything else. The full recompute counts
identical (row, cells, outcome) triples first: a benchmark has few distinct cell sets
and few distinct outcomes, so 100,000 answers collapse into a few thousand additions.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable

from engine.layouts import Cells, Layout, Unit
from engine.scoring import Outcome
from engine.tables import Cell, Row, Table

MICRO = 1_000_000  # scores are summed as whole millionths: exact under add and subtract


class _Sums:
    """Running totals of one cell."""

    __slots__ = ("complete", "fallback", "n", "offline", "reviewed", "scored", "sums")

    def __init__(self, runs: int) -> None:
        self.n = self.complete = self.reviewed = self.fallback = self.offline = 0
        self.sums = [0] * runs
        self.scored = [0] * runs

    def add(self, outcome: Outcome, times: int) -> None:
        """Count `outcome` `times` times (negative to remove it)."""
        self.n += times
        self.complete += times * outcome.complete
        self.reviewed += times * outcome.reviewed
        self.fallback += times * outcome.fallback
        self.offline += times * outcome.offline
        for run, score in enumerate(outcome.runs):
            if score is not None:
                self.sums[run] += times * round(score * MICRO)
                self.scored[run] += times

    def cell(self, unscored_as_zero: bool) -> Cell:
        per_run = [
            100 * total / MICRO / (self.n if unscored_as_zero else scored)
            for total, scored in zip(self.sums, self.scored, strict=True)
            if (self.n if unscored_as_zero else scored)
        ]
        return Cell(
            value=statistics.fmean(per_run) if per_run else None,
            n=self.n,
            std=statistics.pstdev(per_run) if len(per_run) > 1 else None,
            reviewed=self.reviewed,
            unscored=self.n - self.complete,
            fallback=self.fallback,
            offline=self.offline,
        )


class Breakdown:
    """One dataset's tables for every model, from the effective outcome of each answer."""

    def __init__(self, layout: Layout, runs: int) -> None:
        self.layout = layout
        self.runs = runs
        self.outcomes: dict[tuple[str, str], Outcome] = {}  # (model, sample key)
        self._groups: dict[tuple[str, str], Outcome] = {}  # (row, unit key), multi-row units
        self._cells: dict[tuple[str, str, str], _Sums] = {}  # (row, table, column)

    # -- building ------------------------------------------------------------------

    def load(self, outcomes: Iterable[tuple[str, str, Outcome]]) -> None:
        """Recompute everything from (model, sample key, outcome) triples."""
        self.outcomes = {(model, key): outcome for model, key, outcome in outcomes}
        self._groups.clear()
        self._cells.clear()
        counts: Counter[tuple[str, Cells, Outcome]] = Counter()
        grouped: set[tuple[str, str, Unit]] = set()
        units_of, row_of = self.layout.units_of, self.layout.row
        for (model, key), outcome in self.outcomes.items():
            row = row_of(model, key)
            for unit in units_of[key]:
                if len(unit.members) == 1:
                    counts[(row, unit.cells, outcome)] += 1
                else:
                    grouped.add((model, row, unit))
        for model, row, unit in grouped:
            outcome = self._unit_outcome(model, unit)
            self._groups[(row, unit.key)] = outcome
            counts[(row, unit.cells, outcome)] += 1
        for (row, cells, outcome), times in counts.items():
            self._add(row, cells, outcome, times)

    def set(self, model: str, key: str, outcome: Outcome) -> None:
        """One answer's outcome changed (a verdict, an undo, a new judgment)."""
        old = self.outcomes.get((model, key))
        self.outcomes[(model, key)] = outcome
        row = self.layout.row(model, key)
        for unit in self.layout.units_of[key]:
            if len(unit.members) == 1:
                before, after = old, outcome
            else:
                before = self._groups.get((row, unit.key))
                after = self._groups[(row, unit.key)] = self._unit_outcome(model, unit)
            if before == after:
                continue
            if before is not None:
                self._add(row, unit.cells, before, -1)
            self._add(row, unit.cells, after, 1)

    def _unit_outcome(self, model: str, unit: Unit) -> Outcome:
        missing = Outcome((None,) * self.runs)  # an unanswered row of a group
        members = [self.outcomes.get((model, key), missing) for key in unit.members]
        return Layout.combine(unit)(members)

    def _add(self, row: str, cells: Cells, outcome: Outcome, times: int) -> None:
        for table, column in cells:
            sums = self._cells.get((row, table, column))
            if sums is None:
                sums = self._cells[(row, table, column)] = _Sums(self.runs)
            sums.add(outcome, times)

    # -- reading -------------------------------------------------------------------

    def tables(self, unscored_as_zero: bool = False) -> list[Table]:
        """Every table of the dataset, one row per model (and split), in model order."""
        rows = sorted({row for row, _, _ in self._cells})
        tables = []
        for spec in self.layout.tables:
            table = Table(
                spec.name,
                spec.title,
                self.layout.dataset,
                spec.columns,
                std_columns=spec.std_columns,
                runs=self.runs,
                unscored_as_zero=unscored_as_zero,
            )
            for row in rows:
                cells = {
                    c.key: sums.cell(unscored_as_zero)
                    for c in spec.columns
                    if (sums := self._cells.get((row, spec.name, c.key))) is not None
                }
                if cells:
                    table.rows.append(Row(row, cells))
            tables.append(table)
        return tables

    def row_cells(self, model: str, key: str, unscored_as_zero: bool = False) -> dict[str, Cell]:
        """The cells one answer counts in, keyed "table/column": the review screen's strip."""
        row = self.layout.row(model, key)
        return {
            f"{table}/{column}": self._cells[(row, table, column)].cell(unscored_as_zero)
            for unit in self.layout.units_of[key]
            for table, column in unit.cells
            if (row, table, column) in self._cells
        }
