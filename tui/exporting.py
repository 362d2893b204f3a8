"""Export from the review screen (`e`): which tables, to which file, and the questions
before a file is replaced. Every problem is a message; the screen stays."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lmmreview.db.files import ExportRefused, refuse_database, write_export
from lmmreview.db.scoring import tables_and_notes
from lmmreview.engine.export import to_markdown
from lmmreview.engine.table_options import for_readers
from lmmreview.tui.database import DB_ERRORS, reason
from lmmreview.tui.screens import Menu, Prompt

if TYPE_CHECKING:
    from lmmreview.tui.app import ReviewApp

THIS, ALL = "this", "all"  # the scope menu's choices
# What a path typed into the prompt can raise before anything is written: `~nobody`
# (no such user: RuntimeError), a NUL character (ValueError), besides the file's errors.
PATH_ERRORS = (*DB_ERRORS, ValueError, RuntimeError)


async def ask_scope(app: ReviewApp, dataset: str, judge: str, count: int) -> str | None:
    """THIS dataset or ALL of the file's; no question when the file holds one."""
    if count < 2:
        return THIS
    choices = [
        (THIS, f"This dataset: {dataset} (judge {judge})"),
        (ALL, f"All {count} datasets, each by its chosen judge (as lmmreview export)"),
    ]
    return await app.push_screen_wait(Menu("Export the tables of", choices))


async def ask_target(app: ReviewApp, default: Path) -> Path | None:
    """The file the reviewer names, once they agree to replace it if it exists; None,
    with the reason told, if there is none to write."""
    typed = await app.push_screen_wait(Prompt("Write the Markdown tables to:", str(default)))
    if not typed:
        return None
    try:
        target = Path(typed).expanduser()
        refuse_database(target, app.database.path)
        exists = target.is_file()
    except PATH_ERRORS as exc:
        app.tell(_problem(exc, typed), "error")
        return None
    if exists:
        choices = [("no", "No: keep it"), ("yes", "Yes: replace it")]
        answer = await app.push_screen_wait(Menu(f"{target} exists. Replace it?", choices))
        if answer != "yes":
            app.tell(f"Kept {target}: nothing was written.")
            return None
    return target


async def export(app: ReviewApp, target: Path, text: Callable[[], Awaitable[str]]) -> None:
    """Write the Markdown `text` makes to `target`, and say where (or why not)."""
    try:
        markdown = await text()
        replaced = await app.database.run(lambda _: write_export(target, markdown, app.db_path))
    except PATH_ERRORS as exc:
        app.tell(_problem(exc, str(target)), "error")
        return
    again = " (it replaced the file that was there)" if replaced else ""
    app.notify(f"Wrote the tables to {target.resolve()}{again}", title="Exported", timeout=8)


def all_datasets(app: ReviewApp) -> Callable[[], Awaitable[str]]:
    """Every dataset's tables and notes, each by its chosen judge: `lmmreview export`'s."""
    settings = app.settings

    async def markdown() -> str:
        tables, notes = await app.database.run(
            lambda r: tables_and_notes(
                r.store, None, False, settings.judge_choice(), settings.causes
            )
        )
        return to_markdown(for_readers(tables, settings.models).tables, notes)

    return markdown


def _problem(exc: BaseException, target: str) -> str:
    """One line: why the tables were not written."""
    if isinstance(exc, ExportRefused):
        return f"{exc}."
    return f"Could not write the tables to {target}: {reason(exc)}"
