"""The review screen on the demo's LLaVA-Bench set: a sample says its category, order and
whose score it holds, the judge's review and its two scores; demo-gamma's review that the
official parse does not read is unscored, and scoring its two samples by hand moves the
relative scores."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen

FAILED = ("3", "demo-gamma")  # its review opens "8, 4": the tuple is [-1, -1]
FAILED_REFERENCE = ("3/reference", "demo-gamma")
READ = ("0/reference", "demo-alpha")
LIST_LENGTH = 72  # the demo's LLaVA-Bench answers: no more moves than these


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    for _ in range(LIST_LENGTH):
        if (app.current().key, app.current().model) == wanted:
            break
        await pilot.press("j")
    assert (app.current().key, app.current().model) == wanted
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def test_a_sample_says_its_order_and_score_and_the_review(demo_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        for name, wanted in (("read", READ), ("failed", FAILED)):
            await _go_to(app, pilot, wanted)
            for panel in ("title", "judges"):
                seen[f"{name} {panel}"] = text_of(app, f"#{panel}")

    drive(demo_db, steps, dataset="llava-bench")
    assert "Conversation · reference first · the reference's score" in seen["read title"]
    assert "Assistant 1 answers from the description" in seen["read judges"]
    assert "Reasoning" not in seen["failed title"]
    assert "not two scores from 0 to 10" in seen["failed judges"]


def test_scoring_the_failed_review_by_hand_moves_the_relative_scores(demo_db: Path) -> None:
    seen: dict[str, dict[str, float | None]] = {}

    async def tables(app, pilot, name: str) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        [table] = [t for t in app.screen.tables if t.name == "llava-bench.relative"]
        [row] = [r for r in table.rows if r.label == "demo-gamma"]
        seen[name] = {key: cell.value for key, cell in row.cells.items()}
        await pilot.press("escape")

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        await tables(app, pilot, "before")
        await _go_to(app, pilot, FAILED)
        await pilot.press("4")  # the model's score: 4 of 10
        await until(pilot, lambda: app.current().reviewed)
        await _go_to(app, pilot, FAILED_REFERENCE)
        await pilot.press("8")  # the reference's: 8 of 10
        await until(pilot, lambda: app.current().reviewed)
        await tables(app, pilot, "after")

    drive(demo_db, steps, dataset="llava-bench")
    # before: conv from question 0 alone, (8, 3); after: (8, 3) and (8, 4): 3.5 / 8.0
    assert seen["before"]["conv"] == 37.5 and seen["after"]["conv"] == 43.8
    # overall: 14 / 39 before (5 reviews), 18 / 47 after: 3.0 / 7.833
    assert seen["before"]["all"] == pytest.approx(35.9)
    assert seen["after"]["all"] == pytest.approx(38.3)
