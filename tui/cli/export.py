"""`lmmreview export`: the breakdown tables in a file format, or a benchmark's official
files (tui/cli/export_official.py)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lmmreview.tui.cli.report import read_tables
from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeOpt, ZeroOpt, given_path
from lmmreview.tui.output import deliver


class Format(StrEnum):
    md = "md"
    csv = "csv"
    json = "json"
    latex = "latex"
    mmvet_csv = "mmvet-csv"
    mmvet_grades = "mmvet-grades"
    mmbench_submission = "mmbench-submission"
    mmmu_submission = "mmmu-submission"


def export(
    db: DbArg,
    format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.md,
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
) -> None:
    """Export the breakdown tables, or a benchmark's official files.

    \b
    Formats:
      md                  the tables in Markdown (the default)
      csv                 one line per table cell, every statistic in a column
      json                the tables with unrounded values, N and counts, and the notes
      latex               booktabs tables
      mmvet-csv           MM-Vet grader's cap-score and cap-int-score CSVs (--out DIR)
      mmvet-grades        MM-Vet grader's grade JSON per model (--out DIR)
      mmbench-submission  MMBench submission workbook per model (--out FILE.xlsx or DIR)
      mmmu-submission     MMMU test-server JSON (id -> answer) per model (--out FILE or DIR)
    """
    from lmmreview.engine.export import RENDERERS

    if format.value not in RENDERERS:  # a benchmark's official files
        from lmmreview.tui.cli.export_official import export_official

        export_official(db, format.value, output, dataset, unscored_as_zero, judge_name)
        return
    tables, notes = read_tables(db, dataset, unscored_as_zero, judge_name)
    text = RENDERERS[format.value](tables, notes)
    deliver(text, output, db)
