"""`lmmreview import ocrbench-vlmevalkit`: VLMEvalKit's OCRBench prediction file
(`{model}_OCRBench.xlsx`, or .tsv, .json; db.importers.vlmevalkit reads the rows).

A row holds `index`, `question`, `answer` (the golds as a Python list literal, which
VLMEvalKit evaluates; read here with literal_eval, which runs no code), `category` (the
question type) and the model's `prediction`. VLMEvalKit writes no per-row verdict (only
`{model}_OCRBench_score.json`'s counts), so lmmreview's rule scores the answers. The file
names no dataset: HMER rows are HME100k's, as in OCRBench (their rule reads the category).
"""

from __future__ import annotations

import ast
from pathlib import Path

from lmmreview.db.benchmarks.ocrbench.files import check_type, golds_of, ocrbench_sample
from lmmreview.db.importers.batch import AnswerRecord, ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.vlmevalkit import names_of, read_rows, require
from lmmreview.engine.benchmarks.ocrbench.benchmark import OCRBENCH

COLUMNS = ("question", "answer", "category")
DATASETS = "OCRBench"  # the dataset part of VLMEvalKit's file names


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions and answers."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, COLUMNS, "VLMEvalKit's OCRBench prediction file")
    batch = ImportBatch(request.dataset or OCRBENCH.name, OCRBENCH.name, str(file))
    for where, row in rows:
        check_type(row["category"], file, where)
        golds = golds_of(_literal(row["answer"], file, where), file, where)
        sample = ocrbench_sample(row["index"], row["question"], golds, row["category"], None)
        batch.samples.append(sample)
        batch.answers.append(AnswerRecord(sample.key, names.model, row["prediction"], str(file)))
    return batch


def _literal(cell: str, file: Path, where: str) -> object:
    """The answer cell's list literal (or a bare text cell, as itself)."""
    if not cell.lstrip().startswith("["):
        return cell
    try:
        return ast.literal_eval(cell)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ImportFailure(file, f"answer {cell[:60]!r}: no list literal", where) from None
