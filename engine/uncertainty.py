"""How sure a table cell is: seeded bootstrap intervals, and two models compared pairwise.

The bootstrap, per cell (what a test can write out in plain numpy):

1. The cell's units (samples, or groups such as CircularEval's: what the cell counts once)
   each have an outcome: per run, its score in whole millionths, or -1 where that run
   scored it not. A unit's runs stay together: the outcome is the whole row of runs.
2. The distinct outcomes, sorted ascending (lexicographically over the runs, as
   `np.unique(..., axis=0)` sorts), and how many of the cell's `n` units have each: `counts`.
3. `draws = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)`: a
   fresh generator per cell, so a cell's interval does not depend on which others are
   computed. Drawing n units with replacement only matters through how many of each
   outcome are drawn, which is exactly this multinomial: a cell costs
   O(resamples x distinct outcomes), not O(resamples x n).
4. Per resample and run: the sum of the drawn scores and the number of drawn units scored;
   the run's statistic is the cell's, `100 * sum / MICRO / units` (units: those scored,
   or all `n` when unscored answers count as zero), or `sum / MICRO` for a count column
   (OCRBench); a run with no unit scored has none. The resample's statistic is the mean of
   its runs that have one (a resample with none is left out).
5. The interval is `np.percentile(statistics, [2.5, 97.5])` (numpy's default, linear).

A tally column (a denominator, Column.tally) and a sum or formula column (MME's sums,
MMStar's formulas: their parts count different units, a question and its image pair, which
are not resampled together) have no interval. The run spread (Cell.std) stays beside.

`versus` resamples the units both models answered with the same draws for both: the
outcome of a unit is then the pair (A's runs, B's runs), and the statistic A's minus B's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.columns import AnswerColumns, GoldsOf, Ints, Outcomes, outcomes
from lmmreview.engine.scoring import MICRO
from lmmreview.engine.tables import Column, Row, Table

RESAMPLES = 1_000  # bootstrap resamples per cell
SEED = 0
LEVEL = (2.5, 97.5)  # percentiles: a 95 % interval
UNSCORED = -1  # a run that did not score a unit (step 1 above)
CellKey = tuple[str, str, str]  # (row, table, column)
Outcome = tuple[int, ...]  # a unit's score per run, UNSCORED where none
Tallies = dict[tuple[int, int], Counter[Outcome]]  # (row or split, cell set) -> outcomes


@dataclass(frozen=True, slots=True)
class Difference:
    """One cell of model A minus model B over the units both answered (`n`), with its
    paired bootstrap interval and, for 0/1 scores in one run, McNemar's exact p."""

    table: str
    column: str
    a: float | None  # A's statistic over the paired units (None: none of them scored)
    b: float | None
    diff: float | None  # a - b
    low: float | None  # the 95 % paired bootstrap interval of `diff`
    high: float | None
    n: int  # units both models answered
    p_mcnemar: float | None  # None where the cell is not 0/1 scores in one run
    split: str = ""  # the dataset's split ("" when it has one)


@dataclass(frozen=True, slots=True)
class _Kind:
    """How a column's statistic is made from its units (module docstring, step 4)."""

    count: bool  # a count column: the sum, not a percentage
    unscored_as_zero: bool


