"""`lmmreview import mathvista-lmms-eval`: MathVista's lines of lmms-eval's --log_samples files
(db.importers.lmms_eval reads the file), as tasks/mathvista/utils.py writes them in
EvolvingLMMs-Lab/lmms-eval at 75571cfe (tasks mathvista_testmini, its _cot, _solution and
_format variants, and mathvista_test).

Each line's per-sample dict, under the metric llm_as_judge_eval (gpt_eval_score before
v0.4), repeats the problem (question_id, the pid; query, choices, answer, question and answer
type, precision, metadata) and holds lmms-eval's `extraction` (its quick rules, else its GPT
extractor), its prediction and true_false. The extraction is imported as the judgment of
lmms-eval's extractor, scored by lmmreview's rules. A v0.3 line also holds the dataset row
(doc), whose problem is imported; v0.4 lines answer problems imported before (lmmreview
import mathvista), scored on the problem their dict repeats.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mathvista.files import (
    agrees,
    disagreement,
    extraction_judgment,
    problem_sample,
)
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    EXTRACTOR,
    PROMPT_VERSION,
    Line,
    Read,
    read_log,
    same_id,
)
from lmmreview.engine.benchmarks.mathvista.benchmark import MATHVISTA

METRICS = ("llm_as_judge_eval", "gpt_eval_score")  # v0.4 on, then v0.3's name for it


def read_request(request: ImportRequest) -> ImportBatch:
    """Problems (v0.3), answers, and lmms-eval's extraction of each; a warning names the
    problems whose recorded true_false is not lmmreview's verdict (lmms-eval at 75571cfe
    rounds a float answer by a float precision, which raises and makes it wrong)."""
    disagree: list[str] = []
    batch = read_log(request, MATHVISTA.name, MATHVISTA.name, partial(_line, disagree=disagree))
    if disagree:
        batch.warnings.append(disagreement("lmms-eval's", disagree))
    return batch


def _line(line: Line, path: Path, disagree: list[str]) -> Read:
    """One line: the doc's problem (v0.3), and the extraction scored on it (else on the
    problem the metric's dict repeats); its key added to `disagree` when the line's own
    true_false is not that verdict."""
    metric, result = _result(line, path)
    key = _pid(result.get("question_id"), metric, path, line.where)
    sample = None
    if line.doc is not None:
        sample = problem_sample(str(line.doc.get("pid", key)), line.doc, path, line.where)
        same_id(metric, key, sample.key, path, line.where)
    # the dict repeats no question text, which the rules never read
    scored_on = sample or problem_sample(key, {"question": "", **result}, path, line.where)
    judgment = extraction_judgment(
        scored_on, result.get("extraction"), path, line.where, EXTRACTOR, PROMPT_VERSION
    )
    if judgment is not None and not agrees(judgment, result):
        disagree.append(key)
    return Read(key, sample, judgment)


def _result(line: Line, path: Path) -> tuple[str, dict[str, Any]]:
    """The metric's per-sample dict, under either name."""
    for metric in METRICS:
        if (result := line.metric(metric, path)) is not None:
            return metric, result
    names = " or ".join(METRICS)
    raise ImportFailure(path, f"no {names}: no MathVista line", line.where)


def _pid(value: object, metric: str, path: Path, where: str) -> str:
    """The problem's pid, as the dataset writes it (text; a number read as its text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value:
        return value
    raise ImportFailure(path, f"{metric}'s question_id {value!r} is no pid", where)
