"""Whether a path still names the file a connection opened (db/watch.py)."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.watch import REWRITTEN, Watch


def test_an_emptied_file_is_told_even_after_another_connection_wrote(tmp_path: Path) -> None:
    """A judge's commits leave this connection not knowing the file (left None); the file
    emptied (`: > results.db`) is told all the same, before a checkpoint of the judge's
    WAL would fill it out again and hide it."""
    db = tmp_path / "results.db"
    db.write_bytes(b"\0" * 4096)
    watch = Watch()
    watch.opened(db)
    watch.left(db, None)  # another connection wrote: unknown until this one writes
    assert watch.change(db, None) is None
    db.write_bytes(b"")
    assert watch.change(db, None) == REWRITTEN
    db.write_bytes(b"\0" * 4096)  # filled out again: told for good
    assert watch.change(db, None) == REWRITTEN


def test_a_new_file_not_yet_a_page_long_is_not_taken_for_an_emptied_one(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    db.write_bytes(b"")
    watch = Watch()
    watch.opened(db)
    assert watch.change(db, None) is None
