"""Live breakdown tables: a full recompute, and delta updates one override at a time.

Each cell keeps running sums per judge run, so an override subtracts the unit's old
outcome and adds its new one without touching anything else. The full recompute turns
each model's outcomes into columns once, in the order they were made (their order in
memory), then reduces every group of its answers sharing a split and a set of cells in C,
by picking the group's positions from the columns (sums of whole millionths: exact), and
adds each group to its few cells once.
"""

from __future__ import annotations

import gc
import math
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import compress, repeat
from operator import itemgetter, not_

from lmmreview.engine.layouts import Cells, Layout, Positions, Unit, circular_outcome, circular_run
from lmmreview.engine.scoring import MICRO, Outcome
from lmmreview.engine.tables import Cell, Row, Table


class _Sums:
    """Running totals of one cell."""

    __slots__ = ("blank", "complete", "fallback", "n", "offline", "reviewed", "scored", "sums")

    def __init__(self, runs: int) -> None:
        self.n = self.complete = self.reviewed = self.fallback = self.offline = 0
        self.blank = 0  # units with no score in any run (Outcome.unscored)
        self.sums = [0] * runs
        self.scored = [0] * runs

    def add(self, outcome: Outcome, times: int) -> None:
        """Count `outcome` `times` times (negative to remove it)."""
        self.n += times
        self.complete += times * outcome.complete
        self.blank += times * outcome.unscored
        self.reviewed += times * outcome.reviewed
        self.fallback += times * outcome.fallback
        self.offline += times * outcome.offline
        for run, score in enumerate(outcome.micro):
            if score is not None:
                self.sums[run] += times * score
                self.scored[run] += times

    def merge(self, other: _Sums) -> None:
        """Add another cell's totals (a reduced group of answers)."""
        self.n += other.n
        self.complete += other.complete
        self.blank += other.blank
        self.reviewed += other.reviewed
        self.fallback += other.fallback
        self.offline += other.offline
        for run in range(len(self.sums)):
            self.sums[run] += other.sums[run]
            self.scored[run] += other.scored[run]

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
            unscored=self.blank,
            partial=self.n - self.complete - self.blank,
            fallback=self.fallback,
            offline=self.offline,
            per_run=tuple(per_run),
        )


class _Columns:
    """Outcomes turned into columns, read once in their own order (outcomes made one after
    another sit in memory that way: far faster than hopping from group to group). Each
    group is then reduced by picking its positions."""

    __slots__ = ("complete", "fallback", "micro", "offline", "reviewed", "runs")

    def __init__(self, outcomes: Iterable[Outcome], runs: int) -> None:
        columns = zip(*outcomes, strict=True)
        self.micro, self.complete, self.reviewed, self.fallback, self.offline = columns
        try:
            self.runs = list(zip(*self.micro, strict=True))
        except ValueError:  # outcomes with different numbers of runs
            self.runs = []
        if len(self.runs) != runs:
            raise ValueError(f"every outcome must have the tables' {runs} runs")

    def sums(self, positions: list[int]) -> _Sums:
        """The totals of the outcomes at `positions`."""
        pick = _picker(positions)
        sums = _Sums(len(self.runs))
        n = sums.n = len(positions)
        complete = pick(self.complete)
        sums.complete = sum(complete)
        gapped = list(compress(pick(self.micro), map(not_, complete)))
        sums.blank = sum(micro.count(None) == len(micro) for micro in gapped)
        sums.reviewed = sum(pick(self.reviewed))
        sums.fallback = sum(pick(self.fallback))
        sums.offline = sum(pick(self.offline))
        # Only an incomplete outcome holds an unscored run: count them there, among few.
        unscored = [run.count(None) for run in zip(*gapped, strict=True)] or [0] * len(self.runs)
        for run, column in enumerate(self.runs):
            sums.scored[run] = n - unscored[run]
            sums.sums[run] = sum(filter(None, pick(column)))  # None and 0 add nothing
        return sums


