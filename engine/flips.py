"""Judge drift: the answers whose verdict changes between two judges, and what those flips
do to the tables (`lmmreview judges --flips A B`).

A judge's score of an answer is the mean of its scored runs (as `lmmreview judges`
compares judges). On a dataset scored 0/1 an answer flips when it is right under one
judge and wrong under the other (right: a score of at least CORRECT_FROM), or when both
chose an option and not the same one; on a graded dataset (MM-Vet's 0.0 to 1.0) any
change of score is a flip. An answer only one judge scored is no flip: it has no verdict
to change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from lmmreview.engine.agreement import CORRECT_FROM
from lmmreview.engine.columns import NONE, Bools, Codes, Floats, micro


def graded(*scores: Floats) -> bool:
    """Whether judges scored a dataset in grades: some run's score (NaN: none) lies
    strictly between 0 and 1. Else it is scored 0/1."""
    return any(bool(np.any((s > 0) & (s < 1))) for s in scores)


def flipped(a: Floats, b: Floats, choice_a: Codes, choice_b: Codes, in_grades: bool) -> Bools:
    """Which answers flip between judge A and judge B, from each judge's score (the mean
    of its runs; NaN: unscored) and chosen option (codes of one Labels; NONE: none):
    both scored, and a different score (`in_grades`), or one right and one wrong, or two
    different options chosen."""
    both = ~np.isnan(a) & ~np.isnan(b)
    if in_grades:
        return both & (micro(a)[0] != micro(b)[0])
    right_a, right_b = np.nan_to_num(a) >= CORRECT_FROM, np.nan_to_num(b) >= CORRECT_FROM
    chose = (choice_a != NONE) & (choice_b != NONE)
    return both & ((right_a != right_b) | (chose & (choice_a != choice_b)))


@dataclass(frozen=True, slots=True)
class Flip:
    """One answer whose verdict changes between judges A and B."""

    answer_id: int
    dataset: str
    key: str  # the sample
    model: str
    a: float  # judge A's score: the mean of its runs
    b: float
    choice_a: str | None  # the option judge A chose, if it chose one
    choice_b: str | None
    overridden: bool  # a human verdict decides the answer's score: the flip changes no table
    row: str  # the tables' row the answer counts in (its model, and split)
    cells: tuple[str, ...]  # the cells it counts in, "table/column" (Breakdown.row_cells)


@dataclass(frozen=True, slots=True)
class CellShift:
    """One table cell some flips count in: its value under each judge and the flips."""

    dataset: str
    row: str
    cell: str  # "table/column"
    a: float | None  # the cell's value under judge A (None: nothing scored)
    b: float | None
    flips: int  # the flips counted in the cell
    overridden: int  # of which a human verdict overrides: they move nothing

    @property
    def difference(self) -> float | None:
        """B's value minus A's."""
        return None if self.a is None or self.b is None else self.b - self.a


# (dataset, row, cell) -> the cell's value under A and under B
Values = Mapping[tuple[str, str, str], tuple[float | None, float | None]]


def cell_shifts(flips: Iterable[Flip], values: Values) -> list[CellShift]:
    """Each cell the flips count in, with its value under A and under B (`values`), and
    how many flips count there (and of those, how many a human verdict overrides); by
    dataset, row and cell."""
    counted: Counter[tuple[str, str, str]] = Counter()
    overridden: Counter[tuple[str, str, str]] = Counter()
    for flip in flips:
        for cell in flip.cells:
            place = (flip.dataset, flip.row, cell)
            counted[place] += 1
            overridden[place] += flip.overridden
    return [
        CellShift(*place, *values[place], n, overridden[place])
        for place, n in sorted(counted.items())
    ]
