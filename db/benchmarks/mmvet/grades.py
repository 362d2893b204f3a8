"""The official MM-Vet grader's files: its grade JSON as imported judgments, and the
capability tables it wrote as numbers to check ours against.

The grade JSON maps each id to ``{"model": [...], "content": [...], "score": [...]}``,
one entry per run. `content` is the judge's reply as the grader read it: a score for a
valid run; for a run where the judge never gave one, whatever it said last (or
"BadRequestError" in v2), stored by the grader with a score of 0.0. Those runs are
imported as failed, with their content, never as a score.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TypeGuard

from lmmreview.db.importers.batch import (
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    VerdictRecord,
    check_model_argument,
)
from lmmreview.db.importers.read import read_json, read_table
from lmmreview.engine.benchmarks.mmvet import rules as mmvet
from lmmreview.engine.benchmarks.mmvet.benchmark import MMVET
from lmmreview.engine.benchmarks.mmvet.official import HUMAN
from lmmreview.engine.benchmarks.mmvet.v2 import MMVET_V2
from lmmreview.engine.checks import STD, VALUE, Expected
from lmmreview.engine.export import csv_name
from lmmreview.engine.official import name_of_file_part
from lmmreview.engine.scoring import IMPORTED, Judgment, Status

PROMPT = "official grader"  # the prompt version an imported grade is recorded with
GAVE_UP = "the official grader got no valid score and recorded 0.0"
# MODEL_JUDGE-grade-Nruns.json, as the grader names its output
_GRADE_FILE = re.compile(r"(?P<model>.+)_(?P<judge>[^_]+)-grade-(?P<runs>\d+)runs")
_NUMBER = re.compile(r"-?\d+(?:\.(\d+))?")
_CALL = re.compile(r"[A-Za-z_][\w.]*\(")  # np.float64( around a number in a runs list


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-grades`."""
    return read_grades(request, MMVET.name, MMVET.capability_titles)


