"""Issue 14 item 9, export from the screen: problems are messages, an existing file is
replaced only when the reviewer says yes, and every dataset's tables can be written."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_harness import drive, export_to, until


def _told(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


def test_an_existing_file_is_kept_unless_the_reviewer_says_yes(demo_db: Path, tmp_path) -> None:
    target = tmp_path / "tables.md"
    target.write_text("last week's tables\n", encoding="utf-8")
    seen: dict = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target, replace=False)
        await until(pilot, lambda: "nothing was written" in _told(app))
        seen["kept"] = target.read_text(encoding="utf-8")
        await export_to(app, pilot, target, replace=True)
        await until(pilot, lambda: "Wrote the tables" in _told(app))

    drive(demo_db, steps)
    assert seen["kept"] == "last week's tables\n"
    assert "| demo-alpha |" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("typed", "problem"),
    [("~no-such-user-xyz/tables.md", "Could not write the tables to ~no-such-user-xyz"),
     ("tables\0.md", "Could not write the tables to tables"),
     ("{tmp}", "Could not write the tables to {tmp}")],
)  # fmt: skip
def test_a_path_that_cannot_be_written_is_a_message_and_grading_goes_on(
    demo_db: Path, tmp_path: Path, typed: str, problem: str
) -> None:
    typed, problem = typed.format(tmp=tmp_path), problem.format(tmp=tmp_path)
    seen: dict = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, Path(typed) if "\0" not in typed else typed)
        await until(pilot, lambda: "Could not write" in _told(app))
        seen["told"] = _told(app)
        await pilot.press("3")
        await until(pilot, lambda: app.current().reviewed)

    app = drive(demo_db, steps)
    assert problem in seen["told"]
    assert app.return_code in (None, 0) and app.failure is None


def test_all_datasets_writes_what_lmmreview_export_writes(cli, demo_db: Path, tmp_path) -> None:
    target = tmp_path / "all.md"

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target, scope="all")
        await until(pilot, lambda: "Wrote the tables" in _told(app))

    drive(demo_db, steps)
    exported = cli("export", demo_db)
    assert exported.code == 0
    text = target.read_text(encoding="utf-8")
    assert text.strip() == exported.stdout.strip()
    for dataset in ("(mmvet)", "(mmbench", "(mmmu)"):
        assert dataset in text


def test_the_databases_journal_is_refused_though_the_file_has_none(
    demo_db: Path, tmp_path: Path
) -> None:
    """In WAL mode there is no -journal file, but SQLite reads one named so as the
    database's: the screen refuses it as it refuses the database and its -wal."""
    target = tmp_path / "sub" / ".." / f"{demo_db.name}-journal"
    seen: dict = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target)
        await until(pilot, lambda: "not writing the tables" in _told(app))
        seen["told"] = _told(app)

    drive(demo_db, steps)
    assert f"that is {demo_db}-journal, a file of the database." in seen["told"]
    assert not Path(f"{demo_db}-journal").exists()
