"""Whether a database path still names the file a connection opened, as it left it.

Another program can replace the file (`mv new.db results.db`), delete it, or write over
it in place (`cp other.db results.db`, `: > results.db`) while a connection has it open.
SQLite does not notice: the connection keeps writing to the old file, and its WAL (a file
found by name) damages the new one. Every writer asks `Watch.change` before it writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

DELETED, REPLACED, REWRITTEN = "deleted", "replaced", "rewritten"
FIRST_PAGE = 512  # the smallest page: a database file is never shorter once written
SAID = {
    DELETED: "deleted",
    REPLACED: "replaced by another file",
    REWRITTEN: "rewritten in place by another program",
}


class Seen(NamedTuple):
    """The file and its WAL as this connection left them."""

    file: tuple[int, int]  # size, modification time (ns)
    wal: tuple[int, int] | None  # the same of the -wal file (None: none, or empty)
    version: int  # the connection's data version then


class Watch:
    """The file's device and inode when it was opened, and how it was last left."""

    def __init__(self) -> None:
        self._identity: tuple[int, int] | None = None
        self._left: Seen | None = None
        self._rewritten = False  # for good: the WAL emptied since no longer tells
        self._written = False  # the file was once at least a page long

    def opened(self, path: Path) -> None:
        """The connection has just opened `path`: that is the file (the first time only)."""
        found = _stat(path)
        if self._identity is None and found is not None:
            self._identity = found.st_dev, found.st_ino
        self._saw(found)

    def left(self, path: Path, version: int | None) -> None:
        """This connection committed or emptied the WAL (`version`: its data version then),
        or could not tell (None)."""
        found = _stat(path)
        self._saw(found)
        self._left = None if version is None or found is None else Seen(
            _shape(found), _wal(path), version
        )  # fmt: skip

    def _saw(self, found: os.stat_result | None) -> None:
        self._written |= found is not None and found.st_size >= FIRST_PAGE

    def change(self, path: Path, version: Callable[[], int] | None) -> str | None:
        """What happened to the file since it was opened (None: nothing). Rewritten in
        place, when either
        - it is now shorter than a database's first page, which SQLite never makes it once
          written (whoever wrote since: told before another connection's checkpoint fills
          it out again), or
        - it changed on disk since this connection left it, this connection had left the
          WAL empty, and neither the WAL nor (`version()`)
          another connection's commit changed since: with no frame to move in, nothing of
          SQLite's writes the file. With frames in the WAL, another connection's checkpoint
          writes the file without a commit or a change to the WAL, so a rewrite then cannot
          be told from it (reading the WAL index to tell would drop SQLite's locks: closing
          any descriptor of a file releases every POSIX lock the process holds on it).
        Without a connection to ask (`version` None), the WAL alone tells."""
        if self._identity is None:
            return None
        if self._rewritten:
            return REWRITTEN
        found = _stat(path)
        if found is None:
            return DELETED
        if (found.st_dev, found.st_ino) != self._identity:
            return REPLACED
        # Emptied, whoever wrote since: told before a checkpoint of another connection's
        # WAL (the screen's, after a judge's commits) fills the file out again.
        if found.st_size < FIRST_PAGE and self._written:
            self._rewritten = True
            return REWRITTEN
        seen = self._left
        if seen is None or _shape(found) == seen.file:
            return None
        if (
            seen.wal is not None
            or _wal(path) is not None
            or (version is not None and version() != seen.version)
        ):
            self._left = None  # another connection wrote: unknown until this one writes
            return None
        self._rewritten = True
        return REWRITTEN

    def moved_to(self, path: Path) -> None:
        """The writes go to `path` from now on: watch that file."""
        self._identity, self._left, self._rewritten = None, None, False
        self.opened(path)


def wal_of(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _shape(found: os.stat_result) -> tuple[int, int]:
    return found.st_size, found.st_mtime_ns


def _wal(path: Path) -> tuple[int, int] | None:
    """The WAL's size and time; None when it holds nothing (SQLite makes an empty one at
    the first read: no sign of another writer)."""
    found = _stat(wal_of(path))
    return None if found is None or found.st_size == 0 else _shape(found)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
