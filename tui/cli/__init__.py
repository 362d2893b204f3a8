"""The `lmmreview` command line. Every command takes the database file first.

Start-up matters (`lmmreview --help` and `--version` within 0.2 s, `lmmreview export` at a
million answers in seconds), so this module and the command modules it registers import
only what the command line needs to list and parse the commands (typer, Rich's console,
the options): no store, no rules, no benchmark. Each command imports its own machinery
(the store, the tables, the screen and Textual, the judge's client, the importers and
Pillow, the demo, the batches) in its body, and `export` or `report` load none of the
screen's, the judge's or the importers'. tests/test_startup.py keeps it so.
"""

from __future__ import annotations

import gc
import importlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.engine.defaults import DISAGREEMENT, SPREAD
from lmmreview.engine.hooks import on_problem, try_first, watch_calls
from lmmreview.tui.cli.imports import import_group
from lmmreview.tui.cli.judge import judge
from lmmreview.tui.cli.judges import judges
from lmmreview.tui.cli.merge import merge_command, reviewers_command
from lmmreview.tui.cli.plugin_trial import trial
from lmmreview.tui.crash import run_guarded, run_screen
from lmmreview.tui.imports_cli import imports_command
from lmmreview.tui.options import (
    IMAGE_RENDERERS,
    MAX_RUNS,
    DatasetOpt,
    DatasetsOpt,
    DbArg,
    JudgeOpt,
    JudgeUrlOpt,
    ZeroOpt,
    given_path,
)
from lmmreview.tui.output import (
    clear_errors,
    deliver,
    err,
    fail,
    out,
    require_terminal,
    say,
    status_line,
)
from lmmreview.tui.plugin_watch import watched
from lmmreview.tui.safe_text import safe

if TYPE_CHECKING:
    from lmmreview.db.importers import ImportBatch, ImportSummary
    from lmmreview.engine.checks import Expected
    from lmmreview.engine.export import Notes
    from lmmreview.engine.scoring import Judge
    from lmmreview.engine.tables import Table
    from lmmreview.tui.settings import Settings

Images = StrEnum("Images", {name: name for name in IMAGE_RENDERERS})  # type: ignore[misc]


class Format(StrEnum):
    md = "md"
    csv = "csv"
    json = "json"
    latex = "latex"
    mmvet_csv = "mmvet-csv"
    mmvet_grades = "mmvet-grades"
    mmbench_submission = "mmbench-submission"
    mmmu_submission = "mmmu-submission"


app = typer.Typer(
    help="Audit and grade large multimodal model answers (MM-Vet, MMBench, MMMU) "
    "stored in one SQLite file.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # subcommands inherit it
    pretty_exceptions_show_locals=False,  # a local may hold the API key
)


# A plug-in that cannot load is one warning line, whichever command loaded it.
on_problem(lambda problem: say(f"warning: {problem}", style="yellow", console=err))
try_first(trial)  # one that would end or hang the process is found elsewhere first
watch_calls(watched)  # what one writes to the terminal itself is captured; a slow one told


def main(args: list[str] | None = None) -> None:
    """The `lmmreview` script and `python -m lmmreview`: every command, with its errors
    ending in one line (an unexpected one names its crash log)."""
    run_guarded(app, args)


