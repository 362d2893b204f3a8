"""The file the screen has open is replaced (`mv new.db results.db`) or deleted: nothing
more is written to that path, and the verdicts go to a copy the screen names."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from datetime import datetime
from pathlib import Path

import pytest
from conftest import dump, llm_judgments
from test_open_terminal import run_in_terminal
from tui_harness import drive, start_judge, text_of, until

from bench.fake_judge import FakeJudge
from lmmreview.tui import file_watch
from lmmreview.tui.screens import JudgeScreen


def _told(app) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


def _verdicts(db: Path) -> list[tuple[str, str, float]]:
    """(sample, model, score) of every grade in `db`, in order, read by another connection."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT s.key, m.name, r.score FROM reviews r JOIN answers a ON a.id = r.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
            "WHERE r.action = 'grade' ORDER BY r.id"
        ).fetchall()


def _intact(db: Path) -> bool:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def _laid_out_anew(source: Path, target: Path) -> Path:
    """Another database: the same imports, its pages laid out anew (by VACUUM), so that a
    page written for `source` is garbage in it."""
    shutil.copyfile(source, target)
    with closing(sqlite3.connect(target)) as conn:  # closed: all of it in the file
        conn.execute("CREATE TABLE padding (x)")
        conn.executemany("INSERT INTO padding VALUES (?)", [("x" * 500,)] * 2000)
        conn.commit()
        conn.execute("DROP TABLE padding")
        conn.commit()
        conn.execute("VACUUM")
    return target


async def _grade_first(app, pilot):
    """Grade the answer on screen 0.3 and wait until the session holds it; returns it."""
    first = app.current()
    await pilot.press("3")
    await until(pilot, lambda: app.session.find(first.answer_id).reviewed)
    return first


