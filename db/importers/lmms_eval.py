"""lmms-eval's --log_samples files, `{date}_samples_{task}.jsonl`, in every layout lmms-eval
has written (each benchmark reads its task's lines: db/benchmarks/<name>/lmms_eval.py):

- v0.3: each line holds doc_id, doc (the dataset row, images left out), target, arguments,
  resps, filtered_resps and one key per metric with that metric's per-sample dict;
- v0.4 to v0.6: doc and arguments are dropped; doc_id, input (the prompt), target,
  filtered_resps (a list, one item per request) and the metric keys remain;
- v0.7 on: filtered_resps of a generation task is the text itself; resps is kept when it
  differs (the raw text, before lmms-eval stripped reasoning tags such as <think>).

A line's question comes from `doc`, or, without it, from the metric dict that repeats the
dataset fields (a GPT-graded task's gpt_eval_score), where the task's metric has them. The
model's answer is the filtered response, the text lmms-eval scored; a line with several
(a task with repeats) or with a loglikelihood task's scores is refused. Lines are read in
doc_id order: a multi-GPU run writes each rank's lines in turn. The run's results.json, when
found, gives the import's run record (db.importers.lmms_eval_run).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lmmreview.db.collector import collector_paused
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
)
from lmmreview.db.importers.lmms_eval_run import (
    SAMPLES_MARK,
    VERSION_KEY,
    read_results,
    tool_run,
)
from lmmreview.db.importers.read import read_jsonl
from lmmreview.engine.scoring import Judgment, imported
from lmmreview.engine.types import Sample

PROMPT_VERSION = "lmms-eval"  # imported judgments used lmms-eval's own prompt or rules
RULES_JUDGE = "lmms-eval rules"  # the judge of a task's parsed predictions: no model
EXTRACTOR = "lmms-eval extractor"  # an extraction's judge, whose model is not on the line
GRADE = "gpt_eval_score"  # the per-sample metric dict of the GPT-graded tasks
NAMED_HERE = frozenset(("", RULES_JUDGE, EXTRACTOR))  # judge names no lmms-eval file gives


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a samples file: its record, the dataset row if kept, and the answer
    (`raw`: the text before lmms-eval filtered it, where the line keeps another)."""

    number: int
    record: dict[str, Any]
    doc: dict[str, Any] | None
    response: str
    doc_id: int
    raw: str | None

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
    """Every line of the samples file, in doc_id order: its sample, the answer and any
    judgment, under the --model name or the one lmms-eval's output folder gives; the run
    as its results.json records it (--results, else the one beside the file)."""
    path = request.path("samples")
    assert path is not None  # the command requires it
    model = request.text("model")
    check_model_argument(model)
    model = model or default_model(path)
    batch = ImportBatch(request.dataset or dataset, kind, str(path))
    results = read_results(path, request.path("results"), batch.warnings)
    with collector_paused():  # as while reading them (db.collector): no cycles to find
        lines, raw = _read_lines(path, model, read_line, batch)
    if not lines:
        raise ImportFailure(path, "no lines: an lmms-eval samples file holds one per question")
    batch.judgments = _one_judge(batch.judgments)
    if raw:
        batch.warnings.append(
            f"{raw} line(s) keep the raw response (resps) beside the one lmms-eval scored "
            "(filtered_resps: reasoning tags stripped, or a filter applied): the scored one "
            "is imported as the answer, the raw one is not"
        )
    if results is not None:
        named = sorted({r.judgment.judge_model for r in batch.judgments} - NAMED_HERE)
        batch.run = tool_run(results, ", ".join(named))
    return batch


def _read_lines(
    path: Path, model: str, read_line: LineReader, batch: ImportBatch
) -> tuple[dict[str, str], int]:
    """Each line's sample, answer and judgment into `batch`, in doc_id order (a multi-GPU
    run writes rank 0's lines, then rank 1's...); the line of each key and how many lines
    keep a raw response."""
    lines: dict[str, str] = {}
    raw = 0
    for line in sorted(_lines(path), key=lambda found: found.doc_id):
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
        raw += line.raw is not None
    return lines, raw


