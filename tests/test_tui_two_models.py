"""Two models whose names differ only at the end (llava-v1.5-7b and -13b), on a real
database and the real screen driven by keys: the compare view (c) opens on the answer under
the list's cursor, lists the models as the list does, and a grade given there lands on the
answer highlighted, leaving the list where it was; a small terminal tells the names apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Input
from tui_harness import choose, drive, until, verdicts

from lmmreview.engine.names import shared_ends, short_model
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import CompareScreen

SEVEN, THIRTEEN = "llava-v1.5-7b", "llava-v1.5-13b"  # 13b sorts first by name


@pytest.fixture
def two_models_db(cli, mmvet_files, tmp_path: Path) -> Path:
    """The three-sample MM-Vet set with one answer file imported as 7b, then as 13b."""
    db = tmp_path / "two.db"
    files = mmvet_files
    result = cli("import", "mmvet", db, files["questions"], "--images", files["images"],
                 "--answers", files["alpha"], "--model", SEVEN,
                 "--answers", files["alpha"], "--model", THIRTEEN)  # fmt: skip
    assert result.code == 0, result.stderr
    return db


@pytest.mark.parametrize("advance", [False, True])
def test_compare_grades_the_answer_under_the_cursor_and_leaves_the_cursor(
    two_models_db: Path, advance: bool
) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        review = app.review_screen
        await pilot.press("v")  # a filter: only the unreviewed answers
        await choose(app, pilot, "unreviewed")
        await until(pilot, lambda: app.session.filter.unreviewed)
        await pilot.press("colon")  # `:v1_1`: the cursor on v1_1's first answer, 7b's
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        app.screen.focused.value = "v1_1"
        await pilot.press("enter")
        await until(pilot, lambda: app.current().key == "v1_1")
        seen["before"] = (review.query_one(AnswerList).cursor, app.current().model)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        seen["models"] = [a.model for a in app.screen.answers]
        seen["highlighted"] = app.screen.highlighted().model
        await pilot.press("2")
        await until(pilot, lambda: verdicts(two_models_db))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is review)
        await pilot.pause(0.2)
        seen["after"] = (review.query_one(AnswerList).cursor, app.current().model)
        seen["key"] = app.current().key

    drive(two_models_db, steps, auto_advance=advance)
    assert seen["before"] == (2, SEVEN)
    assert seen["models"] == [SEVEN, THIRTEEN]  # as the list has them: import order
    assert seen["highlighted"] == SEVEN
    assert verdicts(two_models_db) == [("v1_1", SEVEN, 0.2)]
    assert seen["after"] == (2, SEVEN) and seen["key"] == "v1_1"


def test_a_small_terminal_tells_apart_names_that_differ_at_the_end(two_models_db: Path) -> None:
    rows: list[str] = []

    async def steps(app, pilot) -> None:
        answers = app.review_screen.query_one(AnswerList)
        rows.extend(answers.render_line(y).text for y in range(2))

    drive(two_models_db, steps, size=(80, 24))
    first, second = (row.split()[1] for row in rows)  # id, model, score, marks
    assert first != second
    assert first.endswith("7b") and second.endswith("13b")
    assert first.startswith("ll")


def test_a_model_name_is_cut_in_the_middle_within_its_width() -> None:
    assert short_model("llava-v1.5-7b", 9) == "llav…5-7b"
    assert short_model("llava-v1.5-13b", 9) == "llav…-13b"
    assert short_model("demo-alpha", 10) == "demo-alpha"  # fits: whole
    assert cell_len(short_model("模型" * 20 + "-7b", 9)) <= 9
    huge = short_model("x" * 100_000 + "\x1b[31m-7b", 9)
    assert "\x1b" not in huge and huge.endswith("-7b")


@pytest.fixture
def middle_db(cli, mmvet_files, tmp_path: Path) -> Path:
    """The MM-Vet set imported as two models whose names differ only in the middle."""
    db = tmp_path / "middle.db"
    files = mmvet_files
    result = cli("import", "mmvet", db, files["questions"], "--images", files["images"],
                 "--answers", files["alpha"], "--model", "llava-v1.5-7b-hf",
                 "--answers", files["alpha"], "--model", "llava-v1.6-7b-hf")  # fmt: skip
    assert result.code == 0, result.stderr
    return db


def test_a_small_terminal_tells_apart_names_that_differ_in_the_middle(middle_db: Path) -> None:
    rows: list[str] = []

    async def steps(app, pilot) -> None:
        answers = app.review_screen.query_one(AnswerList)
        rows.extend(answers.render_line(y).text for y in range(2))

    drive(middle_db, steps, size=(80, 24))
    first, second = sorted(row.split()[1] for row in rows)  # id, model, score, marks
    assert first != second
    assert "5" in first and "6" in second


def test_a_model_name_keeps_where_it_differs_from_the_others() -> None:
    names = ["llava-v1.5-7b-hf", "llava-v1.6-7b-hf", "qwen-vl-chat"]
    ends = shared_ends(names)
    assert ends["qwen-vl-chat"] == (0, 0)
    cut = {name: short_model(name, 9, ends[name]) for name in names}
    assert cut["llava-v1.5-7b-hf"] == "…5-7b-hf" and cut["llava-v1.6-7b-hf"] == "…6-7b-hf"
    assert cut["qwen-vl-chat"] == "qwen…chat"  # nothing shared: the usual middle cut
    assert short_model("llava-v1.5-7b", 9, shared_ends([SEVEN, THIRTEEN])[SEVEN]) == "llav…5-7b"
    long = ["a" * 30 + "1" + "b" * 30, "a" * 30 + "2" + "b" * 30]
    ends = shared_ends(long)
    assert [short_model(name, 9, ends[name]) for name in long] == ["…1bb…bbbb", "…2bb…bbbb"]
