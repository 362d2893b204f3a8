"""The review screen's word on judge batches in flight (`lmmreview judge --batch`).

Each poll of the screen reads the batches not collected yet; when they change (one is
sent, polled, collected), a notification says how many are in flight and how far along.
The batches' code (and the judge's it imports) loads at the first poll, after the first
screen.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from lmmreview.db.review import ReviewStore

if TYPE_CHECKING:
    from lmmreview.db.batches import InFlight

T = TypeVar("T")
Read = Callable[[Callable[[ReviewStore], T]], Awaitable[T | None]]


class BatchNotice:
    """Tells the reviewer about the batches in flight, once per change."""

    def __init__(self, tell: Callable[[str], None]) -> None:
        self._tell = tell
        self._seen: tuple[tuple[int, str, int, int], ...] | None = None

    async def look(self, read: Read[list[InFlight]]) -> None:
        """Read the batches in flight (in the database thread) and tell what changed."""
        found = await read(batches_in_flight_of)
        if found is not None:
            self.seen(found)

    def seen(self, batches: list[InFlight]) -> None:
        """Tell about `batches` unless they are as last seen (none at first: nothing)."""
        state = tuple((b.id, b.status, b.completed, b.failed) for b in batches)
        if state == self._seen or (self._seen is None and not batches):
            self._seen = state
            return
        self._seen = state
        from lmmreview.db.batches import in_flight_lines

        lines = [line.strip() for line in in_flight_lines(batches)]
        text = f"{lines[0]} {'; '.join(lines[1:])}." if lines else ""
        self._tell(text or "Every judge batch is collected.")


def batches_in_flight_of(reader: ReviewStore) -> list[InFlight]:
    """The batches in flight in the file the review screen reads."""
    from lmmreview.db.batches import batches_in_flight

    return batches_in_flight(reader.store)