def _print_version(wanted: bool) -> None:
    if wanted:
        from lmmreview import __version__

        say(f"lmmreview {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Options before the command."""


def _import(db: Path, read: Callable[[], ImportBatch]) -> None:
    """Read (no database yet), then load in one transaction, then report.

    A failed import leaves the database as it was, and creates none.
    """
    from lmmreview.db.importers import import_batch
    from lmmreview.db.importers.read import reporting
    from lmmreview.engine.scoring import Judge

    with clear_errors(db):
        with status_line("Reading input files") as report, reporting(report):
            batch = read()
        with status_line(f"Writing to {db}"):
            summary = import_batch(db, batch)
    _report(db, summary)
    if batch.checks:
        first = batch.judgments[0].judgment if batch.judgments else None
        judge = Judge.of(first.kind, first.judge_model, first.prompt_version) if first else None
        _check(db, batch.dataset, batch.checks, judge)


def _report(db: Path, summary: ImportSummary) -> None:
    answers = ", ".join(f"{m} {n} new" for m, n in summary.answers_added.items())
    judged = [
        f"{n} {what}"
        for n, what in (
            (summary.judgments_added, "imported judgments"),
            (summary.group_verdicts_added, "imported circular verdicts"),
            (summary.verdicts_added, "human verdicts read back"),
        )
        if n
    ]
    say(
        f"{db}: dataset {summary.dataset}: {summary.samples_total} samples "
        f"({summary.samples_added} new), {summary.images_added} new images"
        + (f"; answers: {answers}" if answers else "")
        + (f"; {', '.join(judged)}" if judged else "")
        + (f" as import {summary.import_id}" if summary.import_id else "")
    )
    for replaced in summary.replaced:
        say(f"{db}: import {replaced} removed (--replace)")
    if summary.already_imported:
        say(
            f"{db}: these judgments are already there as import {summary.already_imported}: "
            "nothing to add"
        )
    for warning in summary.warnings:
        say(f"warning: {warning}", style="yellow", console=err)


def _check(db: Path, dataset: str, expected: list[Expected], judge: Judge | None) -> None:
    """Compare the tables of the imported judge with the numbers of the --check files, cell
    by cell, counting unscored answers as 0 as the official grader does. The import is
    kept; the exit code is 1 when a number differs."""
    from lmmreview.engine.checks import compare

    name = judge.full_label if judge else None
    tables, _ = _tables(db, [dataset], unscored_as_zero=True, judge_name=name)
    differences = compare(expected, dataset, tables)
    for file in dict.fromkeys(e.file for e in expected):
        total = sum(e.file == file for e in expected)
        wrong = [d for d in differences if d.expected.file == file]
        if not wrong:
            say(f"check {file}: all {total} numbers equal at the file's rounding")
            continue
        say(f"check {file}: {len(wrong)} of {total} numbers differ:", style="red")
        for difference in wrong:
            say(f"  {difference.sentence()}", style="red")
    if differences:
        raise typer.Exit(1)


app.add_typer(
    import_group(_import, help="Import a benchmark's questions and model answers."),
    name="import",
)


@app.command("benchmarks")
def list_benchmarks(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the installed benchmarks, plug-ins included.

    A plug-in is a package that declares a benchmark under the entry-point group
    "lmmreview.benchmarks"; one that cannot be loaded is listed with the reason.
    """
    from rich.table import Table as RichTable
    from rich.text import Text

    from lmmreview.engine.registry import benchmarks, origin, problems

    installed = benchmarks()
    if as_json:
        document = {
            "benchmarks": [
                {"name": n, "title": b.title, "from": origin(n), "import": list(b.importers())}
                for n, b in installed.items()
            ],
            "problems": list(problems()),
        }
        out.print_json(json.dumps(document), ensure_ascii=True)
        return
    table = RichTable(box=None)
    for column in ("name", "title", "from", "lmmreview import"):
        table.add_column(column, overflow="fold")
    for name, b in installed.items():
        commands = Text("\n").join(safe(c, one_line=True) for c in b.importers()) or "-"
        table.add_row(*(safe(v, one_line=True) for v in (name, b.title, origin(name))), commands)
    out.print(table)  # the problems were warned of as the plug-ins loaded


@app.command()
def info(
    db: DbArg,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    judge_name: JudgeOpt = None,
) -> None:
    """Counts per dataset and model: answers, judged, reviewed.

    Per dataset: samples, images and the judge counted; per model: answers, judged (by that
    judge), reviewed, unscored, offline (scored by the offline rules).
    """
    from dataclasses import asdict

    from rich.table import Table as RichTable

    from lmmreview.db import Store
    from lmmreview.db.batches import batches_in_flight, in_flight_lines
    from lmmreview.tui.settings import for_command

    preferred = for_command(uses=["review.judge"]).shown_judge
    with clear_errors(db), Store.open(db, create=False) as store:
        counts = store.counts(judge_name, preferred)
        version = store.schema_version
        flying = batches_in_flight(store)
    if as_json:
        document = {
            "database": str(db),
            "schema_version": version,
            "datasets": [asdict(c) for c in counts],
            "batches_in_flight": [asdict(b) for b in flying],
        }
        out.print_json(json.dumps(document), ensure_ascii=True)  # no raw control reaches it
        return
    if not counts:
        say(f"{db}: no datasets yet (see lmmreview import --help)")
    for dataset in counts:
        title = (
            f"{dataset.name} ({dataset.kind}): {dataset.samples} samples, {dataset.images} "
            f"images; judge {dataset.judge or 'none yet'}"
        )
        table = RichTable(
            title=safe(title, one_line=True), title_justify="left", title_style="bold"
        )
        table.add_column("model", overflow="fold")
        counted = ("answers", "judged", "reviewed", "unscored", "offline")
        for name in counted:
            table.add_column(name, justify="right")
        for model in dataset.models:
            table.add_row(
                safe(model.model, one_line=True), *(str(getattr(model, n)) for n in counted)
            )
        out.print(table)
    for line in in_flight_lines(flying):
        say(line)


@app.command()
def score(
    db: DbArg,
    dataset: DatasetsOpt = None,
) -> None:
    """Score by the offline rules every answer not judged yet.

    MMMU: rule-based parsing (the official method). MMBench and multiple choice: option
    matching, then a seeded random fallback (marked). MM-Vet and open answers: a grader for
    short ground truths; long answers are left for a human or an LLM judge. Then says
    where the rules' scores stand, counted as `info --judge "offline rules"` counts them.
    """
    from lmmreview.db import Store
    from lmmreview.db.scoring import score_offline

    status = err.status("Scoring by the offline rules")
    with clear_errors(db), Store.open(db, create=False) as store, status:
        store.require_datasets(dataset or [])
        runs = list(score_offline(store, dataset))
    for run in runs:
        say(run.summary())


def _tables(
    db: Path, datasets: list[str] | None, unscored_as_zero: bool, judge_name: str | None = None
) -> tuple[list[Table], list[Notes]]:
    """Each dataset's tables and notes, by the judge `judge_name` names (else the one the
    settings name, else the default)."""
    from lmmreview.db import Store
    from lmmreview.db.scoring import tables_and_notes
    from lmmreview.tui.settings import for_command

    settings = for_command(uses=["review.judge"])
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        return tables_and_notes(
            store, datasets or None, unscored_as_zero, judge_name, settings.shown_judge,
            settings.causes,
        )  # fmt: skip


app.command()(judge)
app.command("merge")(merge_command)
app.command("reviewers")(reviewers_command)
app.command("imports")(imports_command)
app.command()(judges)


@app.command()
def report(
    db: DbArg,
    dataset: DatasetsOpt = None,
    unscored_as_zero: ZeroOpt = False,
    judge_name: JudgeOpt = None,
) -> None:
    """Print the breakdown tables in the terminal."""
    from lmmreview.tui.cli.rich_tables import render

    tables, notes = _tables(db, dataset, unscored_as_zero, judge_name)
    out.print(render(tables, notes))


@app.command()
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
    tables, notes = _tables(db, dataset, unscored_as_zero, judge_name)
    text = RENDERERS[format.value](tables, notes)
    deliver(text, output, db)


@app.command("open")
def open_db(
    db: DbArg,
    reviewer: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Your name in the review history (default: the settings, else your user name).",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetOpt = None,
    judge_model: Annotated[
        str | None,
        typer.Option(
            metavar="MODEL",
            help="The LLM judge for runs started from the screen (J).",
            show_default=False,
        ),
    ] = None,
    judge_runs: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_RUNS,
            metavar="N",
            help="Runs per open answer for runs started from the screen.",
            show_default=False,
        ),
    ] = None,
    judge_base_url: JudgeUrlOpt = None,  # for runs started from the screen
    disagreement: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="X",
            help="The disagreement filter (v) shows reviewed answers whose |judge - human| "
            f"is above this (default: {DISAGREEMENT:g}).",
            show_default=False,
        ),
    ] = None,
    spread: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=0.5,
            metavar="X",
            help="The variance filter (v) shows answers whose judge runs' std is above this "
            f"(default: {SPREAD:g}).",
            show_default=False,
        ),
    ] = None,
    images: Annotated[
        Images | None,
        typer.Option(
            help="How images are drawn: auto (detected), tgp, sixel, halfcell, unicode, or off "
            "(the README says which terminals show real pixels).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Review and grade answers in the terminal, with live tables."""
    if reviewer is not None and not reviewer.strip():  # `merge` would refuse its verdicts
        raise fail(
            f"--reviewer: {reviewer!r} is empty: give a name, or leave --reviewer out "
            "to take the settings' or your user name"
        )
    from lmmreview.db import Store
    from lmmreview.tui.settings import for_command

    require_terminal()  # checked before the file is touched
    settings = for_command(
        reviewer=reviewer,
        judge_model=judge_model,
        judge_runs=judge_runs,
        judge_base_url=judge_base_url,
        disagreement=disagreement,
        spread=spread,
        images=images.value if images else None,
    )
    with clear_errors(db), Store.open(db, create=False) as store:
        # fail here, with one line, rather than inside the screen
        store.require_datasets([dataset] if dataset is not None else [])
    with _loaded_for_good():
        _import_meanwhile("textual_image.renderable")
        from lmmreview.tui.allocator import give_back_large_buffers
        from lmmreview.tui.app import review_app

    _check_screen(settings)
    give_back_large_buffers()  # the screen is held open: its peak memory counts
    screen = review_app(db, settings, dataset)
    run_screen(screen)  # an unexpected error is raised here, for the crash log
    if screen.failure is not None:  # it stopped itself, and says why
        raise fail(screen.failure)
    if screen.signalled is not None:  # ended by SIGTERM or SIGHUP: the shell's exit code
        raise typer.Exit(128 + screen.signalled)


@app.command()
def demo(
    db: Annotated[
        Path, typer.Argument(metavar="DB", help="Where to build it.", parser=given_path)
    ] = Path("lmmreview-demo.db"),
    no_open: Annotated[bool, typer.Option("--no-open", help="Build only; do not open.")] = False,
    data: Annotated[
        Path | None,
        typer.Option(
            metavar="FOLDER",
            help="A sample data folder laid out like sample_data/ "
            "(default: the one installed with lmmreview).",
            parser=given_path,
        ),
    ] = None,
) -> None:
    """Build a demo database from the sample data and open it."""
    from lmmreview.db.demo import build_demo, demo_batches, installed_demo_batches

    with clear_errors(db):
        with err.status("Reading the sample data"):
            batches = demo_batches(data) if data else installed_demo_batches()
        with err.status("Building the demo database"):
            summaries = build_demo(db, batches)
    added = sum(n for s in summaries for n in s.answers_added.values())
    say(f"{db}: demo database ready ({added} answers added)")
    info(db)
    if not no_open:
        open_db(db, dataset="mmvet")


@contextmanager
def _loaded_for_good() -> Iterator[None]:
    """Around loading the screen's modules (Textual, numpy, the store, the screen): what
    they make lives as long as the process, so the garbage collector does not pass over it
    again and again as it loads, and is then told to leave it aside for good. Those passes
    took a fifth of the time to the first screen."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _import_meanwhile(module: str) -> None:
    """Import `module` in a thread of its own. For textual-image's renderers: as they are
    imported they ask the terminal which image protocols it speaks, and wait up to 0.1 s
    for each answer, which a terminal without them never sends; meanwhile the screen's
    other modules load. What fails there fails again, and is told, where the screen
    imports it."""

    def load() -> None:
        with suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=load, name=f"import {module}", daemon=True).start()


def _check_screen(settings: Settings) -> None:
    """A keymap id or theme the review screen lacks ends the command, naming the file and
    the key. Imports the screen: call it where Textual may load."""
    from textual.theme import BUILTIN_THEMES

    from lmmreview.tui.app import binding_ids
    from lmmreview.tui.settings import SettingsError

    try:
        settings.check_screen(binding_ids(), BUILTIN_THEMES)
    except SettingsError as exc:
        raise fail(str(exc)) from None


@app.command("config")
def show_config(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Print the effective settings and where each came from.

    Sources: default, file (the settings file named on top), environment, flag.
    """
    from rich.table import Table as RichTable

    from lmmreview.tui.settings import for_command

    settings = for_command()
    _check_screen(settings)
    rows = settings.rows()
    if as_json:
        document = {
            "path": str(settings.path),
            "exists": settings.path.exists(),
            "settings": {key: {"value": value, "source": source} for key, value, source in rows},
        }
        out.print_json(json.dumps(document), ensure_ascii=True)
        return
    state = "" if settings.path.exists() else " (absent: every value is a default)"
    table = RichTable(
        title=safe(f"{settings.path}{state}", one_line=True), title_justify="left", box=None
    )
    for name in ("setting", "value", "source"):
        table.add_column(name, overflow="fold")
    for key, value, source in rows:
        shown = "(none)" if value is None else str(value)
        table.add_row(safe(key, one_line=True), safe(shown, one_line=True), source)
    out.print(table)
