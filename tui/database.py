"""The screen's one database thread, and the work the screen's workers do in it.

SQLite connections are not shared across threads here: every call on the review
connection runs in this one thread, in order (so a verdict is committed before the screen
reads it back). The workers of the review screen await these calls and post what they
found as messages (tui/messages.py).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import NamedTuple, TypeVar

from lmmreview.db import Store, StoreError
from lmmreview.db.review import Marks, ReviewStore
from lmmreview.db.store import is_read_only
from lmmreview.db.watch import REWRITTEN, Watch
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Judge, JudgeChoice
from lmmreview.tui.file_watch import FileMoved, Moved, make_copy
from lmmreview.tui.messages import Shown
from lmmreview.tui.session import Beside, Session
from lmmreview.tui.writes import PendingWrite

T = TypeVar("T")

# What the file can raise while the screen is open: another process holds the write lock
# or dropped a table, the file is read-only, the disk is full, a folder is missing.
DB_ERRORS = (sqlite3.Error, OSError, StoreError)


class Opening(NamedTuple):
    """A dataset read: its session, the file's data version and marks to poll from, and
    the long reads for its tables, made beside (see Session.read_beside)."""

    session: Session
    version: int
    marks: Marks
    beside: Beside


def reason(exc: BaseException) -> str:
    """What went wrong, in a few words (an OSError's message without its errno)."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


class Database:
    """One file, one thread: the review connection, and the images' connection (read by
    the image pipeline's threads under a lock)."""

    def __init__(self, path: Path, reviewer: str) -> None:
        self.path = path
        self.reviewer = reviewer
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="lmmreview-db")
        self._review: ReviewStore | None = None
        self._image_store: Store | None = None
        self._image_lock = threading.Lock()
        self._watch = Watch()  # is the path still the file opened?
        self.moved: Moved | None = None  # set when it was replaced, deleted or rewritten

    def submit(self, call: Callable[[ReviewStore], T]) -> Future[T]:
        """Run `call(review store)` in the database thread."""
        return self._thread.submit(lambda: call(self._open()))

    async def run(self, call: Callable[[ReviewStore], T]) -> T:
        """`submit`, awaited without blocking the UI thread."""
        return await asyncio.wrap_future(self.submit(call))

    def _open(self) -> ReviewStore:
        self._guard()
        if self._image_store is None:
            self._image_store = Store.open(self.path, create=False)
        if self._review is None:
            self._review = ReviewStore(Store.open(self.path, create=False), self.reviewer)
            self._watch.opened(self.path)
        return self._review

    def _guard(self) -> None:
        """Before every call (each write, each poll): the path still names the file opened,
        as it was left. Else nothing more goes to the path (a write there damages the file
        now there, or is lost with a deleted one): a file replaced or deleted is copied as
        this connection has it, and every call goes to the copy; after a rewrite in place
        (its old content gone) every call fails, and changes stay pending."""
        if self.moved is not None and self.moved.copy is None:
            raise FileMoved(self.moved.told())
        review = self._review
        what = self._watch.change(self.path, review.data_version if review else None)
        if what is None:
            return
        if what == REWRITTEN or review is None:  # closed (see `reconnect`): out of reach
            self.moved = Moved(self.path, what)
            raise FileMoved(self.moved.told())
        try:
            copy = self._copy(review.store, what)
        except FileMoved:
            self.moved = Moved(self.path, what)  # no copy holds it: out of reach for good
            raise
        self.reconnect()
        self.moved = Moved(self.path, what, copy)
        self.path = copy
        self._watch.moved_to(copy)

    def rewritten(self) -> None:
        """Another connection to the file (a judge run's) found it rewritten in place,
        which this one may not see (that connection's commits hide it): nothing more goes
        to it from here either."""
        if self.moved is None:
            self.moved = Moved(self.path, REWRITTEN)

    def _copy(self, store: Store, what: str) -> Path:
        """Copy the file this connection has to a new file that takes it."""
        try:
            return make_copy(self.path, store.copy_to)
        except (OSError, sqlite3.Error, StoreError) as problem:
            told = Moved(self.path, what).told()
            raise FileMoved(f"{told}; no copy of it could be made ({reason(problem)})") from None

    def reconnect(self) -> None:
        """In the database thread: close the review connection; the next call opens anew."""
        if self._review is not None:
            self._review.store.close()
            self._review = None

    def close(self) -> None:
        """Close both connections, after the calls queued before."""

        def close_all() -> None:
            self.reconnect()
            if self._image_store is not None:
                self._image_store.close()

        self._thread.submit(close_all)
        self._thread.shutdown(wait=True)

    def image_bytes(self, image_hash: str) -> bytes | None:
        with self._image_lock:  # one connection, shared by the image threads
            return self._image_store.image_bytes(image_hash) if self._image_store else None

    def tidy(self, review: ReviewStore) -> None:
        """After a change: empty the WAL if that is quick (see Store.checkpoint), and note
        the file as left. The change is saved: a failure here is no failure of it."""
        try:
            version: int | None = review.data_version()  # before: a commit between is seen
            with review.impatient():
                emptied = review.store.checkpoint()
            version = version if emptied else None
        except sqlite3.Error:
            version = None  # another connection is in the way: the next change tries again
        self._watch.left(self.path, version)

    def commit(self, pending: PendingWrite, review: ReviewStore) -> Shown:
        """In the database thread: apply one change (an error means it is not saved), then
        read the answer back. A retry waits only briefly for another process's lock."""
        try:
            with review.impatient() if pending.tries else nullcontext():
                pending.command.apply(review, pending.answer_id)
        except sqlite3.Error as exc:
            if is_read_only(exc):
                # SQLite decides read-only when it opens the file: only a new connection
                # can write once the file is writable again.
                self.reconnect()
            raise
        self.tidy(review)
        return read_back(review, pending.dataset, pending.answer_id)

    def take_back(self, dataset: str, review: ReviewStore) -> tuple[int, str, Shown] | None:
        """In the database thread: undo the reviewer's newest verdict or cause in force:
        (answer, kind, read back)."""
        undone = review.undo_change(dataset)
        if undone is None:
            return None
        self.tidy(review)
        answer_id, kind = undone
        return answer_id, kind, read_back(review, dataset, answer_id)


