"""`lmmreview imports`: the recorded imports of other tools' judgments, listed or removed."""

from __future__ import annotations

from typing import Annotated

import typer

from lmmreview.tui.options import DbArg
from lmmreview.tui.output import clear_errors, out, say
from lmmreview.tui.safe_text import safe

_COLUMNS = ("id", "dataset", "judge", "runs", "answers", "imported (UTC)", "file")


def imports_command(
    db: DbArg,
    remove: Annotated[
        list[int] | None,
        typer.Option(
            "--remove",
            metavar="ID",
            min=1,
            max=2**63 - 1,  # SQLite's largest id
            help="Remove this import: its judgments and circular verdicts (human verdicts "
            "stay); repeatable, all in one transaction.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """List the imports of other tools' judgments, or remove one.

    Each import that brings judgments (mmvet-grades, and the VLMEvalKit and lmms-eval
    judge files) is recorded with its file, the file's sha256, its judge and runs; its
    judgments point to it. Removing one leaves the tables as if it had never been imported.
    """
    from rich.table import Table as RichTable

    from lmmreview.db import Store
    from lmmreview.db.imports import imports, remove_import

    with clear_errors(db), Store.open(db, create=False) as store:
        if remove:
            with store.transaction():
                removed = [remove_import(store, one) for one in dict.fromkeys(remove)]
            for gone in removed:
                say(
                    f"{db}: import {gone.id} removed: the judgments of {gone.answers} answers "
                    f"from {gone.file} (judge {gone.judge}, dataset {gone.dataset})"
                )
            return
        listed = imports(store)
    if not listed:
        say(f"{db}: no imports of judgments")
        return
    table = RichTable(box=None)
    for name in _COLUMNS:
        numbers = name in ("runs", "answers")
        folds = name in ("dataset", "judge", "file")  # names: the rest keeps one line
        table.add_column(
            name, overflow="fold", no_wrap=not folds, justify="right" if numbers else "left"
        )
    for i in listed:
        table.add_row(
            str(i.id),
            safe(i.dataset, one_line=True),
            safe(i.judge, one_line=True),
            str(i.runs),
            str(i.answers),
            i.created_at[:19].replace("T", " "),  # stored in UTC, to the millisecond
            safe(i.file, one_line=True),
        )
    out.print(table)
