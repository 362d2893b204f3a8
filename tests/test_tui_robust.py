"""The review screen where it used to fail a reviewer: a file it cannot write, keys that
moved the list but not the cursor, and undo."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import write_lines
from textual.widgets import Input
from tui_harness import choose, cursor, drive, export_to, pick, text_of, until

from lmmreview.db import Store, store
from lmmreview.db.review import ReviewStore
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.writes import PENDING_MARK


def _reviews(db: Path) -> list[tuple]:
    """(answer id, action, score) of every review row, read by another connection."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT answer_id, action, score FROM reviews ORDER BY id").fetchall()


def _told(app) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


def _row_text(app, index: int) -> str:
    return "".join(text for text, _ in app.review_screen._row(index))


# -- 15: a write the file refuses stays pending, is said, and is retried ----------------------


def test_a_verdict_waits_while_another_process_holds_the_write_lock(
    demo_db: Path, monkeypatch
) -> None:
    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 50)  # a long import, compressed
    seen = {}
    other = sqlite3.connect(demo_db, isolation_level=None)

    async def steps(app, pilot) -> None:
        answer = app.current().answer_id
        other.execute("BEGIN IMMEDIATE")  # holds the write lock until it ends
        await pilot.press("3")
        await until(pilot, lambda: "not saved yet" in _told(app))
        await pilot.pause(0.3)  # several retries meet the lock too
        seen["told"] = _told(app)
        seen["reviewed"] = app.current().reviewed
        seen["row"] = _row_text(app, cursor(app))
        seen["verdict"] = text_of(app, "#verdict")
        seen["status"] = text_of(app, "#status")
        seen["stored_while_locked"] = _reviews(demo_db)
        other.execute("ROLLBACK")  # the import ends
        await until(pilot, lambda: app.current().reviewed)
        seen["after"] = _reviews(demo_db)
        seen["verdict_after"] = text_of(app, "#verdict")
        seen["answer"] = answer
        seen["running"] = app.is_running

    try:
        drive(demo_db, steps, poll_seconds=0.1)
    finally:
        other.close()
    assert "database is locked" in seen["told"] and "retried" in seen["told"]
    assert not seen["reviewed"]  # never shown as saved before it is
    assert PENDING_MARK in seen["row"] and "✓" not in seen["row"]
    assert "not saved yet: score 0.3" in seen["verdict"] and "locked" in seen["verdict"]
    assert "1 not saved yet" in seen["status"]
    assert seen["stored_while_locked"] == []
    assert seen["after"] == [(seen["answer"], "grade", 0.3)]  # once, not once per retry
    assert "human verdict: 0.3" in seen["verdict_after"]
    assert "not saved" not in seen["verdict_after"]
    assert seen["running"]


