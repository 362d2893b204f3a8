"""`lmmreview import mmbench-lmms-eval`: MMBench's lines of lmms-eval's --log_samples files
(db.importers.lmms_eval reads the file)."""

from __future__ import annotations

import math
from pathlib import Path

from lmmreview.db.benchmarks.mmbench import files as mmbench_files
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.lmms_eval import (
    GRADE,
    Line,
    Read,
    read_log,
    same_id,
)
from lmmreview.engine.benchmarks.mmbench.benchmark import MMBENCH
from lmmreview.engine.benchmarks.mmbench.rules import OPTION_LETTERS


def read_request(request: ImportRequest) -> ImportBatch:
    """Questions and answers (lmms-eval extracts choices only when it aggregates, so the
    lines hold no judgment)."""
    batch = read_log(request, MMBENCH.name, "mmbench", _line)
    mmbench_files.warn_unknown_l2(batch, Path(batch.source))
    return batch


_FIELDS = ("index", "question", "answer", "category")
# The fields the sample is made of, read as the TSV's cells are.
_CELLS = (
    *_FIELDS, "hint", "l2-category", "L2-category", "split", *OPTION_LETTERS
)  # fmt: skip
_ABSENT = ("", "nan")  # lmms-eval writes "nan" for an option the row lacks


def _line(line: Line, path: Path) -> Read:
    """MMBench: the doc, or the gpt_eval_score (or submission) dict that repeats its fields
    (index, question, hint, A..D or options, answer, category, L2-category, split)."""
    fields = line.doc or line.metric(GRADE, path) or line.metric("submission", path)
    if fields is None:
        raise ImportFailure(path, f"neither doc nor {GRADE}: no MMBench question", line.where)
    for name in _FIELDS:
        if fields.get(name) in (None, ""):
            raise ImportFailure(path, f"missing field {name!r}", line.where)
    row = {
        name: _cell(fields[name], f"field {name!r}", path, line.where)
        for name in _CELLS
        if name in fields
    }
    row["l2-category"] = row.get("l2-category") or row.get("L2-category", "")
    if "options" in fields:
        _take_options(row, fields["options"], path, line.where)
    for letter in OPTION_LETTERS:
        row[letter] = "" if row.get(letter, "nan") in _ABSENT else row[letter]
    index = mmbench_files.mmbench_id(fields["index"], path, line.where)
    for name in (GRADE, "submission"):  # each repeats the question it belongs to
        metric = line.metric(name, path) or {}
        if metric.get("index") not in (None, ""):
            given = mmbench_files.mmbench_id(metric["index"], path, line.where)
            same_id(name, given, index, path, line.where)
    return Read(index, mmbench_files.row_sample(int(index), row, path, line.where))


def _take_options(row: dict[str, str], value: object, path: Path, where: str) -> None:
    """Options given as one field: an object of letter -> text, or a list of texts lettered
    A, B, ... in order. A letter also given as a field of its own must say the same."""
    if isinstance(value, list):
        if len(value) > len(OPTION_LETTERS):
            message = (
                f"options: {len(value)} of them, and MMBench has at most {len(OPTION_LETTERS)}"
            )
            raise ImportFailure(path, message, where)
        value = dict(zip(OPTION_LETTERS, value, strict=False))
    if not isinstance(value, dict):
        message = "options must be an object (letter -> text) or a list of text"
        raise ImportFailure(path, message, where)
    for letter, item in value.items():
        if letter not in OPTION_LETTERS:
            message = f"options: {letter!r} is not an option letter ({', '.join(OPTION_LETTERS)})"
            raise ImportFailure(path, message, where)
        text = _cell(item, f"option {letter} in options", path, where)
        if row.get(letter, "") not in (*_ABSENT, text):
            message = (
                f"option {letter} is {row[letter]!r} in field {letter} but {text!r} in options"
            )
            raise ImportFailure(path, message, where)
        row[letter] = text


def _cell(value: object, what: str, path: Path, where: str) -> str:
    """A field as the TSV reader sees a cell: text or a number, as text; a missing value
    empty. An object or a list is refused (it would be stored as Python's text of it)."""
    if isinstance(value, dict | list):
        kind = "an object" if isinstance(value, dict) else "a list"
        raise ImportFailure(path, f"{what} must be text, not {kind}", where)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
