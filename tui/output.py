"""The terminal streams of the command line, and how a command fails."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.text import Text

from db import StoreError
from db.importers import ImportFailure
from engine.llm import JudgeUnavailable

# soft_wrap: a message stays one line, however narrow the terminal.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Print one line on stderr; the caller raises what this returns (exit code 1)."""
    err.print(Text(f"error: {message}", style="red"))
    return typer.Exit(1)


@contextmanager
def clear_errors() -> Iterator[None]:
    """Bad input ends the command with one line on stderr and exit code 1."""
    try:
        yield
    except (ImportFailure, StoreError, FileNotFoundError, JudgeUnavailable) as exc:
        raise fail(str(exc)) from None
