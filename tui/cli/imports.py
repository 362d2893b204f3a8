"""`lmmreview import NAME` and `lmmreview imports`.

`import`: one command per installed benchmark that has an importer, made from what its
`Importer` declares, so a plug-in's files import like the built-ins'. The commands are
made when the group is looked into, not when it is defined: `lmmreview --help` loads no
benchmark. The plug-ins' commands are made only when one is asked for or the commands are
listed: importing a built-in benchmark's files loads no plug-in. `imports`: the recorded imports of
other tools' judgments, listed or removed."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from lmmreview.tui.cli.report import read_tables
from lmmreview.tui.options import DatasetOpt, DbArg, JsonOpt, NewDbArg, given_path
from lmmreview.tui.output import clear_errors, err, out, say, status_line
from lmmreview.tui.safe_text import safe

if TYPE_CHECKING:  # the importers load when an import command runs (see tui/cli/__init__.py)
    from lmmreview.db.importers import ImportBatch, ImportRequest, ImportSummary
    from lmmreview.engine.benchmark import Benchmark, Importer, Option
    from lmmreview.engine.checks import Expected
    from lmmreview.engine.scoring import Judge

_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD


def import_group() -> typer.Typer:
    """The `import` group: lmmreview's own import commands, and the plug-ins' once a
    command that is not lmmreview's is asked for, or the commands are listed (its help)."""

    class Group(TyperGroup):
        shipped_added = False
        plugins_added = False

        # Any: Typer 0.2x carries its own click, older Typer uses click's (see tui/crash.py)
        @property
        def commands(self) -> MutableMapping[str, Any]:
            """lmmreview's own import commands, made the first time they are looked at."""
            if not self.shipped_added:
                from lmmreview.engine.registry import shipped

                self.shipped_added = True
                self._add(shipped().values())
            return self._commands

        @commands.setter
        def commands(self, value: MutableMapping[str, Any]) -> None:
            self._commands = value  # the (empty) commands click's own __init__ sets

        def get_command(self, ctx: Any, name: str) -> Any:
            if name not in self.commands:
                self._add_plugins()
            return super().get_command(ctx, name)

        def list_commands(self, ctx: Any) -> list[str]:
            self._add_plugins()
            return super().list_commands(ctx)

        def _add_plugins(self) -> None:
            if self.plugins_added:
                return
            from lmmreview.engine.registry import plugins

            self.plugins_added = True
            self._add(plugins().values())

        def _add(self, installed: Iterable[Benchmark]) -> None:
            extra = typer.Typer(rich_markup_mode=self.rich_markup_mode)  # help as the group's
            _add_commands(extra, installed)
            for name, command in typer.main.get_group(extra).commands.items():
                self.commands.setdefault(name, command)  # the built-ins keep their names

    return typer.Typer(
        cls=Group, help="Import a benchmark's questions and model answers.", no_args_is_help=True
    )


def _add_commands(group: typer.Typer, installed: Iterable[Benchmark]) -> None:
    """Add an import command to `group` for each importer of each benchmark."""
    for benchmark in installed:
        for command, importer in benchmark.importers().items():
            group.command(
                command,
                help=importer.help,
                short_help=importer.help.split("\n")[0],
            )(_command(benchmark, command, importer))


def _command(benchmark: Benchmark, name: str, importer: Importer) -> Callable[..., None]:
    """A function whose signature typer reads: DB, the importer's argument and options,
    then --dataset."""

    def command(**values: Any) -> None:
        from lmmreview.db.importers import ImportRequest

        db, dataset = values.pop("db"), values.pop("dataset")
        replace = bool(values.pop("replace", False))
        request = ImportRequest(values, dataset)
        _load(db, lambda: read_import(benchmark, importer, request, values, replace=replace))

    parameters = [
        inspect.Parameter("db", _KEYWORD, annotation=NewDbArg),
        _parameter(importer.argument, argument=True),
        *(_parameter(option, argument=False) for option in importer.options),
        inspect.Parameter("dataset", _KEYWORD, default=None, annotation=DatasetOpt),
    ]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = f"import_{name.replace('-', '_')}"
    return command


