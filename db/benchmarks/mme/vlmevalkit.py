"""`lmmreview import mme-vlmevalkit`: VLMEvalKit's MME prediction file (`{model}_MME.xlsx`,
or .tsv, .json) or its `{model}_MME_auxmatch.xlsx` (db.importers.vlmevalkit reads the rows).

A row holds `index`, `question`, `answer` (Yes or No), `category` (the subtask, spelt as the
official files are named), `image_path` and the model's `prediction`; VLMEvalKit pairs an
image's two questions by `image_path`, in the file's order, and so does this. The auxmatch
workbook adds `extracted` (Yes, No or Unknown: VLMEvalKit's whole-answer yes/no rule, then
its judge model for what the rule left Unknown), imported as VLMEvalKit's judgment.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.mme.files import Pairs, check_gold, check_subtask
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
)
from lmmreview.db.importers.vlmevalkit import PROMPT_VERSION, names_of, read_rows, require
from lmmreview.engine.benchmarks.mme.benchmark import MME_BENCHMARK
from lmmreview.engine.scoring import Judgment, imported

COLUMNS = ("question", "answer", "category", "image_path")
EXTRACTED = "extracted"
AUXMATCH = "auxmatch"  # the file name's part after the dataset's
JUDGE = "vlmevalkit yes/no"  # the auxmatch names no judge model: its rule, then maybe GPT
LABELS = ("Yes", "No", "Unknown")
DATASETS = "MME"  # the dataset part of VLMEvalKit's file names


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions and answers, and the auxmatch workbook's extracted labels as judgments."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, COLUMNS, "VLMEvalKit's MME prediction file")
    judged = EXTRACTED in rows[0][1]
    judge = JUDGE if names.judge in (None, AUXMATCH) else names.judge
    batch = ImportBatch(request.dataset or MME_BENCHMARK.name, MME_BENCHMARK.name, str(file))
    pairs = Pairs()
    for where, row in rows:
        check_subtask(row["category"], file, where)
        check_gold(row["answer"], file, where)
        sample = pairs.sample(row["category"], row["image_path"], row["question"], row["answer"])
        batch.samples.append(sample)
        batch.answers.append(AnswerRecord(sample.key, names.model, row["prediction"], str(file)))
        if judged:
            judgment = _judgment(row[EXTRACTED], row["answer"], judge, file, where)
            batch.judgments.append(JudgmentRecord(sample.key, names.model, judgment))
    pairs.check(str(file))
    return batch


def _judgment(extracted: str, gold: str, judge: str, file: Path, where: str) -> Judgment:
    """Right when the extracted label is the gold, as VLMEvalKit scores it (Unknown never is)."""
    if extracted not in LABELS:
        raise ImportFailure(file, f"extracted {extracted!r}: expected Yes, No or Unknown", where)
    score = 1.0 if extracted == gold else 0.0
    return imported(judge, PROMPT_VERSION, score, f"extracted {extracted}", str(file))
