"""MM-Vet's official files, written from lmmreview's numbers and verdicts: the grader's two
CSVs (capabilities, integrations) and its grade JSON per model. Pure values in, text out:
the store reads the inputs, the command line writes the files."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from lmmreview.engine.benchmarks.mmvet.rules import parse_score
from lmmreview.engine.export import csv_text
from lmmreview.engine.official import file_part
from lmmreview.engine.scoring import USABLE, Judgment, Verdict
from lmmreview.engine.tables import Table

HUMAN = "human:"  # a grade run decided by a reviewer names its judge "human:<reviewer>"
MIXED = "mixed"  # a grade file's judge name when its runs were judged by several models


def _decimal(value: float | None) -> str:
    """A number as the grader prints it: rounded to one decimal ("31.2", "0.0")."""
    return "" if value is None else str(round(value, 1))


def grader_csv(table: Table) -> str:
    """One MM-Vet table in the grader's layout: an empty first header cell, a row per model
    scored at all, the table's columns (the total last), then std (population, of the
    per-run totals) and runs (the per-run totals as a list, "[31.2, 30.8]"). A model name
    is a CSV text cell as the tables' CSV writes one (export.csv_text)."""
    keys = [c.key for c in table.columns if c.key != "total"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["", *keys, "total", "std", "runs"])
    left_out = unscored(table)
    for row in table.rows:
        if row.label in left_out:
            continue
        total = row.cells["total"]
        per_run = total.per_run
        std = total.std or 0.0
        runs = "[" + ", ".join(_decimal(v) for v in per_run) + "]"
        writer.writerow(
            [
                csv_text(row.label),
                *(_decimal(cell.value if cell else None) for cell in map(row.cells.get, keys)),
                _decimal(total.value),
                _decimal(std),
                runs,
            ]
        )
    return buffer.getvalue()


def unscored(table: Table) -> list[str]:
    """The models of a table with no score at all: the grader's CSV has no row for them
    (it would have no number, not even a run's total)."""
    return [
        row.label
        for row in table.rows
        if (total := row.cells.get("total")) is None or total.value is None
    ]


def partly_scored(table: Table) -> dict[str, int]:
    """The models of a table with some answers scored and some not: model -> how many
    have no score (the grader scores every question; the tables leave those out)."""
    return {
        row.label: total.unscored
        for row in table.rows
        if (total := row.cells.get("total")) is not None
        and total.value is not None
        and total.unscored
    }


def grader_csv_names(dataset: str, runs: int) -> tuple[str, str]:
    """The file names of a dataset's capability and integration CSVs."""
    stem = file_part(dataset)
    return f"{stem}-cap-score-{runs}runs.csv", f"{stem}-cap-int-score-{runs}runs.csv"


# -- MM-Vet: the grader's grade JSON ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GradeRun:
    """One run of one answer as the grader records it."""

    model: str  # the judge model, or "human:<reviewer>"
    content: str  # what the judge said: a score's text, or the reply of a give-up
    score: float  # 0.0 for a give-up, as the grader writes it


def grade_run(judgment: Judgment | None, verdict: Verdict | None, reviewer: str) -> GradeRun:
    """A run from its deciding judgment (None: never judged), unless a human score replaces
    the judge's; a run without a usable score is a give-up: its raw reply (or the error)
    as content and 0.0, which reads back as failed."""
    if verdict is not None and verdict.score is not None:
        return GradeRun(HUMAN + reviewer, str(verdict.score), verdict.score)
    if judgment is None:
        return GradeRun("", "", 0.0)
    if judgment.status not in USABLE or judgment.score is None:
        return GradeRun(judgment.judge_model, judgment.reply or judgment.error, 0.0)
    first = judgment.reply.split(maxsplit=1)[0] if judgment.reply.strip() else ""
    # The grader's content is the reply's first token; an offline rule's reply is a reason.
    content = first if parse_score(first) == judgment.score else str(judgment.score)
    return GradeRun(judgment.judge_model, content, judgment.score)


def grade_json(grades: dict[str, list[GradeRun]]) -> str:
    """The grade file: id -> {"model": [...], "content": [...], "score": [...]} per run."""
    document = {
        key: {
            "model": [r.model for r in runs],
            "content": [r.content for r in runs],
            "score": [r.score for r in runs],
        }
        for key, runs in grades.items()
    }
    return json.dumps(document, indent=4, ensure_ascii=False) + "\n"


def grade_file_name(model: str, grades: dict[str, list[GradeRun]]) -> str:
    """``{model}_{judge}-grade-{N}runs.json``: the judge of every run, or "mixed"."""
    judges = {
        r.model
        for runs in grades.values()
        for r in runs
        if r.model and not r.model.startswith(HUMAN)
    }
    judge = judges.pop() if len(judges) == 1 else MIXED
    runs = max((len(r) for r in grades.values()), default=0)
    return f"{file_part(model)}_{file_part(judge)}-grade-{runs}runs.json"