def _picker(positions: list[int]) -> Callable[[Sequence[object]], tuple]:
    """itemgetter that always gives a tuple (given one position, itemgetter does not)."""
    if len(positions) == 1:
        (position,) = positions
        return lambda column: (column[position],)
    return itemgetter(*positions)


def _circular_in_order(layout: Layout, columns: _Columns) -> Iterator[Outcome]:
    """Every circular group's outcome, for a model that answered each row in dataset
    order: the rule runs over whole columns at once, one size of group at a time.

    (Row by row, for delta updates and other orders, the same is layouts._circular.)"""
    for slots in layout.multi_slots:
        picks = [_picker(at) for at in slots]
        runs = [map(circular_run, *(pick(run) for pick in picks)) for run in columns.runs]
        flags = [
            map(max, *(pick(flag) for pick in picks))  # a group has a flag if a row has it
            for flag in (columns.reviewed, columns.fallback, columns.offline)
        ]
        yield from map(circular_outcome, zip(*runs, strict=True), *flags)


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
        if runs < 1:
            raise ValueError(f"a breakdown needs at least one run, not {runs}")
        self.layout = layout
        self.runs = runs
        self.outcomes: dict[str, dict[str, Outcome]] = {}  # model -> sample key -> outcome
        self._groups: dict[tuple[str, str], Outcome] = {}  # (model, unit key), multi-row units
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
        self.outcomes = outcomes
        self._groups.clear()
        self._cells.clear()
        layout = self.layout
        for model, per_key in outcomes.items():
            if not per_key:
                continue
            order = tuple(per_key)
            answered_in_order = order == layout.order  # the usual case: all precomputed
            columns = _Columns(per_key.values(), self.runs)
            positions = layout.order_positions if answered_in_order else layout.positions_of(order)
            self._reduce(model, positions, columns)
            if answered_in_order:
                groups = list(_circular_in_order(layout, columns))
                self._reduce_groups(model, range(len(groups)), groups)
            elif layout.multi:
                answered = self._answered_groups(model)
                self._reduce_groups(
                    model, answered, [self._unit_outcome(model, layout.multi[i]) for i in answered]
                )

    def _reduce(self, model: str, positions: Positions, columns: _Columns) -> None:
        """Add each (split, cell set)'s group of a model's answers to its cells."""
        for (split, cell_set), at in positions.items():
            totals = columns.sums(at)
            row = self.layout.split_row(model, split)
            for table, column in self.layout.cell_sets[cell_set]:
                self._sums(row, table, column).merge(totals)

    def _answered_groups(self, model: str) -> list[int]:
        """The circular groups (indices in layout.multi) the model answered a row of: the
        others do not count."""
        per_key = self.outcomes[model]
        return [
            i
            for i, unit in enumerate(self.layout.multi)
            if any(key in per_key for key in unit.members)
        ]

    def _reduce_groups(self, model: str, groups: Sequence[int], outcomes: list[Outcome]) -> None:
        """Keep circular groups' outcomes (for `set`) and add them to their cells; `groups`
        are their indices in layout.multi."""
        if not outcomes:
            return
        layout = self.layout
        unit_keys = map(layout.multi_keys.__getitem__, groups)
        self._groups.update(zip(zip(repeat(model), unit_keys), outcomes, strict=True))
        if len(groups) == len(layout.multi):
            positions = layout.multi_positions
        else:
            positions = {}
            for n, i in enumerate(groups):
                positions.setdefault((layout.multi_splits[i], layout.multi_cells[i]), []).append(n)
        self._reduce(model, positions, _Columns(outcomes, self.runs))

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
                before = self._groups.get((model, unit.key))
                after = self._groups[(model, unit.key)] = self._unit_outcome(model, unit)
            if before == after:
                continue
            if before is not None:
                self._add(row, unit.cells, before, -1)
            self._add(row, unit.cells, after, 1)

    def _unit_outcome(self, model: str, unit: Unit) -> Outcome:
        missing = Outcome.of((None,) * self.runs)  # an unanswered row of a group
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
