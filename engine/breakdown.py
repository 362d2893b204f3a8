"""Live breakdown tables: a full recompute, and delta updates one override at a time.

Each cell keeps running sums per judge run, so an override subtracts the unit's old
outcome and adds its new one without touching anything else. The full recompute works on
columns (engine.columns.Outcomes): the answers sharing a table row and a set of cells are
summed in C (np.bincount, whole millionths: exact), and each sum is added to its few
cells once.
"""

from __future__ import annotations

import gc
import math
import statistics
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from lmmreview.engine.columns import (
    AnswerColumns,
    Bools,
    GoldsOf,
    Ints,
    Outcomes,
    outcomes,
)
from lmmreview.engine.layouts import Cells, Layout, Unit, decide
from lmmreview.engine.scoring import MICRO, Outcome
from lmmreview.engine.tables import Cell, Column, Row, Table

COUNT, TALLY = "count", "tally"  # what a cell shows beside a percentage (_Sums.runs)


class _Sums:
    """Running totals of one cell."""

    __slots__ = ("blank", "complete", "fallback", "n", "offline", "reviewed", "scored", "sums")

    def __init__(self, runs: int) -> None:
        self.n = self.complete = self.reviewed = self.fallback = self.offline = 0
        self.blank = 0  # units with no score in any run (Outcome.unscored)
        self.sums = [0] * runs
        self.scored = [0] * runs

    @classmethod
    def of(cls, totals: list[int], runs: int) -> _Sums:
        """Totals in the order `_values` gives them."""
        sums = cls(runs)
        sums.n, sums.complete, sums.blank, sums.reviewed, sums.fallback, sums.offline = totals[:6]
        sums.sums = totals[6 : 6 + runs]
        sums.scored = totals[6 + runs :]
        return sums

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

    def runs(self, unscored_as_zero: bool, kind: str = "") -> list[float | None]:
        """Each run's percentage, or its number right (kind COUNT: Column.count) or of
        units scored (TALLY: Column.tally); None for a run that scored no unit."""
        found: list[float | None] = []
        for total, scored in zip(self.sums, self.scored, strict=True):
            units = self.n if unscored_as_zero else scored
            if not units:
                found.append(None)
            elif kind == TALLY:
                found.append(float(units))
            elif kind == COUNT:
                found.append(total / MICRO)
            else:
                # in this order: 264 right of 1000 is 26.4, not 26.400000000000002
                found.append(100 * total / MICRO / units)
        return found

    def cell(self, unscored_as_zero: bool, kind: str = "") -> Cell:
        """The cell's percentage (or count, or tally), the mean of its runs that scored a
        unit."""
        per_run = _scored(self.runs(unscored_as_zero, kind))
        mean = statistics.fmean(per_run) if per_run else None
        # by position, in Cell's field order: the review screen makes a few per key, and
        # keywords cost more than the rest of a cell
        return Cell(
            mean, self.n,
            _spread(per_run, mean) if mean is not None and len(per_run) > 1 else None,
            self.reviewed, self.blank, self.n - self.complete - self.blank, self.fallback,
            self.offline, tuple(per_run),
        )  # fmt: skip


def _flags(outcomes: Outcomes) -> tuple[Bools, Bools, Bools]:
    return outcomes.reviewed, outcomes.fallback, outcomes.offline


def _flatten(outcomes: Outcomes) -> Outcomes:
    """(models, groups, ...) outcome columns as one row per (model, group)."""
    runs = outcomes.micro.shape[-1]
    return Outcomes(
        outcomes.micro.reshape(-1, runs), outcomes.scored.reshape(-1, runs),
        *(flag.ravel() for flag in _flags(outcomes)),
    )  # fmt: skip


def _values(outcomes: Outcomes) -> list[np.ndarray | None]:
    """What a cell sums, one column each, in `_Sums.of`'s order: the count (None: one per
    answer), complete, unscored, reviewed, fallback, offline, each run's sum and each run's
    scored count."""
    scored = outcomes.scored
    sums = np.where(scored, outcomes.micro, 0)
    return [
        None, outcomes.complete, outcomes.unscored, *_flags(outcomes),
        *(sums[:, run] for run in range(scored.shape[1])),
        *(scored[:, run] for run in range(scored.shape[1])),
    ]  # fmt: skip


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


def _total(*values: float) -> float:
    return sum(values)


