"""What every benchmark's official files share: the writer's signature and what it makes
(a benchmark's export format names its writer: ExportFormat.writer), the verdicts in
force and who gave them, and the workbook writer (openpyxl)."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from lmmreview.db.optional import INSTALL_OPENPYXL
from lmmreview.db.store import Store, StoreError
from lmmreview.engine import official
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.review import in_force
from lmmreview.engine.scoring import Judge, Verdict

Workbook = tuple[list[str], list[list]]  # header, rows
Content = str | Workbook  # a text file's text, or a workbook's one sheet


@dataclass(frozen=True, slots=True)
class OfficialFile:
    """One file of an official format: its name, the model it is for (None: the whole
    dataset), and what goes in it."""

    name: str
    model: str | None
    content: Content


@dataclass(frozen=True, slots=True)
class OfficialFiles:
    """What an export format's writer makes of one dataset: its files, and what the user
    should be told (answers left out, and why)."""

    files: list[OfficialFile]
    warnings: list[str] = field(default_factory=list)


# An export format's writer (ExportFormat.writer names one): the store, the dataset, its
# benchmark, the judge whose judgments count (None: the dataset's default), and whether
# answers without a score count as 0.
Writer = Callable[[Store, str, Benchmark, Judge | None, bool], OfficialFiles]

CELL_LIMIT = 32_767  # characters in a workbook cell; openpyxl would cut longer text silently


class _VerdictRow(NamedTuple):
    id: int
    answer_id: int
    score: float | None
    choice: str | None
    action: str
    reviewer: str
    note: str | None
    created_at: str


class InForce(NamedTuple):
    """The human verdict in force on an answer: who gave it, when, and the note on it."""

    verdict: Verdict
    reviewer: str
    created_at: str
    note: str | None  # the latest note written on it, else its own


def verdicts_in_force(store: Store, dataset: str) -> dict[int, InForce]:
    """answer id -> the human verdict in force (one that clears a verdict, an undo back to
    nothing, leaves the answer out)."""
    rows = store.conn.execute(
        "SELECT r.id, r.answer_id, r.score, r.choice, r.action, r.reviewer, r.note, "
        "r.created_at FROM reviews r "
        "JOIN answers a ON a.id = r.answer_id JOIN samples s ON s.id = a.sample_id "
        "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ? ORDER BY r.answer_id, r.id",
        (dataset,),
    )
    found = {}
    for answer, group in groupby(map(_VerdictRow._make, rows), key=attrgetter("answer_id")):
        history = list(group)
        stack = in_force(history)
        if stack and (stack[-1].score is not None or stack[-1].choice is not None):
            top = stack[-1]
            notes = [r.note for r in history if r.action == "note" and r.id > top.id and r.note]
            note = notes[-1] if notes else top.note
            found[answer] = InForce(
                Verdict(top.score, top.choice), top.reviewer, top.created_at, note
            )
    return found


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
