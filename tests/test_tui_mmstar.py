"""The review screen on the demo's MMStar set: the question's capability, axis and setting,
the strict rule's reading of the answer (none said as such), the cells it counts in, and
the tables, whose S_v, MG and capability follow a human verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen

NONE_READ = ("5", "demo-alpha")  # "The answer is (B)": the character after it is "("
FIRST_LETTER = ("6", "demo-beta")  # "Answer: B" reads A
WITHOUT = ("without-image/1", "demo-alpha")
LIST_LENGTH = 35  # the demo's MMStar answers: no more moves than these


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    for _ in range(LIST_LENGTH):
        if (app.current().key, app.current().model) == wanted:
            break
        await pilot.press("j")
    assert (app.current().key, app.current().model) == wanted
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def test_the_detail_shows_the_setting_and_the_strict_reading(demo_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        seen["title"], seen["judges"] = text_of(app, "#title"), text_of(app, "#judges")
        seen["strip"] = text_of(app, "#strip")
        for name, wanted in (("none", NONE_READ), ("first", FIRST_LETTER), ("wv", WITHOUT)):
            await _go_to(app, pilot, wanted)
            for panel in ("title", "judges", "strip"):
                seen[f"{name} {panel}"] = text_of(app, f"#{panel}")

    drive(demo_db, steps, dataset="mmstar")
    assert "1 · demo-alpha" in seen["title"]
    assert "coarse perception · image emotion · with-image" in seen["title"]
    assert "reads as B (the official rule)" in seen["judges"]
    assert "CP 100.0" in seen["strip"] and "S_v 85.7" in seen["strip"]
    assert "no option letter where the official rule looks" in seen["none judges"]
    assert "reads as A (the official rule)" in seen["first judges"]
    assert "without-image" in seen["wv title"]
    assert "S_wv 42.9" in seen["wv strip"] and "CP" not in seen["wv strip"]


def test_a_verdict_moves_the_capability_s_v_and_the_gain(demo_db: Path) -> None:
    seen: dict[str, dict[str, dict[str, float | None]]] = {}

    async def tables(app, pilot, name: str) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen[name] = {
            t.name: {c.key: t.rows[0].cells[c.key].value for c in t.columns}
            for t in app.screen.tables
            if t.name in ("mmstar.capabilities", "mmstar.settings")
        }
        await pilot.press("escape")

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        await tables(app, pilot, "before")
        await _go_to(app, pilot, NONE_READ)
        await pilot.press("B")  # the reviewer reads B in "The answer is (B)": right
        await until(pilot, lambda: app.current().reviewed)
        await tables(app, pilot, "after")

    drive(demo_db, steps, dataset="mmstar")
    before, after = seen["before"], seen["after"]
    assert before["mmstar.settings"] == pytest.approx(
        {"S_v": 600 / 7, "S_wv": 300 / 7, "S_t": 200 / 7, "MG": 300 / 7, "ML": 100 / 7}
    )
    assert before["mmstar.capabilities"]["science & technology"] == 0.0
    # demo-alpha's row (the first): 7 of 7 right with the image
    assert after["mmstar.capabilities"]["science & technology"] == 100.0
    assert after["mmstar.capabilities"]["final"] == 100.0
    assert after["mmstar.settings"] == pytest.approx(
        {"S_v": 100.0, "S_wv": 300 / 7, "S_t": 200 / 7, "MG": 400 / 7, "ML": 100 / 7}
    )