def _read_only(monkeypatch, path: Path) -> None:
    """Every connection the app opens to `path` can read it but not write it, as SQLite
    opens a file the user may not write (chmod does not stop root, who may run the tests)."""
    connect = sqlite3.connect

    def read_only(target: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        if Path(str(target)) == path:
            return connect(f"{path.as_uri()}?mode=ro", *args, uri=True, **kwargs)  # type: ignore[arg-type]
        return connect(target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", read_only)


def test_a_read_only_file_keeps_the_verdict_pending_and_quit_says_so(
    demo_db: Path, monkeypatch
) -> None:
    seen = {}
    _read_only(monkeypatch, demo_db)

    async def steps(app, pilot) -> None:
        await pilot.press("7")
        await until(pilot, lambda: "readonly" in _told(app))
        seen["reviewed"] = app.current().reviewed
        seen["row"] = _row_text(app, cursor(app))
        await pilot.press("j", "k")  # the screen still works
        seen["title"] = text_of(app, "#title")
        await pilot.press("q")  # warned, not gone: the verdict would be lost
        await until(pilot, lambda: "Press q again" in _told(app))
        seen["running_after_one_q"] = app.is_running
        await pilot.press("q")

    app = drive(demo_db, steps, poll_seconds=0.1)
    monkeypatch.undo()
    assert not seen["reviewed"] and PENDING_MARK in seen["row"]
    assert seen["title"].startswith("v1_0 · demo-alpha")
    assert seen["running_after_one_q"]
    assert app.return_code == 1
    assert app.failure == (
        f"{demo_db}: quit with 1 change not saved (attempt to write a readonly database): "
        "v1_0 (demo-alpha): score 0.70"
    )
    assert _reviews(demo_db) == []


def test_a_table_dropped_by_another_process_is_said_and_the_verdict_saved_once_it_is_back(
    demo_db: Path,
) -> None:
    seen = {}
    with sqlite3.connect(demo_db) as conn:
        (schema,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'reviews'").fetchone()
    other = sqlite3.connect(demo_db, isolation_level=None)

    async def steps(app, pilot) -> None:
        other.execute("DROP TABLE reviews")
        await pilot.press("5")
        await until(pilot, lambda: "not saved yet (no such table: reviews)" in _told(app))
        seen["pending_row"] = _row_text(app, 0)
        await pilot.press("j")  # reading the next answer's history fails too: said, not fatal
        await pilot.pause(0.3)
        seen["reviewed"] = app.session.entries[0].reviewed
        seen["running"] = app.is_running
        other.execute(schema)  # the table is back (empty)
        await until(pilot, lambda: app.session.entries[0].reviewed)
        seen["row"] = _row_text(app, 0)

    try:
        drive(demo_db, steps, poll_seconds=0.1)
    finally:
        other.close()
    assert not seen["reviewed"] and seen["running"]
    assert PENDING_MARK in seen["pending_row"]
    assert "✓" in seen["row"] and PENDING_MARK not in seen["row"]
    with sqlite3.connect(demo_db) as conn:
        assert conn.execute("SELECT action, score FROM reviews").fetchall() == [("grade", 0.5)]


def test_export_to_a_missing_folder_is_said_and_the_screen_stays(
    demo_db: Path, tmp_path: Path
) -> None:
    target = tmp_path / "no-such-folder" / "tables.md"
    seen = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target)
        await until(pilot, lambda: "Could not write" in _told(app))
        seen["told"] = _told(app)
        await pilot.press("3")  # still grading
        await until(pilot, lambda: app.current().reviewed)

    app = drive(demo_db, steps)
    assert f"Could not write the tables to {target}: No such file or directory" in seen["told"]
    assert not target.parent.exists()
    assert app.return_code in (None, 0)


# -- 19: every movement key moves the cursor; the detail shows what a key grades ---------------


def _visible(app) -> bool:
    answers = app.screen.query_one(AnswerList)
    top = answers.scroll_offset.y
    return top <= answers.cursor < top + answers.size.height


def test_movement_keys_move_the_cursor_and_the_detail_follows(demo_db: Path) -> None:
    """A list longer than the window: End, then 2, grades the last answer (it graded the
    first one, off screen, when End only scrolled the list)."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        answers = app.screen.query_one(AnswerList)
        assert answers.count > answers.size.height  # the list scrolls
        last = answers.count - 1
        page = answers.size.height - 1
        expected = [
            ("down", 1), ("down", 2), ("up", 1), ("pagedown", 1 + page), ("pageup", 1),
            ("end", last), ("home", 0), ("end", last),
        ]  # fmt: skip
        for key, index in expected:
            await pilot.press(key)
            entry = app.session.entries[app.session.visible[index]]
            await until(pilot, lambda e=entry: text_of(app, "#title").startswith(e.key))
            seen[key] = (cursor(app), _visible(app), f"{entry.key} · {entry.model}")
            assert cursor(app) == index, (key, cursor(app), index)
            assert _visible(app), key
            assert text_of(app, "#title").startswith(f"{entry.key} · {entry.model}")
        seen["last"] = app.current().answer_id
        await pilot.press("2")
        await until(pilot, lambda: app.current().reviewed)

    drive(demo_db, steps)
    assert _reviews(demo_db) == [(seen["last"], "grade", 0.2)]


# -- 20: u undoes the reviewer's last verdict, wherever it is ---------------------------------


def test_undo_walks_back_the_reviewers_verdicts_wherever_the_cursor_is(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        first, third = app.session.entries[0].answer_id, app.session.entries[2].answer_id
        seen["ids"] = (first, third)
        await pilot.press("3", "j", "j", "6")
        await until(pilot, lambda: app.session.reviewed == 2)
        await pilot.press("end")  # far from both
        await until(pilot, lambda: cursor(app) == app.session.counts()[2] - 1)
        await pilot.press("u")  # the latest: the third answer's 0.6
        await until(pilot, lambda: app.session.reviewed == 1)
        seen["after_first_u"] = (cursor(app), text_of(app, "#title"), _told(app))
        await pilot.press("u")  # then the first answer's 0.3
        await until(pilot, lambda: app.session.reviewed == 0)
        seen["after_second_u"] = (cursor(app), text_of(app, "#title"))
        await pilot.press("u")
        await until(pilot, lambda: "Nothing to undo" in _told(app))

    drive(demo_db, steps)
    first, third = seen["ids"]
    assert seen["after_first_u"][0] == 2 and seen["after_first_u"][1].startswith(
        "v1_0 · demo-gamma"
    )
    assert "Undid your last verdict, on v1_0 (demo-gamma)" in seen["after_first_u"][2]
    assert seen["after_second_u"][0] == 0 and seen["after_second_u"][1].startswith(
        "v1_0 · demo-alpha"
    )
    assert _reviews(demo_db) == [
        (first, "grade", 0.3), (third, "grade", 0.6), (third, "undo", None), (first, "undo", None)
    ]  # fmt: skip


def test_undo_shows_an_answer_the_filter_hides(demo_db: Path) -> None:
    """The undone answer is outside the model filter: the filter is cleared to show it."""
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("4")  # demo-alpha's first answer
        await until(pilot, lambda: app.session.reviewed == 1)
        await pilot.press("v")
        await pick(app, pilot, "By model…")
        await pick(app, pilot, "demo-beta")
        await until(pilot, lambda: app.session.filter.model == "demo-beta")
        await pilot.press("u")
        await until(pilot, lambda: app.session.reviewed == 0)
        await until(pilot, lambda: "Cleared the filters" in _told(app))
        seen["filter"] = app.session.filter.describe()
        seen["current"] = (app.current().key, app.current().model)
        seen["title"] = text_of(app, "#title")

    drive(demo_db, steps)
    assert seen["filter"] == "all answers"
    assert seen["current"] == ("v1_0", "demo-alpha")
    assert seen["title"].startswith("v1_0 · demo-alpha")


def test_undo_keeps_an_unreviewed_filter_and_adds_the_answer_back(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("4")
        await until(pilot, lambda: app.session.reviewed == 1)
        await pilot.press("v")
        await pick(app, pilot, "Unreviewed")
        await until(pilot, lambda: app.session.filter.unreviewed)
        seen["hidden"] = app.session.entries[0].answer_id not in {
            app.session.entries[i].answer_id for i in app.session.visible
        }
        await pilot.press("end", "u")
        await until(pilot, lambda: app.session.reviewed == 0)
        await until(pilot, lambda: cursor(app) == 0)
        seen["filter"] = app.session.filter.describe()
        seen["current"] = (app.current().key, app.current().model)

    drive(demo_db, steps)
    assert seen["hidden"]
    assert seen["filter"] == "unreviewed"  # now unreviewed again, it belongs in the list
    assert seen["current"] == ("v1_0", "demo-alpha")


# -- the second review of issue 9 -------------------------------------------------------------


def test_export_over_the_open_database_is_refused_and_grading_goes_on(demo_db: Path) -> None:
    """`e` with the database's own path: said, nothing written, and the file still works."""
    before = demo_db.read_bytes()
    seen = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, demo_db)
        await until(pilot, lambda: "not writing the tables" in _told(app))
        seen["told"] = _told(app)
        seen["bytes"] = demo_db.read_bytes()
        await pilot.press("3")
        await until(pilot, lambda: app.current().reviewed)

    app = drive(demo_db, steps)
    assert f"not writing the tables to {demo_db}: that is the database." in seen["told"]
    assert seen["bytes"] == before
    assert [(action, score) for _, action, score in _reviews(demo_db)] == [("grade", 0.3)]
    assert app.return_code in (None, 0) and app.failure is None


def test_export_from_the_screen_says_it_replaced_a_file(demo_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "tables.md"
    target.write_text("last week's tables\n", encoding="utf-8")
    seen = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target, replace=True)
        await until(pilot, lambda: "Wrote the tables" in _told(app))
        seen["told"] = _told(app)

    drive(demo_db, steps)
    assert f"Wrote the tables to {target} (it replaced the file that was there)" in seen["told"]
    assert "demo-alpha" in target.read_text(encoding="utf-8")


def test_the_export_default_is_the_real_database_name(demo_template: Path, tmp_path: Path) -> None:
    """A database named with control and invisible characters: the prompt shows them as
    stand-ins, and Enter writes beside the real file, not to a file named with stand-ins."""
    db = tmp_path / "x\x1b]52;c;SGVsbG8=\x07[b]\u200b.db"
    shutil.copyfile(demo_template, db)
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("e")
        await choose(app, pilot, "this")  # the file holds several datasets
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        seen["shown"] = app.screen.focused.value
        await pilot.press("enter")
        await until(pilot, lambda: "Wrote the tables" in _told(app))

    drive(db, steps)
    assert "\x1b" not in seen["shown"] and "␛]52;c;SGVsbG8=␇[b]⟨U+200B⟩" in seen["shown"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".md")] == [
        "x\x1b]52;c;SGVsbG8=\x07[b]\u200b.tables.md"
    ]


