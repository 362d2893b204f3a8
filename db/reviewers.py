"""Each reviewer's own verdicts, read from the review history of one dataset."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from lmmreview.db.store import Store
from lmmreview.engine.reviewers import disagreements, own_rows, own_verdicts
from lmmreview.engine.scoring import Verdict


class _Row(NamedTuple):
    answer_id: int
    reviewer: str
    action: str
    score: float | None
    choice: str | None
    blind: int  # given in blind review (1) or not (0)


_COLUMNS = "r.answer_id, r.reviewer, r.action, r.score, r.choice, r.blind"  # those of _Row


def _rows(store: Store, dataset: str) -> Iterator[_Row]:
    """The dataset's review rows, grouped by answer and reviewer, each group in time order,
    not row order: rows merged from another file come after this file's own, whatever
    their time."""
    rows = store.conn.execute(
        f"SELECT {_COLUMNS} FROM reviews r JOIN answers a ON a.id = r.answer_id "
        "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id "
        "WHERE d.name = ? "
        "ORDER BY r.answer_id, r.reviewer, r.created_at, r.id",
        (dataset,),
    )
    return map(_Row._make, rows)


def reviewer_verdicts(store: Store, dataset: str) -> dict[int, dict[str, Verdict]]:
    """answer id -> reviewer -> that reviewer's own verdict in force (engine.reviewers)."""
    return own_verdicts(_rows(store, dataset))


def reviewer_rows(store: Store, dataset: str) -> dict[int, dict[str, _Row]]:
    """answer id -> reviewer -> the row of that reviewer's own verdict in force: its
    verdict (engine.reviewers.verdicts_of) and whether it was given blind (given_blind)."""
    return own_rows(_rows(store, dataset))


def given_blind(tops: Mapping[int, Mapping[str, _Row]]) -> dict[str, int]:
    """reviewer -> how many of their own verdicts in force (reviewer_rows) were given in
    blind review."""
    return dict(Counter(r for by in tops.values() for r, row in by.items() if row.blind))


def assigned_verdicts(store: Store, reviewer: str) -> dict[int, dict[str, Verdict]]:
    """As reviewer_verdicts, of one reviewer, on the answers assigned to them (in any
    dataset): read from their assignments (CROSS JOIN keeps that order), so it costs what
    they hold, not what the dataset does."""
    rows = store.conn.execute(
        f"SELECT {_COLUMNS} FROM assignments g CROSS JOIN reviews r "
        "ON r.answer_id = g.answer_id AND r.reviewer = g.reviewer WHERE g.reviewer = ? "
        "ORDER BY r.answer_id, r.created_at, r.id",
        (reviewer,),
    )
    return own_verdicts(map(_Row._make, rows))


def disagreeing_answers(store: Store, dataset: str) -> frozenset[int]:
    """The answers of a dataset on which reviewers' own verdicts differ."""
    return frozenset(disagreements(reviewer_verdicts(store, dataset)))
