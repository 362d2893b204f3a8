"""The review screen's poller: at each tick of the app's timer it picks up what another
process (or a judge run) wrote to the file since the last look, retries the changes not
saved yet and tells about judge batches in flight. Its reads run in the database thread
(tui/database.py `changed_since`); what they find comes back as EntriesChanged and Grown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lmmreview.db.review import NO_MARKS, Marks
from lmmreview.engine.scoring import Judge
from lmmreview.tui.batch_notice import BatchNotice
from lmmreview.tui.database import changed_since
from lmmreview.tui.messages import EntriesChanged, Grown
from lmmreview.tui.session import Session

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen


class Poller:
    """Where the last look left off, and the answers the next one must read."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen
        self._version = 0  # the file's data version and marks, as last read: polls start there
        self._marks = NO_MARKS
        self._stale: set[int] = set()  # saved, but not read back yet: the next poll reads them
        self._unlisted: frozenset[int] = frozenset()  # imported elsewhere, not listed yet
        self._growing = False  # they are being read: the next ones wait for the next poll
        self._polling = False
        self._batches = BatchNotice(lambda text: screen.review_app.tell(text))

    def opened(self, version: int, marks: Marks) -> None:
        """A dataset was read as the file was at `version` and `marks`: look from there."""
        self._version, self._marks = version, marks

    def stale(self, answer_id: int) -> None:
        """A change to the answer is saved but could not be read back: the next look does."""
        self._stale.add(answer_id)

    def poll(self) -> None:
        """Pick up what another process (or a judge run) wrote since the last look; retry
        the changes not saved yet."""
        screen = self.screen
        if screen.session is None or self._polling:
            return
        screen.writer.notice_moved()
        screen.writer.save_next()
        self._polling = True
        screen.run_worker(self._look_for_changes(), group="poll")
        screen.run_worker(self._batches.look(screen.read), group="batches", exclusive=True)

    async def _look_for_changes(self) -> None:
        screen = self.screen
        session = screen.session
        assert session is not None
        stale, self._stale = self._stale, set()
        unlisted, self._unlisted = self._unlisted, frozenset()
        version, marks = self._version, self._marks
        try:
            found = await screen.read(
                lambda r: changed_since(r, session.dataset, version, marks, stale, unlisted)
            )
        finally:
            self._polling = False
        if found is None:
            self._stale |= stale  # read them at the next poll that can
            self._unlisted |= unlisted
            return
        screen.post_message(EntriesChanged(session, *found))

    def changed(self, message: EntriesChanged) -> None:
        screen, session = self.screen, self.screen.session
        if message.session is not session or session is None:
            return
        if message.marks.new_errata(self._marks):  # every detail read may show an old one
            screen.pane.details.clear()
            screen.show_current(force=True)
        self._version, self._marks = message.version, message.marks
        if message.datasets is not None and message.datasets != session.datasets:
            self._datasets_changed(session, message.datasets)
        if message.judges is not None and session.dataset in session.datasets:
            self._read_again(session, message.judges)
            return
        if message.added:
            self._grow(session, message.added)
        fresh = [e for e in message.fresh if session.has(e.answer_id)]
        if fresh:
            screen.apply_fresh(fresh)
            current = screen.current()
            if current is not None and any(e.answer_id == current.answer_id for e in fresh):
                screen.show_current(force=True)

    def _datasets_changed(self, session: Session, names: list[str]) -> None:
        """Another process imported (or removed) a dataset: `d` lists the file's datasets."""
        new = [name for name in names if name not in session.datasets]
        session.datasets = names
        if new:
            self.screen.review_app.tell(f"New in the file: {', '.join(new)} (d switches datasets).")

    def _read_again(self, session: Session, judges: list[Judge]) -> None:
        """Another process removed judgments (an import removed, say): read the dataset's
        judgments again, on the same answer, as a judge switch does; the judge shown stays
        unless it is gone. Pending changes stay queued."""
        screen = self.screen
        keep = session.judge in judges or screen.judge_running
        screen.reload(session.judge if keep else None)
        screen.review_app.tell(
            "Judgments were removed from the file by another program: read again."
        )

    def _grow(self, session: Session, added: frozenset[int]) -> None:
        """Read answers another process imported into the dataset, and the tables with
        them; kept for the next poll while the tables are computed or the read fails."""
        if session.tables is None or self._growing:  # tables made now would lack them
            self._unlisted |= added
            return
        self._growing = True
        session.start_reading()
        self.screen.run_worker(self._read_grown(session, added), group="grow")

    async def _read_grown(self, session: Session, added: frozenset[int]) -> None:
        tables = await self.screen.read(
            lambda r: Session.grow(r, session.dataset, session.benchmark, session.judge)
        )
        if tables is None:
            self._growing = False
            self._unlisted |= added
            return
        self.screen.post_message(Grown(session, added, tables))

    def grown(self, message: Grown) -> None:
        self._growing = False
        screen, session = self.screen, self.screen.session
        if message.session is not session or session is None:
            return
        screen.relist(session, lambda: session.complete(message.tables))
        fresh = [e for e in map(session.find, sorted(message.added)) if e is not None]
        models = sorted({e.model for e in fresh})
        screen.review_app.tell(
            f"{len(fresh)} new answers imported ({', '.join(models)}): listed in their place."
        )
        current = screen.current()
        if current is not None:
            screen.show_strip(current)
