"""`lmmreview export --format yesno-sheet`: one CSV per dataset of every answer's first
run as the chosen judge scored it."""

from __future__ import annotations

import csv
import io

from lmmreview.db import Store
from lmmreview.db.official import OfficialFile, OfficialFiles
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.scoring import Judge


def write_sheet(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles:
    latest = store.latest_judgments(dataset, judge)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["id", "model", "score"])
    for answer, model, key in store.answer_keys(dataset):
        judgment = latest.get((answer, 0))
        score = judgment.score if judgment is not None else None
        writer.writerow([key, model, 0.0 if score is None and unscored_as_zero else score])
    return OfficialFiles([OfficialFile(f"{dataset}-sheet.csv", None, text.getvalue())])
