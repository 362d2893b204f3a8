"""`lmmreview import ocrbench-v2-lmms-eval`: the lines of lmms-eval's task `ocrbench_v2` in
its --log_samples files (db.importers.lmms_eval reads the file, in any layout).

Each line's metric dict `ocrbench_v2_accuracy` (tasks/ocrbench_v2/utils.py:366-368 at v0.5
8f142bc3, :371-376 at v0.7.2 cb45ac4d, which repeats it as `_en` and `_cn`) holds
`question_type`, lmms-eval's `score` (in [0, 1]), the `prediction` and the `ground_truth`
(the dataset row's answers); it names no `dataset_name` or `id`, so a sample's key is the
line's doc_id (its position in lmms-eval's copy of the dataset), as the other lmms-eval
OCRBench reader keys it. The score is imported as the judgment of `lmms-eval rules`. The
question is the line's `input` (the row's question, stripped). The gold is kept where the
official rule reads nothing more than the line holds: the types that may carry an `eval`
(multiple choice, case sensitive, counting), VQA with position and text spotting (their
boxes), text grounding, key information and chart parsing (golds that are more than text,
of a form the line's copy does not fix) are imported without one, lmms-eval's score alone.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.ocrbench.v2 import type_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    Line,
    Read,
    grade_score,
    parsed_judgment,
    read_log,
)
from lmmreview.engine.benchmarks.ocrbench import v2_rules as rules
from lmmreview.engine.benchmarks.ocrbench.benchmark import TYPE
from lmmreview.engine.benchmarks.ocrbench.v2 import OCRBENCH_V2
from lmmreview.engine.types import QuestionType, Sample

METRIC = "ocrbench_v2_accuracy"
# The types whose official rule reads more than the line's text golds (see above).
NO_GOLD = frozenset(
    (*rules.EVALS, rules.POSITION, rules.SPOTTING, rules.GROUNDING, rules.KIE, rules.MAPPING,
     rules.KIE_CN, rules.CHART)
)  # fmt: skip


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's scores; a warning counts those without a gold."""
    batch = read_log(request, OCRBENCH_V2.name, OCRBENCH_V2.name, _read)
    without = sum(sample.answer is None for sample in batch.samples)
    if without:
        batch.warnings.append(
            f"{without} question(s) imported without a gold: their official rule reads "
            "what lmms-eval's lines do not keep (eval, boxes, structured golds), so only "
            "lmms-eval's scores judge them"
        )
    return batch


def _read(line: Line, path: Path) -> Read:
    payload = line.metric(METRIC, path)
    if payload is None:
        raise ImportFailure(path, f"no {METRIC}: no OCRBench v2 line", line.where)
    kind = payload.get("question_type")
    if kind not in rules.TYPES:
        raise ImportFailure(
            path, f"question_type {kind!r}: not one of OCRBench v2's 30", line.where
        )
    question = line.record.get("input")
    if not isinstance(question, str):
        raise ImportFailure(path, "no question (the line's input)", line.where)
    score = grade_score(payload.get("score"), path, line.where, f"{METRIC} score")
    key = str(line.doc_id)
    sample = _sample(key, question, str(kind), payload.get("ground_truth"), path, line.where)
    return Read(key, sample, parsed_judgment(score, None, payload, path))


def _sample(key: str, question: str, kind: str, golds: object, path: Path, where: str) -> Sample:
    """The question, with its golds where its rule reads no more (an empty translation gold,
    which the official scores leave out, is none)."""
    if kind in NO_GOLD or (
        kind == rules.TRANSLATION and isinstance(golds, list) and golds[:1] == [""]
    ):
        return Sample(key, question, QuestionType.OPEN, None, axes={TYPE: (kind,)})
    return type_sample(key, {"question": question, "answers": golds}, kind, path, where)
