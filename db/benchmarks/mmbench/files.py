"""MMBench TSVs (base64 images, circular copies) and prediction files (index, prediction)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
    model_name,
    quoted,
)
from lmmreview.db.importers.model_vqa import is_model_vqa, model_vqa_answers
from lmmreview.db.importers.read import base64_images, read_table, xlsx_rows
from lmmreview.engine.benchmarks.mmbench.benchmark import (
    CATEGORY,
    CIRCULAR_GROUP,
    L2_CATEGORY,
    MMBENCH,
    ROTATION,
)
from lmmreview.engine.benchmarks.mmbench.rules import (
    L2_ABBREVIATIONS,
    OPTION_LETTERS,
    circular_position,
)
from lmmreview.engine.types import Axes, QuestionType, Sample

_REQUIRED = ("index", "question", "A", "B", "category", "image")
_PREDICTION_COLUMNS = ("index", "prediction")
_DATASET_EXPECTED = "a TSV: the dataset must be the MMBench .tsv file"
_IMAGE_REFERENCE_MAX = 64  # a cell this short names the row whose image to reuse


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmbench`."""
    data = request.path("data")
    assert data is not None  # the command requires it
    return read_mmbench(data, request.path("answers"), request.text("model"), request.dataset)


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: the sample TSV, then each sample model's predictions for it."""
    tsv = data / "mmbench" / "mmbench_demo.tsv"
    predictions = sorted((data / "mmbench" / "predictions").glob("*.tsv"))
    return [ImportRequest({"data": tsv}, "mmbench")] + [
        ImportRequest({"data": tsv, "answers": path, "model": path.stem}, "mmbench")
        for path in predictions
    ]


def read_mmbench(
    data: Path,
    predictions: Path | None = None,
    model: str | None = None,
    dataset: str | None = None,
) -> ImportBatch:
    """Parse an MMBench TSV and, optionally, one model's predictions for it."""
    check_model_argument(model)
    batch = ImportBatch(dataset or data.stem, MMBENCH.name, str(data))
    lines = _read_rows(data, batch)
    check_circular_copies(batch.samples, {i: f"line {n}" for i, n in lines.items()}, data)
    if predictions is not None:
        batch.answers.extend(read_predictions(predictions, model))
    warn_unknown_l2(batch, data)
    return batch


def _read_rows(data: Path, batch: ImportBatch) -> dict[int, int]:
    """The TSV's samples and images into `batch`; returns the line of each row index."""
    references: list[tuple[int, int]] = []  # (index, the index whose image it reuses)
    lines: dict[int, int] = {}
    with base64_images(data) as decoded:
        for line, row in read_table(data, _REQUIRED, _DATASET_EXPECTED):
            where = f"line {line}"
            index = _new_index(row, lines, line, data)
            batch.samples.append(row_sample(index, row, data, where))
            cell = row["image"].strip()
            if not cell:
                raise ImportFailure(data, "empty image cell", where)
            if len(cell) <= _IMAGE_REFERENCE_MAX:
                references.append((index, row_index(cell, data, where + " (image reference)")))
            else:
                decoded.add(str(index), cell, where)
        images = dict(decoded.checked())
    for key, image in images.items():
        batch.add_image(key, image)
    for index, target in references:
        if str(target) not in images:
            raise ImportFailure(
                data,
                f"image refers to row index {target}, which has no image",
                f"line {lines[index]}",
            )
        batch.add_image(str(index), images[str(target)])
    return lines


def check_circular_copies(samples: list[Sample], places: Mapping[int, str], file: Path) -> None:
    """Refuse a circular copy (index >= 1,000,000) whose main row (index mod 1,000,000) is
    not in the file, or asks another question: CircularEval would count it in a group that
    is not its question's. `places`: where each index's row is, for the message."""
    questions = {int(s.key): s.question.strip() for s in samples}
    for index, question in questions.items():
        group, rotation = circular_position(index)
        if not rotation:
            continue
        if group not in questions:
            raise ImportFailure(
                file, f"circular copy {index} has no main row (index {group})", places[index]
            )
        if questions[group] != question:
            raise ImportFailure(
                file,
                f"circular copy {index} asks {quoted(question)}, but its main row (index "
                f"{group}, {places[group]}) asks {quoted(questions[group])}",
                places[index],
            )