def _switchable_read_only(monkeypatch, path: Path) -> dict[str, bool]:
    """Like `_read_only`, while the returned switch's "read_only" is on; turned off, new
    connections may write again, as after `chmod u+w` (a connection opened read-only stays
    so: SQLite decides when it opens the file)."""
    connect = sqlite3.connect
    switch = {"read_only": True}

    def maybe_read_only(target: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        if switch["read_only"] and Path(str(target)) == path:
            return connect(f"{path.as_uri()}?mode=ro", *args, uri=True, **kwargs)  # type: ignore[arg-type]
        return connect(target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", maybe_read_only)
    return switch


def test_a_verdict_held_back_by_a_read_only_file_is_saved_once_it_is_writable(
    demo_db: Path, monkeypatch
) -> None:
    switch = _switchable_read_only(monkeypatch, demo_db)
    seen = {}

    async def steps(app, pilot) -> None:
        seen["ids"] = [app.session.entries[row].answer_id for row in range(2)]
        await pilot.press("3")
        await until(pilot, lambda: "readonly" in _told(app))
        seen["while_read_only"] = _reviews(demo_db)
        switch["read_only"] = False  # the file is writable again
        await pilot.press("j", "4")
        await until(pilot, lambda: app.session.reviewed == 2)
        seen["status"] = text_of(app, "#status")
        seen["told"] = _told(app)

    drive(demo_db, steps, poll_seconds=0.1)
    assert seen["while_read_only"] == []
    first, second = seen["ids"]
    assert _reviews(demo_db) == [(first, "grade", 0.3), (second, "grade", 0.4)]
    assert "not saved" not in seen["status"]
    assert "Every change that was waiting is saved now." in seen["told"]


def test_quitting_with_changes_not_saved_names_them_literally(
    cli, tmp_path: Path, monkeypatch
) -> None:
    """Each change by answer key, model and what it sets; markup and control as stand-ins;
    the first five, then how many more."""
    lines = [
        {"id": f"q\x1b[31m{i}", "question": "What?", "answer": "yes",
         "prediction": "yes", "model": "m[b]\u200b"}
        for i in range(7)
    ]  # fmt: skip
    path = tmp_path / "h.db"
    assert cli("import", "jsonl", path, write_lines(tmp_path / "h.jsonl", lines)).code == 0
    _read_only(monkeypatch, path)

    async def steps(app, pilot) -> None:
        for _ in range(7):
            await pilot.press("5", "j")
        await until(pilot, lambda: len(app.review_screen.pending) == 7)
        await pilot.press("q")
        await until(pilot, lambda: "Press q again" in _told(app))
        await pilot.press("q")

    app = drive(path, steps, dataset="h", poll_seconds=0.1)
    named = "; ".join(f"q␛[31m{i} (m[b]⟨U+200B⟩): score 0.50" for i in range(5))
    assert app.failure == (
        f"{path}: quit with 7 changes not saved (attempt to write a readonly database): "
        f"{named}; and 2 more"
    )


def test_a_repeated_grade_adds_no_row_and_one_undo_takes_it_back(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5")
        await until(pilot, lambda: app.current().reviewed)
        await pilot.press("5", "5")
        await until(pilot, lambda: _told(app).count("is already 0.5") == 2)
        seen["rows"] = len(_reviews(demo_db))
        await pilot.press("u")
        await until(pilot, lambda: "Undid your last verdict" in _told(app))
        seen["reviewed_after_u"] = app.current().reviewed

    drive(demo_db, steps)
    assert seen["rows"] == 1
    assert not seen["reviewed_after_u"]
    assert [(action, score) for _, action, score in _reviews(demo_db)] == [
        ("grade", 0.5), ("undo", None)
    ]  # fmt: skip


def test_another_reviewers_agreeing_grade_is_saved_and_counted(cli, demo_db: Path) -> None:
    """ada graded the first answer 1.0; the tester's 1.0 is their own verdict (only their
    own repeat is refused), so human-human agreement counts it."""
    with Store.open(demo_db) as opened:
        ada = ReviewStore(opened, "ada")
        first = ada.entries("mmvet")[0].answer_id
        ada.grade(first, 1.0)

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: first in app.review_screen.pane.details)
        await pilot.press("=")
        await until(pilot, lambda: len(_reviews(demo_db)) == 2 or "already" in _told(app))
        await until(pilot, lambda: not app.review_screen.pending)
        await pilot.press("=")  # now the tester's own: a repeat
        await until(pilot, lambda: "is already 1.00" in _told(app))

    app = drive(demo_db, steps, auto_advance=False)
    assert _told(app).count("nothing to save") == 1
    assert [(a, action, score) for a, action, score in _reviews(demo_db)] == [
        (first, "grade", 1.0), (first, "grade", 1.0)
    ]  # fmt: skip
    result = cli("judges", demo_db, "--dataset", "mmvet", "--format", "json")
    (section,) = json.loads(result.stdout)["datasets"]
    humans = section["human_agreement"]
    assert humans["answers"] == 1
    assert [(p["first"], p["second"]) for p in humans["pairs"]] == [("ada", "tester")]


def test_a_repeated_grade_waiting_to_be_saved_is_not_queued_twice(
    demo_db: Path, monkeypatch
) -> None:
    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 50)
    seen = {}
    other = sqlite3.connect(demo_db, isolation_level=None)

    async def steps(app, pilot) -> None:
        other.execute("BEGIN IMMEDIATE")
        await pilot.press("5")
        await until(pilot, lambda: "not saved yet" in _told(app))
        await pilot.press("5")
        await until(pilot, lambda: "is already 0.5" in _told(app))
        seen["pending"] = len(app.review_screen.pending)
        other.execute("ROLLBACK")
        await until(pilot, lambda: app.current().reviewed)

    try:
        drive(demo_db, steps, poll_seconds=0.1)
    finally:
        other.close()
    assert seen["pending"] == 1
    assert [(action, score) for _, action, score in _reviews(demo_db)] == [("grade", 0.5)]
