"""`lmmreview import mmvet-lmms-eval`: MM-Vet's lines of lmms-eval's --log_samples files
(db.importers.lmms_eval reads the file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmvet.files import mmvet_id, open_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    GRADE,
    PROMPT_VERSION,
    Line,
    Read,
    grade_score,
    read_log,
    same_id,
    text_field,
)
from lmmreview.engine.benchmarks.mmvet.benchmark import MMVET
from lmmreview.engine.scoring import Judgment, imported


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's GPT grades."""
    return read_log(request, MMVET.name, "mmvet", _line)


def _line(line: Line, path: Path) -> Read:
    """MM-Vet: the doc (question_id, question, answer, capability), or the grade dict that
    repeats them (question_id, question, gt_answer, capabilities); the grade as a judgment."""
    grade = line.metric(GRADE, path)
    fields = line.doc
    if fields is None and grade is not None:
        fields = {
            "question_id": grade.get("question_id"),
            "question": grade.get("question"),
            "answer": grade.get("gt_answer"),
            "capability": grade.get("capabilities"),
        }
    if fields is None:
        raise ImportFailure(path, f"neither doc nor {GRADE}: no MM-Vet question", line.where)
    if fields.get("question_id") is None:
        raise ImportFailure(path, "missing field 'question_id'", line.where)
    key = mmvet_id(fields["question_id"], path, line.where)
    if grade is not None and grade.get("question_id") is not None:
        same_id(GRADE, mmvet_id(grade["question_id"], path, line.where), key, path, line.where)
    sample = open_sample(key, fields, path, line.where, ("question", "answer", "capability"))
    return Read(key, sample, None if grade is None else _grade(grade, path, line.where))


def _grade(grade: dict[str, Any], path: Path, where: str) -> Judgment:
    """lmms-eval's GPT grade. It keeps no reply text, only the score and the model that
    replied; after an API failure the model is "" and the score 0.0. The reply kept is
    the judge's content when the file has it, else the grade as recorded, and none at all
    for a grade no judge gave: that 0.0 is imported as a score and flagged for review."""
    score = grade_score(grade.get("score"), path, where)
    judge = text_field(grade, "eval_model", path, where)
    content = text_field(grade, "content", path, where)
    recorded = json.dumps({"score": score, "eval_model": judge}) if judge else ""
    return imported(judge, PROMPT_VERSION, score, content or recorded, str(path))
