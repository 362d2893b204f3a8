"""What the screen tells when its file was replaced, deleted or rewritten while open
(found by db/watch.py, asked before every call), and the copy its changes go to then."""

from __future__ import annotations

import shlex
import sqlite3
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from lmmreview.db import StoreError
from lmmreview.db.watch import DELETED, SAID

CLASHES = 100  # names tried in one folder before the next


class Moved(NamedTuple):
    """What happened to the file opened, and the copy its changes go to (none after it was
    rewritten in place: its old content is gone)."""

    opened: Path
    what: str  # DELETED, REPLACED or REWRITTEN
    copy: Path | None = None

    def told(self) -> str:
        """What happened, and where the changes are and how to bring them back (each path
        once: a notification is cut at 400 characters)."""
        what = SAID[self.what]
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
