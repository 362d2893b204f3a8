"""The orders the review list can be sorted in: pure rules over answer columns.

A sort reorders the rows of the visible answers, never the answers, over whole columns.
Every sort is stable (ties keep the list's order) and puts the answers it cannot place
(no score, no verdict to compare, fewer than two runs) last.
"""

from __future__ import annotations

import numpy as np

from lmmreview.engine.columns import AnswerColumns, GoldsOf, Ints

LIST_ORDER = "list"  # sample, then model: the order the answers were imported in

# order id -> what the status says (and the sort menu offers)
ORDERS: dict[str, str] = {
    LIST_ORDER: "list order (sample, then model)",
    "score": "score, lowest first",
    "disagreement": "judge-human disagreement, largest first",
    "spread": "run spread, largest first",
}


def sorted_rows(rows: Ints, answers: AnswerColumns, golds_of: GoldsOf, order: str) -> Ints:
    """`rows` (of `answers`) in `order`; ties, and the list order itself, go by ascending
    row (the order of import)."""
    if order == LIST_ORDER:
        return np.sort(rows)
    if order not in ORDERS:
        raise ValueError(f"no order {order!r}; one of {', '.join(ORDERS)}")
    if order == "score":  # the human's score (a choice against the golds), else the judge's mean
        value = np.where(answers.reviewed, answers.human(golds_of), answers.judge_mean())
    elif order == "disagreement":
        value = -answers.disagreement(golds_of)
    else:
        value = -answers.spread()
    picked = value[rows]
    unknown = np.isnan(picked)
    return rows[np.lexsort((rows, np.where(unknown, 0.0, picked), unknown))]