def summed(
    parts: Sequence[Sequence[float | None]], counts: Cell, formula: Callable[..., float] = _total
) -> Cell:
    """A sum column's cell (Column.sum_of) from its parts' values in each run (None: a
    run that scored none of a part's units; see _Sums.runs): the sum (or `formula`) of the
    parts' means (none while a part has none), and per run, of the runs every part scored
    in (a run one part lacks would pair one part's run with another's mean, or none). The
    counts are `counts`', those of the column's answers (Layout.sum_units)."""
    means = [statistics.fmean(found) if (found := _scored(p)) else None for p in parts]
    values = [m for m in means if m is not None]
    value = formula(*values) if len(values) == len(parts) else None
    value = None if value is not None and math.isnan(value) else value  # no value: blank
    shared = (run for run in zip(*parts, strict=True) if None not in run)
    per_run = [v for run in shared if not math.isnan(v := formula(*run))]
    spread = len(per_run) > 1 and value is not None
    return replace(
        counts,
        value=value,
        std=_spread(per_run, statistics.fmean(per_run)) if spread else None,
        per_run=tuple(per_run),
    )


def _scored(runs: Sequence[float | None]) -> list[float]:
    return [v for v in runs if v is not None]


OutcomeOf = Callable[[str, str], Outcome | None]  # (model, key) -> outcome; None: no answer


