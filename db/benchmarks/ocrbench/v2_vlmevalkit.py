"""`lmmreview import ocrbench-v2-vlmevalkit`: VLMEvalKit's OCRBench v2 prediction file
(`{model}_OCRBench_v2.xlsx`, or .tsv, .json; db.importers.vlmevalkit reads the rows).

OCRBench_v2.evaluate (open-compass/VLMEvalKit @ e8e78f0, vlmeval/dataset/image_vqa.py
3937-3982) rebuilds each row as the official eval.py's item and scores it with
OCRBench v2's own code: `category` is the item's type, `question`, `answer` its golds (a
Python list literal), `eval` its method unless "without eval", `bbox` and `content` literals
unless "without bbox" / "without content", `prediction` the answer. So a row holds what the
official rules read, and its sample is built as an official item's (v2.type_sample).
VLMEvalKit writes no per-row verdict (only `{model}_OCRBench_v2_score.json`'s averages):
lmmreview's rules score the answers. A row names no dataset_name or id: a sample is keyed
by `index`, in a dataset of its own (the file's, OCRBench_v2 or OCRBench_v2_MINI), never
mixed with the official files' `{dataset_name}/{id}` keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmbench.files import row_index
from lmmreview.db.benchmarks.ocrbench.v2 import finished, ignored_translation, type_sample
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
)
from lmmreview.db.importers.vlmevalkit import literal, names_of, read_rows, refuse_repeated, require
from lmmreview.engine.benchmarks.ocrbench import v2_rules as rules
from lmmreview.engine.benchmarks.ocrbench.v2 import OCRBENCH_V2

COLUMNS = ("index", "question", "answer", "category", "eval", "bbox", "content", "prediction")
DATASETS = "OCRBench_v2(?:_MINI)?"  # the dataset part of VLMEvalKit's file names
# What a row's cell says when its item has no such field (image_vqa.py 3959-3960, 3972)
_WITHOUT = {"eval": "without eval", "bbox": "without bbox", "content": "without content"}


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions and answers; the items get_score.py leaves out are left out."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, COLUMNS, "VLMEvalKit's OCRBench v2 prediction file")
    keyed = [(str(row_index(row["index"], file, where)), where, row) for where, row in rows]
    refuse_repeated(((key, where) for key, where, _ in keyed), file)
    dataset = request.dataset or names.dataset or "OCRBench_v2"
    batch = ImportBatch(dataset, OCRBENCH_V2.name, str(file))
    ignored: list[str] = []
    for key, where, row in keyed:
        item = _item(row, file, where)
        if ignored_translation(item, item["type"]):
            ignored.append(key)
            continue
        batch.samples.append(type_sample(key, item, item["type"], file, where))
        batch.answers.append(AnswerRecord(key, names.model, row["prediction"], str(file)))
    return finished(batch, file, ignored, "row")


def _item(row: dict[str, str], file: Path, where: str) -> dict[str, Any]:
    """The official item OCRBench_v2.evaluate makes of a row (its `predict` aside)."""
    kind = row["category"]
    if kind not in rules.TYPES:  # eval.py fails on it
        raise ImportFailure(file, f"category {kind!r}: not one of OCRBench v2's 30", where)
    item: dict[str, Any] = {
        "type": kind,
        "question": row["question"],
        "answers": literal(row["answer"], "answer", file, where),
    }
    for column, without in _WITHOUT.items():
        cell = row[column]
        if cell != without:
            item[column] = cell if column == "eval" else literal(cell, column, file, where)
    return item
