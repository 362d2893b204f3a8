from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from conftest import dump

from lmmreview.db import Store, StoreError
from lmmreview.db.schema import SCHEMA_VERSION
from lmmreview.db.store import _open_error, is_busy, is_read_only, new_database
from lmmreview.engine.registry import benchmark
from lmmreview.engine.types import QuestionType, Sample


def test_a_new_database_has_the_schema_and_settings(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        pragma = lambda name: store.conn.execute(f"PRAGMA {name}").fetchone()[0]  # noqa: E731
        assert pragma("journal_mode") == "wal"
        assert pragma("foreign_keys") == 1
        assert pragma("busy_timeout") >= 1000
        assert pragma("user_version") == SCHEMA_VERSION
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    expected = {"datasets", "samples", "images", "sample_images", "models", "answers",
                "judgments", "reviews", "llm_cache"}  # fmt: skip
    assert expected <= tables


def test_a_new_database_is_filled_and_left_in_wal_mode_alone(tmp_path: Path) -> None:
    """new_database fills its file with another journal (no other connection can have it),
    then leaves it as Store.open makes one: WAL, with no journal or log beside it."""
    db = tmp_path / "r.db"
    with new_database(db) as store, store.transaction():
        sample = Sample("1", "Q?", QuestionType.OPEN)
        store.upsert_samples(store.dataset_id("d", "generic"), [sample])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 1


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    Store.open(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=r"r\.db: written by a newer lmmreview"):
        Store.open(db)


def test_files_that_are_not_lmmreview_databases(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("hello, this is not SQLite" * 100)
    with pytest.raises(StoreError, match=r"notes\.db: not a lmmreview database"):
        Store.open(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match=r"other\.db: an SQLite file that is not a lmmreview"):
        Store.open(other)
    with pytest.raises(StoreError, match=r"missing\.db: no such database"):
        Store.open(tmp_path / "missing.db", create=False)


def test_special_files_and_link_loops_are_named_for_what_they_are(cli, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.db"
    loop.symlink_to(tmp_path / "back.db")
    (tmp_path / "back.db").symlink_to(loop)
    good = tmp_path / "good.db"
    Store.open(good).close()
    cases = (
        (fifo, "pipe.db: not a regular file (a FIFO)"),
        (Path("/dev/zero"), "/dev/zero: not a regular file (a character device)"),
        (loop, "loop.db: a symbolic link in a loop"),
    )
    for path, message in cases:
        for result in (cli("info", path), cli("merge", good, path)):
            assert result.code == 1 and message in result.stderr, result.stderr
            assert "Traceback" not in result.stderr


def test_info_on_a_bad_database_fails_cleanly(cli, tmp_path: Path) -> None:
    result = cli("info", tmp_path / "missing.db")
    assert result.code == 1 and "missing.db: no such database" in result.stderr
    assert not (tmp_path / "missing.db").exists()


def test_reviews_are_append_only(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        with store.transaction():
            dataset = store.dataset_id("d", "generic")
            ids = store.upsert_samples(dataset, [Sample("k", "q?", QuestionType.OPEN, "a")])
            model = store.model_id("m")
            store.add_answers(model, [(ids["k"], "a", "f")])
        answer_id = store.conn.execute("SELECT id FROM answers").fetchone()[0]
        store.conn.execute(
            "INSERT INTO reviews (answer_id, score, action, reviewer, created_at) "
            "VALUES (?, 1.0, 'grade', 'me', 'now')",
            (answer_id,),
        )
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute("UPDATE reviews SET score = 0")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute("DELETE FROM reviews")
        counts = store.counts()[0].models[0]
        assert (counts.answers, counts.reviewed, counts.unscored) == (1, 1, 0)


def test_a_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        with pytest.raises(RuntimeError), store.transaction():
            store.dataset_id("d", "mmvet")
            raise RuntimeError("boom")
        assert store.counts() == []


def test_a_dataset_keeps_its_kind(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store, store.transaction():
        store.dataset_id("bench", "mmbench")
        with pytest.raises(StoreError, match="holds mmbench data, not mmmu"):
            store.dataset_id("bench", "mmmu")


def test_sample_fields_round_trip(tmp_path: Path) -> None:
    sample = Sample(
        key="x", question="q", question_type=QuestionType.CHOICE, answer="B",
        alt_answers=("b",), options={"A": "1", "B": "2"}, hint="h", split="dev",
        axes={"capability": ("rec", "ocr"), "category": ("OCR",), "t": ("a", "b")},
        extra={"circular_group": 3, "rotation": 1, "note": "x", "weight": 0.5, "flag": True},
    )  # fmt: skip
    with Store.open(tmp_path / "r.db") as store:
        with store.transaction():
            store.upsert_samples(store.dataset_id("d", "generic"), [sample])
        assert store.samples("d") == [sample]


def test_an_older_database_is_migrated_forward_keeping_its_data(tmp_path: Path) -> None:
    from lmmreview.db.schema import MIGRATIONS, statements

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:  # a file as the first release wrote it
        for statement in statements(str(MIGRATIONS[0])):
            conn.execute(statement)
        conn.execute("INSERT INTO datasets (name, kind, created_at) VALUES ('d', 'mmvet', 'then')")
        conn.execute("PRAGMA user_version = 1")
    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.datasets() == [("d", benchmark("mmvet"))]
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert "judge_claims" in tables


def test_busy_and_read_only_are_told_by_sqlites_error_codes() -> None:
    """A DatabaseError without an error code (a closed connection) is neither, and asking
    does not raise (the command's one-line error once crashed here)."""
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorcode = sqlite3.SQLITE_BUSY
    read_only = sqlite3.OperationalError("attempt to write a readonly database")
    read_only.sqlite_errorcode = sqlite3.SQLITE_READONLY | (1 << 8)  # an extended code
    closed = sqlite3.ProgrammingError("Cannot operate on a closed database.")
    assert is_busy(locked) and not is_read_only(locked)
    assert is_read_only(read_only) and not is_busy(read_only)
    assert not is_busy(closed) and not is_read_only(closed)


@pytest.mark.parametrize(
    ("code", "message", "said"),
    [
        (sqlite3.SQLITE_FULL, "database or disk is full", "cannot be written: the disk is full"),
        (sqlite3.SQLITE_IOERR, "disk I/O error", "cannot be opened: disk I/O error (is the disk"),
        (sqlite3.SQLITE_NOTADB, "file is not a database", "not a lmmreview database"),
    ],
)
def test_a_full_disk_is_not_called_a_file_that_is_no_database(
    tmp_path: Path, code: int, message: str, said: str
) -> None:
    """On a full disk every command called the user's database "not a lmmreview
    database (disk I/O error)" (seen on a full tmpfs; SQLite's codes are what it sends)."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    assert str(_open_error(tmp_path / "a.db", error)).startswith(f"{tmp_path / 'a.db'}: {said}")


@pytest.mark.parametrize("how", ["replaced", "deleted"])
def test_a_file_replaced_or_deleted_during_a_write_gets_nothing_and_stays_intact(
    demo_db: Path, tmp_path: Path, how: str
) -> None:
    """A long write (a merge of millions of rows) whose file another program replaces
    before it commits: nothing is committed, the new file stays as it was (the WAL the
    two share by name is emptied into the old one), and the error says what happened."""
    newer = tmp_path / "newer.db"
    shutil.copyfile(demo_db, newer)
    with closing(sqlite3.connect(newer)) as conn, conn:
        conn.execute("CREATE TABLE other_tool (x)")
    before = dump(newer)
    with Store.open(demo_db) as store:
        with store.transaction():  # an earlier commit of this command, in the WAL
            store.conn.execute("CREATE TABLE mine (x)")
        with pytest.raises(StoreError, match=f"the file was {how}"), store.transaction():
            store.conn.execute("INSERT INTO mine VALUES (1)")
            if how == "replaced":
                os.replace(newer, demo_db)
            else:
                demo_db.unlink()
        with pytest.raises(StoreError, match=f"the file was {how}"), store.transaction():
            pass  # and nothing more after
    if how == "replaced":
        with closing(sqlite3.connect(demo_db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert dump(demo_db) == before


def test_another_connections_checkpoint_is_not_taken_for_a_rewrite(demo_db: Path) -> None:
    """A checkpoint by another process (the screen folds the WAL in after a verdict while
    a judge run writes) changes the file on disk with no commit and no change to the WAL:
    the writer must go on, its WAL left whole, not stop and empty the WAL (which would
    lose every commit not yet moved in)."""
    with Store.open(demo_db) as store, closing(sqlite3.connect(demo_db)) as other:
        with store.transaction():
            store.conn.execute("CREATE TABLE mine (x)")
        for row in range(3):
            with store.transaction():
                store.conn.execute("INSERT INTO mine VALUES (?)", (row,))
            # copies the frames into the file, keeps the WAL: no commit, no WAL change
            assert other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0] == 0
        with store.transaction():
            store.conn.execute("INSERT INTO mine VALUES (3)")
    with closing(sqlite3.connect(demo_db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT x FROM mine ORDER BY x").fetchall() == [(0,), (1,), (2,), (3,)]


def test_a_view_where_a_table_belongs_is_refused_at_open_not_run(
    demo_db: Path, tmp_path: Path
) -> None:
    """`reviews` replaced by a never-ending recursive view hung `info`, `report` and the
    screen at 100 % CPU: the file is refused when opened, as merge refuses it."""
    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute("DROP TABLE reviews")
        conn.execute(
            "CREATE VIEW reviews AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
            "FROM n) SELECT i AS id, i AS answer_id FROM n"
        )
    result = subprocess.run([sys.executable, "-m", "lmmreview", "info", str(demo_db)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == (
        f"error: {demo_db}: reviews is a view, not a table (was the file edited?)\n"
    )


def test_only_a_bulk_write_takes_the_larger_page_cache(demo_db: Path) -> None:
    """The screen opens several connections: each kept 16 MiB of cache for writes it never
    makes (memory with 100,000 answers open rose from 110 to 126 MB)."""
    from lmmreview.db.store import BULK_CACHE_KIB, larger_cache

    with Store.open(demo_db) as store:
        cache = lambda: store.conn.execute("PRAGMA cache_size").fetchone()[0]  # noqa: E731
        default = cache()
        assert default == -2000  # SQLite's own: 2,000 KiB
        with larger_cache(store.conn):
            assert cache() == -BULK_CACHE_KIB
        assert cache() == default