class Breakdown:
    """One dataset's tables for every model, from the effective outcome of each answer."""

    def __init__(self, layout: Layout, runs: int) -> None:
        if runs < 1:
            raise ValueError(f"a breakdown needs at least one run, not {runs}")
        self.layout = layout
        self.runs = runs
        self._cells: dict[tuple[str, str, str], _Sums] = {}  # (row, table, column)
        self._kinds = {
            (t.name, c.key): COUNT if c.count else TALLY
            for t in layout.tables
            for c in t.columns
            if c.count or c.tally
        }

    @classmethod
    def of(
        cls, layout: Layout, answers: AnswerColumns, runs: int, golds_of: GoldsOf
    ) -> tuple[Breakdown, Outcomes]:
        """Every table of `answers` (their samples: `layout`'s), and each answer's outcome."""
        found = outcomes(answers, runs, golds_of)
        breakdown = cls(layout, runs)
        sample = answers.samples_in(layout.samples)
        breakdown.load(answers.models, answers.model, sample, found)
        return breakdown, found

    # -- building ------------------------------------------------------------------

    def load(self, models: Sequence[str], model: Ints, sample: Ints, outcomes: Outcomes) -> None:
        """Recompute every cell from each answer's outcome; `model` gives each answer's
        model (an index into `models`), `sample` its sample (its index in layout.samples)."""
        if outcomes.micro.shape[1] != self.runs:
            raise ValueError(f"every outcome must have the tables' {self.runs} runs")
        with _collector_paused():
            self._cells.clear()
            last: tuple[Outcomes | None, list[np.ndarray | None]] = (None, [])
            for row, _, sets, found in self.units_of(len(models), model, sample, outcomes):
                if found is not last[0]:  # the one-sample units' slots share the answers'
                    last = (found, _values(found))
                self._add_groups(models, row, sets, last[1])

    def units_of(
        self, models: int, model: Ints, sample: Ints, outcomes: Outcomes
    ) -> Iterator[tuple[Ints, Ints, Ints, Outcomes]]:
        """Every unit of every model, in batches over whole columns: each unit's table row
        (model, then split), its number (a sample's index; for a group, the number of
        samples plus its place among every size's groups), its cell set (-1: none) and
        its outcome."""
        layout = self.layout
        row = model * len(layout.split_names) + layout.split_of[sample]
        for slot in range(layout.single_sets.shape[1]):
            yield row, sample, layout.single_sets[sample, slot], outcomes
        if layout.multi_members:
            yield from self._groups_of(models, model, sample, outcomes)

    def _groups_of(
        self, models: int, model: Ints, sample: Ints, outcomes: Outcomes
    ) -> Iterator[tuple[Ints, Ints, Ints, Outcomes]]:
        """Every group of every model over whole columns (for CircularEval, and by the other
        Unit.rules), one size and rule at a time (one row at a time: `set`, Layout.combine)."""
        layout = self.layout
        where = np.full((models, len(layout.samples)), -1, np.int64)
        where[model, sample] = np.arange(len(model))
        first = len(layout.samples)  # the groups' numbers follow the samples'
        for members, splits, sets, rule in zip(
            layout.multi_members, layout.multi_split, layout.multi_set, layout.multi_rule,
            strict=True,
        ):  # fmt: skip
            rows = where[:, members]  # (models, rotations, groups)
            present = rows >= 0
            scored = outcomes.scored[rows] & present[..., None]
            # (models, groups, runs); for CircularEval a wrong row fails the group, else an
            # unknown row leaves it unknown
            right, decided = decide(rule, outcomes.micro[rows], scored, rows=1)
            flags = [np.asarray((f[rows] & present).any(axis=1)) for f in _flags(outcomes)]
            grouped = Outcomes(np.where(right, MICRO, 0), np.asarray(decided), *flags)
            answered = present.any(axis=1)  # a group counts once a model answered a row
            model_of = np.broadcast_to(np.arange(models)[:, None], answered.shape)
            numbers = np.arange(first, first + answered.shape[1])
            first += answered.shape[1]
            group = np.broadcast_to(numbers[None, :], answered.shape)
            row = model_of * len(layout.split_names) + splits[None, :]
            # a group no row of which a model answered does not count: no cell set
            counted = np.where(answered, sets[None, :], -1)
            yield row.ravel(), group.ravel(), counted.ravel(), _flatten(grouped)

    def _add_groups(
        self, models: Sequence[str], row: Ints, sets: Ints, values: list[np.ndarray | None]
    ) -> None:
        """Sum `values` (see `_values`) per (row, cell set; -1: none) and add each sum to
        its cells. The sums are of floats, exact for whole numbers below 2**53: a million
        answers of a million millionths each stay far below."""
        layout = self.layout
        width = len(layout.cell_sets)
        bins = len(models) * len(layout.split_names) * width
        groups = np.where(sets >= 0, row * width + sets, bins)  # the last bin: not counted
        summed = [np.bincount(groups, weights=v, minlength=bins + 1)[:bins] for v in values]
        found = np.flatnonzero(summed[0])
        totals = np.stack([column[found] for column in summed], axis=1).astype(np.int64)
        for group, total in zip(found.tolist(), totals.tolist(), strict=True):
            row_number, cell_set = divmod(group, len(layout.cell_sets))
            model, split = divmod(row_number, len(layout.split_names))
            label = layout.split_row(models[model], layout.split_names[split])
            sums = _Sums.of(total, self.runs)
            for table, column in layout.cell_sets[cell_set]:
                self._sums(label, table, column).merge(sums)

    def set(
        self, model: str, key: str, before: Outcome | None, after: Outcome, outcome_of: OutcomeOf
    ) -> None:
        """One answer's outcome changed from `before` (None: it was not there) to `after`
        (a verdict, an undo, a new judgment); `outcome_of` gives the other rows of its
        circular groups (as they are: unchanged)."""
        row = self.layout.row(model, key)
        for unit in self.layout.units(key) + self.layout.sum_units(key):
            old: Outcome | None
            new: Outcome | None
            if not Layout.grouped(unit):
                old, new = before, after
            else:
                old = self.group_outcome(model, unit, outcome_of, {key: before})
                new = self.group_outcome(model, unit, outcome_of, {key: after})
            if old == new:
                continue
            if old is not None:
                self._add(row, unit.cells, old, -1)
            if new is not None:
                self._add(row, unit.cells, new, 1)

    def group_outcome(
        self,
        model: str,
        unit: Unit,
        outcome_of: OutcomeOf,
        instead: dict[str, Outcome | None] | None = None,
    ) -> Outcome | None:
        """A unit's outcome from its rows' (`instead` replaces some); None when the model
        answered none of them: the unit does not count."""
        instead = instead or {}
        members = [instead[k] if k in instead else outcome_of(model, k) for k in unit.members]
        if all(m is None for m in members):
            return None
        missing = Outcome.of((None,) * self.runs)  # an unanswered row of a group
        return Layout.combine(unit)([missing if m is None else m for m in members])

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
                    c.key: cell
                    for c in spec.columns
                    if (cell := self._cell(row, spec.name, c, unscored_as_zero)) is not None
                }
                if cells:
                    table.rows.append(Row(row, cells))
            tables.append(table)
        return tables

    def _cell(self, row: str, table: str, column: Column, unscored_as_zero: bool) -> Cell | None:
        """One cell of a row; None when nothing counts in it (in no part of a sum column)."""
        if not column.sum_of:
            return self._sums_cell(row, table, column.key, unscored_as_zero)
        found = [(cell, self._cells.get((row, *cell))) for cell in column.sum_of]
        parts = [
            s.runs(unscored_as_zero, self._kinds.get(cell, ""))
            for cell, s in found
            if s is not None
        ]
        if not parts or (column.formula is not None and len(parts) < len(column.sum_of)):
            return None
        counts = self._cells[(row, table, column.key)].cell(unscored_as_zero)
        return summed(parts, counts, column.formula or _total)

    def _sums_cell(self, row: str, table: str, column: str, unscored_as_zero: bool) -> Cell | None:
        """A counted column's cell (a percentage, count or tally); None if nothing counts in it."""
        sums = self._cells.get((row, table, column))
        kind = self._kinds.get((table, column), "")
        return None if sums is None else sums.cell(unscored_as_zero, kind)

    def row_cells(self, model: str, key: str, unscored_as_zero: bool = False) -> dict[str, Cell]:
        """The cells one answer counts in, keyed "table/column": the review screen's strip."""
        row = self.layout.row(model, key)
        return {
            f"{table}/{column}": cell
            for unit in self.layout.units(key)
            for table, column in unit.cells
            if (cell := self._sums_cell(row, table, column, unscored_as_zero)) is not None
        }
