"""Writing an export beside a database without ever writing it over one, and leaving
nothing behind when it fails."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType

from lmmreview.db.store import COMPANIONS, StoreError

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


class ExportRefused(StoreError):
    """An export would have been written over a database; nothing was written."""


def is_sqlite_file(path: Path) -> bool:
    """Whether `path` is a regular file that starts as an SQLite database does.

    Only regular files are read: a FIFO or a device (`/dev/stdout`) is never opened here.
    """
    if not path.is_file():
        return False
    with path.open("rb") as file:
        return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _same_file(a: Path, b: Path) -> bool:
    """The same file, however spelled (a symbolic link, `..`, a hard link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def _names(path: Path) -> set[str]:
    """The absolute names of a path, as spelled and with its links and `..` resolved: a
    file that does not exist yet (a -wal file between connections) has no other identity."""
    return {os.path.abspath(path), os.path.realpath(path)}


def _database_file(place: Path, database: Path) -> str | None:
    """What `place` is of the database (itself, or a companion file SQLite makes beside it,
    also beside the file its path links to), or None."""
    spellings = _names(database)
    for suffix in ("", *COMPANIONS):
        names = {name + suffix for name in spellings}
        if _names(place) & names or _same_file(place, Path(f"{database}{suffix}")):
            return f"{database}{suffix}, a file of the database" if suffix else "the database"
    return None


def refuse_database(target: Path, database: Path) -> None:
    """Raise ExportRefused when `target`, or a folder it would be written in, is the open
    `database` or one of its companion files (existing or not), or when `target` is any
    SQLite database."""
    for place in (target, *Path(os.path.abspath(target)).parents):
        what = _database_file(place, database)
        if what is not None:
            where = "that is" if place is target else f"its folder {place} would be"
            raise ExportRefused(f"not writing the tables to {target}: {where} {what}")
    if is_sqlite_file(target):
        raise ExportRefused(
            f"not writing the tables to {target}: it is an SQLite database, which the "
            "tables would destroy"
        )


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An error while writing `path` names it (a full device's does not by itself)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def _refuse_unread_fifo(path: Path) -> None:
    """Opening a FIFO that no program reads would wait for ever (the screen's database
    thread with it): ask without waiting, and refuse it then."""
    try:
        if not stat.S_ISFIFO(path.stat().st_mode):
            return
    except FileNotFoundError:
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        raise OSError(exc.errno, "a FIFO no program reads", str(path)) from None


class Export:
    """The folders and files one export makes, never over the database; when the export
    fails, those it made are removed again (a file it replaced keeps what was written)."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._made: list[Path] = []

    def __enter__(self) -> Export:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is not None:
            self._remove_made()

    def folder(self, path: Path) -> None:
        """Make the folder `path` and any missing folder above it."""
        refuse_database(path, self.database)
        for place in reversed((path, *path.parents)):
            if not place.exists():
                place.mkdir()
                self._made.append(place)

    def file(self, path: Path, write: Callable[[Path], None]) -> bool:
        """Write `path` with `write`; whether an existing file was replaced."""
        refuse_database(path, self.database)
        replaced = path.is_file()
        if not path.exists():
            self._made.append(path)  # before writing: a half-written file is removed too
        with _naming(path):
            _refuse_unread_fifo(path)
            write(path)
        return replaced

    def _remove_made(self) -> None:
        for path in reversed(self._made):
            with suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()
                else:
                    path.unlink()


def write_export(target: Path, text: str, database: Path) -> bool:
    """Write `text` to `target`, unless that is the open `database`, one of its companion
    files or any SQLite database: then raise ExportRefused, before the file is touched.

    Returns whether an existing file was replaced (an ordinary file may be; that is what
    naming it means).
    """
    with Export(database) as export:
        return export.file(target, lambda path: write_text(path, text))


def write_text(path: Path, text: str) -> None:
    """An export's text as UTF-8."""
    path.write_text(text, encoding="utf-8")
