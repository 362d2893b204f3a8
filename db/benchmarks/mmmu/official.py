"""MMMU's official file from the store: the test server's JSON of id -> answer per model
(export format mmmu-submission)."""

from __future__ import annotations

from lmmreview.db.official import OfficialFile, OfficialFiles
from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.benchmarks.mmmu import official
from lmmreview.engine.benchmarks.mmmu.rules import Candidate
from lmmreview.engine.official import file_part
from lmmreview.engine.scoring import Judge


def submission_jsons(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles:
    """Each model's test-server JSON: the reviewer's choice, else the judge's, else the
    official parser's."""
    return OfficialFiles(
        [
            OfficialFile(
                f"{file_part(model)}_{file_part(dataset)}.json",
                model,
                official.submission_json(answers),
            )
            for model, answers in _submissions(store, dataset, judge).items()
        ]
    )


def _submissions(
    store: Store, dataset: str, judge: Judge | None
) -> dict[str, dict[str, str | list[Candidate]]]:
    """model -> id -> the answer the MMMU test server reads (reviewed choices win)."""
    samples = {s.key: s for s in store.samples(dataset)}
    texts = {answer: text for answer, _, _, text in store.answer_rows(dataset)}
    submissions: dict[str, dict[str, str | list[Candidate]]] = {}
    for entry in EntryReader(store, judge).entries(dataset):
        submissions.setdefault(entry.model, {})[entry.key] = official.mmmu_answer(
            samples[entry.key], texts[entry.answer_id], entry.judge_choice, entry.verdict
        )
    return submissions
