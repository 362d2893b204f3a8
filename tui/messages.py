"""What the review screen's workers tell it: one Message per kind of result.

A worker does the slow part (a database call in the database thread, a judge run in a
thread of its own) and posts one of these; the screen's `on_<name>` handler then changes
what is shown, on the UI thread. A handler checks that the message is for the session on
screen: a message from a dataset that was replaced since is dropped.
"""

from __future__ import annotations

from textual.message import Message

from lmmreview.db.review import Detail, Marks
from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Judge
from lmmreview.tui.session import Session, Tables
from lmmreview.tui.writes import PendingWrite

Shown = tuple[Entry, Detail] | None  # a saved answer read back; None if it could not be


class WorkerMessage(Message, bubble=False):
    """A result of one of the screen's workers, for the screen alone: it does not bubble
    up to the app (each kind says so, as Textual asks it of every subclass)."""


class Opened(WorkerMessage, bubble=False):
    """A dataset's answers are read: the list can be shown, at the answer `keep`."""

    def __init__(self, session: Session, version: int, marks: Marks, keep: int | None) -> None:
        super().__init__()
        self.session, self.version, self.marks, self.keep = session, version, marks, keep


class OpenFailed(WorkerMessage, bubble=False):
    """The file cannot be used at all: the app stops and `open` prints why."""

    def __init__(self, failure: str) -> None:
        super().__init__()
        self.failure = failure


class AnswersRead(WorkerMessage, bubble=False):
    """Every answer of the dataset is read, after the top of the list was shown."""

    def __init__(self, session: Session, answers: AnswerColumns) -> None:
        super().__init__()
        self.session, self.answers = session, answers


class TablesReady(WorkerMessage, bubble=False):
    """The session's tables are computed: filters, the strip and exports can use them."""

    def __init__(self, session: Session, tables: Tables) -> None:
        super().__init__()
        self.session, self.tables = session, tables


class DetailLoaded(WorkerMessage, bubble=False):
    """One answer's details are read (for the answer shown, or ahead of the cursor)."""

    def __init__(self, session: Session, detail: Detail, ahead: bool = False) -> None:
        super().__init__()
        self.session, self.detail, self.ahead = session, detail, ahead


class ReadFailed(WorkerMessage, bubble=False):
    """A read could not be done: told once, and the screen goes on with what it has."""

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem


class EntriesChanged(WorkerMessage, bubble=False):
    """Another process (or a judge run) changed answers: show them as the file has them."""

    def __init__(
        self,
        session: Session,
        version: int,
        marks: Marks,
        fresh: list[Entry],
        added: frozenset[int] = frozenset(),
        datasets: list[str] | None = None,
        judges: list[Judge] | None = None,
    ) -> None:
        super().__init__()
        self.session, self.version, self.marks, self.fresh = session, version, marks, fresh
        self.added = added  # answers imported into the dataset: not listed yet
        self.datasets = datasets  # every dataset of the file, when it changed at all
        self.judges = judges  # the dataset's, when judgments were removed: read it again


class Grown(WorkerMessage, bubble=False):
    """Answers imported by another process are read, with the tables they join."""

    def __init__(self, session: Session, added: frozenset[int], tables: Tables) -> None:
        super().__init__()
        self.session, self.added, self.tables = session, added, tables


class Saved(WorkerMessage, bubble=False):
    """The first pending change is committed; `shown` is its answer read back."""

    def __init__(self, pending: PendingWrite, shown: Shown) -> None:
        super().__init__()
        self.pending, self.shown = pending, shown


class SaveFailed(WorkerMessage, bubble=False):
    """The first pending change could not be committed: it stays pending and is retried."""

    def __init__(self, pending: PendingWrite, problem: str) -> None:
        super().__init__()
        self.pending, self.problem = pending, problem


class Undone(WorkerMessage, bubble=False):
    """The reviewer's newest verdict or cause (`kind`) on an answer is taken back."""

    def __init__(self, session: Session, answer_id: int, kind: str, shown: Shown) -> None:
        super().__init__()
        self.session, self.answer_id, self.kind, self.shown = session, answer_id, kind, shown


class JudgeProgress(WorkerMessage, bubble=False):
    """A background judge run decided another item."""

    def __init__(self, done: int, total: int, status: str) -> None:
        super().__init__()
        self.done, self.total, self.status = done, total, status


class JudgeFinished(WorkerMessage, bubble=False):
    """A background judge run ended: "finished", "stopped" or "failed: why"; `changed`:
    what it found the file had become (db/watch.py), if that stopped it."""

    def __init__(self, outcome: str, changed: str | None = None) -> None:
        super().__init__()
        self.outcome, self.changed = outcome, changed
