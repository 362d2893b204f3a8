"""VLMEvalKit's files: prediction workbooks, the MM-Vet judge workbook and the multiple-choice
result workbook (VLMEvalKit's own CircularEval verdicts).

VLMEvalKit names a prediction file `{model}_{dataset}.xlsx` (or .tsv, .json), the MM-Vet
judge workbook `{model}_MMVet_{judge}.xlsx` and the MMBench result workbook
`{model}_{dataset}_{judge}_result.xlsx`; the model and judge default to those parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lmmreview.db.benchmarks.mmbench.files import (
    check_circular_copies,
    row_index,
    row_sample,
    warn_unknown_l2,
    xlsx_rows,
)
from lmmreview.db.benchmarks.mmbench.files import (
    read_mmbench as read_mmbench_tsv,
)
from lmmreview.db.benchmarks.mmvet.files import capabilities_of
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
)
from lmmreview.db.importers.read import (
    base64_images,
    parse_json,
    read_table,
    read_text,
    xlsx_text,
)
from lmmreview.engine.benchmarks.mmbench.benchmark import MMBENCH
from lmmreview.engine.benchmarks.mmbench.rules import circular_position
from lmmreview.engine.benchmarks.mmvet.benchmark import CAPABILITY, MMVET
from lmmreview.engine.official import name_of_file_part
from lmmreview.engine.scoring import IMPORTED, GroupVerdict, Judgment, Status
from lmmreview.engine.types import QuestionType, Sample

_KEY_COLUMNS = ("index", "prediction")
_MMVET_QUESTION_COLUMNS = ("question", "answer", "category")
_MMBENCH_QUESTION_COLUMNS = ("question", "A", "B")
_MMVET_TSV_COLUMNS = ("index", "image", *_MMVET_QUESTION_COLUMNS)

# The dataset part of VLMEvalKit's file names; what follows it names the judge.
_MMVET_NAME = r"MMVet(?:_Hard)?"
_MMBENCH_NAME = r"MMBench(?:_(?:DEV|TEST|EN|CN|V11|[0-9]{8}))*"
_FAILED_ROLLING = re.compile(r"Failed in (?:Prefetching )?Rolling ([0-9]+)")
_GAVE_UP = "All 5 retries failed."  # VLMEvalKit's MM-Vet judge then stores a score of 0.0
_PROMPT_VERSION = "vlmevalkit"  # the imported judge used VLMEvalKit's own prompt
# pandas' json.dump writes an empty cell as a bare NaN; with VLMEvalKit's indent every value
# ends its line, and a JSON string holds no raw newline, so this finds only such cells.
_NAN_CELL = re.compile(r"(:[ \t]*)NaN(?=,?\r?\n)")

Rows = list[tuple[str, dict[str, str]]]  # (where, cells by column), in file order


@dataclass(frozen=True, slots=True)
class _Names:
    """What a VLMEvalKit file name says: the model, the dataset and the judge."""

    model: str
    dataset: str | None
    judge: str | None


def _names(request: ImportRequest, file: Path, dataset_pattern: str) -> _Names:
    """The model and judge (--model, --judge, else from the file name) and the dataset part
    of the name; a name VLMEvalKit did not write needs --model."""
    model, judge = request.text("model"), request.text("judge")
    check_model_argument(model)
    match = re.fullmatch(
        rf"(.+?)_({dataset_pattern})(?:_(.+?))?(?:_result)?", file.stem, re.IGNORECASE
    )
    if match is None and model is None:
        raise ImportFailure(
            file, "the model is not in the file name (MODEL_DATASET.xlsx): give --model"
        )
    if match is None:
        return _Names(model or "", None, judge)
    return _Names(model or name_of_file_part(match[1]), match[2], judge or match[3])


def _rows(path: Path) -> Rows:
    """The rows of a prediction file: an .xlsx workbook, a .tsv/.csv table, or a .json list
    of records; every cell as text ("" when empty)."""
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return [(f"line {line}", row) for line, row in xlsx_rows(path)]
    if suffix == ".json":
        return _json_rows(path)
    return [(f"line {line}", row) for line, row in read_table(path, _KEY_COLUMNS)]


def _json_rows(path: Path) -> Rows:
    records = parse_json(_NAN_CELL.sub(r"\1null", read_text(path)), path)
    if not isinstance(records, list):
        raise ImportFailure(path, "expected a JSON list of records (one per row)")
    rows: Rows = []
    for number, record in enumerate(records, start=1):
        where = f"record {number}"
        if not isinstance(record, dict):
            raise ImportFailure(path, "expected an object with index and prediction", where)
        missing = [name for name in _KEY_COLUMNS if name not in record]
        if missing:
            raise ImportFailure(path, f"missing field {missing[0]!r}", where)
        if rows:  # a table: every record has the first one's columns, and only those
            _same_columns(record, rows[0][1], path, where)
        if any(isinstance(v, dict | list) for v in record.values()):
            raise ImportFailure(path, "a cell holds a list or an object, not a value", where)
        rows.append((where, {name: xlsx_text(value) for name, value in record.items()}))
    return rows


def _same_columns(record: dict[str, object], first: dict[str, str], path: Path, where: str) -> None:
    """Refuse a record whose fields differ from the first's: the columns are the first's."""
    missing = [name for name in first if name not in record]
    extra = [name for name in record if name not in first]
    if missing or extra:
        what = f"missing field {missing[0]!r}" if missing else f"field {extra[0]!r}"
        other = "has" if missing else "lacks"
        raise ImportFailure(
            path, f"{what}, which record 1 {other} (every record needs the same fields)", where
        )


def _read_rows(path: Path) -> Rows:
    rows = _rows(path)
    if not rows:
        raise ImportFailure(path, "holds no rows")
    return rows


def _has(rows: Rows, *columns: str) -> bool:
    return all(name in rows[0][1] for name in columns)


def _require(rows: Rows, file: Path, columns: tuple[str, ...], why: str) -> None:
    missing = [name for name in columns if name not in rows[0][1]]
    if missing:
        raise ImportFailure(file, f"missing column {missing[0]!r} ({why})")


# -- MM-Vet ----------------------------------------------------------------------------------


def read_mmvet(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-vlmevalkit`: a prediction file, or the judge workbook (the
    prediction columns plus `score` and `log`), whose scores become imported judgments."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = _names(request, file, _MMVET_NAME)
    rows = _read_rows(file)
    batch = ImportBatch(request.dataset or _mmvet_dataset(names), MMVET.name, str(file))
    questions = request.path("questions")
    if questions is not None:
        batch.source = str(questions)
        _mmvet_tsv(questions, batch)
    else:
        _require(rows, file, _MMVET_QUESTION_COLUMNS, "or give the questions with --questions")
    judged = _has(rows, "score", "log")
    if not judged and (_has(rows, "score") or _has(rows, "log")):
        raise ImportFailure(file, "a judge workbook needs both the score and the log column")
    judge = names.judge or ""
    if judged and not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    for where, row in rows:
        key = _mmvet_key(row["index"], file, where)
        if questions is None:
            batch.samples.append(_mmvet_sample(key, row, file, where))
        batch.answers.append(AnswerRecord(key, names.model, row["prediction"], str(file)))
        if judged:
            judgment = _mmvet_judgment(row, judge, file, where)
            batch.judgments.append(JudgmentRecord(key, names.model, judgment))
    return batch


def _mmvet_dataset(names: _Names) -> str:
    """MMVet's answers meet the official files' in `mmvet`; another set keeps its name."""
    if names.dataset is None or names.dataset.lower() == "mmvet":
        return "mmvet"
    return names.dataset


def _mmvet_key(cell: str, file: Path, where: str) -> str:
    """VLMEvalKit's MMVet.tsv numbers the questions 0..217 in mm-vet.json's order v1_0..."""
    return f"v1_{row_index(cell, file, where)}"


def _mmvet_sample(key: str, row: dict[str, str], file: Path, where: str) -> Sample:
    for name in _MMVET_QUESTION_COLUMNS:
        if not row.get(name, "").strip():
            raise ImportFailure(file, f"empty {name} cell", where)
    return Sample(
        key=key,
        question=row["question"],
        question_type=QuestionType.OPEN,
        answer=row["answer"],
        axes={CAPABILITY: capabilities_of(row["category"], file, where)},
    )


def _mmvet_tsv(path: Path, batch: ImportBatch) -> None:
    """VLMEvalKit's MMVet.tsv: index, image (base64), question, answer, category."""
    with base64_images(path) as images:
        for line, row in read_table(path, _MMVET_TSV_COLUMNS):
            where = f"line {line}"
            key = _mmvet_key(row["index"], path, where)
            batch.samples.append(_mmvet_sample(key, row, path, where))
            images.add(key, row["image"].strip(), where)
        for key, image in images.checked():
            batch.add_image(key, image)