def intervals(
    breakdown: Breakdown,
    answers: AnswerColumns,
    golds_of: GoldsOf,
    unscored_as_zero: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[CellKey, tuple[float, float]]:
    """The 95 % bootstrap interval of every cell that has one, by (row, table, column).
    Seconds at a million answers: call it off the UI thread."""
    layout = breakdown.layout
    tallies: Tallies = {}  # (row, cell set) -> outcomes
    for row, _, sets, batch in _units(breakdown, answers, golds_of):
        counted = sets >= 0
        _count(tallies, np.column_stack([row[counted], sets[counted], _codes(batch)[counted]]))

    def label(row: int) -> str:
        model, split = divmod(row, len(layout.split_names))
        return layout.split_row(answers.models[model], layout.split_names[split])

    kinds = _kinds(breakdown, unscored_as_zero)
    found = {
        key: _interval(tally, kind, resamples, seed)
        for key, tally in _by_cell(breakdown, tallies, label).items()
        if (kind := kinds.get(key[1:])) is not None
    }
    return {key: interval for key, interval in found.items() if interval is not None}


def with_intervals(tables: list[Table], found: dict[CellKey, tuple[float, float]]) -> list[Table]:
    """`tables` with each cell's interval from `found` (tables not there unchanged)."""
    return [
        replace(table, rows=[_with_intervals(table.name, row, found) for row in table.rows])
        for table in tables
    ]


def _with_intervals(table: str, row: Row, found: dict[CellKey, tuple[float, float]]) -> Row:
    return Row(
        row.label,
        {
            key: replace(cell, interval=found.get((row.label, table, key)))
            for key, cell in row.cells.items()
        },
    )


def versus(
    breakdown: Breakdown,
    answers: AnswerColumns,
    golds_of: GoldsOf,
    a: str,
    b: str,
    unscored_as_zero: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[Difference]:
    """Every cell of model `a` minus model `b` over the units both answered, in table and
    column order, then split; ValueError naming a model the answers lack."""
    for name in (a, b):
        if name not in answers.models:
            raise ValueError(f"no answers of model {name!r}")
    layout = breakdown.layout
    first, second = answers.models.index(a), answers.models.index(b)
    splits = len(layout.split_names)
    tallies: Tallies = {}  # (split, cell set) -> (A's outcome, B's)
    for row, unit, sets, batch in _units(breakdown, answers, golds_of):
        codes = _codes(batch)
        mine, theirs = (np.flatnonzero((row // splits == m) & (sets >= 0)) for m in (first, second))
        _, in_a, in_b = np.intersect1d(unit[mine], unit[theirs], return_indices=True)
        ours, other = mine[in_a], theirs[in_b]
        _count(
            tallies, np.column_stack([row[ours] % splits, sets[ours], codes[ours], codes[other]])
        )
    cells = _by_cell(breakdown, tallies, lambda split: layout.split_names[split])
    kinds = _kinds(breakdown, unscored_as_zero)
    binary = breakdown.runs == 1 and all(_binary(tally) for tally in tallies.values())
    return [
        _difference(table.name, column.key, split, tally, kind, binary, resamples, seed)
        for table in layout.tables
        for column in table.columns
        if (kind := kinds.get((table.name, column.key))) is not None
        for split in layout.split_names
        if (tally := cells.get((split, table.name, column.key)))
    ]


def mcnemar(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p from the discordant pairs: twice the smaller tail of
    Binomial(a_only + b_only, 1/2), at most 1 (the binomial test's two-sided p, as the
    distribution is symmetric). Summed in logarithms: exact enough for millions."""
    n, k = a_only + b_only, min(a_only, b_only)
    if a_only == b_only:
        return 1.0
    steps = np.log(np.arange(n, n - k, -1, dtype=np.float64) / np.arange(1, k + 1))
    logs = np.concatenate(([0.0], np.cumsum(steps))) - n * math.log(2)  # log P(X = i), i <= k
    top = logs.max()
    return min(1.0, 2 * math.exp(top) * float(np.exp(logs - top).sum()))


# -- the bootstrap ---------------------------------------------------------------------


def _codes(batch: Outcomes) -> Ints:
    """Each unit's outcome: its runs' whole millionths, UNSCORED where a run has none."""
    return np.where(batch.scored, batch.micro, UNSCORED)


def _units(
    breakdown: Breakdown, answers: AnswerColumns, golds_of: GoldsOf
) -> Iterator[tuple[Ints, Ints, Ints, Outcomes]]:
    """Every unit of every model and its outcome (Breakdown.units_of)."""
    found = outcomes(answers, breakdown.runs, golds_of)
    sample = answers.samples_in(breakdown.layout.samples)
    return breakdown.units_of(len(answers.models), answers.model, sample, found)


def _count(tallies: Tallies, keys: Ints) -> None:
    """Count the rows of `keys`: the first two columns name a tally, the rest an outcome."""
    if not len(keys):
        return
    rows, counts = np.unique(keys, axis=0, return_counts=True)
    for row, times in zip(rows.tolist(), counts.tolist(), strict=True):
        tallies.setdefault((row[0], row[1]), Counter())[tuple(row[2:])] += times


def _by_cell(
    breakdown: Breakdown, tallies: Tallies, name: Callable[[int], str]
) -> dict[CellKey, Counter[Outcome]]:
    """The tallies of cell sets as those of their cells: (name of the first number, table,
    column) -> outcomes."""
    cells: dict[CellKey, Counter[Outcome]] = {}
    for (first, cell_set), tally in tallies.items():
        for table, column in breakdown.layout.cell_sets[cell_set]:
            cells.setdefault((name(first), table, column), Counter()).update(tally)
    return cells


def _kinds(breakdown: Breakdown, unscored_as_zero: bool) -> dict[tuple[str, str], _Kind]:
    """The columns whose statistic is resampled (module docstring), by (table, column)."""
    return {
        (table.name, column.key): _Kind(column.count, unscored_as_zero)
        for table in breakdown.layout.tables
        for column in table.columns
        if _resampled(column)
    }


def _resampled(column: Column) -> bool:
    return not column.sum_of and not column.tally


def _interval(
    tally: Counter[Outcome], kind: _Kind, resamples: int, seed: int
) -> tuple[float, float] | None:
    """A cell's interval (None: no resample has a statistic)."""
    codes, counts = _sorted(tally)
    draws = _draws(counts, resamples, seed)
    return _percentiles(_statistic(draws, codes, kind))


def _sorted(tally: Counter[Outcome]) -> tuple[Ints, Ints]:
    """The distinct outcomes in ascending order (module docstring, step 2) and their counts."""
    outcomes_ = sorted(tally)
    return np.array(outcomes_, np.int64), np.array([tally[o] for o in outcomes_], np.int64)


def _draws(counts: Ints, resamples: int, seed: int) -> Ints:
    """How many units of each outcome each resample draws (step 3)."""
    n = int(counts.sum())
    return np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)


def _statistic(draws: Ints, codes: Ints, kind: _Kind) -> np.ndarray:
    """The cell's statistic for each row of `draws` (NaN: no run scored a unit; step 4)."""
    scored = codes >= 0
    sums = draws @ np.where(scored, codes, 0)  # (resamples, runs)
    units = draws.sum(axis=1, keepdims=True) if kind.unscored_as_zero else draws @ scored
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = sums / MICRO if kind.count else 100 * sums / MICRO / units
    per_run = np.where(units > 0, per_run, 0.0)
    counted = np.sum(units > 0, axis=1)
    total = per_run.sum(axis=1)
    return np.where(counted > 0, total / np.maximum(counted, 1), np.nan)


def _percentiles(statistics: np.ndarray) -> tuple[float, float] | None:
    kept = statistics[~np.isnan(statistics)]
    if not len(kept):
        return None
    low, high = np.percentile(kept, LEVEL)
    return float(low), float(high)


def _difference(
    table: str, column: str, split: str, tally: Counter[Outcome], kind: _Kind, binary: bool,
    resamples: int, seed: int,
) -> Difference:  # fmt: skip
    """One cell of A minus B from the paired units' outcomes (A's runs, then B's); with
    McNemar's p where every score of the comparison is 0 or 1 in one run (`binary`)."""
    codes, counts = _sorted(tally)
    runs = codes.shape[1] // 2
    mine, theirs = codes[:, :runs], codes[:, runs:]
    a, b = (_value(_statistic(counts[None, :], c, kind)) for c in (mine, theirs))
    draws = _draws(counts, resamples, seed)
    interval = _percentiles(_statistic(draws, mine, kind) - _statistic(draws, theirs, kind))
    low, high = interval if interval is not None else (None, None)
    diff = a - b if a is not None and b is not None else None
    p = _mcnemar_of(mine[:, 0], theirs[:, 0], counts, kind) if binary and not kind.count else None
    return Difference(table, column, a, b, diff, low, high, int(counts.sum()), p, split)


def _value(statistic: np.ndarray) -> float | None:
    return None if np.isnan(statistic[0]) else float(statistic[0])


def _binary(tally: Counter[Outcome]) -> bool:
    """Whether every score is 0 or 1 (or none): an accuracy, as McNemar's test needs."""
    return all(score in (UNSCORED, 0, MICRO) for pair in tally for score in pair)


def _mcnemar_of(mine: Ints, theirs: Ints, counts: Ints, kind: _Kind) -> float | None:
    """McNemar's p over the pairs both scored (all pairs, unscored as wrong, when unscored
    answers count as zero); None when no pair is."""
    pairs = np.ones(len(counts), np.bool_) if kind.unscored_as_zero else (mine >= 0) & (theirs >= 0)
    if not pairs.any():
        return None
    a_right, b_right = mine == MICRO, theirs == MICRO
    return mcnemar(
        int(counts[pairs & a_right & ~b_right].sum()), int(counts[pairs & ~a_right & b_right].sum())
    )
