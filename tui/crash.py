"""How the command line ends: user errors in one line, unexpected errors in one line plus a
crash log (the traceback, without local variables or keys) in the user's state directory."""

from __future__ import annotations

import io
import os
import platform
import re
import sys
import threading
import traceback
from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

from lmmreview.engine.secrets import redact
from lmmreview.tui.output import fail

if TYPE_CHECKING:  # Textual loads only for the screen
    from textual.app import App

PROG_NAME = "lmmreview"
DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"  # what `judge` and the review screen read
KEY_OPTION = "--api-key-env"  # `judge` reads the key from the variable this names
# Other variables that may hold a credential (a proxy token, another provider's key).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


def run_guarded(app: typer.Typer, args: Sequence[str] | None = None) -> None:
    """Run the command line and exit: usage errors and interrupts in one line with exit
    code 1, an unexpected error in one line naming the crash log."""
    try:
        _run(app, list(sys.argv[1:] if args is None else args))
    except SystemExit as done:
        if _plugins_ran():
            _leave(done.code)
        raise
    except KeyboardInterrupt:  # the user's Ctrl-C, as Python would end on it
        if _plugins_ran():
            _leave(130)
        raise


def _plugins_ran() -> bool:
    """Whether this process ran the plug-ins' code; asked of the registry only if it was
    loaded (importing it to ask would load the benchmarks for `--help` and `--version`)."""
    registry = sys.modules.get("lmmreview.engine.registry")
    return registry is not None and bool(registry.plugins_loaded())


def _leave(code: object) -> None:
    """End the process now with the command's exit code if a thread that is not a daemon
    still runs (one a plug-in started would keep Python waiting for it forever), after
    writing out what the command printed."""
    main = threading.main_thread()
    if not any(t is not main and not t.daemon for t in threading.enumerate()):
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe or stream: nothing to write
            stream.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def _user_error() -> Any:
    """Typer 0.2x carries its own click, whose errors derive from typer.TyperException;
    older Typer raises click's own. Any: both have format_message(), usage errors a ctx."""
    if hasattr(typer, "TyperException"):
        return typer.TyperException
    import click  # only for the older Typer: importing it costs start-up time

    return click.ClickException


def _run(app: typer.Typer, args: list[str]) -> None:
    try:
        code = app(args, prog_name=PROG_NAME, standalone_mode=False)
    except _user_error() as exc:  # a missing argument, an unknown option, a bad URL
        context = getattr(exc, "ctx", None)  # usage errors know their command
        if type(exc).__name__ == "NoArgsIsHelpError":  # `lmmreview`, `lmmreview import`
            typer.echo(exc.format_message())  # the help, as click before 8.2 showed it
            sys.exit(0)
        where = context.command_path if context else PROG_NAME
        _end(f"{where}: {exc.format_message()} (-h for help)")
    except typer.Abort:  # end of input at a prompt
        _end("interrupted")
    except Exception as exc:
        from lmmreview.engine.guarded import PluginFailure  # loaded if a plug-in ran

        if isinstance(exc, PluginFailure):  # its message may quote a key, as a crash's may
            _end(redact(str(exc), secrets_in_environment(args)))
        registry = sys.modules.get("lmmreview.engine.registry")  # loaded if it was asked
        if registry is not None and isinstance(exc, registry.StaleInstall):
            _end(str(exc))  # not a bug: its message names the fix
        _end(_crash_line(exc, app, args))
    sys.exit(code if isinstance(code, int) else 0)  # click returns Exit's code, or None


def _end(message: str) -> NoReturn:
    """Print `message` as the one error line and exit with code 1."""
    sys.exit(fail(message).exit_code)


def _crash_line(exc: BaseException, app: typer.Typer, args: list[str]) -> str:
    """The one line an unexpected error ends with: the command, the error, the log."""
    secrets = secrets_in_environment(args)
    command = " ".join(command_path(app, args))
    what = redact(f"{type(exc).__name__}: {exc}", secrets)
    try:
        log = write_crash_log(exc, args, secrets)
    except OSError as error:  # a read-only home: the line still says what failed
        return f"{command} failed unexpectedly ({what}); no crash log ({error.strerror})"
    return f"{command} failed unexpectedly ({what}); the full report is in {log}"


def command_path(app: typer.Typer, args: Sequence[str]) -> list[str]:
    """`lmmreview` and the (sub)command names `args` start with, e.g. lmmreview import jsonl."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    path = [PROG_NAME]
    for word in args:
        if word not in commands:
            break
        path.append(word)
        commands = getattr(commands[word], "commands", {})  # a group has subcommands
    return path


def secrets_in_environment(args: Sequence[str]) -> list[str]:
    """Values of the variables a judge key may come from: OPENAI_API_KEY, the variable
    `--api-key-env` or the settings file names, and any whose name says it holds a
    credential."""
    named = {DEFAULT_KEY_VARIABLE, *_key_options(args), *_key_setting()}
    return [
        value for name, value in os.environ.items() if name in named or SECRET_NAME.search(name)
    ]


def _key_setting() -> list[str]:
    """The key variable the settings file names, if the file can be read (a crash may come
    from reading it)."""
    from lmmreview.tui.settings import load as load_settings

    try:
        return [load_settings().judge_api_key_env]
    except Exception:  # whatever failed there, the crash report must still be written
        return []


def _key_options(args: Sequence[str]) -> list[str]:
    """The variable names given to --api-key-env, as `--api-key-env X` or `--api-key-env=X`."""
    names = [value for option, value in pairwise(args) if option == KEY_OPTION]
    names += [arg.partition("=")[2] for arg in args if arg.startswith(KEY_OPTION + "=")]
    return names


def write_crash_log(exc: BaseException, args: Sequence[str], secrets: Sequence[str]) -> Path:
    """Write the report of `exc` to a new crash-YYYYmmdd-HHMMSS.log in the user's state
    directory (only the user may read it), keys redacted; returns its path."""
    import platformdirs

    from lmmreview import __version__

    report = "\n".join(
        [
            f"{PROG_NAME} {__version__} on Python {platform.python_version()} "
            f"({platform.platform()})",
            "command: " + " ".join([PROG_NAME, *args]),
            "",
            "".join(traceback.format_exception(exc)),  # no local variables, by design
        ]
    )
    directory = platformdirs.user_state_path(PROG_NAME, appauthor=False)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    attempt = 1
    while True:  # two crashes in one second get -2, -3, ...
        path = directory / f"crash-{stamp}{f'-{attempt}' if attempt > 1 else ''}.log"
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            attempt += 1
            continue
        with open(handle, "w", encoding="utf-8") as log:
            log.write(redact(report, secrets))
        return path


def run_screen(screen: App[Any]) -> None:
    """Run a Textual app; an unexpected error in it is raised here, for the crash log.

    Textual prints its own traceback, with local variables (a key among them, maybe), to
    its error console: that goes nowhere instead."""
    from lmmreview.tui.plugin_watch import screen_on_terminal

    screen.error_console = Console(file=io.StringIO())
    with screen_on_terminal():  # plug-in calls leave the screen's descriptors alone
        screen.run()
    # Textual keeps the first unhandled error only in a private attribute: it offers no
    # public way to get it (Textualize/textual#4278 asks for one); `return_code` is public.
    if screen.return_code == 1 and screen._exception is not None:
        raise screen._exception
