"""`lmmreview export --format parquet --out DIR`: the database's results as tidy Parquet
files (db/tidy.py), for pandas, DuckDB, Hugging Face `datasets` and warehouses."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from lmmreview.tui.output import clear_errors, fail, say

PARQUET = "parquet"


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
        made = list(tables(store, datasets or None))
    with clear_errors(db), Export(db) as export:
        export.folder(output)
        for name, table in made:
            export.file(output / name, partial(pq.write_table, table))
    for name, _ in made:
        say(f"wrote {output / name}")