def read_import(
    benchmark: Benchmark,
    importer: Importer,
    request: ImportRequest,
    values: dict[str, Any],
    *,
    replace: bool,
) -> ImportBatch:
    """The importer's batch, with --replace, and its judgments under --judge's name (a
    reader that reads --judge itself gets the same name again). A plug-in's reader runs
    guarded: its ImportFailure is bad input, anything else its failure."""
    from lmmreview.db.importers import ImportBatch, ImportFailure, reader_of
    from lmmreview.db.importers.batch import contents_problem
    from lmmreview.engine.guarded import plugin_call
    from lmmreview.engine.registry import origin

    _refuse_blank_names(importer, values, request.dataset)
    batch = plugin_call(
        benchmark,
        f"reader {importer.reader}",
        lambda: reader_of(importer, origin(benchmark.name))(request),
        lambda found: (
            contents_problem(found)
            if isinstance(found, ImportBatch)
            else f"returned {type(found).__name__}, not an ImportBatch"
        ),
        allowed=(ImportFailure,),
    )
    batch.replace = replace
    judge = request.text("judge")
    if judge is not None:
        batch.name_judge(judge)
    return batch


def _refuse_blank_names(importer: Importer, values: dict[str, Any], dataset: str | None) -> None:
    """A name option (--model, --judge, --dataset) given as "" or spaces would silently
    fall back to the name taken from the file: refuse it instead."""
    from lmmreview.db.importers import ImportFailure

    named = [(o.name, values.get(o.name)) for o in importer.options if o.text]
    for name, given in [*named, ("dataset", dataset)]:
        for text in given if isinstance(given, list) else [given]:
            if isinstance(text, str) and not text.strip():
                flag = f"--{name.replace('_', '-')}"
                raise ImportFailure(
                    flag,
                    f"{text!r} is empty: give a name, or leave {flag} out to take it from the file",
                )


def _parameter(option: Option, *, argument: bool) -> inspect.Parameter:
    """One typer parameter: a path (or a name), repeatable or not, optional unless required;
    or a flag, off unless given."""
    if option.flag:
        flag: Any = typer.Option(f"--{option.name}", help=option.help)
        return inspect.Parameter(
            option.name, _KEYWORD, default=False, annotation=Annotated[bool, flag]
        )
    kind: Any = str if option.text else Path
    if option.many:
        kind = list[kind]
    parameter: Any = typer.Argument if argument else typer.Option
    info = parameter(
        metavar=option.metavar,
        help=option.help,
        show_default=False,
        parser=None if option.text else given_path,
    )
    required = argument and option.required
    return inspect.Parameter(
        option.name,
        _KEYWORD,
        default=inspect.Parameter.empty if required else None,
        annotation=Annotated[kind if required else kind | None, info],
    )


def _load(db: Path, read: Callable[[], ImportBatch]) -> None:
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
    report_import(db, summary)
    if batch.checks:
        first = batch.judgments[0].judgment if batch.judgments else None
        judge = Judge.of(first.kind, first.judge_model, first.prompt_version) if first else None
        _check(db, batch.dataset, batch.checks, judge)


def report_import(db: Path, summary: ImportSummary) -> None:
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
    tables, _ = read_tables(db, [dataset], unscored_as_zero=True, judge_name=name)
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


_COLUMNS = ("id", "dataset", "judge", "runs", "answers", "imported (UTC)", "file")


def imports_command(
    db: DbArg,
    as_json: JsonOpt = False,
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

    Each import that brings judgments (a grader's grade files, and the VLMEvalKit and
    lmms-eval judge files) is recorded with its file, the file's sha256, its judge and runs; its
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
    if as_json:
        out.print_json(json.dumps([asdict(i) for i in listed]), ensure_ascii=True)
        return
    if not listed:
        say(f"{db}: no imports of judgments")
        return
    table = RichTable(box=None)
    runs = any(i.run for i in listed)  # else "-" on every row
    for name in (*_COLUMNS, *(["tool run"] if runs else [])):
        numbers = name in ("runs", "answers")
        folds = name in ("dataset", "judge", "file", "tool run")  # the rest keeps one line
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
            *([safe(tool_run_line(i.run), one_line=True)] if runs else []),
        )
    out.print(table)


def tool_run_line(run: dict[str, str]) -> str:
    """What the writing tool recorded of its run, in one line: `lmms-eval 0.7.2 (judge
    gpt-4o-mini, 2026-03-01)`; "-" where it recorded nothing."""
    if not run:
        return "-"
    head = " ".join(run[k] for k in ("tool", "version") if k in run)
    more = [f"{k} {run[k]}" for k in ("commit", "judge", "date", "command") if k in run]
    return f"{head} ({', '.join(more)})" if more else head
