"""The benchmarks' official files, written from lmmreview's numbers and verdicts.

MM-Vet's grader writes two CSVs (capabilities, integrations) and a grade JSON per model;
MMBench's evaluation server takes a workbook of every circular row with the model's raw
prediction; MMMU's test server takes a JSON of id -> parsed answer. Pure values in, text
or rows out: the store reads the inputs, the command line writes the files.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lmmreview.engine import mmmu
from lmmreview.engine.benchmarks.mmbench import CATEGORY, L2_CATEGORY
from lmmreview.engine.export import csv_text
from lmmreview.engine.mmvet import parse_score
from lmmreview.engine.scoring import USABLE, Judgment, Verdict
from lmmreview.engine.tables import Table
from lmmreview.engine.types import QuestionType, Sample

HUMAN = "human:"  # a grade run decided by a reviewer names its judge "human:<reviewer>"
MIXED = "mixed"  # a grade file's judge name when its runs were judged by several models


# What a file name must not hold: characters that would write control sequences or reverse
# the text when a terminal or a file manager shows it (cut to "_").
_NOT_IN_FILE_NAMES = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Folder separators, and "%" itself, are written as percent escapes, which the importers
# read back: "org/model-7b" round-trips as org%2Fmodel-7b_gpt-4-grade-1runs.json.
_ESCAPES = {"%": "%25", "/": "%2F", "\\": "%5C"}
_ESCAPED = re.compile("%(25|2F|5C)", re.IGNORECASE)


def file_part(name: str) -> str:
    """A model or dataset name as part of a file name: no folder separator, no "..", no
    control or direction character, so every file lands in the folder given and lists
    as what it is."""
    part = _NOT_IN_FILE_NAMES.sub("_", "".join(_ESCAPES.get(c, c) for c in name))
    return "_" if part in ("", ".", "..") else part


def name_of_file_part(part: str) -> str:
    """The name a file name's part stands for: file_part's percent escapes read back."""
    return _ESCAPED.sub(lambda escape: chr(int(escape[1], 16)), part)


# -- MM-Vet: the grader's cap-score and cap-int-score CSVs -----------------------------------


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


# -- MMBench: the submission workbook ---------------------------------------------------------


def mmbench_header(samples: Sequence[Sample]) -> list[str]:
    """The workbook's columns: as many option letters as the dataset's rows have."""
    letters = sorted({letter for s in samples for letter in s.options})
    return ["index", "question", "hint", *letters, "answer", "prediction", "category",
            "l2-category", "split"]  # fmt: skip


def mmbench_row(header: list[str], sample: Sample, prediction: str) -> list[str | int]:
    """One circular row with the model's raw prediction, in the header's columns."""
    fields: dict[str, str | int | None] = {
        "index": int(sample.key),
        "question": sample.question,
        "hint": sample.hint,
        "answer": sample.answer,
        "prediction": prediction,
        "category": sample.first(CATEGORY),
        "l2-category": sample.first(L2_CATEGORY),
        "split": sample.split,
        **sample.options,
    }
    return [value if (value := fields.get(column)) is not None else "" for column in header]


# What a workbook cell cannot hold as it is: the C0 control characters but tab and newline
# (XML has none of them, and reads a carriage return back as a newline) and the code
# points XML forbids; and a "_" that starts what reads as such an escape ("_x0041_").
_WORKBOOK_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)"
)


def workbook_text(text: str) -> str:
    """Text as a workbook cell holds it exactly: what it cannot hold in OOXML's own escape,
    ``_xHHHH_`` (Excel reads it back as the character; "_" itself is ``_x005F_``)."""
    return _WORKBOOK_UNSAFE.sub(lambda m: f"_x{ord(m.group()):04X}_", text)


_WORKBOOK_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def from_workbook_text(text: str) -> str:
    """A workbook cell's text as Excel shows it: each ``_xHHHH_`` read back as its
    character, left to right (so ``_x005F_x0041_`` is the literal ``_x0041_``)."""
    return _WORKBOOK_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


# -- MMMU: the test-server JSON -------------------------------------------------------------------


def mmmu_answer(
    sample: Sample, response: str, judge_choice: str | None, verdict: Verdict | None
) -> str | list[mmmu.Candidate]:
    """What the test server reads for one question: the chosen letter of a multiple-choice
    question (the reviewer's, else the judge's, else the official parser's), the parsed
    candidates of an open one."""
    if sample.question_type == QuestionType.CHOICE:
        if verdict is not None and verdict.choice is not None:
            return verdict.choice
        return judge_choice or mmmu.parse_choice(response, sample.options, sample.key)[0]
    return mmmu.parse_open(response)


def submission_json(answers: dict[str, str | list[mmmu.Candidate]]) -> str:
    """id -> answer, as one JSON object."""
    return json.dumps(answers, indent=2, ensure_ascii=False) + "\n"
