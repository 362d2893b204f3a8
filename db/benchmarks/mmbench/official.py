"""MMBench's official file from the store: the evaluation server's submission workbook per
model (export format mmbench-submission)."""

from __future__ import annotations

from lmmreview.db.official import OfficialFile, OfficialFiles, Workbook
from lmmreview.db.store import Store
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.benchmarks.mmbench import official
from lmmreview.engine.official import file_part
from lmmreview.engine.scoring import Judge


def submission_workbooks(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles:
    """Each model's workbook of every circular row it answered, with its raw answer (the
    server extracts the choices itself: no judge counts)."""
    return OfficialFiles(
        [
            OfficialFile(f"{file_part(model)}_{file_part(dataset)}.xlsx", model, book)
            for model, book in _workbooks(store, dataset).items()
        ]
    )


def _workbooks(store: Store, dataset: str) -> dict[str, Workbook]:
    """model -> (header, rows): every circular row the model answered, with its raw answer."""
    samples = {s.key: s for s in store.samples(dataset)}
    header = official.mmbench_header(list(samples.values()))
    books: dict[str, Workbook] = {}
    for _, model, key, text in store.answer_rows(dataset):
        books.setdefault(model, (header, []))[1].append(
            official.mmbench_row(header, samples[key], text)
        )
    return books
