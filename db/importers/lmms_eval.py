"""lmms-eval's --log_samples files, `{date}_samples_{task}.jsonl`, for the mmvet, mmbench and
mmmu tasks, in both layouts lmms-eval has written:

- v0.3: each line holds doc_id, doc (the dataset row, images left out), target, arguments,
  resps, filtered_resps and one key per metric with that metric's per-sample dict;
- v0.4: doc and arguments are dropped; doc_id, input (the prompt), target, filtered_resps
  (a list, or the text itself) and the metric keys remain.

A line's question comes from `doc`, or, without it, from the metric dict that repeats the
dataset fields (MM-Vet's and MMBench's gpt_eval_score). MMMU's metric dict has no question
text or options: v0.4 MMMU lines are answers to questions imported before. The model's
answer is the filtered response.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmbench import files as mmbench_files
from lmmreview.db.benchmarks.mmmu import files as mmmu_files
from lmmreview.db.benchmarks.mmvet.files import mmvet_id, open_sample
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
)
from lmmreview.db.importers.read import read_jsonl
from lmmreview.engine.benchmarks.mmbench.benchmark import MMBENCH
from lmmreview.engine.benchmarks.mmbench.rules import OPTION_LETTERS
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.benchmarks.mmvet.benchmark import MMVET
from lmmreview.engine.scoring import IMPORTED, Judgment
from lmmreview.engine.types import QuestionType, Sample

PROMPT_VERSION = "lmms-eval"  # imported judgments used lmms-eval's own prompt or rules
RULES_JUDGE = "lmms-eval rules"  # the judge of MMMU's parsed predictions: no model
GRADE = "gpt_eval_score"  # MM-Vet's and MMBench's per-sample metric dict
MMMU_ACC = "mmmu_acc"  # MMMU's per-sample metric dict
SAMPLES_MARK = "_samples_"  # in the name lmms-eval gives a --log_samples file


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a samples file: its record, the dataset row if kept, and the answer."""

    number: int
    record: dict[str, Any]
    doc: dict[str, Any] | None
    response: str

    @property
    def where(self) -> str:
        return f"line {self.number}"

    def metric(self, name: str, path: Path) -> dict[str, Any] | None:
        """A metric's per-sample dict, if the line has that metric."""
        value = self.record.get(name)
        if value is not None and not isinstance(value, dict):
            raise ImportFailure(path, f"{name} must be an object", self.where)
        return value


@dataclass(frozen=True, slots=True)
class Read:
    """What one line gives: its sample id, the sample (None when the line has no question
    fields) and lmms-eval's judgment of the answer (None when it recorded none)."""

    key: str
    sample: Sample | None = None
    judgment: Judgment | None = None


LineReader = Callable[[Line, Path], Read]


