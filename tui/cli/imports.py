"""`lmmreview import NAME`: one command per installed benchmark that has an importer,
made from what its `Importer` declares, so a plug-in's files import like the built-ins'.
The commands are made when the group is looked into, not when it is defined: `lmmreview
--help` loads no benchmark. The plug-ins' commands are made only when one is asked for or
the commands are listed: `lmmreview import mmvet` loads no plug-in."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from lmmreview.tui.options import DatasetOpt, NewDbArg, given_path

if TYPE_CHECKING:  # the importers load when an import command runs (see tui/cli/__init__.py)
    from lmmreview.db.importers import ImportBatch, ImportRequest
    from lmmreview.engine.benchmark import Benchmark, Importer, Option

_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD
ImportRun = Callable[[Path, Callable[[], "ImportBatch"]], None]  # db, read -> load and report


def import_group(run: ImportRun, help: str) -> typer.Typer:
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
            _add_commands(extra, installed, run)
            for name, command in typer.main.get_group(extra).commands.items():
                self.commands.setdefault(name, command)  # the built-ins keep their names

    return typer.Typer(cls=Group, help=help, no_args_is_help=True)


def _add_commands(group: typer.Typer, installed: Iterable[Benchmark], run: ImportRun) -> None:
    """Add an import command to `group` for each importer of each benchmark."""
    for benchmark in installed:
        for command, importer in benchmark.importers().items():
            group.command(
                command,
                help=importer.help,
                short_help=importer.help.split("\n")[0],
            )(_command(benchmark, command, importer, run))


def _command(
    benchmark: Benchmark, name: str, importer: Importer, run: ImportRun
) -> Callable[..., None]:
    """A function whose signature typer reads: DB, the importer's argument and options,
    then --dataset."""

    def command(**values: Any) -> None:
        from lmmreview.db.importers import ImportRequest

        db, dataset = values.pop("db"), values.pop("dataset")
        replace = bool(values.pop("replace", False))
        request = ImportRequest(values, dataset)
        run(db, lambda: _read(benchmark, importer, request, values, replace=replace))

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


def _read(
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

    _refuse_blank_names(importer, values)
    batch = plugin_call(
        benchmark,
        f"reader {importer.reader}",
        lambda: reader_of(importer)(request),
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


def _refuse_blank_names(importer: Importer, values: dict[str, Any]) -> None:
    """A name option (--model, --judge) given as "" or spaces would silently fall back to
    the name taken from the file: refuse it instead."""
    from lmmreview.db.importers import ImportFailure

    for option in (o for o in importer.options if o.text):
        given = values.get(option.name)
        for text in given if isinstance(given, list) else [given]:
            if isinstance(text, str) and not text.strip():
                flag = f"--{option.name.replace('_', '-')}"
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
