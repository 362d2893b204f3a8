"""`lmmreview export --format inspect`: each imported Inspect AI log again, with the human
verdicts as score edits (db.inspect_edits), to --out (a folder, or a file for one log)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.files import Export, refuse_database
from lmmreview.db.inspect_edits import LogEdits, check_unchanged, log_edits, write_edited
from lmmreview.tui.cli.export_official import destinations
from lmmreview.tui.output import clear_errors, fail, say

FORMAT = "inspect"


def export_inspect(db: Path, output: Path | None, datasets: list[str] | None) -> None:
    """Write a copy of every Inspect log imported into `datasets` (None: all), edited."""
    if output is None:
        raise fail(f"--format {FORMAT} writes .eval logs: --out FILE or DIR is needed")
    with clear_errors(db):
        refuse_database(output, db)  # before the database is read, or anything written
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        logs = log_edits(store, datasets)
        if not logs:
            raise fail(f"{db}: no Inspect AI log imported (lmmreview import inspect)")
        files = _by_name(logs)
        for log in logs:  # every log checked before any is written
            check_unchanged(log)
    folder, places = destinations(output, files, True, FORMAT, each="imported log")
    for path, log in places.items():
        if path.resolve() == log.file.resolve():  # `--out logs`, Inspect's own folder
            raise fail(
                f"--out {output} would write over the original log {log.file}: the copy "
                "with the edits goes elsewhere, and the original stays the record"
            )
    with clear_errors(db), Export(db) as export:
        if folder is not None:
            export.folder(folder)
        for path, log in places.items():
            export.file(path, partial(write_edited, log))
    for path, log in places.items():
        say(f"wrote {path}: {len(log.edits)} score edits on {log.file}")


def _by_name(logs: list[LogEdits]) -> dict[str, LogEdits]:
    """The logs by the name their copies get (the original's); two of one name refused."""
    files: dict[str, LogEdits] = {}
    for log in logs:
        name = log.file.name
        if name in files:
            raise fail(
                f"--format {FORMAT} would write two logs named {name} ({files[name].file} and "
                f"{log.file}): give --dataset NAME, one at a time"
            )
        files[name] = log
    return files
