"""`lmmreview import mmvet-vlmevalkit`: VLMEvalKit's MM-Vet prediction file or judge workbook
(`{model}_MMVet_{judge}.xlsx`), and its MMVet.tsv (db.importers.vlmevalkit reads the rows)."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.mmbench.files import row_index
from lmmreview.db.benchmarks.mmvet.files import capabilities_of
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
)
from lmmreview.db.importers.read import base64_images, read_table
from lmmreview.db.importers.vlmevalkit import (
    PROMPT_VERSION,
    Names,
    has,
    names_of,
    read_rows,
    require,
    unit_number,
)
from lmmreview.engine.benchmarks.mmvet.benchmark import CAPABILITY, MMVET
from lmmreview.engine.scoring import IMPORTED, Judgment, Status
from lmmreview.engine.types import QuestionType, Sample

_QUESTION_COLUMNS = ("question", "answer", "category")
_TSV_COLUMNS = ("index", "image", *_QUESTION_COLUMNS)
DATASETS = r"MMVet(?:_Hard)?"  # the dataset part of VLMEvalKit's file names
_GAVE_UP = "All 5 retries failed."  # VLMEvalKit's MM-Vet judge then stores a score of 0.0


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-vlmevalkit`: a prediction file, or the judge workbook (the
    prediction columns plus `score` and `log`), whose scores become imported judgments."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    batch = ImportBatch(request.dataset or _dataset(names), MMVET.name, str(file))
    questions = request.path("questions")
    if questions is not None:
        batch.source = str(questions)
        _tsv(questions, batch)
    else:
        require(rows, file, _QUESTION_COLUMNS, "or give the questions with --questions")
    judged = has(rows, "score", "log")
    if not judged and (has(rows, "score") or has(rows, "log")):
        raise ImportFailure(file, "a judge workbook needs both the score and the log column")
    judge = names.judge or ""
    if judged and not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    for where, row in rows:
        key = _key(row["index"], file, where)
        if questions is None:
            batch.samples.append(_sample(key, row, file, where))
        batch.answers.append(AnswerRecord(key, names.model, row["prediction"], str(file)))
        if judged:
            judgment = _judgment(row, judge, file, where)
            batch.judgments.append(JudgmentRecord(key, names.model, judgment))
    return batch


def _dataset(names: Names) -> str:
    """MMVet's answers meet the official files' in `mmvet`; another set keeps its name."""
    if names.dataset is None or names.dataset.lower() == "mmvet":
        return "mmvet"
    return names.dataset


def _key(cell: str, file: Path, where: str) -> str:
    """VLMEvalKit's MMVet.tsv numbers the questions 0..217 in mm-vet.json's order v1_0..."""
    return f"v1_{row_index(cell, file, where)}"


def _sample(key: str, row: dict[str, str], file: Path, where: str) -> Sample:
    for name in _QUESTION_COLUMNS:
        if not row.get(name, "").strip():
            raise ImportFailure(file, f"empty {name} cell", where)
    return Sample(
        key=key,
        question=row["question"],
        question_type=QuestionType.OPEN,
        answer=row["answer"],
        axes={CAPABILITY: capabilities_of(row["category"], file, where)},
    )


def _tsv(path: Path, batch: ImportBatch) -> None:
    """VLMEvalKit's MMVet.tsv: index, image (base64), question, answer, category."""
    with base64_images(path) as images:
        for line, row in read_table(path, _TSV_COLUMNS):
            where = f"line {line}"
            key = _key(row["index"], path, where)
            batch.samples.append(_sample(key, row, path, where))
            images.add(key, row["image"].strip(), where)
        for key, image in images.checked():
            batch.add_image(key, image)


def _judgment(row: dict[str, str], judge: str, file: Path, where: str) -> Judgment:
    """The judge workbook's verdict on one answer: its score, or failed when the judge gave
    up (VLMEvalKit then stores 0.0, which is no grade)."""
    log = row["log"]
    gave_up = log.rstrip().endswith(_GAVE_UP)
    return Judgment(
        run=0,
        score=None if gave_up else unit_number(row["score"], "score", file, where),
        status=Status.ERROR if gave_up else Status.OK,
        method="imported",
        kind=IMPORTED,
        judge_model=judge,
        prompt_version=PROMPT_VERSION,
        reply=log,
        error="the judge gave up: no valid score in 5 tries (VLMEvalKit stored 0.0)"
        if gave_up
        else "",
        source=str(file),
    )