def read_mmvet(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-lmms-eval`: questions, answers and lmms-eval's GPT grades."""
    return _read(request, MMVET.name, "mmvet", _mmvet_line)


def read_mmbench(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmbench-lmms-eval`: questions and answers (lmms-eval extracts
    choices only when it aggregates, so the lines hold no judgment)."""
    batch = _read(request, MMBENCH.name, "mmbench", _mmbench_line)
    mmbench_files.warn_unknown_l2(batch, Path(batch.source))
    return batch


def read_mmmu(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmmu-lmms-eval`: questions (v0.3), answers, and lmms-eval's parsed
    choice of each multiple-choice answer."""
    return _read(request, MMMU_BENCHMARK.name, "mmmu", _mmmu_line)


def _read(request: ImportRequest, kind: str, dataset: str, read_line: LineReader) -> ImportBatch:
    """Every line of the samples file: its sample, the answer and any judgment, under the
    --model name or the one lmms-eval's output folder gives."""
    path = request.path("samples")
    assert path is not None  # the command requires it
    model = request.text("model")
    check_model_argument(model)
    model = model or default_model(path)
    batch = ImportBatch(request.dataset or dataset, kind, str(path))
    lines: dict[str, str] = {}
    for line in _lines(path):
        with _on(line, path):
            read = read_line(line, path)
        if read.key in lines:
            raise ImportFailure(
                path, f"id {read.key} again (also on {lines[read.key]})", line.where
            )
        lines[read.key] = line.where
        if read.sample is not None:
            batch.samples.append(read.sample)
        batch.answers.append(AnswerRecord(read.key, model, line.response, str(path)))
        if read.judgment is not None:
            batch.judgments.append(JudgmentRecord(read.key, model, read.judgment))
    if not lines:
        raise ImportFailure(path, "no lines: an lmms-eval samples file holds one per question")
    batch.judgments = _one_judge(batch.judgments)
    return batch


def _one_judge(records: list[JudgmentRecord]) -> list[JudgmentRecord]:
    """A grade whose call failed names no judge model; it came from the same judge as the
    file's other grades, so it is that judge's when they name exactly one."""
    named = {r.judgment.judge_model for r in records} - {""}
    if len(named) != 1:
        return records
    (judge,) = named
    return [
        r if r.judgment.judge_model else replace(r, judgment=replace(r.judgment, judge_model=judge))
        for r in records
    ]


def default_model(path: Path) -> str:
    """The model a samples file is from: lmms-eval writes `{output}/{model}/{date}_samples_
    {task}.jsonl`, so the folder names it; any other file is named after itself."""
    if SAMPLES_MARK in path.name and path.resolve().parent.name:
        return path.resolve().parent.name
    return path.stem


def _lines(path: Path) -> Iterator[Line]:
    """The lines of a samples file; a line of neither layout is refused."""
    for number, record in read_jsonl(path):
        where = f"line {number}"
        if "doc_id" not in record or "filtered_resps" not in record:
            raise ImportFailure(
                path,
                "not an lmms-eval --log_samples line (the v0.3 and v0.4 layouts have "
                "doc_id and filtered_resps)",
                where,
            )
        doc = record.get("doc")
        if doc is not None and not isinstance(doc, dict):
            raise ImportFailure(path, "doc must be an object (the dataset row)", where)
        yield Line(number, record, doc, _response(record["filtered_resps"], path, where))


def _response(value: object, path: Path, where: str) -> str:
    """The model's answer: filtered_resps is the text (v0.4, one request) or a list whose
    first item holds it (one per request; v0.3 nests the filter's list inside)."""
    while isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, str):
        raise ImportFailure(path, "filtered_resps holds no text answer", where)
    return value


@contextmanager
def _on(line: Line, path: Path) -> Iterator[None]:
    """Name the line in every failure while reading it (helpers name a row or an id)."""
    try:
        yield
    except ImportFailure as failure:
        inner = failure.where
        # the MMMU question reader names a row by its number: here, the line's
        where = line.where if inner in (None, line.where, f"row {line.number}") else None
        raise ImportFailure(path, failure.message, where or f"{line.where}, {inner}") from None


def _same_id(metric: str, given: str, key: str, path: Path, where: str) -> None:
    """A metric's dict names the question it graded: another than the line's would put
    its grade (or its choice) on the wrong question."""
    if given != key:
        raise ImportFailure(path, f"{metric}'s id {given!r} is not the doc's id {key!r}", where)


# -- MM-Vet ---------------------------------------------------------------------------------


def _mmvet_line(line: Line, path: Path) -> Read:
    """MM-Vet: the doc (question_id, question, answer, capability), or the grade dict that
    repeats them (question_id, question, gt_answer, capabilities); the grade as a judgment."""
    grade = line.metric(GRADE, path)
    fields = line.doc
    if fields is None and grade is not None:
        fields = {
            "question_id": grade.get("question_id"),
            "question": grade.get("question"),
            "answer": grade.get("gt_answer"),
            "capability": grade.get("capabilities"),
        }
    if fields is None:
        raise ImportFailure(path, f"neither doc nor {GRADE}: no MM-Vet question", line.where)
    if fields.get("question_id") is None:
        raise ImportFailure(path, "missing field 'question_id'", line.where)
    key = mmvet_id(fields["question_id"], path, line.where)
    if grade is not None and grade.get("question_id") is not None:
        _same_id(GRADE, mmvet_id(grade["question_id"], path, line.where), key, path, line.where)
    sample = open_sample(key, fields, path, line.where, ("question", "answer", "capability"))
    return Read(key, sample, None if grade is None else _mmvet_grade(grade, path, line.where))


