"""The review screen on the demo's OCRBench set: the item's type and dataset, the official
rule's reading of the answer (which rule, a gold found or not), the counts it is in, and
the tables, whose counts and sums follow a human verdict."""

from __future__ import annotations

from pathlib import Path

from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen

FORMULA = ("HME100k/6", "demo-beta")  # "X^{2}+3=7": the handwritten-math rule keeps case


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    while (app.current().key, app.current().model) != wanted:
        await pilot.press("j")
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def test_the_detail_shows_the_type_the_rule_and_its_reading(demo_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        seen["title"], seen["judges"] = text_of(app, "#title"), text_of(app, "#judges")
        seen["strip"] = text_of(app, "#strip")
        await _go_to(app, pilot, FORMULA)
        for panel in ("title", "gold", "answer", "judges"):
            seen[f"formula {panel}"] = text_of(app, f"#{panel}")

    drive(demo_db, steps, dataset="ocrbench")
    assert "IIIT5K/1 · demo-alpha" in seen["title"]
    assert "Regular Text Recognition · IIIT5K" in seen["title"]
    assert "a gold occurs in the answer (the general rule)" in seen["judges"]
    assert "Regular Text Recognition (of 1) 1.0" in seen["strip"]  # a count, not 100.0
    assert "handwritten-math rule" in seen["formula title"]
    assert "x ^ { 2 } + 3 = 7" in seen["formula gold"]
    assert "X^{2}+3=7" in seen["formula answer"]
    judged = seen["formula judges"].splitlines()[1].split()
    assert judged[1] == "0.00"
    assert "no gold occurs in the answer (the handwritten-math rule)" in seen["formula judges"]


def test_a_verdict_moves_the_count_and_its_sums(demo_db: Path) -> None:
    seen: dict[str, dict[str, float | None]] = {}

    async def tables(app, pilot, name: str) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        (scores,) = [t for t in app.screen.tables if t.name == "ocrbench.scores"]
        seen[name] = {
            f"{r.label} {key}": r.cells[key].value
            for r in scores.rows
            for key in ("Text Recognition", "Final Score")
        }
        await pilot.press("escape")

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        await tables(app, pilot, "before")
        await pilot.press("0")  # demo-alpha's right word, graded wrong
        await until(pilot, lambda: app.current().reviewed)
        await tables(app, pilot, "after")

    drive(demo_db, steps, dataset="ocrbench")
    before, after = seen["before"], seen["after"]
    assert before == {
        "demo-alpha Text Recognition": 2.0, "demo-alpha Final Score": 6.0,
        "demo-beta Text Recognition": 1.0, "demo-beta Final Score": 3.0,
        "demo-gamma Text Recognition": 0.0, "demo-gamma Final Score": 2.0,
    }  # fmt: skip
    assert after == before | {"demo-alpha Text Recognition": 1.0, "demo-alpha Final Score": 5.0}
