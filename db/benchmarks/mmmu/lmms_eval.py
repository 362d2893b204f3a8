"""`lmmreview import mmmu-lmms-eval`: MMMU's lines of lmms-eval's --log_samples files
(db.importers.lmms_eval reads the file). MMMU's metric dict has no question text or
options: v0.4 MMMU lines are answers to questions imported before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmmu import files as mmmu_files
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import Line, Read, parsed_judgment, read_log, same_id
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import QuestionType, Sample

MMMU_ACC = "mmmu_acc"  # MMMU's per-sample metric dict


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions (v0.3), answers, and lmms-eval's parsed choice of each multiple-choice
    answer."""
    return read_log(request, MMMU_BENCHMARK.name, "mmmu", _line)


def _line(line: Line, path: Path) -> Read:
    """MMMU: the doc in the Hugging Face layout (v0.3); the mmmu_acc dict's id, question_type,
    answer and parsed_pred; a multiple-choice answer's parsed choice as a judgment."""
    acc = line.metric(MMMU_ACC, path) or {}
    sample = None
    graded = (
        None if acc.get("id") in (None, "") else mmmu_files.mmmu_key(acc["id"], path, line.where)
    )
    if line.doc is not None:
        key, draft = mmmu_files.question_draft(line.doc, path, line.number)
        sample = mmmu_files.draft_sample(key, draft)
        if graded is not None:
            same_id(MMMU_ACC, graded, key, path, line.where)
    elif graded is not None:
        key = graded
    else:
        raise ImportFailure(
            path, f"neither doc nor {MMMU_ACC} with an id: no MMMU question", line.where
        )
    return Read(key, sample, _choice(acc, sample, path, line.where))


def _choice(acc: dict[str, Any], sample: Sample | None, path: Path, where: str) -> Judgment | None:
    """lmms-eval's parsed choice of a multiple-choice answer (parsed_pred: the letter, or a
    list with one per response), scored 1.0 when it is the gold; None for open answers."""
    kind = acc.get("question_type")
    qtype = sample.question_type if sample else None
    if qtype is None and isinstance(kind, str):
        qtype = mmmu_files.file_question_type(kind, path, where)
    parsed = acc.get("parsed_pred")
    choice = parsed[0] if isinstance(parsed, list) and parsed else parsed
    if qtype is not QuestionType.CHOICE or not isinstance(choice, str) or not choice:
        return None
    if sample is not None:
        golds = sample.golds
    elif acc.get("answer") is not None:
        golds = mmmu_files.gold_list(acc["answer"], path, where)
    else:
        return None
    return parsed_judgment(1.0 if choice in golds else 0.0, choice, parsed, path)
