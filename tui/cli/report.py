"""`lmmreview report`, and the tables the commands that show them read: by the judge that
--judge names, else the one the settings name, else the default."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeOpt, ZeroOpt, given_path
from lmmreview.tui.output import clear_errors, err, fail, out, say

CiOpt = Annotated[
    bool,
    typer.Option(
        "--ci",
        help="Each cell with its 95 % bootstrap interval over its units (1,000 resamples, "
        "seed 0: the same every run).",
    ),
]

ErrataOpt = Annotated[
    bool,
    typer.Option(
        "--errata",
        help="Each table as published, then the same table with the ground-truth errata in "
        "force (tables named NAME+errata); the notes say how many answers change score and "
        "how many are left out (docs/errata.md).",
    ),
]

ModelsOpt = Annotated[
    Path | None,
    typer.Option(
        "--models",
        metavar="FILE",
        help='A TOML file whose [models] table (model = "display name") orders the tables\' '
        "models and names them, instead of the settings' [models] table.",
        parser=given_path,
        show_default=False,
    ),
]
ShowEmptyOpt = Annotated[
    bool,
    typer.Option(
        "--show-empty",
        help="Keep unscored models (every cell –) and columns with N = 0, which the "
        "terminal, HTML, Markdown and LaTeX tables leave out by default (a note says which; "
        "CSV and JSON keep them).",
    ),
]

if TYPE_CHECKING:
    from lmmreview.db import Store
    from lmmreview.engine.export import Notes
    from lmmreview.engine.scoring import JudgeChoice
    from lmmreview.engine.tables import Table

MAX_ANSWERS = 200  # flagged answers per dataset in the HTML page, by default


class ReportFormat(StrEnum):
    terminal = "terminal"
    html = "html"


def report(
    db: DbArg,
    dataset: DatasetsOpt = None,
    unscored_as_zero: ZeroOpt = False,
    judge_name: JudgeOpt = None,
    format: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            help="terminal: the tables printed here; html: one self-contained page to share "
            "(tables with intervals, charts, judges, flagged answers; needs --out).",
        ),
    ] = ReportFormat.terminal,
    output: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Where --format html writes (a .html file: --format html implied).",
            parser=given_path,
        ),
    ] = None,
    max_answers: Annotated[
        int,
        typer.Option(
            "--max-answers",
            min=0,
            metavar="N",
            help="Flagged answers shown per dataset in the HTML page (the page says how many "
            "more there are).",
        ),
    ] = MAX_ANSWERS,
    ci: CiOpt = False,
    models: ModelsOpt = None,
    show_empty: ShowEmptyOpt = False,
    errata: ErrataOpt = False,
) -> None:
    """Print the breakdown tables, or write them as an HTML page.

    The page (--format html --out FILE) holds every dataset's tables with each cell's
    95 % bootstrap interval, bar and radar charts, the judges measured against the human
    verdicts, and the flagged answers (flagged by a reviewer, judge and human or judges
    apart by more than the review.disagreement setting, or noted) with their images,
    question, gold, answer and every verdict. It fetches nothing when opened.
    """
    if output is not None and format == ReportFormat.terminal:
        # --out alone: a page named .html is surely meant; anything else is refused, never
        # silently left unwritten.
        if output.suffix.lower() not in (".html", ".htm"):
            raise fail(f"{output}: --out writes the HTML page: add --format html")
        format = ReportFormat.html
    if format == ReportFormat.html and output is None:
        raise fail("--format html writes a file: --out FILE is needed")
    if format == ReportFormat.html and errata:
        raise fail("--errata is for the terminal tables, not --format html")
    names = model_names(models)
    if format == ReportFormat.html:
        from lmmreview.tui.cli.report_html import write_html

        assert output is not None  # checked above, before the settings are read
        write_html(
            db, dataset, unscored_as_zero, judge_name, output, max_answers, names, show_empty
        )
        return
    from lmmreview.tui.cli.rich_tables import render

    tables, notes = read_tables(db, dataset, unscored_as_zero, judge_name, ci, errata)
    out.print(render(for_paper(tables, names, show_empty), notes))


def model_names(models: Path | None) -> dict[str, str]:
    """The tables' models, stored name -> display name in their order: from the `--models`
    file, else the settings' [models] table; a bad table ends the command naming it."""
    from lmmreview.tui.settings import MODELS, SettingsError, for_command, models_file

    if models is None:
        return dict(for_command(uses=[MODELS]).models)
    try:
        return models_file(models)
    except SettingsError as exc:
        raise fail(str(exc)) from None


def for_paper(tables: list[Table], names: dict[str, str], show_empty: bool) -> list[Table]:
    """The tables as a paper prints them: models in the listed order under their display
    names (a warning names the listed models that could not be), and, unless `show_empty`,
    without unscored models and columns with N = 0."""
    from lmmreview.engine.table_options import for_readers

    found = for_readers(tables, names, show_empty)
    if found.unknown:
        _warn(f"no table has these listed models: {', '.join(found.unknown)}")
    if found.clashes:
        _warn(
            f"kept the stored names of {', '.join(found.clashes)}: another model of a table "
            "is already shown under the display name"
        )
    return found.tables


def _warn(message: str) -> None:
    say(f"warning: {message}", style="yellow", console=err)


def read_tables(
    db: Path,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    judge_name: str | None = None,
    intervals: bool = False,
    errata: bool = False,
) -> tuple[list[Table], list[Notes]]:
    """Each dataset's tables and notes, by the judge `judge_name` names (else the one the
    settings name, else the default); with `intervals`, each cell's bootstrap interval;
    with `errata`, each table's twin with the errata in force after it."""
    from lmmreview.db import Store
    from lmmreview.db.scoring import tables_and_notes
    from lmmreview.tui.settings import for_command

    settings = for_command(uses=["review.judge"])
    choice = settings.judge_choice(judge_name)
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        warn_left_out(store, datasets, choice)
        return tables_and_notes(
            store,
            datasets or None,
            unscored_as_zero,
            choice,
            settings.causes,
            intervals,
            errata=errata,
        )


def warn_left_out(store: Store, datasets: list[str] | None, choice: JudgeChoice) -> None:
    """Say which datasets a judge named without --dataset leaves out, as they lack it
    (db.scoring.with_judge)."""
    from lmmreview.db.scoring import with_judge

    _, left = with_judge(store, datasets or None, choice)
    if left:
        _warn(f"left out, without the judge {choice.named!r}: {', '.join(left)}")
