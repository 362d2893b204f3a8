"""The review screen's moves over its answer list: a step, a page, the ends, the next
unreviewed or flagged answer, an answer by its sample id. Each shows the answer it lands
on in the same frame, timed from the key press for the benchmark."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lmmreview.engine.ids import ids_holding
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import Menu, Prompt

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

JUMP_QUESTION = "Jump to sample id, or any part of one (e.g. v1_12, or 12):"
PICKED = 30  # the ids the picker lists at most when several hold what was typed


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
        count = len(session.visible)
        for step in range(1, count + 1):
            index = (cursor + step) % count
            entry = session.listed(index)
            if not session.reviewed_here(entry) if what == "unreviewed" else entry.flagged:
                self.go(index)
                return
        self.screen.notify(f"No {what} answer in this list.")

    async def goto(self) -> None:
        """The answer to the sample id the reviewer types, or to the one id holding what
        they type (`150`: `v1_150`); a picker when several do."""
        screen, session = self.screen, self.screen.session
        typed = await screen.app.push_screen_wait(Prompt(JUMP_QUESTION))
        part = (typed or "").strip()
        if not part or session is None:
            return
        found = await asyncio.to_thread(lambda: ids_holding(session.listed_keys(), part))
        if screen.session is not session:
            return
        if not found:
            screen.notify(f"No listed id holds {part!r}.", severity="warning")
            return
        key = found[0] if len(found) == 1 else await self._pick_id(part, found)
        place = session.first_place(key) if key is not None else None
        if place is not None:
            self.go(place)

    async def _pick_id(self, part: str, found: list[str]) -> str | None:
        """One of the ids holding `part`, picked from the first PICKED."""
        shown = found[:PICKED]
        more = f", the first {len(shown)} listed" if len(found) > len(shown) else ""
        title = f"{len(found):,} sample ids hold {part!r}{more}: pick one"
        return await self.screen.app.push_screen_wait(Menu(title, [(k, k) for k in shown]))