def read_dataset(
    review: ReviewStore,
    dataset: str | None,
    judge: Judge | None,
    choice: JudgeChoice,
    head: int | None = None,
) -> Opening:
    """A dataset's answers (the first `head` samples' only, if given), for `judge` if one
    is chosen (see Session.open), with the file's data version and marks to poll from;
    meanwhile other connections read the judgments of `judge` (else of the one
    `choice` picks), the samples and, with `head`, every answer."""
    version, marks = review.data_version(), review.marks()  # first: the poll sees what is newer
    # Named once, here: left to each read, another import could make a different one first.
    name = Session.name_of(review.store, dataset)
    beside = Session.read_beside(review.store.path, name, judge, choice, head is not None)
    return Opening(Session.open(review, name, judge, head), version, marks, beside)


def read_back(review: ReviewStore, dataset: str, answer_id: int) -> Shown:
    """A saved answer's fresh entry and details; None if they cannot be read now (the
    change is saved all the same, and the next poll reads them)."""
    try:
        (fresh,) = review.refresh(dataset, {answer_id})
        return fresh, review.detail(answer_id)
    except DB_ERRORS:
        return None


class Changes(NamedTuple):
    """What the poll found: the file's new data version and marks, fresh entries of the
    answers listed, the answers added to the dataset, and every dataset's name (None when
    the file did not change); when judgments were removed, only the dataset's judges
    (then it is read again)."""

    version: int
    marks: Marks
    fresh: list[Entry]
    added: frozenset[int] = frozenset()
    datasets: list[str] | None = None
    judges: list[Judge] | None = None  # set when judgments were removed


def changed_since(
    review: ReviewStore,
    dataset: str,
    version: int,
    marks: Marks,
    stale: set[int],
    unlisted: frozenset[int] = frozenset(),
) -> Changes:
    """What another process (or a judge run) wrote since `version` and `marks`, plus the
    `stale` answers saved here but not read back, and the `unlisted` ones found before but
    not added to the list yet."""
    now = review.data_version()
    if now == version and not stale and not unlisted:
        return Changes(now, marks, [])
    new_marks = review.marks()
    if review.removed_between(marks, new_marks):
        names = review.dataset_names()
        return Changes(now, new_marks, [], datasets=names, judges=review.store.judges(dataset))
    touched = review.touched_since(marks) | stale
    added = frozenset(review.added_since(dataset, marks)) | unlisted
    fresh = review.refresh(dataset, touched - added) if touched - added else []
    return Changes(now, new_marks, fresh, added, review.dataset_names())
