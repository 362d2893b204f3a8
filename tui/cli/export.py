"""`lmmreview export`: the breakdown tables in a file format, or a benchmark's official
files (tui/cli/export_official.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from lmmreview.tui.cli.report import (
    CiOpt,
    ErrataOpt,
    ModelsOpt,
    ShowEmptyOpt,
    for_paper,
    model_names,
    read_tables,
)
from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeOpt, ZeroOpt, given_path
from lmmreview.tui.output import deliver, fail


class ExportCommand(TyperCommand):
    """`export`, whose help lists every installed benchmark's official formats (each
    benchmark declares its own: Benchmark.exports)."""

    # Any: newer typer releases bring click's classes of their own, older ones click's.
    def format_help_text(self, ctx: Any, formatter: Any) -> None:
        super().format_help_text(ctx, formatter)
        from lmmreview.tui.cli.official_formats import format_help_lines

        with formatter.indentation(), formatter.indentation():
            for line in format_help_lines():
                formatter.write(f"{'':>{formatter.current_indent}}{line}\n")


def export(
    db: DbArg,
    format: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="Output format (see above).")
    ] = "md",
    output: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE|DIR",
            help="Write here instead of standard output (a folder for the official formats "
            "that write several files).",
            parser=given_path,
        ),
    ] = None,
    dataset: DatasetsOpt = None,
    unscored_as_zero: ZeroOpt = False,
    judge_name: JudgeOpt = None,
    ci: CiOpt = False,
    models: ModelsOpt = None,
    show_empty: ShowEmptyOpt = False,
    errata: ErrataOpt = False,
) -> None:
    """Export the breakdown tables, or a benchmark's official files.

    \b
    Formats:
      md                  the tables in Markdown (the default)
      csv                 one line per table cell, every statistic in a column
      json                the tables with unrounded values, N and counts, and the notes
      latex               booktabs tables
      parquet             tidy files for pandas, DuckDB and datasets (--out DIR;
                          needs lmmreview[parquet])
      inspect             each imported Inspect AI log, the verdicts as score edits
    """
    from lmmreview.engine.export import FOR_READERS, RENDERERS
    from lmmreview.tui.cli.export_parquet import PARQUET, export_parquet

    if ci and format not in RENDERERS:
        raise fail(f"--ci is for the tables' formats ({', '.join(RENDERERS)}), not {format!r}")
    if (models or show_empty or errata) and format not in RENDERERS:
        raise fail(
            f"--models, --show-empty and --errata are for the tables' formats, not {format!r}"
        )
    if format == PARQUET:
        export_parquet(db, output, dataset)
        return
    if format == "inspect":  # Inspect AI logs: binary copies, not a benchmark's files
        from lmmreview.tui.cli.export_inspect import export_inspect

        export_inspect(db, output, dataset)
        return
    if format not in RENDERERS:  # a benchmark's official files
        from lmmreview.tui.cli.export_official import export_official
        from lmmreview.tui.settings import for_command

        choice = for_command(uses=["review.judge"]).judge_choice(judge_name)
        export_official(db, format, output, dataset, unscored_as_zero, choice)
        return
    names = model_names(models)
    tables, notes = read_tables(db, dataset, unscored_as_zero, judge_name, ci, errata)
    shown = for_paper(tables, names, show_empty or format not in FOR_READERS)
    text = RENDERERS[format](shown, notes)
    deliver(text, output, db)