def note_rules(batch: ImportBatch, task: str, before: str, since: str) -> None:
    """Say which of a task's two rules its scores follow (lmms-eval changed it in 0.7.2),
    as far as the run's results.json tells: before 0.7 it has no lmms_eval_version; from
    0.7 on that names the git checkout lmms-eval ran in (utils.py:801-805), not a release."""
    if batch.run is None:
        return
    if not batch.run.version:
        batch.warnings.append(
            f"lmms-eval before 0.7 (its results.json has no {VERSION_KEY}): the {task} "
            f"scores imported follow {before}"
        )
        return
    batch.warnings.append(
        f"lmms-eval 0.7 or later ({VERSION_KEY} {batch.run.version!r} names the checkout "
        f"it ran in, not a release): the {task} scores imported follow {before} before "
        f"0.7.2 and {since} from 0.7.2 on"
    )


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
    """The lines of a samples file; a line of no layout lmms-eval writes is refused."""
    for number, record in read_jsonl(path):
        where = f"line {number}"
        if "doc_id" not in record or "filtered_resps" not in record:
            raise ImportFailure(
                path,
                "not an lmms-eval --log_samples line (every layout, v0.3 to v0.7, has "
                "doc_id and filtered_resps)",
                where,
            )
        doc_id = record["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, int) or doc_id < 0:
            raise ImportFailure(
                path, f"doc_id {doc_id!r}: expected a whole number (the doc's position)", where
            )
        doc = record.get("doc")
        if doc is not None and not isinstance(doc, dict):
            raise ImportFailure(path, "doc must be an object (the dataset row)", where)
        response = _response(record["filtered_resps"], path, where)
        raw = _raw(record.get("resps"))
        yield Line(number, record, doc, response, doc_id, None if raw == response else raw)


def _response(value: object, path: Path, where: str) -> str:
    """The answer lmms-eval scored: filtered_resps is the text (v0.7, a generation task) or
    a list with one item per request holding it (v0.3 to v0.6; v0.3 nests the filter's list
    inside). Several items are refused: N responses to one question (a task with repeats)
    or a loglikelihood task's [log-probability, is-greedy] pairs are no one answer."""
    while isinstance(value, list):
        if len(value) != 1 or _scores(value[0]):
            raise ImportFailure(path, _not_one_answer(value), where)
        value = value[0]
    if not isinstance(value, str):
        raise ImportFailure(path, "filtered_resps holds no text answer", where)
    return value


def _scores(value: object) -> bool:
    """A loglikelihood request's filtered response: [log-probability, is-greedy], each
    written as text (utils.sanitize_list)."""
    return isinstance(value, list) and len(value) == 2 and str(value[1]) in ("True", "False")


def _not_one_answer(value: list[object]) -> str:
    if not value:
        return "filtered_resps holds no text answer"
    if _scores(value) or any(_scores(item) for item in value):
        return (
            "filtered_resps holds a loglikelihood task's scores ([log-probability, "
            "is-greedy] per choice): lmmreview reads generated answers"
        )
    return (
        f"filtered_resps holds {len(value)} responses to one question (a task with "
        "repeats): lmmreview reads one answer per question"
    )


def _raw(value: object) -> str | None:
    """The raw response `resps` holds (lmms-eval keeps it only where it differs from the
    filtered one, from v0.4 on; v0.3 keeps it always), when it is one text."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) else None


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


def grade_score(value: object, path: Path, where: str, what: str = f"{GRADE} score") -> float:
    """A grade's score (`what`): a finite number in [0, 1]."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= 1.0:
        return float(value)
    raise ImportFailure(path, f"{what} {value!r} is not a number in [0, 1]", where)


def text_field(fields: dict[str, Any], name: str, path: Path, where: str) -> str:
    """An optional text field ("" when absent)."""
    value = fields.get(name)
    if value is not None and not isinstance(value, str):
        raise ImportFailure(path, f"{name} must be text", where)
    return value or ""
