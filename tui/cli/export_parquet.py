"""`lmmreview export --format parquet --out DIR`: the database's results as tidy Parquet
files (db/tidy.py), for pandas, DuckDB, Hugging Face `datasets` and warehouses."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lmmreview.tui.output import clear_errors, fail, say

if TYPE_CHECKING:
    from lmmreview.db import Store

PARQUET = "parquet"
T = TypeVar("T")


def export_parquet(db: Path, output: Path | None, datasets: list[str] | None) -> None:
    """Write scores.parquet and verdicts.parquet in the folder `output`, and say so."""
    from lmmreview.db import Store
    from lmmreview.db.files import Export, refuse_database
    from lmmreview.db.optional import INSTALL_PYARROW

    if output is None:
        raise fail(f"--format {PARQUET} writes files: --out DIR is needed")
    try:
        import pyarrow.parquet as pq

        from lmmreview.db.tidy import tables
    except ImportError:
        raise fail(f"--format {PARQUET} needs pyarrow: {INSTALL_PYARROW}") from None
    with clear_errors(db):
        refuse_database(output, db)  # before the database is read, or anything written
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        made = _unchanged_while_read(store, lambda: list(tables(store, datasets or None)))
    with clear_errors(db), Export(db) as export:
        export.folder(output)
        for name, table in made:
            export.file(output / name, partial(pq.write_table, table))
    for name, _ in made:
        say(f"wrote {output / name}")


def _unchanged_while_read(store: Store, read: Callable[[], T], attempts: int = 5) -> T:
    """`read()`'s result, read again while another process commits meanwhile: the two
    files are read on several connections, which share no snapshot, so a verdict saved
    between them would make them disagree."""
    for _ in range(attempts):
        before = store.data_version()
        found = read()
        if store.data_version() == before:
            return found
    raise fail(f"{store.path}: another process kept writing while it was read; try again")
