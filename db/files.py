"""Writing an export beside a database without ever writing it over one."""

from __future__ import annotations

import os
from pathlib import Path

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


def write_export(target: Path, text: str, database: Path) -> bool:
    """Write `text` to `target`, unless that is the open `database`, one of its companion
    files or any SQLite database: then raise ExportRefused, before the file is touched.

    Returns whether an existing file was replaced (an ordinary file may be; that is what
    naming it means).
    """
    refuse_database(target, database)
    replaced = target.is_file()
    target.write_text(text, encoding="utf-8")
    return replaced


def refuse_database(target: Path, database: Path) -> None:
    """Raise ExportRefused when `target` is the open `database`, one of its companion
    files or any SQLite database."""
    for suffix in ("", *COMPANIONS):
        if _same_file(target, Path(f"{database}{suffix}")):
            what = f"{database}{suffix}, a file of the database" if suffix else "the database"
            raise ExportRefused(f"not writing the tables to {target}: that is {what}")
    if is_sqlite_file(target):
        raise ExportRefused(
            f"not writing the tables to {target}: it is an SQLite database, which the "
            "tables would destroy"
        )
