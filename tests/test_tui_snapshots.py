"""SVG snapshots of the screens whose look matters, with a fixed image renderer."""

from __future__ import annotations

from pathlib import Path

from conftest import matches_golden
from tui_harness import drive, until

from lmmreview.tui.images import SampleImages
from lmmreview.tui.screens import BreakdownScreen, HelpScreen


def test_review_breakdown_and_help_screens(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"  # the status line shows the file name
    cli("demo", db, "--no-open")
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        images = app.screen.query_one(SampleImages)
        await until(pilot, lambda: not images.pending and images.children)
        await pilot.pause(0.1)
        shots["review"] = app.export_screenshot()
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.pause(0.2)
        shots["breakdown"] = app.export_screenshot()
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause(0.2)
        shots["help"] = app.export_screenshot()

    drive(db, steps)
    for name, svg in shots.items():
        matches_golden(svg, f"tui/{name}.svg")
