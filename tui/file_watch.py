"""Whether the database path still names the file the screen opened, as it left it.

Another program can replace the file (`mv new.db results.db`), delete it, or write over
it in place (`cp other.db results.db`) while the screen has it open. SQLite does not
notice: its connection keeps writing to the old file, and its WAL (a file found by name)
damages the new one. The database thread asks `Watch.change` before every call.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from lmmreview.db import StoreError

DELETED, REPLACED, REWRITTEN = "deleted", "replaced", "rewritten"
CLASHES = 100  # names tried in one folder before the next
SAID = {REPLACED: "replaced by another file", REWRITTEN: "rewritten in place by another program"}


class Moved(NamedTuple):
    """What happened to the file opened, and the copy its changes go to (none after it was
    rewritten in place: its old content is gone)."""

    opened: Path
    what: str  # DELETED, REPLACED or REWRITTEN
    copy: Path | None = None

    def told(self) -> str:
        """What happened, and where the changes are and how to bring them back (each path
        once: a notification is cut at 400 characters)."""
        what = SAID.get(self.what, self.what)
        said = f"{self.opened.name} was {what} while open, so nothing more is written to it"
        if self.copy is None:
            return f"{said}; changes not saved yet stay on screen (open the file again to go on)"
        opened, copy = shlex.quote(str(self.opened)), shlex.quote(str(self.copy))
        back = (
            f"to put it back: mv {copy} {opened}"
            if self.what == DELETED
            else f"to bring them into the new file: lmmreview merge {opened} {copy}"
        )
        kept = "your changes are saved to a copy of it as this screen had it, from now on"
        return f"{said}; {kept}; {back}"

    def status(self) -> str:
        """In a few words, for the status line: the copy by its full path (a name alone
        does not say which folder took it)."""
        where = f"saving to {self.copy.absolute()}" if self.copy else "saving nothing"
        return f"{self.opened.name} {self.what}: {where}"


class FileMoved(StoreError):
    """The file was replaced, deleted or rewritten while open: nothing is written to it."""


class Seen(NamedTuple):
    """The file as this connection left it complete (its WAL empty)."""

    size: int
    mtime_ns: int
    version: int  # the connection's data version then


class Watch:
    """The file's device and inode when it was opened, and how it was last left complete."""

    def __init__(self) -> None:
        self._identity: tuple[int, int] | None = None
        self._complete: Seen | None = None

    def opened(self, path: Path) -> None:
        """The connection has just opened `path`: that is the file (the first time only)."""
        found = _stat(path)
        if self._identity is None and found is not None:
            self._identity = found.st_dev, found.st_ino

    def left_complete(self, path: Path, version: int | None) -> None:
        """This connection emptied the WAL (`version`: its data version), or could not (None)."""
        found = _stat(path)
        self._complete = (
            None
            if version is None or found is None
            else Seen(found.st_size, found.st_mtime_ns, version)
        )

    def change(self, path: Path, version: Callable[[], int] | None) -> str | None:
        """What happened to the file since it was opened (None: nothing). Rewritten in
        place: it changed on disk since it was left complete with no commit since
        (`version()` unchanged), which SQLite alone never does; without a connection to
        ask (`version` None), any change counts."""
        if self._identity is None:
            return None
        found = _stat(path)
        if found is None:
            return DELETED
        if (found.st_dev, found.st_ino) != self._identity:
            return REPLACED
        seen = self._complete
        if seen is None or (found.st_size, found.st_mtime_ns) == (seen.size, seen.mtime_ns):
            return None
        if version is not None and version() != seen.version:
            self._complete = None  # another process wrote: unknown until the WAL is emptied
            return None
        return REWRITTEN

    def moved_to(self, path: Path) -> None:
        """The changes go to `path` from now on: watch that file."""
        self._identity = self._complete = None
        self.opened(path)


def make_copy(opened: Path, copy: Callable[[Path], None]) -> Path:
    """`copy(place)` to a new file beside `opened`, else (its folder gone or read-only) in
    the temporary folder; returns the place. `copy` creates the file exclusively: a name
    taken (another screen rescued the same file in the same second) gets a counter."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    problem: BaseException | None = None
    for folder in (opened.parent, Path(tempfile.gettempdir())):
        for count in range(1, CLASHES + 1):
            counter = f"-{count}" if count > 1 else ""
            place = folder / f"{opened.stem}.rescued-{stamp}{counter}{opened.suffix}"
            try:
                copy(place)
                return place
            except (OSError, sqlite3.Error, StoreError) as exc:
                problem = exc
                if not isinstance(exc, FileExistsError):
                    break  # this folder takes no copy: the next one
    assert problem is not None
    raise problem


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