def _grade_two_around(demo_db: Path, change) -> tuple:
    """Grade the first answer 0.3, `change()` the file, grade the next 0.5, quit. Returns
    the app, what it showed once the second verdict was in, and the two answers."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        first = await _grade_first(app, pilot)
        change()
        await pilot.press("j")
        second = app.current()
        await pilot.press("5")
        await until(pilot, lambda: "while open" in _told(app))
        await until(pilot, lambda: app.session.find(second.answer_id).reviewed)
        seen.update(told=_told(app), status=text_of(app, "#status"), running=app.is_running)
        seen["graded"] = [(e.key, e.model) for e in (first, second)]
        await pilot.press("q")

    app = drive(demo_db, steps, poll_seconds=0.1)
    return app, seen


def test_a_file_replaced_while_open_is_left_intact_and_the_verdicts_go_to_a_copy(
    demo_db: Path, tmp_path: Path, cli
) -> None:
    newer = _laid_out_anew(demo_db, tmp_path / "newer.db")
    before = dump(newer)
    app, seen = _grade_two_around(demo_db, lambda: os.replace(newer, demo_db))
    # The file now at the path is exactly the one moved there: no page of the screen's.
    assert _intact(demo_db) and dump(demo_db) == before
    [copy] = tmp_path.glob("demo.rescued-*.db")
    (first_key, first_model), (second_key, second_model) = seen["graded"]
    expected = [(first_key, first_model, 0.3), (second_key, second_model, 0.5)]
    assert _intact(copy) and _verdicts(copy) == expected
    assert "demo.db was replaced by another file while open" in seen["told"]
    assert f"lmmreview merge {demo_db} {copy}" in seen["told"]
    assert seen["status"].startswith(f"demo.db replaced: saving to {copy} · ")
    assert seen["running"]
    assert app.return_code == 1 and f"lmmreview merge {demo_db} {copy}" in app.failure
    # What the screen says to do brings the verdicts into the new file.
    assert cli("merge", demo_db, copy).code == 0
    assert _intact(demo_db) and _verdicts(demo_db) == expected


def test_a_file_deleted_while_open_keeps_its_verdicts_in_a_copy(
    demo_db: Path, tmp_path: Path
) -> None:
    app, seen = _grade_two_around(demo_db, lambda: demo_db.unlink())
    [copy] = tmp_path.glob("demo.rescued-*.db")
    (first_key, first_model), (second_key, second_model) = seen["graded"]
    expected = [(first_key, first_model, 0.3), (second_key, second_model, 0.5)]
    assert _verdicts(copy) == expected
    assert "demo.db was deleted while open" in seen["told"]
    assert seen["status"].startswith(f"demo.db deleted: saving to {copy} · ")
    assert app.return_code == 1 and f"to put it back: mv {copy} {demo_db}" in app.failure
    os.replace(copy, demo_db)  # as the screen says
    assert _intact(demo_db) and _verdicts(demo_db) == expected


def test_a_copy_made_outside_the_folder_is_named_by_its_full_path(
    demo_db: Path, tmp_path: Path, monkeypatch
) -> None:
    """The folder is deleted with the file: the copy goes to the temporary folder, and the
    status line names it by its full path (its name alone is not where it is)."""
    folder = tmp_path / "work"
    folder.mkdir()
    db = Path(shutil.copyfile(demo_db, folder / "demo.db"))
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    app, seen = _grade_two_around(db, lambda: shutil.rmtree(folder))
    [copy] = temporary.glob("demo.rescued-*.db")
    assert seen["status"].startswith(f"demo.db deleted: saving to {copy} · ")
    assert f"to put it back: mv {copy} {db}" in seen["told"]
    assert app.return_code == 1 and f"to put it back: mv {copy} {db}" in app.failure


def test_two_screens_rescuing_in_one_second_save_to_two_files_each_named_in_full(
    demo_db: Path, tmp_path: Path, monkeypatch
) -> None:
    """Two screens on one file, each seeing it replaced in the same second: the second
    copy gets a counter beside the first (it went to the temporary folder under the same
    name, while its status line named only the name), and each status line names its own
    copy by its full path (the file opened by its name alone)."""
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))

    class OneSecond(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def]
            return cls(2026, 11, 27, 11, 0, 18)

    monkeypatch.setattr(file_watch, "datetime", OneSecond)
    monkeypatch.chdir(tmp_path)  # opened as `lmmreview open demo.db`
    statuses = []
    for _ in range(2):
        newer = _laid_out_anew(demo_db, tmp_path / "newer.db")
        replace = lambda newer=newer: os.replace(newer, demo_db)  # noqa: E731
        _, seen = _grade_two_around(Path(demo_db.name), replace)
        statuses.append(seen["status"])
    copies = [tmp_path / f"demo.rescued-20261127-110018{n}.db" for n in ("", "-2")]
    for status, copy in zip(statuses, copies, strict=True):
        assert status.startswith(f"demo.db replaced: saving to {copy} · "), status
        assert [score for _, _, score in _verdicts(copy)] == [0.3, 0.5]
    assert not list(temporary.iterdir())


def test_open_exits_1_naming_the_copy_when_its_file_was_replaced(
    demo_db: Path, tmp_path: Path
) -> None:
    """`lmmreview open` in a terminal: grade, `mv` another database over the file, grade
    again, quit: exit code 1 and one line saying where the changes are."""
    newer = _laid_out_anew(demo_db, tmp_path / "newer.db")
    before = dump(newer)
    code, shown = run_in_terminal(
        ["open", str(demo_db), "--images", "off"],
        keys=b"3",
        ready=b"no human verdict",  # the first answer is shown: 3 grades it
        then=[
            (b"1 reviewed", lambda: os.replace(newer, demo_db), b"j5"),
            (b"saving to", None, b"q"),
        ],
    )
    [copy] = tmp_path.glob("demo.rescued-*.db")
    assert code == 1
    assert shown.strip().splitlines() == [
        "error: demo.db was replaced by another file while open, so nothing more is written "
        "to it; your changes are saved to a copy of it as this screen had it, from now on; "
        f"to bring them into the new file: lmmreview merge {demo_db} {copy}"
    ]
    assert _intact(demo_db) and dump(demo_db) == before
    assert [score for _, _, score in _verdicts(copy)] == [0.3, 0.5]


def _truncate(path: Path) -> None:
    path.open("w").close()  # as `: > results.db` does


@pytest.mark.parametrize("rewrite", ["cp", "truncate"])
def test_a_file_rewritten_in_place_while_open_is_left_intact_and_the_verdicts_kept_pending(
    demo_db: Path, tmp_path: Path, rewrite: str
) -> None:
    """`cp other.db results.db` (or `: > results.db`) writes over the same inode: its old
    content is gone, with the verdict saved to it before, so no copy can hold them; both
    are pending again (shown as not saved), named at quit, and exit code 1."""
    newer = _laid_out_anew(demo_db, tmp_path / "newer.db")
    seen: dict[str, object] = {}
    overwrite = {
        "cp": lambda: shutil.copyfile(newer, demo_db),
        "truncate": lambda: _truncate(demo_db),
    }

    async def steps(app, pilot) -> None:
        first = await _grade_first(app, pilot)
        overwrite[rewrite]()
        seen["before"] = demo_db.read_bytes()
        await pilot.press("j", "5")
        await until(pilot, lambda: "rewritten in place" in _told(app))
        await pilot.pause(0.3)  # a few polls and retries
        seen.update(status=text_of(app, "#status"), pending=len(app.review_screen.pending))
        seen["graded"] = [(first.key, first.model), (app.current().key, app.current().model)]
        await pilot.press("k")  # back on the first answer: its verdict is not saved
        await until(pilot, lambda: app.current().answer_id == first.answer_id)
        seen["verdict"] = text_of(app, "#verdict")
        await pilot.press("q")
        await until(pilot, lambda: "Press q again" in _told(app))
        await pilot.press("q")

    app = drive(demo_db, steps, poll_seconds=0.1)
    assert demo_db.read_bytes() == seen["before"]
    assert not list(tmp_path.glob("demo.rescued-*"))
    assert seen["pending"] == 2
    assert seen["status"].startswith("demo.db rewritten: saving nothing · ")
    assert "2 not saved yet" in seen["status"]
    assert "not saved yet: score 0.30" in seen["verdict"]
    (first_key, first_model), (key, model) = seen["graded"]
    assert app.return_code == 1
    assert app.failure == (
        f"{demo_db}: quit with 2 changes not saved (demo.db was rewritten in place by another "
        "program while open, so nothing more is written to it; changes not saved yet stay on "
        f"screen (open the file again to go on)): {first_key} ({first_model}): score 0.30; "
        f"{key} ({model}): score 0.50"
    )


def test_another_process_writing_the_file_is_not_taken_for_a_rewrite(demo_db: Path) -> None:
    """Another process commits and moves its WAL into the file (as `lmmreview judge`
    does): the file changed on disk, but through SQLite, so the screen goes on saving."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _grade_first(app, pilot)
        with closing(sqlite3.connect(demo_db)) as other:
            other.execute("CREATE TABLE other_tool (x)")  # a commit that changes pages
            other.commit()
            other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        await pilot.pause(0.3)  # polls look at the file
        await pilot.press("j", "5")
        second = app.current()
        await until(pilot, lambda: app.session.find(second.answer_id).reviewed)
        seen["told"] = _told(app)

    app = drive(demo_db, steps, poll_seconds=0.1)
    assert "while open" not in seen["told"] and app.database.moved is None
    assert [score for _, _, score in _verdicts(demo_db)] == [0.3, 0.5]


