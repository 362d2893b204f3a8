"""The reviewer's changes not in the database yet: kept in order, marked, retried."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from lmmreview.db.review import ReviewStore
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict
from lmmreview.tui.safe_text import plain_line

PENDING_MARK = "…"  # in the list: a change to this answer is not in the database yet
UNSAVED_NAMED = 5  # quitting names this many changes not saved, then counts the rest


def changes(count: int) -> str:
    """ "1 change", "2 changes"."""
    return f"{count} change{'s' if count != 1 else ''}"


@dataclass(slots=True)
class PendingWrite:
    """A verdict, flag or note not in the database yet: marked, retried, never shown as saved."""

    dataset: str
    answer_id: int
    key: str
    model: str
    change: Callable[[ReviewStore, int], object]
    label: str  # what it sets, e.g. "score 0.3"
    verdict: Verdict | None = None  # the verdict it puts in force, if it is one
    tries: int = 0


class PendingWrites:
    """The queue of changes, oldest first: the first is saved first; and those saved, in
    case the file loses them."""

    def __init__(self) -> None:
        self._queue: deque[PendingWrite] = deque()
        self._saved: list[PendingWrite] = []

    def __len__(self) -> int:
        return len(self._queue)

    def __iter__(self) -> Iterator[PendingWrite]:
        return iter(self._queue)

    def append(self, pending: PendingWrite) -> None:
        self._queue.append(pending)

    def first(self) -> PendingWrite:
        return self._queue[0]

    def drop_first(self) -> None:
        """The first change is saved."""
        self._saved.append(self._queue.popleft())

    def unsave(self) -> int:
        """The file lost every change saved to it (written over, no copy): queue them again,
        before the others, in order; how many."""
        lost, self._saved = self._saved, []
        self._queue.extendleft(reversed(lost))
        return len(lost)

    def undone(self, answer_id: int) -> None:
        """The newest verdict saved on an answer was undone in the file: not one to queue
        again if the file is lost."""
        for index in range(len(self._saved) - 1, -1, -1):
            saved = self._saved[index]
            if saved.answer_id == answer_id and saved.verdict is not None:
                del self._saved[index]
                return

    def withdraw_last(self) -> PendingWrite:
        """Take back the newest change: it will never be saved."""
        return self._queue.pop()

    def labels(self, answer_id: int) -> tuple[str, ...]:
        """What is queued for one answer, oldest first."""
        return tuple(p.label for p in self._queue if p.answer_id == answer_id)

    def verdict_in_force(self, entry: Entry) -> Verdict | None:
        """The verdict `entry` has once what is queued for it is saved."""
        queued = [
            p.verdict
            for p in self._queue
            if p.answer_id == entry.answer_id and p.verdict is not None
        ]
        return queued[-1] if queued else entry.verdict

    def described(self) -> str:
        """The changes, each as answer key (model): change; the first few."""
        named = [
            f"{plain_line(p.key, 40)} ({plain_line(p.model, 40)}): {plain_line(p.label, 40)}"
            for p in list(self._queue)[:UNSAVED_NAMED]
        ]
        more = len(self._queue) - len(named)
        return "; ".join(named) + (f"; and {more} more" if more else "")
