"""`lmmreview import vlmevalkit DB FOLDER`: a VLMEvalKit run folder, every dataset of it
lmmreview has a reader for, through that benchmark's own import command's reader."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.cli.imports import read_import, report_import
from lmmreview.tui.options import NewDbArg, given_path
from lmmreview.tui.output import clear_errors, err, say, status_line

if TYPE_CHECKING:
    from lmmreview.db.importers.vlmevalkit_run import Loaded, Plan

FolderArg = Annotated[
    Path,
    typer.Argument(
        metavar="FOLDER",
        help="A run folder (outputs/MODEL/T20260409-101500, or the legacy T20241121_G1a2b3c4d), "
        "or the model's folder (its files, or its links to its latest runs).",
        parser=given_path,
    ),
]
ReplaceOpt = Annotated[
    bool,
    typer.Option(
        "--replace",
        help="Remove earlier imports of the same judges on these answers first.",
    ),
]


def import_vlmevalkit(db: NewDbArg, folder: FolderArg, replace: ReplaceOpt = False) -> None:
    """VLMEvalKit: a run folder, each benchmark in it.

    Each dataset's prediction file and its files with verdicts (the multiple-choice
    *_result workbooks under either extractor name, auxmatch, MathVista's and MM-Vet's judge
    workbooks, LLaVABench's openai_result) are read by the benchmark's own
    `import NAME-vlmevalkit` reader, with the judge status.json names where the file name
    does not; the run's commit, command line and date are kept with the imported
    judgments (`lmmreview imports`). Everything is read first, then written in one
    transaction: on an error nothing of the run is imported. Datasets lmmreview has no
    reader for are listed as left out.
    """
    from lmmreview.db.importers import ImportFailure
    from lmmreview.db.importers.vlmevalkit_run import plan_run

    with clear_errors(db):
        plan = plan_run(folder)
        try:
            loaded = _read_and_load(db, plan, replace)
        except ImportFailure as exc:
            message = f"{exc.message}; nothing of the run was imported (all or nothing)"
            raise ImportFailure(exc.file, message, exc.where) from None
    _said(db, loaded, plan.left_out, plan.warnings)
    datasets = sorted({s.dataset for s in loaded.summaries})
    say(f"{folder}: {len(loaded.summaries)} files of {len(datasets)} datasets imported")


def _read_and_load(db: Path, plan: Plan, replace: bool) -> Loaded:
    """Every file read (a progress line names the dataset), then all written at once."""
    from lmmreview.db.importers.read import reporting
    from lmmreview.db.importers.vlmevalkit_run import load_run, settle
    from lmmreview.engine.registry import shipped

    commands = {c: (b, i) for b in shipped().values() for c, i in b.importers().items()}
    batches = []
    with status_line("Reading the run's files") as report, reporting(report):
        for number, planned in enumerate(plan.imports, start=1):
            report(f"Reading {planned.dataset} ({number} of {len(plan.imports)})")
            benchmark, importer = commands[planned.command]
            values = dict(planned.request.values)
            batch = read_import(benchmark, importer, planned.request, values, replace=replace)
            settle(batch, planned)
            batches.append(batch)
    with status_line(f"Writing to {db}") as report:
        return load_run(db, batches, report)


def _said(db: Path, loaded: Loaded, left_out: list[str], warnings: list[str]) -> None:
    """Each import's summary, then what was left out, then the plan's warnings."""
    for summary in loaded.summaries:
        report_import(db, summary)
    for line in left_out + loaded.left_out:
        say(f"left out: {line}", style="yellow", console=err)
    for warning in warnings:
        say(f"warning: {warning}", style="yellow", console=err)
