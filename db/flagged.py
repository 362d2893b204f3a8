"""The answers a report lists for a reader to look at, as the review screen's filters find
them (engine.review.Filter): flagged by a reviewer, judge and human apart by more than the
disagreement threshold, judges apart by more than it (db.judges.disagreeing_judges), or
carrying a reviewer's note. Each with why it is listed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
from lmmreview.engine.columns import Bools, matching
from lmmreview.engine.review import Filter
from lmmreview.engine.scoring import JudgeChoice

FLAGGED = "flagged by a reviewer"
JUDGE_HUMAN = "judge and human disagree"
JUDGES = "judges disagree"
NOTED = "has a note"


@dataclass(frozen=True, slots=True)
class Listed:
    """One answer to look at, and why."""

    answer_id: int
    model: str
    key: str
    reasons: tuple[str, ...]


def has_human_verdicts(store: Store, dataset: str) -> bool:
    """Whether any answer of `dataset` has a human verdict in force: without one, no judge
    can be measured, and reading every judgment to say so would take seconds."""
    query = "SELECT EXISTS (SELECT 1 FROM current_verdicts WHERE dataset = ?)"
    return bool(store.conn.execute(query, (dataset,)).fetchone()[0])


def flagged_answers(
    store: Store, dataset: str, disagreeing: frozenset[int], choice: JudgeChoice, limit: float
) -> list[Listed]:
    """The answers of `dataset` that a reader should look at, in the review list's order,
    each picked by the screen's own filter (over whole columns: a million answers take
    seconds); the judge/human difference is the chosen judge's, as the tables show;
    `disagreeing`: the answers whose judges disagree (db.judges.disagreeing_judges)."""
    ((_, benchmark),) = store.datasets([dataset])
    reader = EntryReader(store, store.chosen_judge(dataset, choice))
    answers = reader.columns(dataset)
    samples = reader.samples_of(dataset, benchmark, answers, None)

    def where(flt: Filter) -> Bools:
        return matching(flt, answers, samples, benchmark.filter_axes)

    why = [
        (FLAGGED, answers.flagged),
        (JUDGE_HUMAN, where(Filter(disagreement=limit))),
        (JUDGES, where(Filter(judges_disagree=disagreeing))),
        (NOTED, answers.noted),
    ]
    return [
        Listed(
            int(answers.ids[row]),
            answers.models[answers.model[row]],
            answers.keys[answers.sample[row]],
            tuple(reason for reason, holds in why if holds[row]),
        )
        for row in np.flatnonzero(np.logical_or.reduce([holds for _, holds in why]))
    ]
