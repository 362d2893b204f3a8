"""Checking lmmreview's tables against the numbers another tool printed for them.

A researcher who imports the official MM-Vet grades also holds the tables the official
grader computed from them. Each number in such a file is an `Expected` cell; `compare`
says, cell by cell, where our tables differ at that file's rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from lmmreview.engine.tables import Cell, Table

VALUE, STD = "value", "std"  # a cell's mean over runs, and its population std


@dataclass(frozen=True, slots=True)
class Expected:
    """One number a file printed for one of our table cells."""

    file: str
    row: str  # the table row (the model)
    table: str  # the table's name without its dataset: "capabilities"
    column: str  # our column key
    label: str  # the file's name for the column
    statistic: str  # VALUE, STD, or the 0-based index of one run's value
    value: float
    decimals: int  # the file's rounding

    def matches(self, ours: float) -> bool:
        """Whether the file's number is `ours` rounded to the file's decimals (either way
        at an exact half: tools round ties differently)."""
        return abs(ours - self.value) <= 0.5 * 10**-self.decimals + 1e-9


@dataclass(frozen=True, slots=True)
class Difference:
    """A cell whose number is not ours at the file's rounding (ours None: no such cell)."""

    expected: Expected
    ours: float | None

    def sentence(self) -> str:
        e = self.expected
        # a mean or std is named by its column; a run's total by its run (1-based)
        what = e.label if e.statistic in (VALUE, STD) else f"run {int(e.statistic) + 1}"
        ours = "no such cell" if self.ours is None else f"{self.ours:.{e.decimals + 2}f}"
        return f"{e.row}: {e.table} {what}: file {e.value:.{e.decimals}f}, ours {ours}"


def compare(expected: list[Expected], dataset: str, tables: list[Table]) -> list[Difference]:
    """Every expected number that our tables of `dataset` do not reproduce."""
    cells: dict[tuple[str, str, str], Cell] = {
        (table.name, row.label, column): cell
        for table in tables
        for row in table.rows
        for column, cell in row.cells.items()
    }
    differences = []
    for e in expected:
        cell = cells.get((f"{dataset}.{e.table}", e.row, e.column))
        ours = None if cell is None else _statistic(cell, e.statistic)
        if ours is None or not e.matches(ours):
            differences.append(Difference(e, ours))
    return differences


def _statistic(cell: Cell, statistic: str) -> float | None:
    if statistic == VALUE:
        return cell.value
    if statistic == STD:  # one run: the grader prints 0.0 where we print none
        return cell.std if cell.std is not None else (0.0 if cell.value is not None else None)
    run = int(statistic)
    return cell.per_run[run] if run < len(cell.per_run) else None
