"""`lmmreview import mmmu-pro-lmms-eval`: MMMU-Pro's lines of lmms-eval's --log_samples files
(db.importers.lmms_eval reads the file), as tasks/mmmu_pro/utils.py writes them in
EvolvingLMMs-Lab/lmms-eval at 75571cfe (tasks mmmu_pro_standard, mmmu_pro_vision and their
_cot variants). Each line's mmmu_acc dict holds the question's id, subject and answer, and
lmms-eval's parsed_pred: in the standard setting the letter its MMMU-like parse found, in the
vision setting the response itself, compared with the answer as it is. A v0.3 line also holds
the dataset row (doc; a vision row has no question: its screenshot shows it); v0.4 lines
answer questions imported before (lmmreview import mmmu-pro)."""

from __future__ import annotations

from pathlib import Path
from string import ascii_uppercase
from typing import Any

from lmmreview.db.benchmarks.mmmu.files import mmmu_key
from lmmreview.db.benchmarks.mmmu.lmms_eval import MMMU_ACC
from lmmreview.db.benchmarks.mmmu_pro.files import question_sample
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import Line, Read, parsed_judgment, read_log, same_id
from lmmreview.engine.benchmarks.mmmu_pro.benchmark import MMMU_PRO
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import Sample


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions (v0.3), answers, and lmms-eval's verdict on each."""
    return read_log(request, MMMU_PRO.name, MMMU_PRO.name, _line)


def _line(line: Line, path: Path) -> Read:
    """One line: the doc's question (v0.3), and mmmu_acc's verdict on the answer."""
    acc = line.metric(MMMU_ACC, path)
    if acc is None or acc.get("id") in (None, ""):
        raise ImportFailure(path, f"no {MMMU_ACC} with an id: no MMMU-Pro line", line.where)
    key = mmmu_key(acc["id"], path, line.where)
    sample = None
    if line.doc is not None:
        sample = question_sample(line.doc, path, line.number)
        same_id(MMMU_ACC, key, sample.key, path, line.where)
    return Read(key, sample, _verdict(acc, sample, path, line.where))


def _verdict(acc: dict[str, Any], sample: Sample | None, path: Path, where: str) -> Judgment:
    """Right when parsed_pred is the answer, as lmms-eval decides; parsed_pred is the choice
    when it is a letter (a vision-setting response may be any text)."""
    parsed, answer = acc.get("parsed_pred"), acc.get("answer")
    if not isinstance(parsed, str) or not isinstance(answer, str):
        raise ImportFailure(path, f"{MMMU_ACC}'s parsed_pred and answer must be text", where)
    if sample is not None and answer != sample.answer:
        message = f"{MMMU_ACC}'s answer {answer!r} is not the doc's {sample.answer!r}"
        raise ImportFailure(path, message, where)
    letter = parsed if len(parsed) == 1 and parsed in ascii_uppercase else None
    return parsed_judgment(1.0 if parsed == answer else 0.0, letter, parsed, path)