def warn_unknown_l2(batch: ImportBatch, file: Path) -> None:
    """Warn of each `l2-category` outside the paper's six L-2 abilities, naming the first
    row (index) that has it: the L-2 table gives it a column of its own."""
    rows: dict[str, list[str]] = {}
    for sample in batch.samples:
        category = sample.first(L2_CATEGORY)
        if category is not None and category not in L2_ABBREVIATIONS:
            rows.setdefault(category, []).append(sample.key)
    for category, keys in rows.items():
        more = f" (and {len(keys) - 1} more rows)" if len(keys) > 1 else ""
        batch.warnings.append(
            f"{file}: index {keys[0]}{more}: l2-category {category!r} is not one of MMBench's "
            "six L-2 abilities; the L-2 table shows it in a column of its own"
        )


def row_sample(index: int, row: dict[str, str], file: Path, where: str) -> Sample:
    options = {
        letter: row[letter].strip() for letter in OPTION_LETTERS if row.get(letter, "").strip()
    }
    if len(options) < 2:
        raise ImportFailure(file, "needs at least two options (A and B)", where)
    answer = row.get("answer", "").strip().upper() or None
    if answer is not None and answer not in options:
        raise ImportFailure(
            file, f"answer {answer!r} is not one of the options {', '.join(options)}", where
        )
    group, rotation = circular_position(index)
    axes: Axes = {}
    for axis, cell in ((CATEGORY, row["category"]), (L2_CATEGORY, row.get("l2-category"))):
        if (value := _cell(cell)) is not None:
            axes[axis] = (value,)
    return Sample(
        key=str(index),
        question=row["question"],
        question_type=QuestionType.CHOICE,
        answer=answer,
        options=options,
        hint=_cell(row.get("hint")),
        split=_cell(row.get("split")),
        axes=axes,
        extra={CIRCULAR_GROUP: group, ROTATION: rotation},
    )


def _cell(value: str | None) -> str | None:
    """Empty cells (and pandas' 'nan') mean absent."""
    value = (value or "").strip()
    return None if value in ("", "nan", "NaN") else value


_INDEX_MAX = 2**53  # every whole number up to here is exact as a float (pandas' 12.0)
# ASCII digits only (int() and float() also take "1_000", " 5" and full-width digits), with the
# ".0" pandas writes for a float column; 16 digits reach past 2**53.
_INDEX = re.compile(r"([0-9]{1,16})(?:\.0+)?")


def row_index(cell: str, file: Path, where: str) -> int:
    """A row index: a whole number from 0 to 2**53 in ASCII digits, as 12 or 12.0."""
    match = _INDEX.fullmatch(cell)
    if match is None or int(match[1]) > _INDEX_MAX:
        raise ImportFailure(
            file,
            f"index {cell[:40]!r} is not a whole number from 0 to 2**53 in digits 0-9",
            where,
        )
    return int(match[1])


def read_predictions(path: Path, model: str | None) -> list[AnswerRecord]:
    """A predictions file with `index` and `prediction` columns (.tsv, .csv or .xlsx), or
    LLaVA's model_vqa lines (.jsonl: question_id is the index; the model defaults to the
    lines' model_id)."""
    if is_model_vqa(path):
        return model_vqa_answers(path, model, mmbench_id)
    model = model_name(model, path)
    rows = (
        xlsx_rows(path, _PREDICTION_COLUMNS)
        if path.suffix.lower() == ".xlsx"
        else read_table(path, _PREDICTION_COLUMNS)
    )
    seen: dict[int, int] = {}
    records = []
    for line, row in rows:
        index = _new_index(row, seen, line, path)
        records.append(AnswerRecord(str(index), model, row["prediction"], str(path)))
    return records


def _new_index(row: dict[str, str], seen: dict[int, int], line: int, file: Path) -> int:
    """The row's index, one no earlier line had (`seen`: the line of each, this one added)."""
    where = f"line {line}"
    index = row_index(row["index"], file, where)
    if index in seen:
        raise ImportFailure(file, f"duplicate index {index} (also on line {seen[index]})", where)
    seen[index] = line
    return index


def mmbench_id(question_id: object, file: Path, where: str) -> str:
    """A row's sample id from a model_vqa question_id: the row's index, as a number or text."""
    if isinstance(question_id, bool) or not isinstance(question_id, int | str):
        raise ImportFailure(file, f"question_id {question_id!r} is not an MMBench index", where)
    return str(row_index(str(question_id), file, where))
