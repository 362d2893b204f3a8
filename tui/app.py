"""`lmmreview open`: walk a benchmark answer by answer, grade by keyboard, watch the tables.

This file is the app's lifecycle and settings: it opens the file (its one database
thread, tui/database.py) and closes it, holds the effective settings, applies the
keymap and saves the theme, offers help and the command palette, and quits (asking twice
while changes are not saved). What the reviewer sees and does is the review screen's
(tui/review_screen.py): its widgets, its workers and the messages they post
(tui/messages.py). The UI thread never touches SQLite, an image decoder or the network.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from lmmreview.engine.review import Entry
from lmmreview.engine.visible import visible
from lmmreview.tui.database import Database, Opening, read_dataset, reason
from lmmreview.tui.images import RENDERERS, Renderer
from lmmreview.tui.review_screen import ReviewScreen
from lmmreview.tui.safe_text import markup_line, plain_line
from lmmreview.tui.screens import HelpScreen
from lmmreview.tui.session import HEAD, Session
from lmmreview.tui.settings import Settings, save_theme

# Signals that end the screen as `q` does (Textual handles neither).
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class ReviewApp(App[None]):
    """Audit judge scores and grade by keyboard, with the papers' tables kept live."""

    TITLE = "lmmreview"
    BINDINGS = [
        Binding("question_mark", "help", "help", key_display="?", id="help"),
        Binding("q", "quit", "quit", id="quit"),
    ]

    def __init__(
        self,
        db: Path,
        settings: Settings,
        *,
        dataset: str | None = None,
        image_renderer: Renderer | None = RENDERERS["auto"],
        poll_seconds: float = 1.5,
        settings_path: Path | None = None,
        head: int = HEAD,
    ) -> None:
        """`image_renderer` None turns images off; a theme chosen in the command palette is
        saved to `settings_path`, if given (`open` gives the settings file); the answers
        to the first `head` samples are listed before the rest are read."""
        super().__init__()
        self.database = Database(db, settings.reviewer)
        # Start reading at once, while Textual starts: the first screen comes sooner.
        self._opening: Future[Opening] | None = self.database.submit(
            lambda r: read_dataset(r, dataset, None, settings.judge_choice(), head)
        )
        self.head = head  # samples whose answers are read before the first screen
        self.settings = settings
        self.settings_path = settings_path
        self._saved_theme = settings.theme  # what the file has: setting it saves nothing
        self.theme = settings.theme
        self.db_path = db
        self.dataset = dataset
        self.image_renderer = image_renderer
        self.poll_seconds = poll_seconds
        self.failure: str | None = None  # why the app stopped itself, for `open` to print
        self.signalled: int | None = None  # the signal that ended it, for `open`'s exit code
        self.review_screen = ReviewScreen()
        self._quit_warned_about = ""  # the unsaved changes the last q warned about

    def compose(self) -> ComposeResult:
        return iter(())

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        self.push_screen(self.review_screen)
        self.review_screen.load(self.dataset)
        self.set_interval(self.poll_seconds, self.review_screen.poller.poll)
        loop = asyncio.get_running_loop()
        for signum in ENDING_SIGNALS:
            loop.add_signal_handler(signum, self.end_on_signal, signum)

    def end_on_signal(self, signum: int) -> None:
        """SIGTERM, or SIGHUP as the terminal closes: end as `q` does, so the terminal leaves
        the alternate screen. The images `o` wrote go first: with no terminal left, the
        ending may not get as far as unmounting the screen."""
        self.signalled = signum
        self.review_screen.remove_image_files()
        self.exit()

    def take_opening(self, dataset: str | None) -> Future[Opening] | None:
        """The read started when the app was made, once, if it is of `dataset`."""
        opening, self._opening = self._opening, None
        return opening if dataset == self.dataset else None

    def watch_theme(self, theme: str) -> None:
        """Keep the theme chosen (in the command palette) in the settings file."""
        if self.settings_path is None or theme == self._saved_theme:
            return
        try:
            save_theme(self.settings_path, theme)
        except (OSError, ValueError) as exc:  # the file cannot be written or was broken since
            self.tell(f"Theme {theme} not saved to {self.settings_path}: {reason(exc)}", "warning")
            return
        self._saved_theme = theme

    async def on_unmount(self) -> None:
        self.database.close()

    @property
    def session(self) -> Session | None:
        """The dataset open on the review screen (for the palette, probes and tests)."""
        return self.review_screen.session

    def current(self) -> Entry | None:
        """The answer the review screen shows."""
        return self.review_screen.current()

    def stop(self, failure: str) -> None:
        """End the app over a file it cannot use; `open` prints `failure` and exits 1."""
        self.failure = failure
        self.exit(return_code=1)

    def tell(self, message: str, severity: SeverityLevel = "information") -> None:
        """A notification whose text (names, paths, error messages) is shown literally."""
        self.notify(plain_line(message, 400), severity=severity, markup=False, timeout=8)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification, from any screen, shows its text literally: messages hold ids,
        names, paths and judge errors, so they are never markup or terminal control, and on
        one line ("⏎"): a line break in a name cannot draw a line of its own. In blind
        review, models are named by their aliases."""
        hide = self.review_screen.blind.text
        super().notify(
            visible(hide(message), one_line=True),
            title=visible(hide(title), one_line=True),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    async def action_quit(self) -> None:
        """Quit; with changes not saved yet, only when asked twice (they would be lost). Exit
        code 1 when changes did not reach the file opened (`stop` says where they are, and
        where a judge run stopped by a change of the file saved its judgments)."""
        unsaved = self.review_screen.writer.unsaved()
        moved = self.database.moved  # then the changes are in its copy, not in db_path
        judge = self.review_screen.judge_run.stopped  # where a judge run's judgments went
        if unsaved and unsaved != self._quit_warned_about:
            self._quit_warned_about = unsaved
            self.tell(f"{unsaved}. Press q again to quit without them.", "warning")
        elif unsaved or moved or judge:
            parts = [f"{self.db_path}: quit with {unsaved}"] if unsaved else []
            if moved and moved.told() not in unsaved:  # else it is the reason given already
                parts.append(moved.told())
            self.stop("; ".join([*parts, judge] if judge else parts))
        else:
            self.exit()

    def remapped(self, binding: Binding) -> Binding:
        """`binding` with the keys the settings' keymap gives it, for help and the palette."""
        keys = self.settings.keymap.get(binding.id or "")
        return binding if keys is None else replace(binding, key=keys, key_display=None)

    def action_help(self) -> None:
        bindings = [
            self.remapped(b)
            for b in ReviewScreen.BINDINGS + self.BINDINGS
            if isinstance(b, Binding)
        ]
        self.push_screen(HelpScreen(bindings))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette offers every review action by its description."""
        yield from super().get_system_commands(screen)
        review = self.review_screen
        if not review.is_mounted:
            return
        for binding in ReviewScreen.BINDINGS:
            if not isinstance(binding, Binding) or (binding.id or "").startswith(
                ("score-", "choose-")
            ):
                continue  # one command per key, not one per digit or letter
            binding = self.remapped(binding)
            yield SystemCommand(
                binding.description.capitalize(),
                f"key: {binding.key_display or binding.key}",
                lambda action=binding.action: self.run_action(action, review),
            )
        session = review.session
        if session is None:
            return
        for judge, name in session.judges.items():
            if judge != session.judge:
                yield SystemCommand(
                    f"Show judge: {markup_line(name, 80)}",
                    "its scores in the list, the strip and the tables",
                    partial(review.show_judge, name),
                )


def binding_ids() -> dict[str, str]:
    """Every binding id a keymap in the settings can name, with its default keys."""
    bindings = (*ReviewScreen.BINDINGS, *ReviewApp.BINDINGS)
    return {b.id: b.key for b in bindings if isinstance(b, Binding) and b.id}


def review_app(db: Path, settings: Settings, dataset: str | None = None) -> ReviewApp:
    """The review screen as `lmmreview open` sets it up from the effective settings."""
    return ReviewApp(
        db,
        settings,
        dataset=dataset,
        image_renderer=RENDERERS[settings.images],
        settings_path=settings.path,
    )
