"""A read beside the caller's (db/aside.py): on its own connection and thread, closed
before its result is taken, and never a reason for a read to fail."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from lmmreview.db.aside import Aside
from lmmreview.db.store import Store
from lmmreview.engine.types import QuestionType, Sample


def _store(path: Path) -> Store:
    store = Store.open(path)
    with store.transaction():
        dataset = store.dataset_id("d", "generic")
        store.upsert_samples(dataset, [Sample("k", "Q?", QuestionType.OPEN, "a")])
    return store


def test_the_call_runs_on_a_connection_and_thread_of_its_own(tmp_path: Path) -> None:
    with _store(tmp_path / "r.db") as store:
        seen: list[object] = []

        def call(beside: Store) -> list[str]:
            seen.extend([beside.conn, threading.current_thread()])
            return [name for name, _ in beside.datasets()]

        aside = Aside(store.path, call)
        assert aside.take() == ["d"]
        assert seen[0] is not store.conn and seen[1] is not threading.current_thread()
        assert aside.take() is None  # handed over: not held twice


def test_its_connection_is_closed_before_the_result_is_taken(tmp_path: Path) -> None:
    """The last connection to close folds the write-ahead log into the file and deletes
    it: an aside left open would keep the caller's writes out of a copied file."""
    path = tmp_path / "r.db"
    with _store(path) as store:
        Aside(path, Store.datasets).take()
        with store.transaction():
            store.dataset_id("e", "generic")
    assert not Path(f"{path}-wal").exists()
    with Store.open(path) as reopened:
        assert [name for name, _ in reopened.datasets()] == ["d", "e"]


def test_a_file_it_cannot_read_gives_none_for_the_caller_to_read_itself(tmp_path: Path) -> None:
    assert Aside(tmp_path / "missing.db", Store.datasets).take() is None
    (tmp_path / "not.db").write_text("not a database")
    assert Aside(tmp_path / "not.db", Store.datasets).take() is None


def test_a_bug_in_the_call_is_raised_where_the_result_is_taken(tmp_path: Path) -> None:
    def broken(store: Store) -> None:
        raise ZeroDivisionError("a bug")

    with _store(tmp_path / "r.db") as store:
        aside = Aside(store.path, broken)
        with pytest.raises(ZeroDivisionError, match="a bug"):
            aside.take()
