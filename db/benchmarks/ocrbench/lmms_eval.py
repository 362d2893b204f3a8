"""`lmmreview import ocrbench-lmms-eval`: the lines of lmms-eval's task `ocrbench` in its
--log_samples files (db.importers.lmms_eval reads the file, in any layout, v0.3 to v0.7).

Each line's metric dict `ocrbench_accuracy` holds `question_type`, lmms-eval's `score` (1 or
0), its stripped `prediction` and `ground_truth` (a string or a list, as OCRBench.json's
answers); the score is imported as the judgment of `lmms-eval rules` (its rule also folds
full-width characters: docs/benchmarks/ocrbench.md). The question comes from `doc` (v0.3) or
the line's `input`; the dataset from the doc's `dataset`, which v0.4 lines lack. A sample's
key is the line's doc_id. lmms-eval's rule changed in v0.7.2 (HME100k's case): the import
says which one the run's results.json lets it tell.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.ocrbench.files import check_type, golds_of, ocrbench_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import Line, Read, note_rules, parsed_judgment, read_log
from lmmreview.engine.benchmarks.ocrbench.benchmark import OCRBENCH

METRIC = "ocrbench_accuracy"
# lmms-eval's rule in tasks/ocrbench/utils.py, changed by f54dd288 (#1278, v0.7.2)
BEFORE = "the rule that lowercases the whole answer first (HME100k case-folded)"
SINCE = "the rule that keeps case for HME100k"


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's verdicts."""
    batch = read_log(request, OCRBENCH.name, OCRBENCH.name, _read)
    note_rules(batch, "OCRBench", BEFORE, SINCE)
    return batch


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
    key = str(line.doc_id)
    sample = ocrbench_sample(key, question, golds, str(kind), source)
    return Read(key, sample, parsed_judgment(float(verdict), None, score, path))
