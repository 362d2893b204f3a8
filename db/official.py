"""What the official files need from the store: every run's deciding judgment, the
verdicts in force and who gave them, raw answers; and the workbook writer (openpyxl)."""

from __future__ import annotations

import io
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from lmmreview.db.optional import INSTALL_OPENPYXL
from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store, StoreError
from lmmreview.engine import official
from lmmreview.engine.mmmu import Candidate
from lmmreview.engine.official import GradeRun
from lmmreview.engine.review import in_force
from lmmreview.engine.scoring import Judge, Verdict

CELL_LIMIT = 32_767  # characters in a workbook cell; openpyxl would cut longer text silently


class _VerdictRow(NamedTuple):
    answer_id: int
    score: float | None
    choice: str | None
    action: str
    reviewer: str


def verdicts_in_force(store: Store, dataset: str) -> dict[int, tuple[Verdict, str]]:
    """answer id -> the human verdict in force and its reviewer (one that clears a verdict,
    an undo back to nothing, leaves the answer out)."""
    rows = store.conn.execute(
        "SELECT r.answer_id, r.score, r.choice, r.action, r.reviewer FROM reviews r "
        "JOIN answers a ON a.id = r.answer_id JOIN samples s ON s.id = a.sample_id "
        "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? ORDER BY r.answer_id, r.id",
        (dataset,),
    )
    found = {}
    for answer, history in groupby(map(_VerdictRow._make, rows), key=attrgetter("answer_id")):
        stack = in_force(history)
        if stack and (stack[-1].score is not None or stack[-1].choice is not None):
            top = stack[-1]
            found[answer] = (Verdict(top.score, top.choice), top.reviewer)
    return found


def grade_files(
    store: Store, dataset: str, judge: Judge | None
) -> dict[str, dict[str, list[GradeRun]]]:
    """model -> sample key -> its grade runs, for every answer judged or human-scored (an
    answer with neither has nothing to say to the grader and is left out)."""
    runs = store.judge_runs(dataset, judge)
    latest = store.latest_judgments(dataset, judge)
    verdicts = verdicts_in_force(store, dataset)
    files: dict[str, dict[str, list[GradeRun]]] = {}
    for answer, model, key in store.answer_keys(dataset):
        verdict, reviewer = verdicts.get(answer, (None, ""))
        judgments = [latest.get((answer, run)) for run in range(runs)]
        if (verdict is None or verdict.score is None) and not any(judgments):
            continue
        files.setdefault(model, {})[key] = [
            official.grade_run(judgment, verdict, reviewer) for judgment in judgments
        ]
    return files


def mmbench_workbooks(store: Store, dataset: str) -> dict[str, tuple[list[str], list[list]]]:
    """model -> (header, rows): every circular row the model answered, with its raw answer."""
    samples = {s.key: s for s in store.samples(dataset)}
    header = official.mmbench_header(list(samples.values()))
    books: dict[str, tuple[list[str], list[list]]] = {}
    for _, model, key, text in store.answer_rows(dataset):
        books.setdefault(model, (header, []))[1].append(
            official.mmbench_row(header, samples[key], text)
        )
    return books


def mmmu_submissions(
    store: Store, dataset: str, judge: Judge | None
) -> dict[str, dict[str, str | list[Candidate]]]:
    """model -> id -> the answer the MMMU test server reads (reviewed choices win)."""
    samples = {s.key: s for s in store.samples(dataset)}
    texts = {answer: text for answer, _, _, text in store.answer_rows(dataset)}
    submissions: dict[str, dict[str, str | list[Candidate]]] = {}
    for entry in EntryReader(store, judge).entries(dataset):
        submissions.setdefault(entry.model, {})[entry.key] = official.mmmu_answer(
            samples[entry.key], texts[entry.answer_id], entry.judge_choice, entry.verdict
        )
    return submissions


def write_workbook(path: Path, header: list[str], rows: list[list]) -> None:
    """Write one sheet (header, rows) as .xlsx.

    Text is stored as text, never as a formula (a question may start with "="), with what
    a workbook cannot hold escaped (official.workbook_text).
    """
    try:
        from openpyxl import Workbook
        from openpyxl.cell import WriteOnlyCell
    except ImportError:
        raise StoreError(f"{path}: writing .xlsx needs openpyxl: {INSTALL_OPENPYXL}") from None
    # Every cell is checked before the workbook exists (a sheet left half-written makes
    # openpyxl complain on stderr).
    cells = [
        [_cell(path, line, column, value) for column, value in zip(header, row, strict=True)]
        for line, row in enumerate([header, *rows], start=1)
    ]
    book = Workbook(write_only=True)
    sheet = book.create_sheet()

    def text_cell(text: str) -> object:
        cell = WriteOnlyCell(sheet, text)
        cell.data_type = "s"  # openpyxl would take a leading "=" as a formula
        return cell

    for row in cells:
        sheet.append([text_cell(value) if isinstance(value, str) else value for value in row])
    # Made in memory, then written: a write error (a full device) is one error, not
    # openpyxl's half-closed files complaining on stderr.
    workbook = io.BytesIO()
    book.save(workbook)
    path.write_bytes(workbook.getvalue())


def _cell(path: Path, line: int, column: str, value: object) -> object:
    """A cell's value as written: text escaped, and no longer than a cell holds."""
    if not isinstance(value, str):
        return value
    text = official.workbook_text(value)
    if len(text) > CELL_LIMIT:
        raise StoreError(
            f"{path}: row {line}, column {column!r}: {len(text):,} characters, more than "
            f"the {CELL_LIMIT:,} a workbook cell holds"
        )
    return text
