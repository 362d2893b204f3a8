"""The review screen on the demo's MMMU-Pro set: ten options, the parse's letter and its
fallback mark, grading by key (J, the judge's key, through the option list), the tables."""

from __future__ import annotations

from pathlib import Path

from tui_harness import cursor, drive, text_of, until

from lmmreview.tui.option_picker import OptionPicker
from lmmreview.tui.screens import BreakdownScreen

FALLBACK = ("test_Computer_Science_1", "demo-gamma")  # "Sorry, no idea.": a random letter


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    while (app.current().key, app.current().model) != wanted:
        await pilot.press("j")
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def test_the_detail_shows_ten_options_the_parse_and_its_fallback_mark(demo_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        seen["first"] = (app.current().key, app.current().model)
        seen["question"], seen["judges"] = text_of(app, "#question"), text_of(app, "#judges")
        await _go_to(app, pilot, FALLBACK)
        seen["fallback"] = text_of(app, "#judges")
        seen["row"] = "".join(text for text, _ in app.review_screen._row(cursor(app)))

    drive(demo_db, steps, dataset="mmmu-pro")
    assert seen["first"] == ("test_Accounting_1", "demo-alpha")
    options = [line.strip() for line in str(seen["question"]).splitlines()[1:] if line.strip()]
    assert [option[:2] for option in options] == [f"{letter}." for letter in "ABCDEFGHIJ"]
    assert "J. $12,000" in options
    judged = str(seen["judges"]).splitlines()[1].split()
    assert judged[:2] == ["0", "C"] and "answer_line" in judged  # after the last `Answer:`
    fallback = str(seen["fallback"]).splitlines()[1].split()
    assert fallback[1] == "H" and fallback.count("fallback") == 2  # the status and the rule
    assert "~" in str(seen["row"])  # the list marks the random letter


def test_grading_by_key_and_the_tables_view(demo_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("D")  # demo-alpha's answer to test_Accounting_1 (gold C): wrong
        await until(pilot, lambda: app.current().reviewed)
        seen["first"] = app.current().verdict.choice
        await _go_to(app, pilot, ("test_Math_1", "demo-alpha"))
        await pilot.press("p")  # J is the judge's key: option J from the option list
        await until(pilot, lambda: isinstance(app.screen, OptionPicker))
        await pilot.press("J")
        await until(pilot, lambda: app.current().reviewed)
        seen["second"] = (app.current().key, app.current().verdict.choice)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen["tables"] = {
            t.name: {r.label: r.cells["overall"].value for r in t.rows if "overall" in r.cells}
            for t in app.screen.tables
        }

    drive(demo_db, steps, dataset="mmmu-pro")
    assert seen["first"] == "D" and seen["second"] == ("test_Math_1", "J")
    tables = seen["tables"]
    assert list(tables) == [f"mmmu-pro.{t}" for t in ("disciplines", "subjects", "difficulty",
                                                       "img_type")]  # fmt: skip
    # demo-alpha was right on all 8; two human verdicts now say wrong
    assert tables["mmmu-pro.disciplines"]["demo-alpha"] == 75.0
