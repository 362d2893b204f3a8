"""`lmmreview import mme-lmms-eval`: the lines of lmms-eval's task `mme` in its
--log_samples files (db.importers.lmms_eval reads the file, in any layout, v0.3 to v0.7).

Each line's metric dict, `mme_perception_score` or `mme_cognition_score` by subtask, holds
`question_id` (the image's path, `code_reasoning/0020.png`), `category` (the subtask) and
lmms-eval's `score` (1 or 0), imported as the judgment of `lmms-eval rules`. The question
and gold come from `doc` (v0.3), else from the line's `input` (the prompt lmms-eval sent,
its own instruction in place of MME's "Please answer yes or no.") and `target`. lmms-eval
pairs an image's two questions by `question_id`, in the file's order, and so does this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mme.files import Pairs, check_gold, check_subtask
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    Line,
    Read,
    parsed_judgment,
    question_and_gold,
    read_log,
    rule_verdict,
)
from lmmreview.db.importers.read import nonblank_text_field
from lmmreview.engine.benchmarks.mme.benchmark import MME_BENCHMARK

METRICS = ("mme_perception_score", "mme_cognition_score")


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers and lmms-eval's verdicts; every image must have its two."""
    pairs = Pairs()

    def line(found: Line, path: Path) -> Read:
        return _read(found, path, pairs)

    batch = read_log(request, MME_BENCHMARK.name, MME_BENCHMARK.name, line)
    pairs.check(batch.source)
    return batch


def _read(line: Line, path: Path, pairs: Pairs) -> Read:
    score = _score_dict(line, path)
    subtask = nonblank_text_field(score, "category", path, line.where)
    check_subtask(subtask, path, line.where)
    question, gold = question_and_gold(line, path)
    check_gold(gold, path, line.where)
    verdict = rule_verdict(score, path, line.where)
    sample = pairs.sample(
        subtask, nonblank_text_field(score, "question_id", path, line.where), question, gold
    )
    judgment = parsed_judgment(verdict, None, score, path)  # its dict, as lmms-eval kept it
    return Read(sample.key, sample, judgment)


def _score_dict(line: Line, path: Path) -> dict[str, Any]:
    for name in METRICS:
        if (found := line.metric(name, path)) is not None:
            return found
    raise ImportFailure(path, f"neither {' nor '.join(METRICS)}: no MME line", line.where)
