"""Live breakdown tables: a full recompute, and delta updates one override at a time.

Each cell keeps running sums per judge run, so an override subtracts the unit's old
outcome and adds its new one without touching anything else. The full recompute groups
answers by (row, set of cells) first: a benchmark has few distinct cell sets, so each
group is reduced with C-level counting and then added to its few cells once.
"""

from __future__ import annotations

import gc
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import repeat
from operator import contains, itemgetter

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

    def merge(self, other: _Sums) -> None:
        """Add another cell's totals (a reduced group of answers)."""
        self.n += other.n
        self.complete += other.complete
        self.reviewed += other.reviewed
        self.fallback += other.fallback
        self.offline += other.offline
        for run in range(len(self.sums)):
            self.sums[run] += other.sums[run]
            self.scored[run] += other.scored[run]

    @classmethod
    def of(cls, outcomes: list[Outcome], runs: int) -> _Sums:
        """The totals of many outcomes at once, counted in C where it can be."""
        sums = cls(runs)
        sums.n = len(outcomes)
        all_runs = list(map(itemgetter(0), outcomes))
        sums.complete = sums.n - sum(map(contains, all_runs, repeat(None)))
        sums.reviewed = sum(map(itemgetter(1), outcomes))
        sums.fallback = sum(map(itemgetter(2), outcomes))
        sums.offline = sum(map(itemgetter(3), outcomes))
        for run, column in enumerate(zip(*all_runs)):  # noqa: B905 (equal by construction)
            counts = Counter(column)
            unscored = counts.pop(None, 0)
            sums.scored[run] = sums.n - unscored
            sums.sums[run] = sum(round(score * MICRO) * times for score, times in counts.items())
        return sums

    def cell(self, unscored_as_zero: bool) -> Cell:
        per_run = [
            100 * total / MICRO / (self.n if unscored_as_zero else scored)
            for total, scored in zip(self.sums, self.scored, strict=True)
            if (self.n if unscored_as_zero else scored)
        ]
        mean = statistics.fmean(per_run) if per_run else None
        return Cell(
            value=mean,
            n=self.n,
            std=_spread(per_run, mean) if mean is not None and len(per_run) > 1 else None,
            reviewed=self.reviewed,
            unscored=self.n - self.complete,
            fallback=self.fallback,
            offline=self.offline,
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cycle collector: the recompute makes many containers and no cycles, and
    in a large program each collection it triggers would scan everything else too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _spread(values: list[float], mean: float) -> float:
    """Population standard deviation (ddof = 0), in floats: statistics.pstdev works in
    exact fractions, which a table of thousands of cells does not need."""
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


class Breakdown:
    """One dataset's tables for every model, from the effective outcome of each answer."""

    def __init__(self, layout: Layout, runs: int) -> None:
        self.layout = layout
        self.runs = runs
        self.outcomes: dict[str, dict[str, Outcome]] = {}  # model -> sample key -> outcome
        self._groups: dict[tuple[str, str], Outcome] = {}  # (row, unit key), multi-row units
        self._cells: dict[tuple[str, str, str], _Sums] = {}  # (row, table, column)

    # -- building ------------------------------------------------------------------

    def load(self, outcomes: dict[str, dict[str, Outcome]]) -> None:
        """Recompute everything from each model's outcome per sample key.

        Takes the dictionaries over (no copy: they can hold 100,000 outcomes); `set` then
        keeps them current.
        """
        with _collector_paused():
            self._load(outcomes)

    def _load(self, outcomes: dict[str, dict[str, Outcome]]) -> None:
        layout = self.layout
        self.outcomes = outcomes
        self._groups.clear()
        self._cells.clear()
        by_cells: dict[tuple[str, int], list[Outcome]] = {}
        for model, per_key in self.outcomes.items():
            if layout.splits:  # rows are (model, split): group per row
                for key, outcome in per_key.items():
                    for cell_set in layout.single[key]:
                        by_cells.setdefault((layout.row(model, key), cell_set), []).append(outcome)
                continue
            if layout.one_unit:  # every sample counts once: gather each cell set's in C
                for cell_set, keys in layout.keys_by_set.items():
                    members = list(filter(None, map(per_key.get, keys)))  # outcomes are truthy
                    if members:
                        by_cells[(model, cell_set)] = members
                continue
            groups: defaultdict[int, list[Outcome]] = defaultdict(list)
            for key, outcome in per_key.items():
                for cell_set in layout.single[key]:
                    groups[cell_set].append(outcome)
            by_cells.update(((model, cell_set), members) for cell_set, members in groups.items())
        for model, row, unit in self._multi_row_units():
            outcome = self._groups[(row, unit.key)] = self._unit_outcome(model, unit)
            by_cells.setdefault((row, layout.cell_set(unit.cells)), []).append(outcome)
        for (row, cell_set), members in by_cells.items():
            totals = _Sums.of(members, self.runs)
            for table, column in layout.cell_sets[cell_set]:
                self._sums(row, table, column).merge(totals)

    def _multi_row_units(self) -> set[tuple[str, str, Unit]]:
        """(model, row, unit) of every circular group a model has answered a row of."""
        layout = self.layout
        return {
            (model, layout.row(model, key), unit)
            for model, per_key in self.outcomes.items()
            for key in layout.grouped.intersection(per_key)
            for unit in layout.units_of[key]
            if len(unit.members) > 1
        }

    def set(self, model: str, key: str, outcome: Outcome) -> None:
        """One answer's outcome changed (a verdict, an undo, a new judgment)."""
        per_key = self.outcomes.setdefault(model, {})
        old = per_key.get(key)
        per_key[key] = outcome
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
        per_key = self.outcomes.get(model, {})
        members = [per_key.get(key, missing) for key in unit.members]
        return Layout.combine(unit)(members)

    def _add(self, row: str, cells: Cells, outcome: Outcome, times: int) -> None:
        for table, column in cells:
            self._sums(row, table, column).add(outcome, times)

    def _sums(self, row: str, table: str, column: str) -> _Sums:
        sums = self._cells.get((row, table, column))
        if sums is None:
            sums = self._cells[(row, table, column)] = _Sums(self.runs)
        return sums

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