def _mmvet_grade(grade: dict[str, Any], path: Path, where: str) -> Judgment:
    """lmms-eval's GPT grade. It keeps no reply text, only the score and the model that
    replied; after an API failure the model is "" and the score 0.0. The reply kept is
    the judge's content when the file has it, else the grade as recorded, and none at all
    for a grade no judge gave: that 0.0 is imported as a score and flagged for review."""
    score = _score(grade.get("score"), path, where)
    judge = _text(grade, "eval_model", path, where)
    content = _text(grade, "content", path, where)
    recorded = json.dumps({"score": score, "eval_model": judge}) if judge else ""
    return Judgment(
        run=0,
        score=score,
        method=IMPORTED,
        kind=IMPORTED,
        judge_model=judge,
        prompt_version=PROMPT_VERSION,
        reply=content or recorded,
        source=str(path),
    )


def _score(value: object, path: Path, where: str) -> float:
    """A grade's score: a finite number in [0, 1]."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= 1.0:
        return float(value)
    raise ImportFailure(path, f"{GRADE} score {value!r} is not a number in [0, 1]", where)


def _text(fields: dict[str, Any], name: str, path: Path, where: str) -> str:
    """An optional text field ("" when absent)."""
    value = fields.get(name)
    if value is not None and not isinstance(value, str):
        raise ImportFailure(path, f"{name} must be text", where)
    return value or ""


# -- MMBench --------------------------------------------------------------------------------

_MMBENCH_FIELDS = ("index", "question", "answer", "category")
# The fields the sample is made of, read as the TSV's cells are.
_MMBENCH_CELLS = (
    *_MMBENCH_FIELDS, "hint", "l2-category", "L2-category", "split", *OPTION_LETTERS
)  # fmt: skip
_ABSENT = ("", "nan")  # lmms-eval writes "nan" for an option the row lacks


def _mmbench_line(line: Line, path: Path) -> Read:
    """MMBench: the doc, or the gpt_eval_score (or submission) dict that repeats its fields
    (index, question, hint, A..D or options, answer, category, L2-category, split)."""
    fields = line.doc or line.metric(GRADE, path) or line.metric("submission", path)
    if fields is None:
        raise ImportFailure(path, f"neither doc nor {GRADE}: no MMBench question", line.where)
    for name in _MMBENCH_FIELDS:
        if fields.get(name) in (None, ""):
            raise ImportFailure(path, f"missing field {name!r}", line.where)
    row = {
        name: _cell(fields[name], f"field {name!r}", path, line.where)
        for name in _MMBENCH_CELLS
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
            _same_id(name, given, index, path, line.where)
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


# -- MMMU -----------------------------------------------------------------------------------


def _mmmu_line(line: Line, path: Path) -> Read:
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
            _same_id(MMMU_ACC, graded, key, path, line.where)
    elif graded is not None:
        key = graded
    else:
        raise ImportFailure(
            path, f"neither doc nor {MMMU_ACC} with an id: no MMMU question", line.where
        )
    return Read(key, sample, _mmmu_choice(acc, sample, path, line.where))


def _mmmu_choice(
    acc: dict[str, Any], sample: Sample | None, path: Path, where: str
) -> Judgment | None:
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
    return Judgment(
        run=0,
        score=1.0 if choice in golds else 0.0,
        choice=choice,
        method=IMPORTED,
        kind=IMPORTED,
        judge_model=RULES_JUDGE,
        prompt_version=PROMPT_VERSION,
        reply=json.dumps(parsed, ensure_ascii=False),
        source=str(path),
    )
