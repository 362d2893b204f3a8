"""The terminal streams of the command line, and how a command fails.

Every command imports this module, `--help` included: the store, the judge and Rich's live
display load in the functions that use them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.style import StyleType

from lmmreview.tui.safe_text import safe

# soft_wrap: a message stays one line, however narrow the terminal.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def say(message: str, *, style: StyleType = "", console: Console = out) -> None:
    """Print one line of a command's report. Messages name files, datasets, models and
    server replies: they are shown literally, on one line, never as markup or control."""
    console.print(safe(message, one_line=True, style=style))


@contextmanager
def status_line(first: str) -> Iterator[Callable[[str], None]]:
    """A spinner and a line of text on stderr, for the block, redrawn with each text given
    to the function yielded; on a terminal only (nothing lands in a file or pipe). The text
    names files: it is shown literally, on one line."""
    from rich.live import Live
    from rich.spinner import Spinner

    spinner = Spinner("dots", safe(first, one_line=True), style="status.spinner")
    with Live(spinner, console=err, transient=True, refresh_per_second=12.5) as live:

        def show(line: str) -> None:
            spinner.update(text=safe(line, one_line=True))
            live.refresh()  # at once: a short step would otherwise never be seen

        yield show


def fail(message: str) -> typer.Exit:
    """Print one line on stderr; the caller raises what this returns (exit code 1)."""
    say(f"error: {message}", style="red", console=err)
    return typer.Exit(1)


NO_TERMINAL = (
    "lmmreview open needs an interactive terminal (stdin, stdout and stderr); "
    "for the tables without one, use lmmreview report or lmmreview export"
)


def require_terminal() -> None:
    """End `open` in one line unless stdin, stdout and stderr are all a terminal: Textual
    reads keys from stdin and draws on stderr. With only stderr redirected, the line goes
    to the terminal on stdout too, or the reviewer would see nothing at all."""
    if sys.stderr.isatty() and sys.stdin.isatty() and sys.stdout.isatty():
        return
    if sys.stdin.isatty() and sys.stdout.isatty():  # only stderr is redirected
        message = f"{NO_TERMINAL}; stderr is redirected, and the screen is drawn there"
        say(f"error: {message}", style="red")
        raise fail(message)
    raise fail(NO_TERMINAL)


@contextmanager
def clear_errors(db: Path | None = None) -> Iterator[None]:
    """Bad input, a file that cannot be written, a busy database: the command ends with
    one line on stderr (naming the file) and exit code 1."""
    import sqlite3

    from lmmreview.db import StoreError
    from lmmreview.db.store import is_busy, is_read_only, read_only_error
    from lmmreview.engine.llm import JudgeUnavailable

    try:
        yield
    except (StoreError, JudgeUnavailable, _import_failure()) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        if exc.strerror is None:  # raised with a message of its own
            raise fail(str(exc)) from None
        where = exc.filename or db
        raise fail(f"{where}: {exc.strerror}" if where else exc.strerror) from None
    except sqlite3.DatabaseError as exc:  # read-only, busy, or damaged after it was opened
        if db is not None and is_read_only(exc):
            raise fail(str(read_only_error(db))) from None
        hint = "; another process is writing to it, try again when it is done"
        locked = is_busy(exc)
        raise fail(f"{db or 'the database'}: {exc}{hint if locked else ''}") from None


def _import_failure() -> type[Exception]:
    """The importers' bad-input error, looked up only once an error reached `clear_errors`:
    importing the importers up front would load them, and Pillow, for every command."""
    from lmmreview.db.importers import ImportFailure

    return ImportFailure


def deliver(text: str, output: Path | None, db: Path) -> None:
    """Print `text`, or write it to `output` (never over the database) and say so."""
    if output is None:
        sys.stdout.write(text)
        return
    from lmmreview.db.files import write_export

    with clear_errors():
        write_export(output, text, db)
    say(f"wrote {output}", console=err)