def test_a_replacing_file_written_before_the_screen_looks_gets_no_broken_copy(
    demo_db: Path, tmp_path: Path
) -> None:
    """Another process writes the new file before the screen's next look: the old file
    can no longer be read soundly (the two share the WAL by name), so no copy is made,
    the verdicts stay pending (the one saved to the old file too: it is out of reach), and
    the new file keeps what was written to it."""
    newer = _laid_out_anew(demo_db, tmp_path / "newer.db")
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _grade_first(app, pilot)
        os.replace(newer, demo_db)
        with closing(sqlite3.connect(demo_db)) as other:
            other.execute("CREATE TABLE other_tool (x)")
            other.executemany("INSERT INTO other_tool VALUES (?)", [("y" * 300,)] * 300)
            other.commit()
            seen["before"] = dump(demo_db)
            await pilot.press("j", "5")
            await until(pilot, lambda: "no copy of it could be made" in _told(app))
        # the first verdict went with the old file: pending again, beside the second (the
        # writer takes a key's command in its own turn: waited for, not read at once)
        await until(pilot, lambda: len(app.review_screen.pending) == 2)

    drive(demo_db, steps, poll_seconds=0.1)
    assert _intact(demo_db) and dump(demo_db) == seen["before"]
    assert not list(tmp_path.glob("demo.rescued-*"))


def test_a_judge_run_whose_file_is_emptied_stops_and_the_screen_says_so(
    demo_db: Path, tmp_path: Path, monkeypatch
) -> None:
    """`: > results.db` during a J run: the screen went on with no word, q q did not end
    it, and the judgments paid for were lost."""
    content = b""
    seen: dict[str, object] = {}
    with FakeJudge(latency=0.2) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

        async def steps(app, pilot) -> None:
            await start_judge(app, pilot, lambda: server.requests)
            await until(pilot, lambda: len(llm_judgments(demo_db)) > 1, 30)
            seen["paid"] = llm_judgments(demo_db)
            demo_db.write_bytes(content)  # the same inode, written over
            # the screen's own look may tell the rewrite first: wait for the judge's word
            await until(pilot, lambda: bool(app.review_screen.judge_run.stopped), 30)
            await pilot.press("escape")  # the judge dialog
            await until(pilot, lambda: not isinstance(app.screen, JudgeScreen))
            # the status line follows at the screen's next refresh (CI once read it before)
            await until(pilot, lambda: text_of(app, "#status").startswith("demo.db rewritten"))
            seen["status"] = text_of(app, "#status")
            await pilot.press("q")

        app = drive(demo_db, steps, poll_seconds=0.1, judge_runs=3, judge_base_url=server.base_url)
    assert demo_db.read_bytes() == content  # before anything opens it again
    wal = demo_db.with_name(demo_db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # nothing left to move into it
    assert seen["status"].startswith("demo.db rewritten: saving nothing · "), seen["status"]
    [copy] = tmp_path.glob("demo.rescued-*.db")
    assert seen["paid"] <= llm_judgments(copy)
    assert app.return_code == 1
    assert "demo.db was rewritten in place by another program while open" in app.failure
    assert f"judgments it received are saved, with their answers, in {copy}" in app.failure
