"""The review screen's moves over its answer list: a step, a page, the ends, the next
unreviewed or flagged answer, an answer by its sample id. Each shows the answer it lands
on in the same frame, timed from the key press for the benchmark."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import Prompt

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen


class Navigation:
    """Where the cursor goes."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    @property
    def _answers(self) -> AnswerList:
        return self.screen.query_one(AnswerList)

    def move(self, step: int) -> None:
        answers = self._answers
        self.go(min(max(answers.cursor + step, 0), max(answers.count - 1, 0)))

    def page(self, direction: int) -> None:
        """A screenful down (1) or up (-1): the list's height, less a line of context."""
        self.move(direction * max(self._answers.size.height - 1, 1))

    def jump_to(self, index: int) -> None:
        count = self._answers.count
        self.go(index % count if count else 0)

    def go(self, index: int) -> None:
        """Move the cursor and show the answer in the same frame (timed for the benchmark)."""
        self.screen.pressed()
        self._answers.cursor = index
        self.screen.show_current()

    def next_where(self, what: str) -> None:
        """The next answer, round the list, that is unreviewed (else flagged)."""
        session = self.screen.session
        if session is None:
            return
        cursor = self._answers.cursor
        wanted = (lambda e: not e.reviewed) if what == "unreviewed" else (lambda e: e.flagged)
        count = len(session.visible)
        for step in range(1, count + 1):
            index = (cursor + step) % count
            if wanted(session.listed(index)):
                self.go(index)
                return
        self.screen.notify(f"No {what} answer in this list.")

    async def goto(self) -> None:
        """The answer to the sample id the reviewer types."""
        session = self.screen.session
        key = await self.screen.app.push_screen_wait(Prompt("Jump to sample id (e.g. v1_12):"))
        if not key or session is None:
            return
        for index in range(len(session.visible)):
            if session.listed(index).key == key.strip():
                self._answers.cursor = index
                return
        self.screen.notify(f"No answer to {key!r} in this list.", severity="warning")
