"""The review screen on the demo's MME set: the question's place in its image's pair, the
official rule's reading of the answer ("other" said as such), the acc and acc+ cells it
counts in, and the tables, whose sums follow a human verdict."""

from __future__ import annotations

from pathlib import Path

from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen

OTHER = ("existence/shelf.png/2", "demo-beta")  # "There is no bicycle.": "ther", other


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    while (app.current().key, app.current().model) != wanted:
        await pilot.press("j")
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def test_the_detail_shows_the_pair_the_parse_and_other(demo_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        seen["title"], seen["judges"] = text_of(app, "#title"), text_of(app, "#judges")
        seen["strip"] = text_of(app, "#strip")
        await _go_to(app, pilot, OTHER)
        for panel in ("title", "gold", "answer", "judges"):
            seen[f"other {panel}"] = text_of(app, f"#{panel}")

    drive(demo_db, steps, dataset="mme")
    assert "existence/shelf.png/1 · demo-alpha" in seen["title"]
    assert "existence · perception · question 1 of 2 on shelf.png" in seen["title"]
    assert "reads as yes (the official rule)" in seen["judges"]
    assert "Existence acc 100.0" in seen["strip"] and "Existence acc+ 100.0" in seen["strip"]
    assert "question 2 of 2 on shelf.png" in seen["other title"]
    assert "No" in seen["other gold"]
    assert "There is no bicycle." in seen["other answer"]
    judged = seen["other judges"].splitlines()[1].split()
    assert judged[1] == "0.00" and "other: no yes or no" in seen["other judges"]


def test_a_verdict_moves_the_subtask_score_and_its_total(demo_db: Path) -> None:
    seen: dict[str, dict[str, dict[str, float | None]]] = {}

    async def tables(app, pilot, name: str) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen[name] = {
            t.name: {r.label: r.cells[key].value for r in t.rows}
            for t in app.screen.tables
            if (key := t.columns[0].key) in ("perception", "cognition")
        }
        await pilot.press("escape")

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: text_of(app, "#judges"))
        await tables(app, pilot, "before")
        await pilot.press("0")  # demo-alpha's right yes on the shelf, graded wrong
        await until(pilot, lambda: app.current().reviewed)
        await tables(app, pilot, "after")

    drive(demo_db, steps, dataset="mme")
    before, after = seen["before"], seen["after"]
    assert list(before) == ["mme.perception", "mme.cognition"]
    assert before["mme.perception"] == {"demo-alpha": 800.0, "demo-beta": 350.0,
                                        "demo-gamma": 150.0}  # fmt: skip
    assert before["mme.cognition"] == {"demo-alpha": 250.0, "demo-beta": 200.0,
                                       "demo-gamma": 100.0}  # fmt: skip
    # existence: acc 1/2 and acc+ 0/1 -> 50, so Perception loses 150
    assert after["mme.perception"]["demo-alpha"] == 650.0
    assert after["mme.cognition"] == before["mme.cognition"]
