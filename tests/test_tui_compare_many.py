"""The compare view (c) with twenty models, on a real database and the real screen driven
by keys: each box keeps a readable width and shows its model's name (cut in the middle when
long); the highlighted box is scrolled into view, with its place ("model 20 of 20"); a
grade lands on the model highlighted while the list's cursor stays where it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MANY_MODELS
from textual.geometry import Region
from textual.widget import Widget
from tui_harness import cursor, drive, text_of, until, verdicts

from lmmreview.tui.screens import CompareScreen

BORDER = "╔═╗╭─╮ "  # a box's top edge, highlighted or not, around its title
START = 4  # the list's cursor: the fifth model's answer to the first sample


def _in_view(app) -> bool:
    """The highlighted box lies wholly inside the row of answers on screen."""
    box, row = app.screen.focused, app.screen.query_one("#compare-answers")
    return box is not None and row.region.contains_region(box.region)


def _title(box: Widget) -> str:
    """A box's title as drawn on its top edge (Textual cuts what does not fit)."""
    (edge,) = box.render_lines(Region(0, 0, box.outer_size.width, 1))
    return edge.text.strip(BORDER)


def _readable(shown: str, name: str) -> bool:
    """The whole name, or one cut in the middle that keeps both its ends in view."""
    head, _, tail = shown.partition("…")
    return shown == name or (len(shown) >= 16 and name.startswith(head) and name.endswith(tail))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_twenty_models_readable_in_view_and_graded_where_highlighted(
    many_models_db: Path, size: tuple[int, int]
) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press(*["down"] * START)
        await until(pilot, lambda: app.current().model == MANY_MODELS[START])
        seen["cursor"] = cursor(app)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        compare = app.screen
        seen["first"] = compare.highlighted().model
        await until(pilot, lambda: _in_view(app))  # a hang guard: in view, or the test fails
        boxes = compare.query_one("#compare-answers").children
        seen["titles"] = {
            answer.model: _title(box) for answer, box in zip(compare.answers, boxes, strict=True)
        }
        await pilot.press(*["left"] * (START + 1))  # before the first, the last
        await until(pilot, lambda: compare.highlighted().model == MANY_MODELS[-1])
        await until(pilot, lambda: _in_view(app))
        seen["title"] = text_of(app, "#compare-title")
        await pilot.press("3")
        await until(pilot, lambda: verdicts(many_models_db))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CompareScreen))
        seen["after"] = (cursor(app), app.current().model)

    drive(many_models_db, steps, size=size)
    assert seen["first"] == MANY_MODELS[START]
    titles = seen["titles"]
    assert list(titles) == MANY_MODELS  # as the list orders them
    assert not {name: shown for name, shown in titles.items() if not _readable(shown, name)}
    assert len(set(titles.values())) == len(MANY_MODELS)  # -7b and -13b told apart
    assert "model 20 of 20" in str(seen["title"])
    assert verdicts(many_models_db) == [("v1_0", MANY_MODELS[-1], 0.3)]
    assert seen["after"] == (START, MANY_MODELS[START])
