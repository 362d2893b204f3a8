"""`lmmreview import yesno`: the questions CSV, and a model's answers CSV."""

from __future__ import annotations

import csv
from pathlib import Path

from lmmreview.db.importers import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.batch import AnswerRecord
from lmmreview.engine.types import QuestionType, Sample


def read_request(request: ImportRequest) -> ImportBatch:
    """The questions as samples (their topic an axis), and the answers if given."""
    questions = request.path("questions")
    assert questions is not None  # the command requires it
    batch = ImportBatch(request.dataset or questions.stem, "yesno", str(questions))
    for where, row in _rows(questions, ("id", "question", "answer", "topic")):
        if row["answer"] not in ("yes", "no"):
            raise ImportFailure(questions, f"answer {row['answer']!r} is not yes or no", where)
        batch.samples.append(
            Sample(
                row["id"],
                row["question"],
                QuestionType.OPEN,
                answer=row["answer"],
                axes={"topic": (row["topic"],)},
            )
        )
    answers, model = request.path("answers"), request.text("model")
    if answers is not None:
        for _, row in _rows(answers, ("id", "prediction")):
            batch.answers.append(
                AnswerRecord(row["id"], model or answers.stem, row["prediction"], str(answers))
            )
    return batch


def _rows(path: Path, fields: tuple[str, ...]) -> list[tuple[str, dict[str, str]]]:
    """(where, row) of each row of a CSV that must have these columns."""
    with path.open(newline="", encoding="utf-8") as file:
        reader = csv.DictReader(file)
        missing = [f for f in fields if f not in (reader.fieldnames or [])]
        if missing:
            raise ImportFailure(path, f"missing column(s): {', '.join(missing)}")
        return [(f"line {reader.line_num}", row) for row in reader]
