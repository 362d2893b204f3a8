"""`lmmreview import ocrbench-lmms-eval`: the lines of lmms-eval's task `ocrbench` in its
--log_samples files (db.importers.lmms_eval reads the file, in either layout).

Each line's metric dict `ocrbench_accuracy` holds `question_type`, lmms-eval's `score` (1 or
0), its stripped `prediction` and `ground_truth` (a string or a list, as OCRBench.json's
answers); the score is imported as the judgment of `lmms-eval rules` (its rule also folds
full-width characters: docs/benchmarks/ocrbench.md). The question comes from `doc` (v0.3) or
the line's `input`; the dataset from the doc's `dataset`, which v0.4 lines lack. A sample's
key is the line's doc_id.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.ocrbench.files import check_type, golds_of, ocrbench_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import Line, Read, parsed_judgment, read_log
from lmmreview.engine.benchmarks.ocrbench.benchmark import OCRBENCH

METRIC = "ocrbench_accuracy"


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's verdicts."""
    return read_log(request, OCRBENCH.name, OCRBENCH.name, _read)


def _read(line: Line, path: Path) -> Read:
    score = line.metric(METRIC, path)
    if score is None:
        raise ImportFailure(path, f"no {METRIC}: no OCRBench line", line.where)
    kind = score.get("question_type")
    check_type(kind, path, line.where)
    doc = line.doc or {}
    question = doc.get("question", line.record.get("input"))
    if not isinstance(question, str):
        raise ImportFailure(path, "no question (the doc's, or the line's input)", line.where)
    source = doc.get("dataset")
    if source is not None and (not isinstance(source, str) or not source):
        raise ImportFailure(path, f"dataset {source!r}: expected text", line.where)
    golds = golds_of(score.get("ground_truth"), path, line.where)
    verdict = score.get("score")
    if isinstance(verdict, bool) or verdict not in (0, 1):
        raise ImportFailure(path, f"score {verdict!r}: expected 1 or 0", line.where)
    key = str(line.record["doc_id"])
    sample = ocrbench_sample(key, question, golds, str(kind), source)
    return Read(key, sample, parsed_judgment(float(verdict), None, score, path))
