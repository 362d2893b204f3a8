"""The answers a report lists for a reader to look at, as the review screen's filters find
them (engine.review.Filter): flagged by a reviewer, judge and human apart by more than the
disagreement threshold, judges apart by more than it (db.judges.disagreeing_judges), or
carrying a reviewer's note. Each with why it is listed."""

from __future__ import annotations

from dataclasses import dataclass

from lmmreview.db.judges import DatasetJudges, disagreeing_judges
from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
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


def flagged_answers(
    store: Store, found: DatasetJudges, choice: JudgeChoice, limit: float
) -> list[Listed]:
    """The answers of `found`'s dataset that a reader should look at, in the review list's
    order: the judge/human difference is the chosen judge's, as the tables show it."""
    dataset = found.dataset
    golds = {s.key: s.golds for s in store.samples(dataset)}
    judges_apart = disagreeing_judges(found, limit)
    entries = EntryReader(store, store.chosen_judge(dataset, choice)).entries(dataset)
    listed = []
    for entry in entries:
        apart = entry.disagreement(golds[entry.key])
        reasons = tuple(
            reason
            for reason, holds in (
                (FLAGGED, entry.flagged),
                (JUDGE_HUMAN, apart is not None and apart > limit),
                (JUDGES, entry.answer_id in judges_apart),
                (NOTED, entry.noted),
            )
            if holds
        )
        if reasons:
            listed.append(Listed(entry.answer_id, entry.model, entry.key, reasons))
    return listed
