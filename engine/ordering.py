"""The orders the review list can be sorted in: pure rules over entries and golds.

A sort reorders the indices of the visible entries, never the entries: 100,000 answers
sort as 100,000 small keys. Every sort is stable (ties keep the list's order) and puts the
answers it cannot place (no score, no verdict to compare, fewer than two runs) last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import human_score
from lmmreview.engine.types import Sample

LIST_ORDER = "list"  # sample, then model: the order the answers were imported in

# order id -> what the status says (and the sort menu offers)
ORDERS: dict[str, str] = {
    LIST_ORDER: "list order (sample, then model)",
    "score": "score, lowest first",
    "disagreement": "judge-human disagreement, largest first",
    "spread": "run spread, largest first",
}


def score_of(entry: Entry, golds: list[str]) -> float | None:
    """The score the list shows: the human's (a choice scored against the golds), else the
    judge's mean over its runs."""
    if entry.verdict is not None:
        return human_score(entry.verdict, golds)
    return entry.judge_mean()


def _measure(order: str) -> Callable[[Entry, list[str]], float | None]:
    """The number an order sorts by, smallest first (largest-first orders negate it)."""

    def negated(value: float | None) -> float | None:
        return None if value is None else -value

    return {
        "score": score_of,
        "disagreement": lambda e, golds: negated(e.disagreement(golds)),
        "spread": lambda e, _: negated(e.spread()),
    }[order]


def sorted_rows(
    visible: list[int], entries: list[Entry], samples: Mapping[str, Sample], order: str
) -> list[int]:
    """`visible` (indices into `entries`) in `order`; ties, and the list order itself, go by
    ascending index (the order of import)."""
    if order == LIST_ORDER:
        return sorted(visible)
    if order not in ORDERS:
        raise ValueError(f"no order {order!r}; one of {', '.join(ORDERS)}")
    measure = _measure(order)

    def key(index: int) -> tuple[bool, float, int]:
        entry = entries[index]
        sample = samples.get(entry.key)
        value = measure(entry, sample.golds if sample is not None else [])
        return (value is None, 0.0 if value is None else value, index)

    return sorted(visible, key=key)
