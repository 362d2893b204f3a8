"""The review screen's writer: it takes the reviewer's write commands (tui/writes.py) into
the queue and saves them one at a time, in order, in a worker that runs each in the
database thread (Database.commit). A change shows as pending until it is committed; one
that fails stays queued, with those behind it, and is retried.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from lmmreview.engine.review import Entry
from lmmreview.engine.reviewers import own_verdict
from lmmreview.engine.scoring import Verdict
from lmmreview.tui.database import DB_ERRORS, reason
from lmmreview.tui.file_watch import Moved
from lmmreview.tui.labels import score_label
from lmmreview.tui.messages import Saved, SaveFailed, Shown, Undone
from lmmreview.tui.writes import (
    PENDING_MARK,
    Command,
    ErratumChange,
    Grade,
    PendingWrite,
    PendingWrites,
    changes,
)

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen


class Writer:
    """The queue of changes not saved yet, and the one save under way."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen
        self.pending = PendingWrites()
        self.saving = False  # a save is under way: its end saves whatever is queued
        self.problem = ""  # why the first pending change failed, as last seen
        self._moved: Moved | None = None  # what happened to the file, as last told

    def submit(self, entry: Entry, command: Command) -> bool:
        """Queue `command` on `entry` and save it; whether it was queued. The reviewer's own
        verdict in force (saved or pending) is not: a repeated key adds no history row, so
        one undo takes the verdict back. Another reviewer's equal verdict is queued: the
        agreement is theirs to record (human-human agreement counts it)."""
        screen, session = self.screen, self.screen.session
        if isinstance(command, Grade) and self._own_repeat(entry, command.verdict):
            value = score_label(command.verdict.score, command.verdict.choice)
            screen.review_app.tell(
                f"{entry.key} ({entry.model}) is already {value}: nothing to save."
            )
            return False
        if session is None:
            return False
        write = PendingWrite(session.dataset, entry.answer_id, entry.key, entry.model, command)
        self.pending.append(write)
        self.pending_changed(entry.answer_id)
        self.save_next()
        return True

    def _own_repeat(self, entry: Entry, verdict: Verdict) -> bool:
        """`verdict` is in force on `entry` and is this reviewer's own: queued, or saved
        by them as the answer's history shows (one not read yet goes to the store, which
        adds no row for a repeat either)."""
        queued = self.pending.queued_verdict(entry.answer_id)
        if queued is not None:
            return verdict == queued  # queued here, so this reviewer's
        detail = self.screen.pane.details.get(entry.answer_id)
        if verdict != entry.verdict or detail is None:
            return False
        return own_verdict(detail.history, self.screen.settings.reviewer) == verdict

    def save_next(self) -> None:
        """Save the first queued change, unless a save is under way (its end saves the next).
        The first that fails stays queued, with those behind it, and is retried at the next
        poll or change."""
        if self.saving or not self.pending:
            return
        self.saving = True
        self.screen.run_worker(self._save(self.pending.first()), group="write")

    async def _save(self, first: PendingWrite) -> None:
        database = self.screen.review_app.database
        try:
            shown = await database.run(partial(database.commit, first))
        except DB_ERRORS as exc:
            self.screen.post_message(SaveFailed(first, reason(exc)))
            return
        self.screen.post_message(Saved(first, shown))

    def saved(self, message: Saved) -> None:
        self.saving = False
        if self.pending and self.pending.first() is message.pending:
            self.pending.drop_first()
        self.notice_moved()  # after: a file lost since takes this change with it
        if isinstance(message.pending.command, ErratumChange):
            # the other models' answers read it again, and so do the other rotations (an
            # erratum is on its whole circular group): errata are rare, the cache cheap
            self.screen.pane.details.clear()
        self.landed(message.pending.answer_id, message.shown)
        if self.pending:
            self.save_next()
            return
        self.problem = ""
        if self.screen.problems.pop("save", None) is not None:
            self.screen.review_app.tell("Every change that was waiting is saved now.")

    def failed(self, message: SaveFailed) -> None:
        self.saving = False
        self.notice_moved()
        message.pending.tries += 1
        self.problem = message.problem
        self.screen.report(
            "save",
            f"{changes(len(self.pending))} not saved yet ({message.problem}): kept, marked "
            f"{PENDING_MARK}, and retried.",
        )
        self.pending_changed(message.pending.answer_id)

    def landed(self, answer_id: int, shown: Shown) -> None:
        """A change is saved: show the answer as the database now has it."""
        screen, session = self.screen, self.screen.session
        if shown is None:
            screen.poller.stale(answer_id)
            self.pending_changed(answer_id)
            return
        fresh, detail = shown
        if session is None or not session.has(fresh.answer_id):
            return  # another dataset is open now
        if session.assignment is not None:  # the status line's "done / assigned"
            session.assignment.changed(answer_id, detail.history)
        if session.own is not None:  # blind review counts the reviewer's own verdicts
            own = own_verdict(detail.history, self.screen.settings.reviewer)
            session.own_changed(answer_id, own is not None)
        screen.apply_fresh([fresh])
        screen.pane.details[answer_id] = detail
        current = screen.current()
        if current is not None and current.answer_id == answer_id:
            screen.show(current, detail)

    def pending_changed(self, answer_id: int) -> None:
        """Show where a change stands: its mark in the list, the status, the verdict panel."""
        screen = self.screen
        screen.refresh_list()
        current = screen.current()
        if current is not None and current.answer_id == answer_id:
            screen.show_current(force=True)

    def notice_moved(self) -> None:
        """The file was replaced, deleted or rewritten while open: say so once. With no
        copy of it, the changes saved to it are lost with it: pending again, never lost
        silently."""
        screen = self.screen
        moved = screen.review_app.database.moved
        if moved is None or moved == self._moved:
            return
        self._moved = moved
        lost = self.pending.unsave() if moved.copy is None else 0
        again = f"; {changes(lost)} saved to it before went with it: kept, not saved"
        screen.review_app.tell(moved.told() + (again if lost else ""), "error")
        screen.refresh_list()
        screen.show_current(force=True)

    def unsaved(self) -> str:
        """The changes not saved yet and why, for quitting ("" when every one is saved)."""
        if not self.pending:
            return ""
        why = self.problem or "saving"
        return f"{changes(len(self.pending))} not saved ({why}): {self.pending.described()}"

    async def undo(self) -> None:
        """Take back the reviewer's last change: one not saved yet, else their newest verdict
        in force in this dataset, wherever it is; the cursor goes there."""
        screen = self.screen
        session, tell = screen.session, screen.review_app.tell
        if session is None:
            return
        if self.pending:
            if self.saving and len(self.pending) == 1:
                tell("That change is being saved; press u again once it is.")
                return
            withdrawn = self.pending.withdraw_last()
            tell(
                f"Withdrew {withdrawn.label} on {withdrawn.key} ({withdrawn.model}): "
                "it was never saved."
            )
            self.pending_changed(withdrawn.answer_id)
            screen.reveal(withdrawn.answer_id)
            return
        try:
            database = screen.review_app.database
            undone = await database.run(partial(database.take_back, session.dataset))
        except DB_ERRORS as exc:
            tell(f"Could not undo ({reason(exc)}); nothing changed.", "error")
            return
        if undone is None:
            tell("Nothing to undo: no verdict or error cause of yours is in force in this dataset.")
            return
        screen.post_message(Undone(session, *undone))

    def undone(self, message: Undone) -> None:
        screen, session = self.screen, self.screen.session
        if message.session is not session or session is None:
            return
        if message.kind == "verdict":
            self.pending.undone(message.answer_id)
        self.landed(message.answer_id, message.shown)
        screen.reveal(message.answer_id)
        entry = session.find(message.answer_id)
        if entry is None:
            return
        what = "verdict" if message.kind == "verdict" else "error cause"
        screen.review_app.tell(f"Undid your last {what}, on {entry.key} ({entry.model}).")
