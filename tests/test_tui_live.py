"""Issue 14 item 6, live: answers, models and datasets that another process imports while
the screen is open join the list, the tables and the dataset switcher."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

from conftest import write_json, write_lines
from textual.widgets import OptionList
from tui_harness import RENDERER, drive, export_to, menu_labels, text_of, until

from lmmreview.db.demo import sample_data
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.session import Session
from lmmreview.tui.settings import Settings

NEW_MODEL = "demo-delta"
NEW_KEYS = ("v1_0", "v1_1", "v1_2")


async def _lmmreview(*args: str | Path) -> None:
    """Run the real CLI in another process (it opens its own connection to the file)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lmmreview", *map(str, args),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, (out + err).decode()


def test_answers_of_a_new_model_join_the_list_and_the_tables(demo_db: Path, tmp_path) -> None:
    data = sample_data() / "mmvet"
    alpha = json.loads((data / "answers" / "demo-alpha.json").read_text())
    answers = tmp_path / f"{NEW_MODEL}.json"
    answers.write_text(json.dumps({key: alpha[key] for key in NEW_KEYS}))
    seen: dict = {}

    async def steps(app, pilot) -> None:
        session = app.session
        seen["before"] = len(session.entries)
        shown = app.current().answer_id
        await _lmmreview(
            "import", "mmvet", demo_db, data / "mm-vet.json", "--images", data / "images",
            "--answers", answers, "--dataset", "mmvet",
        )  # fmt: skip
        await until(pilot, lambda: len(app.session.entries) == seen["before"] + len(NEW_KEYS))
        seen["kept"] = app.current().answer_id == shown  # the reviewer stays where they were
        seen["status"] = text_of(app, "#status")
        tables = app.session.tables.breakdown.tables()
        seen["rows"] = {row.label for table in tables for row in table.rows}
        listed = [app.session.listed(i) for i in range(len(app.session.visible))]
        seen["models"] = [e.model for e in listed if e.key == NEW_KEYS[-1]]
        new = next(e for e in listed if e.model == NEW_MODEL and e.key == NEW_KEYS[-1])
        app.review_screen.reveal(new.answer_id)
        await until(pilot, lambda: alpha[NEW_KEYS[-1]] in text_of(app, "#answer"))
        seen["last"] = (app.current().model, app.current().key, text_of(app, "#answer"))

    drive(demo_db, steps, poll_seconds=0.1)
    total = seen["before"] + len(NEW_KEYS)
    assert seen["kept"] and f"{total} answers" in seen["status"]
    assert NEW_MODEL in seen["rows"]
    assert seen["models"][-1] == NEW_MODEL  # listed in its place: after the sample's others
    model, key, text = seen["last"]
    assert (model, key) == (NEW_MODEL, NEW_KEYS[-1]) and alpha[key] in text


def test_a_new_dataset_appears_in_the_dataset_switcher(demo_db: Path, tmp_path) -> None:
    lines = [{"id": "q1", "question": "Two plus two?", "answer": "4", "prediction": "4"}]
    fresh = write_lines(tmp_path / "fresh.jsonl", lines)
    seen: dict = {}

    async def steps(app, pilot) -> None:
        await _lmmreview("import", "jsonl", demo_db, fresh, "--model", "m1")
        await until(pilot, lambda: "fresh" in app.session.datasets)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen.focused, OptionList))
        seen["menu"] = menu_labels(app.screen.focused)  # "  fresh": room for the mark

    drive(demo_db, steps, poll_seconds=0.1)
    assert "fresh" in seen["menu"] and "mmvet" in seen["menu"]


def test_judgments_another_process_removes_leave_the_list_the_tables_and_the_export(
    cli, mmvet_two_models_db: Path, tmp_path: Path
) -> None:
    """`imports DB --remove 1` while the screen is open: the judge's scores leave the list,
    the tables and `e`'s export; the cursor and the verdict given stay."""
    db = mmvet_two_models_db
    grades = {f"v1_{i}": {"model": ["g"], "content": [str(s)], "score": [s]}
              for i, s in enumerate([0.5, 1.0, 0.0])}  # fmt: skip
    imported = cli(
        "import", "mmvet-grades", db, write_json(tmp_path / "alpha_g-grade-1runs.json", grades)
    )
    assert imported.code == 0, imported.stderr
    exported = tmp_path / "screen.tables.md"
    seen: dict = {}

    async def steps(app, pilot) -> None:
        seen["judge"] = app.session.judge_name
        await pilot.press("j", "j", "3")
        kept = app.current()
        await until(pilot, lambda: app.session.find(kept.answer_id).reviewed)
        await _lmmreview("imports", db, "--remove", "1")
        await until(pilot, lambda: app.session.judge_name == "none yet")
        await until(pilot, lambda: app.session.tables is not None)
        seen["kept"] = app.current().answer_id == kept.answer_id
        seen["scored"] = [e.judge_mean() for e in app.session.entries if e.judge_mean() is not None]
        seen["reviewed"] = app.session.find(kept.answer_id).verdict
        await export_to(app, pilot, exported)
        await until(pilot, lambda: exported.exists())

    drive(db, steps, poll_seconds=0.1)
    assert seen["judge"] != "none yet"
    assert seen["kept"] and seen["scored"] == []
    assert seen["reviewed"] is not None and seen["reviewed"].score == 0.3
    # The screen's export is the file's, as `lmmreview export` writes it: no judge g.
    assert exported.read_text() == cli("export", db, "--format", "md").stdout


def test_the_status_says_loading_until_the_tables_name_the_judge(
    demo_db: Path, monkeypatch
) -> None:
    """While the tables are computed (long on a large file) the judge is not known yet:
    the status says so rather than "none yet"."""
    released = threading.Event()
    compute = Session.compute

    def held(*args, **kwargs):
        released.wait(15)
        return compute(*args, **kwargs)

    monkeypatch.setattr(Session, "compute", staticmethod(held))
    seen = {}

    async def main() -> None:
        app = ReviewApp(demo_db, Settings(path=demo_db.with_suffix(".toml"), reviewer="t"),
                        dataset="mmvet", image_renderer=RENDERER)  # fmt: skip
        async with app.run_test(size=(150, 48)) as pilot:
            await until(pilot, lambda: app.current() is not None)
            seen["loading"] = text_of(app, "#status")
            released.set()
            await until(pilot, lambda: app.session.tables is not None)
            await pilot.pause()
            seen["loaded"] = text_of(app, "#status")

    asyncio.run(main())
    assert "judge loading…" in seen["loading"] and "none yet" not in seen["loading"]
    assert "loading…" not in seen["loaded"] and "judge offline rules" in seen["loaded"]
