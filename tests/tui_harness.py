"""Drive the review app headless with Pilot, from plain (synchronous) tests."""

from __future__ import annotations

import asyncio
import io
import re
import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from textual_image.widget import HalfcellImage

from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.screens import MARK, JudgeScreen
from lmmreview.tui.settings import Settings

# A fixed renderer: textual-image picks one from the terminal, and tests have none.
RENDERER = HalfcellImage
SIZE = (150, 48)
FIRST = "v1_0"  # the sample of the first answer the demo's mmvet list shows


async def until(pilot: Pilot, condition: Callable[[], object], seconds: float = 15.0) -> None:
    """Let the app run until `condition()` holds (a hang guard, not a speed check)."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("the app never reached the expected state")


def drive(
    db: Path,
    steps: Callable[[ReviewApp, Pilot], Awaitable[None]],
    *,
    dataset: str | None = "mmvet",
    poll_seconds: float = 1.5,
    notifications: bool = False,
    size: tuple[int, int] = SIZE,
    settings_path: Path | None = None,
    message_hook: Callable[[Message], None] | None = None,
    **settings: Any,
) -> ReviewApp:
    """Open `db` in the review app (with these `settings`, e.g. judge_runs=1) in a terminal
    of `size`, wait for the list, run `steps`, close. `notifications` shows them on screen
    (Textual's tests hide them); `message_hook` sees every message the app handles."""

    async def main() -> ReviewApp:
        app = ReviewApp(
            db,
            Settings(path=db.with_suffix(".toml"), reviewer="tester", **settings),
            dataset=dataset,
            image_renderer=RENDERER,
            poll_seconds=poll_seconds,
            settings_path=settings_path,
        )
        async with app.run_test(
            size=size, notifications=notifications, message_hook=message_hook
        ) as pilot:
            await until(pilot, lambda: app.session is not None and app.session.tables is not None)
            await until(pilot, lambda: app.current() is not None)
            await until(pilot, lambda: text_of(app, "#answer").strip())
            await steps(app, pilot)
        return app

    return asyncio.run(main())


async def start_judge(app: ReviewApp, pilot: Pilot, requests: Callable[[], int]) -> None:
    """Press J, start the judge run in its dialog, and wait for its first request."""
    await pilot.press("J")
    await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
    await pilot.press("enter")
    await until(pilot, lambda: requests() > 0)


def cursor(app: ReviewApp) -> int:
    return app.screen.query_one(AnswerList).cursor


def text_of(app: ReviewApp, selector: str) -> str:
    """The plain text a Static shows (its renderable printed without styles)."""
    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(app.screen.query_one(selector).content)  # type: ignore[attr-defined]
    return console.file.getvalue()  # type: ignore[attr-defined]


def bare_label(prompt: object) -> str:
    """A menu label without the mark of the choice in force and without its count."""
    return COUNT.sub("", str(prompt).removeprefix(MARK).removeprefix(" " * len(MARK)))


COUNT = re.compile(r" \([\d,]+\)$")  # a filter's count, once found


def menu_labels(options: OptionList) -> list[str]:
    """A menu's labels in order, each without its mark (or the room for one) and count."""
    return [bare_label(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def pick(app: ReviewApp, pilot: Pilot, label: str) -> None:
    """Choose the option labelled `label` in the menu that has the focus (its mark and
    count aside)."""
    await until(pilot, lambda: isinstance(app.screen.focused, OptionList))
    options = app.screen.focused
    assert isinstance(options, OptionList)
    labels = menu_labels(options)
    assert label in labels, labels
    options.highlighted = labels.index(label)
    await pilot.press("enter")


async def choose(app: ReviewApp, pilot: Pilot, option_id: str) -> None:
    """Choose the option with this id in the menu that has the focus."""
    await until(pilot, lambda: isinstance(app.screen.focused, OptionList))
    options = app.screen.focused
    assert isinstance(options, OptionList)
    ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
    assert option_id in ids, ids
    options.highlighted = ids.index(option_id)
    await pilot.press("enter")


async def export_to(
    app: ReviewApp,
    pilot: Pilot,
    target: Path | str,
    scope: str = "this",
    replace: bool | None = None,
) -> None:
    """Press `e`, choose this dataset's tables (or `scope` "all"), and give `target` as
    the file to write them to; `replace` answers the question an existing file asks."""
    await pilot.press("e")
    await until(pilot, lambda: isinstance(app.screen.focused, Input | OptionList))
    if isinstance(app.screen.focused, OptionList):
        await choose(app, pilot, scope)
    await until(pilot, lambda: isinstance(app.screen.focused, Input))
    field = app.screen.focused
    assert isinstance(field, Input)
    field.value = str(target)
    await pilot.press("enter")
    if replace is not None:
        await choose(app, pilot, "yes" if replace else "no")


def set_first_image(db: Path, data: bytes | None) -> None:
    """Give the first sample other image bytes, or (None) no image at all."""
    with sqlite3.connect(db) as conn:
        (sample_id,) = conn.execute(
            "SELECT s.id FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = 'mmvet' AND s.key = ?",
            (FIRST,),
        ).fetchone()
        if data is None:
            conn.execute("DELETE FROM sample_images WHERE sample_id = ?", (sample_id,))
        else:
            conn.execute(
                "UPDATE images SET bytes = ? WHERE hash IN "
                "(SELECT image_hash FROM sample_images WHERE sample_id = ?)",
                (data, sample_id),
            )


def verdicts(db: Path) -> list[tuple[str, str, float]]:
    """(sample, model, score) of every review row in `db`, oldest first, read by another
    connection (closed at once: no lock kept on the file the screen writes)."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT s.key, m.name, r.score FROM reviews r JOIN answers a ON a.id = r.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
            "ORDER BY r.id"
        ).fetchall()
