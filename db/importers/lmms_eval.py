"""lmms-eval's --log_samples files, `{date}_samples_{task}.jsonl`, in both layouts lmms-eval
has written (each benchmark reads its task's lines: db/benchmarks/<name>/lmms_eval.py):

- v0.3: each line holds doc_id, doc (the dataset row, images left out), target, arguments,
  resps, filtered_resps and one key per metric with that metric's per-sample dict;
- v0.4: doc and arguments are dropped; doc_id, input (the prompt), target, filtered_resps
  (a list, or the text itself) and the metric keys remain.

A line's question comes from `doc`, or, without it, from the metric dict that repeats the
dataset fields (a GPT-graded task's gpt_eval_score), where the task's metric has them. The
model's answer is the filtered response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
)
from lmmreview.db.importers.read import read_jsonl
from lmmreview.engine.scoring import Judgment, imported
from lmmreview.engine.types import Sample

PROMPT_VERSION = "lmms-eval"  # imported judgments used lmms-eval's own prompt or rules
RULES_JUDGE = "lmms-eval rules"  # the judge of a task's parsed predictions: no model
GRADE = "gpt_eval_score"  # the per-sample metric dict of the GPT-graded tasks
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


def read_log(request: ImportRequest, kind: str, dataset: str, read_line: LineReader) -> ImportBatch:
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
        # a question reader may name a row by its number: here, the line's
        where = line.where if inner in (None, line.where, f"row {line.number}") else None
        raise ImportFailure(path, failure.message, where or f"{line.where}, {inner}") from None


def same_id(metric: str, given: str, key: str, path: Path, where: str) -> None:
    """A metric's dict names the question it graded: another than the line's would put
    its grade (or its choice) on the wrong question."""
    if given != key:
        raise ImportFailure(path, f"{metric}'s id {given!r} is not the doc's id {key!r}", where)


def parsed_judgment(score: float, choice: str | None, parsed: object, path: Path) -> Judgment:
    """lmms-eval's rule-based verdict on an answer (a multiple-choice task's parsed
    prediction), its parse kept as the reply."""
    reply = json.dumps(parsed, ensure_ascii=False)
    return imported(RULES_JUDGE, PROMPT_VERSION, score, reply, str(path), choice)


def question_and_gold(line: Line, path: Path) -> tuple[str, str]:
    """A line's question and gold: its doc's (v0.3), else its input and target (v0.4)."""
    doc = line.doc or {}
    question = doc.get("question", line.record.get("input"))
    gold = doc.get("answer", line.record.get("target"))
    if not isinstance(question, str) or not isinstance(gold, str):
        message = "no question and gold (the doc's, or the line's input and target)"
        raise ImportFailure(path, message, line.where)
    return question, gold


def rule_verdict(fields: dict[str, Any], path: Path, where: str) -> float:
    """A rule-scored task's `score`: 1 or 0."""
    verdict = fields.get("score")
    if isinstance(verdict, bool) or verdict not in (0, 1):
        raise ImportFailure(path, f"score {verdict!r}: expected 1 or 0", where)
    return float(verdict)


def grade_score(value: object, path: Path, where: str) -> float:
    """A grade's score: a finite number in [0, 1]."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= 1.0:
        return float(value)
    raise ImportFailure(path, f"{GRADE} score {value!r} is not a number in [0, 1]", where)


def text_field(fields: dict[str, Any], name: str, path: Path, where: str) -> str:
    """An optional text field ("" when absent)."""
    value = fields.get(name)
    if value is not None and not isinstance(value, str):
        raise ImportFailure(path, f"{name} must be text", where)
    return value or ""
