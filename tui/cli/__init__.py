"""The `lmmreview` command line: the typer app, the options before the command, and the
commands, one module per group (imports, info, score, judge, judges, reconcile, merge, report,
export, screen for `open` and `demo`, config). Every command takes the database file first.

Start-up matters (`lmmreview --help` and `--version` within 0.2 s, `lmmreview export` at a
million answers in seconds), so this package and the command modules it registers import
only what the command line needs to list and parse the commands (typer, Rich's console,
the options): no store, no rules, no benchmark. Each command imports its own machinery
(the store, the tables, the screen and Textual, the judge's client, the importers and
Pillow, the demo, the batches) in its body, and `export` or `report` load none of the
screen's, the judge's or the importers'. tests/test_startup.py keeps it so.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lmmreview.engine.hooks import on_problem, try_first, watch_calls
from lmmreview.tui.cli import (
    assign,
    config,
    errata,
    export,
    figure,
    import_run,
    imports,
    info,
    judge,
    judges,
    merge,
    reconcile,
    report,
    score,
    screen,
    versus,
)
from lmmreview.tui.cli.plugin_trial import trial
from lmmreview.tui.crash import run_guarded
from lmmreview.tui.output import err, say
from lmmreview.tui.plugin_watch import watched

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


import_app = imports.import_group()
import_app.command("vlmevalkit")(import_run.import_vlmevalkit)  # a whole run, many benchmarks
app.add_typer(import_app, name="import")
app.command("benchmarks")(info.list_benchmarks)
app.command()(info.info)
app.command()(score.score)
app.command()(judge.judge)
app.command("assign")(assign.assign_command)
app.command("merge")(merge.merge_command)
app.command("reviewers")(merge.reviewers_command)
app.command("errata")(errata.errata_command)
app.command("imports")(imports.imports_command)
app.command()(judges.judges)
app.command()(reconcile.reconcile)
app.command()(report.report)
app.command()(figure.figure)
app.command()(versus.versus)
app.command(cls=export.ExportCommand)(export.export)
app.command("open")(screen.open_db)
app.command()(screen.demo)
app.command("config")(config.show_config)
