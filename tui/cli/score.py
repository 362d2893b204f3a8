"""`lmmreview score`: the offline rules over every answer not judged yet."""

from __future__ import annotations

from lmmreview.tui.options import DatasetsOpt, DbArg
from lmmreview.tui.output import clear_errors, err, say


def score(
    db: DbArg,
    dataset: DatasetsOpt = None,
) -> None:
    """Score by the offline rules every answer not judged yet.

    MMMU: rule-based parsing (the official method). MMBench and multiple choice: option
    matching, then a seeded random fallback (marked). MM-Vet and open answers: a grader for
    short ground truths; long answers are left for a human or an LLM judge. Then says
    where the rules' scores stand, counted as `info --judge "offline rules"` counts them.
    """
    from lmmreview.db import Store
    from lmmreview.db.scoring import score_offline

    status = err.status("Scoring by the offline rules")
    with clear_errors(db), Store.open(db, create=False) as store, status:
        store.require_datasets(dataset or [])
        runs = list(score_offline(store, dataset))
    for run in runs:
        say(run.summary())
