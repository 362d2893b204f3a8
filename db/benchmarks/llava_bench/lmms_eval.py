"""`lmmreview import llava-bench-lmms-eval`: the lines of lmms-eval's task
`llava_in_the_wild` in its --log_samples files (db.importers.lmms_eval reads the file, in
any layout, v0.3 to v0.7).

Each line's `gpt_eval_llava_all` dict holds the review lmms-eval asked: `question`, `ans1`
(the reference answer), `ans2` (the model's), `context` (the caption), `category`
(llava_bench_<category>), `review` (the judge's reply), `scores` ([reference, model];
[-1, -1] when the call or the parse failed) and `eval_model`. The reviews are imported as
the judgments of `eval_model`, reference first. The question's id is the doc's
`question_id` (v0.3), else the line's `doc_id` (v0.4 keeps no doc; lmms-eval's dataset
holds the questions in the official order).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.llava_bench.files import (
    answered,
    question_sample,
    review_judgments,
    score_pair,
    siblings,
)
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import PROMPT_VERSION, Line, Read, read_log, text_field
from lmmreview.engine.benchmarks.llava_bench import rules
from lmmreview.engine.benchmarks.llava_bench.benchmark import LLAVA_BENCH, QUESTION_ID
from lmmreview.engine.scoring import imported

METRIC = "gpt_eval_llava_all"
FAILED_REQUEST = "Failed Request"  # lmms-eval's eval_model when the judge call failed


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's reviews, each as a question's four samples."""
    pairs: dict[str, tuple[float, float]] = {}

    def read(line: Line, path: Path) -> Read:
        read = _read(line, path)
        pairs[read.key] = score_pair(
            _review(line, path).get("scores"), f"{METRIC} scores", path, line.where
        )
        return read

    batch = read_log(request, LLAVA_BENCH.name, LLAVA_BENCH.name, read)
    batch.samples = [each for sample in batch.samples for each in siblings(sample)]
    batch.answers = [each for answer in batch.answers for each in answered(answer)]
    batch.judgments = [
        each
        for record in batch.judgments
        for each in review_judgments(record.key, record.model, record.judgment, pairs[record.key])
    ]
    return batch


def _review(line: Line, path: Path) -> dict[str, Any]:
    review = line.metric(METRIC, path)
    if review is None:
        raise ImportFailure(path, f"no {METRIC} (lmms-eval's llava_in_the_wild task)", line.where)
    return review


def _read(line: Line, path: Path) -> Read:
    """The line's question (keyed by its id, as the reviews' keys are) and its review."""
    review = _review(line, path)
    doc = line.doc or {}
    question_id = str(doc.get("question_id", line.record.get("doc_id", "")))
    if not question_id:
        raise ImportFailure(path, "no question_id (doc) or doc_id", line.where)
    category = text_field(review, "category", path, line.where).removeprefix(rules.CATEGORY_PREFIX)
    if category not in rules.CATEGORIES:
        expected = ", ".join(rules.CATEGORY_PREFIX + c for c in rules.CATEGORIES)
        raise ImportFailure(path, f"{METRIC} category: expected {expected}", line.where)
    sample = question_sample(
        question_id,
        text_field(review, "question", path, line.where),
        text_field(review, "ans1", path, line.where),
        category,
        text_field(review, "context", path, line.where),
    )
    judge = text_field(review, "eval_model", path, line.where)
    reply = text_field(review, "review", path, line.where)
    judgment = imported("" if judge == FAILED_REQUEST else judge, PROMPT_VERSION, None, reply,
                        str(path))  # fmt: skip
    return Read(str(sample.extra[QUESTION_ID]), sample, judgment)