def read_v2_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-v2-grades`."""
    return read_grades(request, MMVET_V2.name, MMVET_V2.capability_titles)


def read_grades(request: ImportRequest, kind: str, capabilities: dict[str, str]) -> ImportBatch:
    """The grade file's runs as imported judgments of one model's answers (imported
    before), and the --check tables as expected cells."""
    path = request.path("grades")
    assert path is not None  # the command's required argument
    named = _GRADE_FILE.fullmatch(path.stem)
    model = request.text("model")
    if model is None:
        if named is None:
            raise ImportFailure(
                path, "the file name does not say which model was graded: give --model NAME"
            )
        model = name_of_file_part(named["model"])  # as the export wrote it: org%2Fmodel
    check_model_argument(model)
    batch = ImportBatch(request.dataset or kind, kind, str(path))
    document = read_json(path)
    if not isinstance(document, dict):
        raise ImportFailure(path, "expected a JSON object: id -> model, content, score")
    if not document:
        raise ImportFailure(path, "no grades: the object is empty")
    counts = []
    for key, entry in document.items():
        runs = _runs(entry, path, f"id {key}")
        counts.append((str(key), len(runs)))
        verdict = _human_verdict(runs)
        if verdict is not None:  # lmmreview's own export of a reviewer's verdict
            score, reviewer = verdict
            batch.verdicts.append(VerdictRecord(str(key), model, score, reviewer, str(path)))
            continue
        batch.judgments.extend(JudgmentRecord(str(key), model, j) for j in runs)
    _check_run_counts(path, int(named["runs"]) if named else None, counts)
    graded = (model, named["model"]) if named else (model,)  # the grader labels by file name
    for table in request.paths("check"):
        batch.checks.extend(read_grader_table(table, graded, tuple(capabilities)))
    return batch


def _check_run_counts(path: Path, named: int | None, counts: list[tuple[str, int]]) -> None:
    """Every id holds as many runs as the first, and as the file name says
    (MODEL_JUDGE-grade-Nruns.json) when it says: the grader writes no other."""
    first_key, first_runs = counts[0] if counts else ("", 0)
    for key, runs in counts:
        if runs == 0:
            raise ImportFailure(path, "no runs: the lists are empty", f"id {key}")
        if named is not None and runs != named:
            raise ImportFailure(path, f"{runs} runs, and the file name says {named}", f"id {key}")
        if runs != first_runs:
            raise ImportFailure(
                path,
                f"{runs} runs, and id {first_key} has {first_runs}: every id holds the same runs",
                f"id {key}",
            )


def _human_verdict(runs: list[Judgment]) -> tuple[float, str] | None:
    """(score, reviewer) when every run is one reviewer's verdict ("human:<reviewer>", as
    `export --format mmvet-grades` writes a reviewed answer), else None."""
    judges = {j.judge_model for j in runs}
    scores = {j.score for j in runs}
    if len(judges) != 1 or len(scores) != 1:
        return None
    (judge,), (score,) = judges, scores
    if not judge.startswith(HUMAN) or score is None or judge == HUMAN:
        return None
    return score, judge.removeprefix(HUMAN)


def _runs(entry: object, path: Path, where: str) -> list[Judgment]:
    """One judgment per run of an entry; a run whose content is no valid score failed."""
    if not isinstance(entry, dict) or not all(
        isinstance(entry.get(name), list) for name in ("model", "content", "score")
    ):
        raise ImportFailure(path, "expected lists 'model', 'content' and 'score'", where)
    models, contents, scores = entry["model"], entry["content"], entry["score"]
    if not len(models) == len(contents) == len(scores):
        raise ImportFailure(path, "'model', 'content' and 'score' differ in length", where)
    runs = []
    for run, (judge, content, recorded) in enumerate(zip(models, contents, scores, strict=True)):
        if not isinstance(judge, str) or not isinstance(content, str):
            raise ImportFailure(path, f"run {run + 1}: model and content must be text", where)
        if not judge.strip():  # as --judge '' is refused: no "unnamed judge"
            raise ImportFailure(path, f"run {run + 1}: the judge model is blank: name it", where)
        if not _is_score(recorded):
            raise ImportFailure(
                path, f"run {run + 1}: score {recorded!r} is not a number from 0 to 1", where
            )
        score = mmvet.parse_score(content) if content.split() == [content] else None
        if score is not None and abs(recorded - score) > 1e-9:
            raise ImportFailure(
                path, f"run {run + 1}: content {content!r} and score {recorded!r} disagree", where
            )
        status, error = (Status.OK, "") if score is not None else (Status.ERROR, GAVE_UP)
        runs.append(
            Judgment(
                run=run,
                score=score,
                status=status,
                method="imported",
                kind=IMPORTED,
                judge_model=judge,
                prompt_version=PROMPT,
                reply=content,
                error=error,
                source=str(path),
            )
        )
    return runs


def _is_score(value: object) -> TypeGuard[float]:
    """A recorded score: a finite number in [0, 1], never a boolean (JSON's true is no 1.0)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 1
    )


def read_grader_table(
    path: Path, graded: tuple[str, ...], capabilities: tuple[str, ...]
) -> list[Expected]:
    """Every number of a grader CSV (cap-score or cap-int-score): one row per model, a
    column per capability or integration (named by joining a set: any order of its
    parts), then total, std, and runs (a list, e.g. ``[31.2, 30.8]``). `graded` names the
    imported model (the first name) as the file may: a table of one row is its row. A table
    that would check nothing, or not all, is refused: no rows, a capability missing, a
    row twice, a single row naming another model."""
    rows = list(read_table(path, ("total", "std", "runs")))
    if not rows:
        raise ImportFailure(path, "no rows: nothing to check")
    header = list(rows[0][1])
    integrations = "cap-int" in path.name or any("_" in column for column in header)
    missing = [] if integrations else [c for c in capabilities if c not in header]
    if missing:
        raise ImportFailure(path, f"missing column {', '.join(map(repr, missing))}", "line 1")
    table = "integrations" if integrations else "capabilities"
    expected: list[Expected] = []
    seen: set[str] = set()
    for line, row in rows:
        shown = _row_model(row, len(rows) == 1, graded, path, f"line {line}")
        if shown in seen:
            raise ImportFailure(path, f"a second row for {shown!r}", f"line {line}")
        seen.add(shown)
        expected.extend(_row_cells(row, shown, table, capabilities, path, line))
    return expected


def _row_model(
    row: dict[str, str], alone: bool, graded: tuple[str, ...], path: Path, where: str
) -> str:
    """The model a row checks, by its first column; a row alone must name the graded
    model (else it would check that model under another's numbers)."""
    label = csv_name(next(iter(row.values())))
    if not alone:
        return label
    if label in graded:
        return graded[0]
    raise ImportFailure(path, f"the row names {label!r}, not the graded model {graded[0]!r}", where)


def _row_cells(
    row: dict[str, str],
    model: str,
    table: str,
    capabilities: tuple[str, ...],
    path: Path,
    line: int,
) -> list[Expected]:
    """The numbers of one row, as expected cells of `model`."""
    expected = []
    for name, text in list(row.items())[1:]:
        if not text.strip():
            continue
        where = f"line {line}, column {name!r}"
        for statistic, number in _numbers(name, text, path, where):
            column = _column(name, capabilities, path, where)
            value, decimals = number
            expected.append(
                Expected(str(path), model, table, column, name, statistic, value, decimals)
            )
    return expected


def _column(name: str, capabilities: tuple[str, ...], path: Path, where: str) -> str:
    """Our column key for a grader column: an integration is a set, so `know_gen_rec` is
    our `rec_know_gen`; std and runs belong to the total."""
    if name in ("total", "std", "runs"):
        return "total"
    try:
        return "_".join(mmvet.canonical_capabilities(name.split("_"), capabilities))
    except ValueError as exc:
        raise ImportFailure(path, str(exc), where) from None


def _numbers(name: str, text: str, path: Path, where: str) -> list[tuple[str, tuple[float, int]]]:
    """(statistic, (value, decimals)) of one cell; `runs` holds one number per run, in
    any of the list forms pandas writes (``[31.2, 30.8]``, ``[np.float64(31.2)]``)."""
    if name == "runs":
        found = [m.group(0) for m in _NUMBER.finditer(_CALL.sub("", text))]
        if not found:
            raise ImportFailure(path, f"no numbers in {text!r}", where)
        return [(str(run), _number(value, path, where)) for run, value in enumerate(found)]
    return [(STD if name == "std" else VALUE, _number(text.strip(), path, where))]


def _number(text: str, path: Path, where: str) -> tuple[float, int]:
    """A number and how many decimals the file wrote it with."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise ImportFailure(path, f"not a number: {text!r}", where)
    return float(text), len(match.group(1) or "")
