"""`lmmreview import llava-bench-vlmevalkit`: VLMEvalKit's LLaVABench prediction file
({model}_LLaVABench.xlsx, or .tsv, .json) or its judge's result workbook
({model}_LLaVABench_openai_result.xlsx).

A row holds `index` (the question's id), `question`, `caption`, `gpt4_ans` (the reference
answer), `category` (conv, detail or complex) and the model's `prediction`; the result
workbook adds the judge's `gpt4_score` and `score` (the reference's and the model's; -1 each
where the reply did not read), imported as the judge's reference-first review. VLMEvalKit
keeps no review text, so the reply shown is the two scores.
"""

from __future__ import annotations

import math
from pathlib import Path

from lmmreview.db.benchmarks.llava_bench.files import (
    answered,
    question_sample,
    review_judgments,
    siblings,
)
from lmmreview.db.importers.batch import AnswerRecord, ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.vlmevalkit import PROMPT_VERSION, has, names_of, read_rows, require
from lmmreview.engine.benchmarks.llava_bench import rules
from lmmreview.engine.benchmarks.llava_bench.benchmark import LLAVA_BENCH
from lmmreview.engine.scoring import imported

COLUMNS = ("question", "caption", "gpt4_ans", "category")
SCORES = ("gpt4_score", "score")
# VLMEvalKit's default judge of LLaVABench (run.py @ e8e78f0); the result workbook's name
# says only "openai", so --judge names another.
JUDGE = "gpt-4-turbo"
DATASETS = "LLaVABench"  # the dataset part of VLMEvalKit's file names


def read_request(request: ImportRequest) -> ImportBatch:
    """One model's answers, and its judge's scores from a result workbook."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, COLUMNS, "VLMEvalKit's LLaVABench prediction file")
    judged = has(rows, *SCORES)
    judge = JUDGE if names.judge in (None, "openai") else names.judge
    batch = ImportBatch(request.dataset or LLAVA_BENCH.name, LLAVA_BENCH.name, str(file))
    seen: dict[str, str] = {}
    for where, row in rows:
        index = row["index"].strip()
        if not index:
            raise ImportFailure(file, "empty index", where)
        if index in seen:
            raise ImportFailure(file, f"index {index} again (also at {seen[index]})", where)
        seen[index] = where
        category = row["category"].strip()
        if category not in rules.CATEGORIES:
            expected = ", ".join(rules.CATEGORIES)
            raise ImportFailure(file, f"category {category!r}: expected {expected}", where)
        sample = question_sample(index, row["question"], row["gpt4_ans"], category, row["caption"])
        batch.samples += siblings(sample)
        batch.answers += answered(AnswerRecord(index, names.model, row["prediction"], str(file)))
        if judged:
            pair = (_score(row, SCORES[0], file, where), _score(row, SCORES[1], file, where))
            reply = f"gpt4_score {row[SCORES[0]]}, score {row[SCORES[1]]}"
            review = imported(judge, PROMPT_VERSION, None, reply, str(file))
            batch.judgments += review_judgments(index, names.model, review, pair)
    return batch


def _score(row: dict[str, str], column: str, file: Path, where: str) -> float:
    try:
        value = float(row[column])
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ImportFailure(file, f"{column} {row[column][:40]!r} is not a number", where)
    return value
