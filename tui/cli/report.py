"""`lmmreview report`, and the tables the commands that show them read: by the judge that
--judge names, else the one the settings name, else the default."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeOpt, ZeroOpt
from lmmreview.tui.output import clear_errors, out

CiOpt = Annotated[
    bool,
    typer.Option(
        "--ci",
        help="Each cell with its 95 % bootstrap interval over its units (1,000 resamples, "
        "seed 0: the same every run).",
    ),
]

if TYPE_CHECKING:
    from lmmreview.engine.export import Notes
    from lmmreview.engine.tables import Table


def report(
    db: DbArg,
    dataset: DatasetsOpt = None,
    unscored_as_zero: ZeroOpt = False,
    judge_name: JudgeOpt = None,
    ci: CiOpt = False,
) -> None:
    """Print the breakdown tables in the terminal."""
    from lmmreview.tui.cli.rich_tables import render

    tables, notes = read_tables(db, dataset, unscored_as_zero, judge_name, ci)
    out.print(render(tables, notes))


def read_tables(
    db: Path,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    judge_name: str | None = None,
    intervals: bool = False,
) -> tuple[list[Table], list[Notes]]:
    """Each dataset's tables and notes, by the judge `judge_name` names (else the one the
    settings name, else the default); with `intervals`, each cell's bootstrap interval."""
    from lmmreview.db import Store
    from lmmreview.db.scoring import tables_and_notes
    from lmmreview.tui.settings import for_command

    settings = for_command(uses=["review.judge"])
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        return tables_and_notes(
            store, datasets or None, unscored_as_zero, settings.judge_choice(judge_name),
            settings.causes, intervals,
        )  # fmt: skip
