"""The sample list: a virtual list that renders only the rows on screen.

Rows come from a callback (index -> cells), so a list of 100,000 answers costs nothing
until a row is drawn; the cursor moves without rebuilding anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from lmmreview.engine.names import fitting, short_model
from lmmreview.engine.review import Entry
from lmmreview.engine.visible import visible
from lmmreview.tui.safe_text import plain_line
from lmmreview.tui.styles import stylesheet
from lmmreview.tui.writes import PENDING_MARK

Row = list[tuple[str, str]]  # (text, component class) cells of one row
SCORE_WIDTH = 5
MARKS = 6  # reviewed or pending, flagged, judge failed, fallback, offline, noted
NOTE_MARK = "✎"
# The colour of the score column by the effective score (Session.rightness).
RIGHTNESS_STYLES = {
    "right": "answer-list--good",
    "wrong": "answer-list--bad",
    "partial": "answer-list--partial",
}


def short_key(key: str, width: int) -> str:
    """A sample id cut to `width` from the left: ids such as MMMU's
    `validation_Art_Theory_12` end in the part that tells them apart."""
    line = visible(key, one_line=True)
    if cell_len(line) <= width:
        return line
    return "…" + fitting(reversed(line), width - 1)[::-1]


def marks(entry: Entry, pending: bool) -> str:
    """The list's marks of one answer, one character each (see the README's list)."""
    return (
        (PENDING_MARK if pending else "✓" if entry.reviewed else " ")
        + ("⚑" if entry.flagged else " ")
        + ("!" if entry.failed else " ")
        + ("~" if entry.fallback else " ")
        + ("°" if entry.offline and not entry.reviewed else " ")  # scored by the rules
        + (NOTE_MARK if entry.noted else " ")
    )


def entry_row(
    entry: Entry,
    score: str,
    rightness: str | None,
    pending: bool,
    width: int,
    shared: tuple[int, int] = (0, 0),
) -> Row:
    """One answer's line in a list `width` cells wide: its sample id and model share what
    the score and the marks leave (the id 16 cells at most, the model 14). `shared` is
    what the model's name shares with others' (see shared_ends)."""
    free = max(width - SCORE_WIDTH - MARKS - 3, 8)  # three separating spaces
    key_width = min(16, max(free * 8 // 15, 4))
    model_width = min(14, free - key_width)
    return [
        (f"{short_key(entry.key, key_width):<{key_width}} ", ""),
        (f"{short_model(entry.model, model_width, shared):<{model_width}} ", "answer-list--dim"),
        # A choice is data (a merged file's verdict): one line, cut to its column.
        (
            f"{plain_line(score, SCORE_WIDTH):>{SCORE_WIDTH}} ",
            RIGHTNESS_STYLES.get(rightness or "", ""),
        ),
        (marks(entry, pending), "answer-list--mark"),
    ]


class AnswerList(ScrollView, can_focus=True, inherit_bindings=False):
    """The answers being reviewed, one per line, with a cursor.

    It has no keys of its own: a scroll view's arrows, pages, Home and End would scroll it
    and leave the cursor (and the answer a key grades) behind, off screen. The review
    screen's movement keys move the cursor, which scrolls the list to keep it in view.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "answer-list--cursor",
        "answer-list--dim",
        "answer-list--good",
        "answer-list--bad",
        "answer-list--partial",
        "answer-list--mark",
    }
    DEFAULT_CSS = stylesheet("answer_list")

    cursor: reactive[int] = reactive(0, always_update=True)

    class Moved(Message):
        """The cursor is on a new row."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._count = 0
        self._row: Callable[[int], Row] = lambda index: []

    def show(self, count: int, row: Callable[[int], Row], cursor: int = 0) -> None:
        """Point the list at `count` rows drawn by `row(index)`."""
        self._count = count
        self._row = row
        self.virtual_size = Size(0, count)  # no sideways scrolling: rows fit the width
        self.cursor = min(max(cursor, 0), max(count - 1, 0))
        self.refresh()
        self._keep_cursor_in_view()

    def _keep_cursor_in_view(self) -> None:
        # Forced: a list that was empty has no scroll bar until the next layout, and a
        # scroll without one is refused (the cursor then stays below the window).
        self.scroll_to_region(
            Region(0, self.cursor, 1, 1), animate=False, immediate=True, force=True
        )

    @property
    def count(self) -> int:
        return self._count

    def refresh_row(self, index: int) -> None:
        self.refresh(Region(0, index - self.scroll_offset.y, self.size.width, 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_row(old)
        self.refresh_row(new)
        self._keep_cursor_in_view()
        if self._count:
            self.post_message(self.Moved(new))

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        base = self.rich_style
        if index >= self._count:
            return Strip.blank(width, base)
        if index == self.cursor:  # the cursor's background and weight over every cell
            cursor = self.get_component_rich_style("answer-list--cursor")
            base += Style(bgcolor=cursor.bgcolor, bold=cursor.bold)
        segments = [
            # A cell keeps only its colour: a component style also carries a background.
            Segment(
                text, base + Style(color=self.get_component_rich_style(cls).color if cls else None)
            )
            for text, cls in self._row(index)
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < self._count:
            self.cursor = index
