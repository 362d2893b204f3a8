"""`lmmreview import mmstar-lmms-eval`: the lines of lmms-eval's task `mmstar` in its
--log_samples files (db.importers.lmms_eval reads the file, in any layout, v0.3 to v0.7).

Each line holds one metric dict named after its question's capability (`coarse
perception`, ...) and the same dict under `average`: `question_id` (MMStar's index),
`l2_category` and lmms-eval's `score` (1 or 0), imported as the judgment of `lmms-eval
rules` (its letter extraction is not the official strict rule since 2026, so the screen
shows where they part; it changed in v0.7.2: the import says which one the run's
results.json lets it tell). The question and gold come from `doc` (v0.3), else from the line's
`input` (the prompt, lmms-eval's instruction appended) and `target`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmstar.files import check_axis, check_gold, in_setting, mmstar_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    Line,
    Read,
    note_rules,
    parsed_judgment,
    question_and_gold,
    read_log,
    rule_verdict,
)
from lmmreview.engine.benchmarks.mmstar import rules
from lmmreview.engine.benchmarks.mmstar.benchmark import MMSTAR

# lmms-eval's rule in tasks/mmstar/utils.py exact_match, changed by 9ca4445d (#1274, v0.7.2)
BEFORE = "MMStar's own prefix rule (exact_match)"
SINCE = "tasks/_task_utils/mcq_extract.extract_mcq_answer"


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions, answers (with the image) and lmms-eval's verdicts."""
    batch = read_log(request, MMSTAR.name, MMSTAR.name, _read)
    batch.answers_for = partial(in_setting, rules.WITH_IMAGE)
    note_rules(batch, "MMStar", BEFORE, SINCE)
    return batch


def _read(line: Line, path: Path) -> Read:
    capability, score = _score_dict(line, path)
    axis = str(score.get("l2_category", ""))
    check_axis(capability, axis, path, line.where)
    question, gold = question_and_gold(line, path)
    letter = check_gold(gold, path, line.where)
    verdict = rule_verdict(score, path, line.where)
    index = str(score.get("question_id", "")).strip()
    if not index:
        raise ImportFailure(path, "missing question_id", line.where)
    sample = mmstar_sample(index, question, letter, capability, axis, rules.WITH_IMAGE, {})
    judgment = parsed_judgment(verdict, None, score, path)  # its dict, as lmms-eval kept it
    return Read(sample.key, sample, judgment)


def _score_dict(line: Line, path: Path) -> tuple[str, dict[str, Any]]:
    """The line's capability and its metric dict."""
    for capability, _, _ in rules.CAPABILITIES:
        if (found := line.metric(capability, path)) is not None:
            return capability, found
    names = ", ".join(c for c, _, _ in rules.CAPABILITIES)
    raise ImportFailure(path, f"no metric named after a capability ({names})", line.where)
