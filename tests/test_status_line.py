"""The review screen's status line keeps to one line of the terminal: a filter of many
conditions is shortened ("+N more", or their count), so the judge shown after it stays
on screen (a user's test: at 160 columns it was cut off)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from tui_harness import drive, until

from lmmreview.engine.review import Filter
from lmmreview.tui.review_screen import ReviewScreen
from lmmreview.tui.status_line import StatusLine, fitted

MANY = Filter(
    unreviewed=True,
    failed=True,
    fallback=True,
    disagreement=0.3,
    spread=0.1,
    axis=("capability", "rec"),
    model="demo-beta",
    text="chart",
    text_ids=frozenset(),
)  # eight conditions, 116 cells joined


def test_the_conditions_are_kept_while_they_fit_then_counted() -> None:
    parts = [Text(p) for p in ("unreviewed", "flagged", "model=demo-beta")]
    assert fitted(parts, None).plain == "unreviewed & flagged & model=demo-beta"
    assert fitted(parts, 38).plain == "unreviewed & flagged & model=demo-beta"
    assert fitted(parts, 37).plain == "unreviewed & flagged +1 more"
    assert fitted(parts, 20).plain == "unreviewed +2 more"
    assert fitted(parts, 17).plain == "3 conditions"
    assert fitted(parts[:1], 3).plain == "unreviewed"  # one: shown, the terminal cuts it
    assert fitted([], 3).plain == "all answers"


@pytest.mark.parametrize(
    ("width", "shown"),
    [
        (160, "· showing 0: unreviewed & judge failed & fallback +5 more"),
        (80, "mmvet · 0/58 reviewed · showing 0: unreviewed +7 more"),  # briefly
    ],
)
def test_a_long_filter_fits_the_line_at_160_and_80_columns(
    demo_db: Path, width: int, shown: str
) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and app.session is not None
        app.session.apply(MANY)
        screen.refresh_list(0)
        line = screen.query_one(StatusLine)
        await until(pilot, lambda: "showing" in str(line.content))
        seen["line"] = str(line.content)
        await pilot.resize_terminal(240, 48)  # wide enough again: every condition
        await until(pilot, lambda: "more" not in str(line.content))
        seen["wide"] = str(line.content)

    drive(demo_db, steps, size=(width, 48))
    line = seen["line"]
    assert len(line) <= width - 2, line  # one line inside the padding
    assert shown in line and line.endswith(" · judge offline rules"), line
    assert line.startswith("demo.db · 13 datasets · mmvet (mmvet) · ") == (width == 160)
    assert "showing 0: unreviewed & judge failed & fallback & " in seen["wide"]
    assert "text~'chart' · judge offline rules" in seen["wide"]