def _mmvet_judgment(row: dict[str, str], judge: str, file: Path, where: str) -> Judgment:
    """The judge workbook's verdict on one answer: its score, or failed when the judge gave
    up (VLMEvalKit then stores 0.0, which is no grade)."""
    log = row["log"]
    gave_up = log.rstrip().endswith(_GAVE_UP)
    return Judgment(
        run=0,
        score=None if gave_up else _unit_number(row["score"], "score", file, where),
        status=Status.ERROR if gave_up else Status.OK,
        method="imported",
        kind=IMPORTED,
        judge_model=judge,
        prompt_version=_PROMPT_VERSION,
        reply=log,
        error="the judge gave up: no valid score in 5 tries (VLMEvalKit stored 0.0)"
        if gave_up
        else "",
        source=str(file),
    )


def _unit_number(cell: str, column: str, file: Path, where: str) -> float:
    """A number from 0 to 1 in a score column."""
    try:
        value = float(cell)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ImportFailure(file, f"{column} {cell[:40]!r} is not a number from 0 to 1", where)
    return value


# -- MMBench ---------------------------------------------------------------------------------


def read_mmbench(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmbench-vlmevalkit`: a prediction file, or the result workbook
    (`hit`, `log`, `g_index`), whose circular verdicts are imported beside the answers."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = _names(request, file, _MMBENCH_NAME)
    rows = _read_rows(file)
    questions = request.path("questions")
    dataset = request.dataset or (questions.stem if questions else names.dataset)
    if dataset is None:
        raise ImportFailure(file, "the dataset is not in the file name: give --dataset")
    if questions is not None:
        batch = read_mmbench_tsv(questions, dataset=dataset)
    else:
        _require(rows, file, _MMBENCH_QUESTION_COLUMNS, "or give the MMBench TSV with --questions")
        batch = ImportBatch(dataset, MMBENCH.name, str(file))
    predictions = request.path("predictions")
    no_tsv = questions is None  # the files' own question columns make the samples
    if predictions is not None:
        _mmbench_rows(_read_rows(predictions), predictions, names.model, batch, no_tsv)
    indices = _mmbench_rows(rows, file, names.model, batch, no_tsv and predictions is None)
    if _has(rows, "hit"):
        _verdicts(rows, indices, file, names, batch, predictions is not None)
    if no_tsv:  # else the TSV's reader warned
        warn_unknown_l2(batch, predictions or file)
    return batch


def _mmbench_rows(
    rows: Rows, file: Path, model: str, batch: ImportBatch, questions: bool
) -> list[int]:
    """Add each row's answer (and, when `questions`, the question it carries); return the
    rows' indices."""
    indices: dict[int, str] = {}
    for where, row in rows:
        index = row_index(row["index"], file, where)
        if index in indices:
            raise ImportFailure(file, f"duplicate index {index} (also at {indices[index]})", where)
        indices[index] = where
        if questions:  # rows without a category count in Overall only
            batch.samples.append(row_sample(index, {"category": "", **row}, file, where))
        batch.answers.append(AnswerRecord(str(index), model, row["prediction"], str(file)))
    if questions:
        check_circular_copies(batch.samples, indices, file)
    return list(indices)


def _verdicts(
    rows: Rows,
    indices: list[int],
    file: Path,
    names: _Names,
    batch: ImportBatch,
    with_predictions: bool,
) -> None:
    """VLMEvalKit's CircularEval verdicts, one per main row of the result workbook."""
    if not _has(rows, "g_index", "log"):
        raise ImportFailure(
            file, "a result workbook needs the columns hit, log and g_index (CircularEval's)"
        )
    judge = names.judge or ""
    if not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    answered = {int(a.key) for a in batch.answers}
    groups = _groups(answered | {int(s.key) for s in batch.samples})
    for (where, row), index in zip(rows, indices, strict=True):
        group, rotation = circular_position(index)
        if rotation or row_index(row["g_index"], file, where) != group:
            raise ImportFailure(
                file, f"index {index} is not the main row of group {row['g_index']}", where
            )
        if with_predictions and (len(groups[group]) < 2 or not groups[group] <= answered):
            raise ImportFailure(
                file,
                f"group {group}'s other rotations have no answers in the prediction workbook",
                where,
            )
        log = row["log"]
        failed = _FAILED_ROLLING.search(log)
        batch.group_verdicts.append(
            GroupVerdict(
                str(index), names.model, _unit_number(row["hit"], "hit", file, where),
                int(failed[1]) if failed else None, judge, log, str(file),
            )
        )  # fmt: skip
    if not with_predictions:
        batch.warnings.append(
            f"{file}: a result workbook holds only each group's main row: lmmreview's own "
            "CircularEval of these groups needs the other rotations' answers, from the "
            "prediction workbook imported before (or given with --predictions)"
        )


def _groups(indices: set[int]) -> dict[int, set[int]]:
    """The rows of each circular group, by group."""
    groups: dict[int, set[int]] = {}
    for index in indices:
        groups.setdefault(circular_position(index)[0], set()).add(index)
    return groups
