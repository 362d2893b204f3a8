"""How sure a table cell is: seeded bootstrap intervals, and two models compared pairwise."""

from __future__ import annotations

from dataclasses import dataclass

from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.columns import AnswerColumns, GoldsOf
from lmmreview.engine.tables import Table

RESAMPLES = 1_000  # bootstrap resamples per cell
SEED = 0
CellKey = tuple[str, str, str]  # (row, table, column)


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


def intervals(
    breakdown: Breakdown,
    answers: AnswerColumns,
    golds_of: GoldsOf,
    unscored_as_zero: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[CellKey, tuple[float, float]]:
    """The 95 % bootstrap interval of every cell that has one, by (row, table, column)."""
    raise NotImplementedError


def with_intervals(tables: list[Table], found: dict[CellKey, tuple[float, float]]) -> list[Table]:
    """`tables` with each cell's interval from `found` (tables not there unchanged)."""
    raise NotImplementedError


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
    """Every cell of model `a` minus model `b`, in table and column order."""
    raise NotImplementedError


def mcnemar(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p from the discordant pairs."""
    raise NotImplementedError
