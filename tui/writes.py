"""The reviewer's changes not in the database yet: typed write commands, queued in order,
marked, retried. Free of Textual: the screen's writer (tui/writer.py) consumes the queue,
the database thread (tui/database.py) applies each command."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from lmmreview.db.errata import ErrataStore
from lmmreview.db.review import ReviewStore
from lmmreview.engine.errata import Erratum
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict
from lmmreview.tui.labels import score_label
from lmmreview.tui.safe_text import plain_line

PENDING_MARK = "…"  # in the list: a change to this answer is not in the database yet
UNSAVED_NAMED = 5  # quitting names this many changes not saved, then counts the rest


def changes(count: int) -> str:
    """ "1 change", "2 changes"."""
    return f"{count} change{'s' if count != 1 else ''}"


@dataclass(frozen=True, slots=True)
class Grade:
    """Put a verdict in force: a grading key's ("grade") or the judge's, accepted ("accept");
    `blind`: given while blind review hid the answer's model and judges (told when queued:
    an answer seen since, by an undo that keeps it shown, is graded seeing them)."""

    verdict: Verdict
    action: str = "grade"
    blind: bool = False

    @property
    def label(self) -> str:
        kind = self.action
        if kind == "grade":
            kind = "score" if self.verdict.choice is None else "choice"
        return f"{kind} {score_label(self.verdict.score, self.verdict.choice)}"

    def apply(self, review: ReviewStore, answer_id: int) -> None:
        # `put` takes the verdict whole; the store still adds no row for the one in force
        # in the file (another process may have put it there since the screen looked).
        with review.store.transaction():
            review.put(answer_id, self.verdict, self.action, self.blind)


@dataclass(frozen=True, slots=True)
class Flag:
    flagged: bool

    @property
    def label(self) -> str:
        return "flag" if self.flagged else "unflag"

    def apply(self, review: ReviewStore, answer_id: int) -> None:
        review.set_flag(answer_id, self.flagged)


@dataclass(frozen=True, slots=True)
class Cause:
    """Give an error cause from the taxonomy; None clears it."""

    cause: str | None

    @property
    def label(self) -> str:
        return f"cause {self.cause}" if self.cause else "clear cause"

    def apply(self, review: ReviewStore, answer_id: int) -> None:
        review.set_cause(answer_id, self.cause)


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    blind: bool = False  # as Grade's

    @property
    def label(self) -> str:
        return "note"

    def apply(self, review: ReviewStore, answer_id: int) -> None:
        review.note(answer_id, self.text, self.blind)


@dataclass(frozen=True, slots=True)
class ErratumChange:
    """Put a ground-truth erratum in force on the answer's sample (status None: clear
    it), or (`undo`) restore the state before the one in force (db.errata)."""

    dataset: str
    erratum: Erratum
    undo: bool = False

    @property
    def label(self) -> str:
        if self.undo:
            return "undo erratum"
        return f"erratum {self.erratum.status}" if self.erratum.status else "clear erratum"

    def apply(self, review: ReviewStore, answer_id: int) -> None:
        errata = ErrataStore(review.store, review.reviewer)
        if self.undo:
            errata.undo(self.dataset, self.erratum.key)
        else:
            errata.set(self.dataset, self.erratum)


Command = Grade | Flag | Cause | Note | ErratumChange


@dataclass(slots=True)
class PendingWrite:
    """A command on one answer not in the database yet: marked, retried, never shown as
    saved."""

    dataset: str
    answer_id: int
    key: str
    model: str
    command: Command
    tries: int = 0

    @property
    def label(self) -> str:
        """What it sets, e.g. "score 0.30"."""
        return self.command.label

    @property
    def verdict(self) -> Verdict | None:
        """The verdict it puts in force, if it is a grade."""
        return self.command.verdict if isinstance(self.command, Grade) else None


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

    def queued_verdict(self, answer_id: int) -> Verdict | None:
        """The last verdict queued for an answer (None when none is)."""
        queued = [
            p.verdict for p in self._queue if p.answer_id == answer_id and p.verdict is not None
        ]
        return queued[-1] if queued else None

    def verdict_in_force(self, entry: Entry) -> Verdict | None:
        """The verdict `entry` has once what is queued for it is saved."""
        queued = self.queued_verdict(entry.answer_id)
        return entry.verdict if queued is None else queued

    def described(self) -> str:
        """The changes, each as answer key (model): change; the first few."""
        named = [
            f"{plain_line(p.key, 40)} ({plain_line(p.model, 40)}): {plain_line(p.label, 40)}"
            for p in list(self._queue)[:UNSAVED_NAMED]
        ]
        more = len(self._queue) - len(named)
        return "; ".join(named) + (f"; and {more} more" if more else "")
