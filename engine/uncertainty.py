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
   3b. Past MANY_OUTCOMES distinct outcomes (graded scores in several runs can have
   thousands) when n is under INDEX_RATIO times their number, each resample instead draws
   n units by index from the same generator, `rng.integers(0, n, size=(batch, n))` over
   the units listed by outcome, a batch of resamples at a time, and counts them per
   outcome: the same distribution. It costs O(resamples x n), never below the
   multinomial's count, but a unit drawn by index is far cheaper than an outcome's
   binomial draw, so it is the faster while n is a small multiple of the outcomes.
4. Per resample and run: the sum of the drawn scores and the number of drawn units scored;
   the run's statistic is the cell's, `100 * sum / MICRO / units` (units: those scored,
   or all `n` when unscored answers count as zero), or `sum / MICRO` for a count column
   (OCRBench); a run with no unit scored has none. The resample's statistic is the mean of
   its runs that have one (a resample with none is left out).
5. The interval is `np.percentile(statistics, [2.5, 97.5])` (numpy's default, linear).

A tally column (a denominator, Column.tally) has no interval of its own. A sum or formula
column (MME's subtask scores and totals, OCRBench's Final Score, MMStar's gain and
leakage, LLaVA-Bench's relative scores) is resampled in clusters: the samples its groups
tie together (an MME image pair's two questions), each cluster with its sums and counts in
every part, so that a question and its pair move together; a resample's value is each
part's mean over runs, summed (or the column's formula), and a resample that draws no unit
of a part the cell has is left out; past 5 % of them left out (COMPLETE_SHARE), the cell
has no interval. The run spread (Cell.std) stays beside.

A cell has no interval when a run it counts counts fewer than MIN_UNITS units (a sum
or formula cell: when it has fewer than MIN_UNITS clusters, or a part does): every
resample of one unit is that unit, a false [x, x].

`versus` resamples the units both models scored (in each run, both or neither; unscored as
zero, every unit both answered) with the same draws for both: the outcome of a unit is then
the pair (A's runs, B's runs), and the statistic A's minus B's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from lmmreview.engine.breakdown import COUNT, TALLY, Breakdown
from lmmreview.engine.columns import AnswerColumns, GoldsOf, Ints, Outcomes
from lmmreview.engine.columns import outcomes as outcomes_of
from lmmreview.engine.scoring import MICRO
from lmmreview.engine.tables import Column, Row, Table

RESAMPLES = 1_000  # bootstrap resamples per cell
SEED = 0
LEVEL = (2.5, 97.5)  # percentiles: a 95 % interval
UNSCORED = -1  # a run that did not score a unit (step 1 above)
# Past this many distinct outcomes in a cell (graded scores in several runs) and with fewer
# than INDEX_RATIO units per outcome, drawing the units by index costs less than the
# multinomial (step 3b; measured: 1,001 outcomes, 10k units 0.10 s vs 0.34 s, 1M units 11 s
# vs 0.14 s); at most DRAWN_AT_ONCE at a time.
MANY_OUTCOMES = 1_000
INDEX_RATIO = 10
DRAWN_AT_ONCE = 4_000_000
# A sum or formula cell has an interval only when at least this share of its resamples
# drew a unit of every part: on tiny data, those that did are few and alike.
COMPLETE_SHARE = 0.95
# A cell (or each part of a sum cell, or a versus pair) needs at least this many units
# counted in each run it counts: resampling one unit only ever redraws it.
MIN_UNITS = 2
CellKey = tuple[str, str, str]  # (row, table, column)
Outcome = tuple[int, ...]  # a unit's score per run, UNSCORED where none
Tallies = dict[tuple[int, int], Counter[Outcome]]  # (row or split, cell set) -> outcomes
Unit = tuple[Ints, Ints, Ints, Outcomes]  # Breakdown.units_of's: row, number, cell set, outcome


@dataclass(frozen=True, slots=True)
class Difference:
    """One cell of model A minus model B over the units both scored (`n`), with its
    paired bootstrap interval and, for 0/1 scores in one run, McNemar's exact p."""

    table: str
    column: str
    a: float | None  # A's statistic over the paired units (None: none of them scored)
    b: float | None
    diff: float | None  # a - b
    low: float | None  # the 95 % paired bootstrap interval of `diff`
    high: float | None
    n: int  # units both models scored (answered, unscored as zero)
    p_mcnemar: float | None  # None where the cell is not 0/1 scores in one run
    split: str = ""  # the dataset's split ("" when it has none)


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
    units = list(_units(breakdown, answers, golds_of))
    tallies: Tallies = {}  # (row, cell set) -> outcomes
    for row, _, sets, batch in units:
        counted = sets >= 0
        _count(tallies, row[counted], sets[counted], _codes(batch)[counted])

    def label(row: int) -> str:
        model, split = divmod(row, len(layout.split_names))
        return layout.split_row(answers.models[model], layout.split_names[split])

    kinds = _kinds(breakdown, unscored_as_zero)
    found = {
        key: _interval(tally, kind, resamples, seed)
        for key, tally in _by_cell(breakdown, tallies, label).items()
        if (kind := kinds.get(key[1:])) is not None
    }
    found |= _sum_intervals(breakdown, units, label, unscored_as_zero, resamples, seed)
    return {key: interval for key, interval in found.items() if interval is not None}


def with_intervals(tables: list[Table], found: dict[CellKey, tuple[float, float]]) -> list[Table]:
    """`tables` read with intervals, each cell's from `found` (None where not there)."""
    return [
        replace(
            table,
            rows=[_with_intervals(table.name, row, found) for row in table.rows],
            intervals=True,
        )
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
    """Every cell of model `a` minus model `b` over the units both scored, in table and
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
        pairs, kept = _paired(codes[ours], codes[other], unscored_as_zero)
        _count(tallies, row[ours][kept] % splits, sets[ours][kept], pairs)
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


def _paired(mine: Ints, theirs: Ints, unscored_as_zero: bool) -> tuple[Ints, np.ndarray]:
    """The paired outcomes (A's runs, then B's) of the units both models scored, and which
    units those are: a run where either did not score a unit is unscored for both, as the
    difference compares like with like; a unit neither run pairs is left out. Unscored as
    zero, every answered unit counts, as the cells count them."""
    if unscored_as_zero:
        return np.hstack([mine, theirs]), np.ones(len(mine), np.bool_)
    both = (mine >= 0) & (theirs >= 0)
    kept = np.any(both, axis=1)
    pairs = np.hstack([np.where(both, mine, UNSCORED), np.where(both, theirs, UNSCORED)])
    return pairs[kept], kept


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


def _units(breakdown: Breakdown, answers: AnswerColumns, golds_of: GoldsOf) -> Iterator[Unit]:
    """Every unit of every model and its outcome (Breakdown.units_of)."""
    found = outcomes_of(answers, breakdown.runs, golds_of)  # `outcomes` here: distinct ones
    sample = answers.samples_in(breakdown.layout.samples)
    return breakdown.units_of(len(answers.models), answers.model, sample, found)


def _count(tallies: Tallies, first: Ints, second: Ints, codes: Ints) -> None:
    """Count the units by tally, (`first`, `second`): a row or split, and a cell set, and
    by outcome (`codes`: a row per unit). In passes over the columns, no sort of them."""
    if not len(codes):
        return
    outcomes, number = _numbered(codes.T, len(codes))
    width = int(second.max()) + 1
    keys, counts = _occurrences((first * width + second) * len(outcomes) + number)
    cells, which = np.divmod(keys, len(outcomes))
    for cell, outcome, times in zip(cells.tolist(), which.tolist(), counts.tolist(), strict=True):
        tallies.setdefault(divmod(cell, width), Counter())[outcomes[outcome]] += times


def _numbered(columns: Iterable[Ints], length: int) -> tuple[list[Outcome], Ints]:
    """The distinct rows of `columns` (whole numbers from UNSCORED), in ascending order, and
    each row's number among them: one column at a time, numbering the combinations found
    so far as a mixed-radix number and keeping those present."""
    outcomes: list[Outcome] = [()]
    number = np.zeros(length, np.int64)
    for column in columns:
        values, _ = _occurrences(column - UNSCORED)  # from 0
        number = number * len(values) + _renumbered(values)[column - UNSCORED]
        outcomes = [(*o, v + UNSCORED) for o in outcomes for v in values.tolist()]
        present, _ = _occurrences(number)
        number = _renumbered(present)[number]
        outcomes = [outcomes[i] for i in present.tolist()]
    return outcomes, number


def _renumbered(values: Ints) -> Ints:
    """A lookup of sorted whole numbers: values[i] -> i."""
    lookup = np.zeros(int(values[-1]) + 1, np.int64)
    lookup[values] = np.arange(len(values))
    return lookup


def _occurrences(keys: Ints) -> tuple[Ints, Ints]:
    """The distinct values of `keys` (whole numbers from 0) in ascending order and how
    often each comes: counted in one pass (np.bincount) when their range is not much
    larger than them, else by sorting."""
    top = int(keys.max()) + 1
    if top > 4 * len(keys) + 2**21:
        return np.unique(keys, return_counts=True)
    counts = np.bincount(keys, minlength=top)
    found = np.flatnonzero(counts)
    return found, counts[found]


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
    """A cell's interval (None: no resample has a statistic, or too few units)."""
    codes, counts = _sorted(tally)
    if not _enough(_counted(counts, codes, kind.unscored_as_zero)):
        return None
    return _percentiles(
        _each_resample(counts, resamples, seed, lambda d: _statistic(d, codes, kind))
    )


def _sorted(tally: Counter[Outcome]) -> tuple[Ints, Ints]:
    """The distinct outcomes in ascending order (module docstring, step 2) and their counts."""
    outcomes = sorted(tally)
    return np.array(outcomes, np.int64), np.array([tally[o] for o in outcomes], np.int64)


def _each_resample(
    counts: Ints, resamples: int, seed: int, statistic: Callable[[Ints], np.ndarray]
) -> np.ndarray:
    """`statistic` of each resample's draws (step 3), made a batch of resamples at a time."""
    return np.concatenate([statistic(draws) for draws in _draws(counts, resamples, seed)])


def _draws(counts: Ints, resamples: int, seed: int) -> Iterator[Ints]:
    """How many units of each outcome each resample draws (step 3): one multinomial draw
    each, or, past MANY_OUTCOMES with few units per outcome, n units drawn by index, in
    batches of bounded size."""
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    if len(counts) <= MANY_OUTCOMES or n >= INDEX_RATIO * len(counts):
        yield rng.multinomial(n, counts / n, size=resamples)
        return
    outcome_of = np.repeat(np.arange(len(counts)), counts)  # the units, by outcome
    batch = max(1, DRAWN_AT_ONCE // n)
    for start in range(0, resamples, batch):
        size = min(batch, resamples - start)
        picked = outcome_of[rng.integers(0, n, size=(size, n))]
        picked += np.arange(size)[:, None] * len(counts)  # each resample its own bins
        yield np.bincount(picked.ravel(), minlength=size * len(counts)).reshape(size, -1)


def _statistic(draws: Ints, codes: Ints, kind: _Kind) -> np.ndarray:
    """The cell's statistic for each row of `draws` (NaN: no run scored a unit; step 4)."""
    scored = codes >= 0
    sums = draws @ np.where(scored, codes, 0)  # (resamples, runs)
    # unscored as zero: every run counts all drawn units (broadcast to one column per run)
    units = (
        np.broadcast_to(draws.sum(axis=1, keepdims=True), sums.shape)
        if kind.unscored_as_zero
        else draws @ scored
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = sums / MICRO if kind.count else 100 * sums / MICRO / units
    per_run = np.where(units > 0, per_run, 0.0)
    counted = np.sum(units > 0, axis=1)
    total = per_run.sum(axis=1)
    return np.where(counted > 0, total / np.maximum(counted, 1), np.nan)


def _enough(units: np.ndarray) -> bool:
    """Whether every run that counts a unit (`units`: how many each counts) counts at
    least MIN_UNITS: resamples of one unit are all alike, a false [x, x]."""
    return bool(np.all(units[units > 0] >= MIN_UNITS))


def _counted(counts: Ints, codes: Ints, unscored_as_zero: bool) -> Ints:
    """How many units each run counts (step 4): those scored, or all of them."""
    return np.full(codes.shape[1], counts.sum()) if unscored_as_zero else counts @ (codes >= 0)


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
    enough = _enough(_counted(counts, mine, kind.unscored_as_zero))
    interval = (
        None
        if not enough
        else _percentiles(
            _each_resample(
                counts,
                resamples,
                seed,
                lambda d: _statistic(d, mine, kind) - _statistic(d, theirs, kind),
            )
        )
    )
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


# -- sum and formula columns -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Part:
    """One part of a sum column (Column.sum_of) and how its value is made."""

    cell: tuple[str, str]
    kind: str  # COUNT, TALLY or "" (a percentage): engine.breakdown's
    sets: np.ndarray  # per cell set: whether it holds this part


def _sum_intervals(
    breakdown: Breakdown, units: list[Unit], label: Callable[[int], str],
    unscored_as_zero: bool, resamples: int, seed: int,
) -> dict[CellKey, tuple[float, float] | None]:  # fmt: skip
    """The intervals of the sum and formula columns: their units are resampled in
    clusters (the samples a group ties together: MME's image pairs), each cluster with its
    outcome in every part, so that parts over the same questions move together."""
    layout = breakdown.layout
    by_key = {(t.name, c.key): c for t in layout.tables for c in t.columns}
    clusters = _clusters(breakdown)
    found: dict[CellKey, tuple[float, float] | None] = {}
    for table in layout.tables:
        for column in table.columns:
            if not column.sum_of:
                continue
            parts = [
                _Part(cell, _kind_of(by_key[cell]), np.array([cell in c for c in layout.cell_sets]))
                for cell in column.sum_of
            ]
            statistic = _SumStatistic(parts, breakdown.runs, unscored_as_zero, column)
            tallied = _cluster_tallies(units, parts, clusters, breakdown.runs)
            for row, (distinct, counts) in tallied.items():
                key = (label(row), table.name, column.key)
                found[key] = statistic.interval(distinct, counts, resamples, seed)
    return found


def _kind_of(column: Column) -> str:
    return COUNT if column.count else TALLY if column.tally else ""


def _clusters(breakdown: Breakdown) -> Ints:
    """Per unit number (Breakdown.units_of): its cluster, the samples groups tie together
    (a group's rows, and groups sharing a row), named by their least sample."""
    layout = breakdown.layout
    cluster = np.arange(len(layout.samples))
    while True:  # each pass joins groups one row further apart
        before = cluster.copy()
        for members in layout.multi_members:
            least = cluster[members].min(axis=0)
            np.minimum.at(cluster, members, np.broadcast_to(least, members.shape))
        if np.array_equal(cluster, before):
            break
    return np.concatenate([cluster, *(cluster[members[0]] for members in layout.multi_members)])


def _cluster_tallies(
    units: list[Unit], parts: list[_Part], clusters: Ints, runs: int
) -> dict[int, tuple[Ints, Ints]]:
    """Per table row: each distinct cluster outcome (columns: per part, each run's sum and
    number scored, then the part's units) and how many clusters have it."""
    width = int(clusters.max()) + 1
    keys, rows = [], []  # per part: each unit's (row, cluster) key, and what it adds
    for part in parts:
        mine = [
            (row[held], clusters[number[held]], batch.micro[held], batch.scored[held])
            for row, number, sets, batch in units
            if (held := (sets >= 0) & part.sets[np.maximum(sets, 0)]).any()
        ]
        if not mine:
            keys.append(np.zeros(0, np.int64))
            rows.append((np.zeros((0, runs), np.int64), np.zeros((0, runs), np.bool_)))
            continue
        keys.append(np.concatenate([r * width + c for r, c, _, _ in mine]))
        rows.append(
            (np.concatenate([m for *_, m, _ in mine]), np.concatenate([s for *_, s in mine]))
        )
    present, _ = _occurrences(np.concatenate(keys))
    at = [np.searchsorted(present, k) for k in keys]

    def columns() -> Iterator[Ints]:
        yield present // width  # the row first: the outcomes sort by row
        for place, (micro, scored) in zip(at, rows, strict=True):
            for run in range(micro.shape[1]):
                yield _summed_at(place, np.where(scored[:, run], micro[:, run], 0), len(present))
                yield _summed_at(place, scored[:, run], len(present))
        for place in at:
            yield np.bincount(place, minlength=len(present))

    distinct, number = _numbered(columns(), len(present))
    counts = np.bincount(number, minlength=len(distinct))
    table = np.array(distinct, np.int64)
    by_row: dict[int, tuple[Ints, Ints]] = {}
    for row in np.unique(table[:, 0]).tolist():
        mine = table[:, 0] == row
        by_row[row] = (table[mine, 1:], counts[mine])
    return by_row


def _summed_at(place: Ints, values: np.ndarray, length: int) -> Ints:
    """The sum of `values` at each place (whole numbers: exact below 2**53)."""
    return np.bincount(place, weights=values, minlength=length).astype(np.int64)


@dataclass(frozen=True, slots=True)
class _SumStatistic:
    """A sum column's value from its clusters' outcomes, as Breakdown makes it: each part's
    mean over runs, then their sum (or the column's formula)."""

    parts: list[_Part]
    runs: int
    unscored_as_zero: bool
    column: Column

    def interval(
        self, outcomes: Ints, counts: Ints, resamples: int, seed: int
    ) -> tuple[float, float] | None:
        """None when the observed cell has no value (a part with no scored run, or a
        formula missing a part): a resample with one gets none either."""
        counted = counts @ outcomes[:, -len(self.parts) :] > 0  # the parts this row has
        if self.column.formula is not None and not counted.all():
            return None
        if np.isnan(self.values(counts[None, :], outcomes, counted)[0]):
            return None
        parts = np.flatnonzero(counted).tolist()
        if counts.sum() < MIN_UNITS or not all(self._enough(counts, outcomes, i) for i in parts):
            return None
        values = _each_resample(
            counts, resamples, seed, lambda d: self.values(d, outcomes, counted)
        )
        if np.isnan(values).mean() > 1 - COMPLETE_SHARE:  # the rest would be a false ±0
            return None
        return _percentiles(values)

    def values(self, draws: Ints, outcomes: Ints, counted: np.ndarray) -> np.ndarray:
        """The column's value per row of `draws` (NaN: a part without a value)."""
        means = np.array(
            [self._mean(draws, outcomes, i) for i in range(len(self.parts)) if counted[i]]
        )
        formula = self.column.formula or (lambda *v: sum(v))
        values = np.full(len(draws), np.nan)
        for at in np.flatnonzero(~np.isnan(means).any(axis=0)).tolist():
            values[at] = formula(*means[:, at].tolist())
        return values

    def _enough(self, counts: Ints, outcomes: Ints, index: int) -> bool:
        """Whether part `index` counts at least MIN_UNITS units in each run it counts."""
        return _enough(self._denominator(counts[None, :], outcomes, index)[0])

    def _denominator(self, draws: Ints, outcomes: Ints, index: int) -> Ints:
        """Per resample and run, the units part `index` counts (step 4)."""
        base = index * 2 * self.runs
        scored = draws @ outcomes[:, base + 1 : base + 2 * self.runs : 2]
        if not self.unscored_as_zero:
            return scored
        units = draws @ outcomes[:, len(outcomes[0]) - len(self.parts) + index]
        return np.broadcast_to(units[:, None], scored.shape)

    def _mean(self, draws: Ints, outcomes: Ints, index: int) -> np.ndarray:
        """One part's mean over its runs with a value, per resample (NaN: none)."""
        base = index * 2 * self.runs
        sums = draws @ outcomes[:, base : base + 2 * self.runs : 2]
        denominator = self._denominator(draws, outcomes, index)
        kind = self.parts[index].kind
        with np.errstate(invalid="ignore", divide="ignore"):
            if kind == TALLY:
                per_run = denominator.astype(np.float64)
            elif kind == COUNT:
                per_run = sums / MICRO
            else:
                per_run = 100 * sums / MICRO / denominator
        valid = denominator > 0
        count = valid.sum(axis=1)
        total = np.where(valid, per_run, 0.0).sum(axis=1)
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)
