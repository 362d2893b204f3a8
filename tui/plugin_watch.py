"""Plug-in code run by a command-line command (engine.guarded runs each call within
`watched`): what it writes to the terminal itself (os.write, a C library, a child
process) is captured at file descriptors 1 and 2 and told in one warning line, never
shown raw; a call that has not returned after SLOW_SECONDS is told in one line, so that
a hanging plug-in does not look like a hanging lmmreview.

File descriptors are the whole process's: only calls in the main thread are watched, and
none while a screen draws on the terminal (`screen_on_terminal`).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import IO

from rich.console import Console

from lmmreview.engine.secrets import redact
from lmmreview.tui.output import err, say

SLOW_SECONDS = 5.0  # a call still running after this is told (tests lower it)
_SHOWN_CHARS = 60  # of what a plug-in wrote, in the warning line
_READ_BYTES = 4096  # read of it: a key longer than what is shown is still redacted whole

_screen = threading.Event()  # a screen draws on the terminal: leave its descriptors alone


@dataclass
class _Call:
    """A watched call: what it is, when it started, the terminal's stderr meanwhile."""

    what: str
    started: float
    stderr: int
    told: bool = False


class _Watcher:
    """One thread for every call of the command, looking five times in SLOW_SECONDS (a
    timer thread per call would cost 0.2 ms, and offline() runs once per answer)."""

    def __init__(self) -> None:
        self._telling = threading.Lock()
        self._call: _Call | None = None
        self._thread: threading.Thread | None = None

    def begin(self, call: _Call) -> None:
        self._call = call
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="plug-in watch", daemon=True)
            self._thread.start()

    def end(self) -> None:
        """The call returned: once this returns, its stderr is no longer written to."""
        with self._telling:
            self._call = None

    def _run(self) -> None:
        while True:
            time.sleep(SLOW_SECONDS / 5)
            with self._telling:
                call = self._call
                if call and not call.told and time.monotonic() - call.started >= SLOW_SECONDS:
                    call.told = True
                    _tell_slow(call)


def _tell_slow(call: _Call) -> None:
    """One line on the terminal's stderr (descriptor 2 points at the capture meanwhile)."""
    message = f"{call.what} has not returned after {SLOW_SECONDS:g} s; Ctrl-C stops lmmreview"
    with (
        suppress(OSError),  # a closed stderr: nobody to tell
        open(call.stderr, "w", encoding="utf-8", errors="replace", closefd=False) as stream,
    ):
        terminal = Console(file=stream, highlight=False, soft_wrap=True)
        say(f"warning: {message}", style="yellow", console=terminal)


class _Capture:
    """Where descriptors 1 and 2 point while plug-in code runs: one temporary file for
    the command, emptied after each call."""

    def __init__(self) -> None:
        self.spool: IO[bytes] | None = None
        self.busy = False  # a watched call runs (one inside another is not watched again)
        self.told = False  # a plug-in's writes were told: one line a command is enough
        self.watcher = _Watcher()


_CAPTURE = _Capture()


@contextmanager
def screen_on_terminal() -> Iterator[None]:
    """While a screen runs: plug-in calls leave the terminal's descriptors alone."""
    _screen.set()
    try:
        yield
    finally:
        _screen.clear()


@contextmanager
def watched(what: str, timed: bool) -> Iterator[None]:
    """Run plug-in code described by `what` with descriptors 1 and 2 captured, and, if
    `timed`, say when it is slow; then tell what it wrote, in one line."""
    capture = _CAPTURE
    elsewhere = threading.current_thread() is not threading.main_thread()
    if capture.busy or _screen.is_set() or elsewhere:
        yield
        return
    for stream in (sys.stdout, sys.stderr):  # lmmreview's own output first, not into the file
        with suppress(OSError, ValueError):
            stream.flush()
    try:
        # kept open for the command's later calls (gone from the folder already)
        spool = capture.spool = capture.spool or tempfile.TemporaryFile()  # noqa: SIM115
        saved = (os.dup(1), os.dup(2))
    except OSError:  # no temporary file, or a closed descriptor (then no terminal either)
        yield
        return
    capture.busy = True
    try:
        os.dup2(spool.fileno(), 1)
        os.dup2(spool.fileno(), 2)
        if timed:
            capture.watcher.begin(_Call(what, time.monotonic(), saved[1]))
        yield
    finally:
        os.dup2(saved[0], 1)  # the terminal back first: a Ctrl-C may come any time
        os.dup2(saved[1], 2)
        capture.watcher.end()
        for descriptor in saved:
            os.close(descriptor)
        capture.busy = False
        _tell_written(what, spool)  # also before the failure it ends with, if it failed


def _tell_written(what: str, spool: IO[bytes]) -> None:
    """One warning line quoting the start of what the call wrote (a key in it redacted),
    if it wrote anything; the file emptied for the next call."""
    if not os.lseek(spool.fileno(), 0, os.SEEK_CUR):  # descriptors 1 and 2 share its offset
        return
    spool.seek(0)
    written = spool.read(_READ_BYTES).decode("utf-8", errors="replace")
    spool.seek(0)
    spool.truncate()
    if _CAPTURE.told:
        return
    # only now: these load the importers, and the crash module imports this one
    from lmmreview.db.importers.batch import quoted
    from lmmreview.tui.crash import secrets_in_environment

    _CAPTURE.told = True
    shown = redact(written, secrets_in_environment(sys.argv[1:]))
    say(
        f"warning: {what} wrote to the terminal itself; not shown there: "
        f"{quoted(shown, _SHOWN_CHARS)}",
        style="yellow",
        console=err,
    )
