"""`lmmreview import hallusionbench-lmms-eval`: HallusionBench's lines of lmms-eval's
--log_samples files (db.importers.lmms_eval reads the file).

lmms-eval's task `hallusion_bench_image` keeps the whole dataset row (without its image) with
the model's `model_prediction` in each of its three metric dicts (aAcc, fAcc, qAcc), and in
`doc` too in the v0.3 layout. Its judge's verdicts are not in these lines: they are in
`{output}/gpt_response/hallusion_output_vd_model.json` and `_vs_model.json`, the official
judge's files, which `lmmreview import hallusionbench` reads.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.hallusionbench.files import hallusion_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import Line, Read, read_log
from lmmreview.engine.benchmarks.hallusionbench.benchmark import HALLUSIONBENCH

METRICS = ("aAcc", "fAcc", "qAcc")  # the task's metric dicts: each the row, answered


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions and answers; lmmreview judges them (or imports lmms-eval's judge files)."""
    return read_log(request, HALLUSIONBENCH.name, "hallusionbench", _line)


def _line(line: Line, path: Path) -> Read:
    """The line's question, from its doc or else from its first metric dict."""
    row = line.doc
    for name in METRICS:
        row = row or line.metric(name, path)
    if row is None:
        message = f"neither doc nor {', '.join(METRICS)}: no HallusionBench question"
        raise ImportFailure(path, message, line.where)
    sample = hallusion_sample(row, path, line.where)
    return Read(sample.key, sample)
