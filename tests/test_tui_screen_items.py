"""The review screen's rough edges of issue 31, driven by keys on the demo database: the
filter menu's counts and marks, Esc keeping the position, the dataset picker's mark, jump
by part of an id, and MMBench's circular-group view (r)."""

from __future__ import annotations

from textual.widgets import Input, OptionList
from tui_harness import bare_label, choose, cursor, drive, text_of, until

from lmmreview.tui.screens import MARK, Menu

COUNTABLE = ("unreviewed", "failed", "no_reply", "fallback", "flagged", "disagreement",
             "spread", "reviewers", "judges", "clear")  # fmt: skip


def _labels(app) -> dict[str, str]:
    options = app.screen.query_one(OptionList)
    found = (options.get_option_at_index(i) for i in range(options.option_count))
    return {option.id: str(option.prompt) for option in found}


async def _open_menu(app, pilot) -> dict[str, str]:
    """Press v and wait until every choice that needs no more question has its count."""
    await pilot.press("v")
    await until(pilot, lambda: isinstance(app.screen, Menu))
    await until(pilot, lambda: all(_labels(app)[k].endswith(")") for k in COUNTABLE))
    return _labels(app)


def _count(label: str) -> int:
    return int(label.rsplit("(", 1)[1].rstrip(")").replace(",", ""))


def test_each_filter_count_is_the_length_of_the_list_it_shows(demo_db) -> None:
    seen: dict[str, tuple[int, int]] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5", "j", "f")  # one reviewed, one flagged: counts differ
        await until(pilot, lambda: app.session.reviewed == 1)
        for key in COUNTABLE:
            labels = await _open_menu(app, pilot)
            await choose(app, pilot, key)
            await until(pilot, lambda: not isinstance(app.screen, Menu))
            await pilot.pause(0.1)
            seen[key] = (_count(labels[key]), len(app.session.visible))
            app.review_screen.action_clear_filters()

    drive(demo_db, steps)
    assert all(shown == count for count, shown in seen.values()), seen
    assert seen["unreviewed"][0] == 57 and seen["flagged"][0] == 1 and seen["clear"][0] == 58


def test_active_filters_are_marked_and_choosing_one_again_turns_it_off(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        labels = await _open_menu(app, pilot)
        seen["none_marked"] = not any(label.startswith(MARK) for label in labels.values())
        seen["note"] = text_of(app, "#menu-note")
        await choose(app, pilot, "unreviewed")
        await until(pilot, lambda: app.session.filter.unreviewed)
        labels = await _open_menu(app, pilot)
        seen["marked"] = sorted(k for k, label in labels.items() if label.startswith(MARK))
        seen["label"] = labels["unreviewed"]
        await choose(app, pilot, "unreviewed")  # again: off
        await until(pilot, lambda: not app.session.filter.unreviewed)
        seen["off"] = len(app.session.visible)

    drive(demo_db, steps)
    assert seen["none_marked"]
    assert "choosing it again turns it off" in seen["note"]
    assert seen["marked"] == ["unreviewed"]
    assert seen["label"] == f"{MARK}Unreviewed (58)"  # chosen again: every answer shows
    assert seen["off"] == 58
    assert bare_label(seen["label"]) == "Unreviewed"
