"""The paper tables as plain values: columns, one row per model, a statistic per cell."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    title: str
    # A column no unit counts in: its cell is the sum of these (table, column) cells of the
    # same row, those the row has (MME's subtask score is acc + acc+ in percent, its
    # Perception and Cognition the sums of those): a score, no longer a percentage. Its
    # counts (n, reviewed, ...) are of its answers, each once (Layout.sum_units).
    sum_of: tuple[tuple[str, str], ...] = ()
    # Its cell is the number of units right (their scores summed), not a percentage:
    # OCRBench reports counts (of 50, of 200), summed into its Final Score (of 1000).
    count: bool = False
    # Its cell is the number of units scored (in each run; all of them when unscored count
    # as zero): a denominator a formula needs (HallusionBench's yes/no bias).
    tally: bool = False
    # With `sum_of`: the cell is this of its parts' values in that order, not their sum,
    # and blank unless the row has every part (MMStar's gain S_v - S_wv).
    formula: Callable[..., float] | None = None
    # Which values the exports mark best and second: "higher", "lower" (MMStar's leakage),
    # or "" for none (a score with no better or worse, as MMStar's without-image score).
    best: str = "higher"


def columns(pairs: Iterable[tuple[str, str]]) -> list[Column]:
    """Table columns from (key, title) pairs."""
    return [Column(key, title) for key, title in pairs]


def by_count(values: Counter[str]) -> list[str]:
    """Values by descending count, ties by name: the order of columns no paper fixes."""
    return sorted(values, key=lambda v: (-values[v], v))


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell: a percentage (None when nothing is scored) and how it was made."""

    value: float | None  # percent, mean over runs
    n: int  # units counted in the cell (samples, or circular groups)
    std: float | None = None  # population std over runs, when there are several
    reviewed: int = 0  # units with a human verdict
    unscored: int = 0  # units with no score in any run (engine.scoring.Outcome.unscored)
    partial: int = 0  # units scored in some runs only (Outcome.partial)
    fallback: int = 0  # units decided by a seeded random fallback
    offline: int = 0  # units scored by the offline rules (Outcome.offline)
    per_run: tuple[float, ...] = ()  # percent in each run that scored any unit
    # the 95 % bootstrap interval (low, high), in the unit of `value` (engine.uncertainty);
    # None unless asked for, or where the cell's statistic is not resampled
    interval: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Row:
    label: str  # the model (and split, when a dataset has several)
    cells: dict[str, Cell]


@dataclass(slots=True)
class Table:
    name: str  # stable id: the dataset's name, a dot, the table's ("d.capabilities")
    title: str
    dataset: str
    columns: list[Column]
    rows: list[Row] = field(default_factory=list)
    std_columns: tuple[str, ...] = ()  # columns printed as mean±std
    runs: int = 1
    unscored_as_zero: bool = False
    # read with the cells' bootstrap intervals (`--ci`), whether or not a cell has one: the
    # exports' interval columns and fields follow the flag, not the data
    intervals: bool = False
