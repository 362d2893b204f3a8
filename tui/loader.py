"""The review screen's loader: it reads a dataset in the database thread, as one judge
scored it, posts each part as it comes (Opened, DetailLoaded, AnswersRead, TablesReady;
OpenFailed when the file cannot be used), and shows each as it is handled."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lmmreview.engine.names import shared_ends
from lmmreview.engine.scoring import Judge
from lmmreview.tui.blind import read_blind
from lmmreview.tui.database import DB_ERRORS, Opening, read_dataset, reason
from lmmreview.tui.judges_view import JudgesPanel
from lmmreview.tui.messages import AnswersRead, DetailLoaded, Opened, OpenFailed, TablesReady
from lmmreview.tui.session import Session

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen


class Loader:
    """Reads the datasets the screen shows."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    async def load(self, dataset: str | None, judge: Judge | None, keep: int | None) -> None:
        """Read a dataset (as `judge` scored it, else as the judge the settings prefer):
        the answers (the top of the list first, then every one), the first answer's
        details, then the tables. The list shows the answer `keep` if it is given."""
        screen = self.screen
        app = screen.review_app
        choice = screen.settings.judge_choice()
        opening = app.take_opening(dataset) if judge is None else None
        if opening is None:  # the top of the list first, unless another answer is kept
            head = app.head if keep is None else None
            opening = app.database.submit(lambda r: read_dataset(r, dataset, judge, choice, head))
        try:
            read: Opening = await asyncio.wrap_future(opening)
        except (LookupError, *DB_ERRORS) as exc:
            screen.post_message(OpenFailed(str(exc)))
            return
        session, version, marks, beside = read
        session.shuffle(screen.settings.shuffle_seed)
        try:
            if screen.blind.on:  # the aliases before any answer is listed
                models, given, own = await app.database.run(
                    lambda r: read_blind(r, session.dataset)
                )
                screen.blind.opened(session.dataset, models, given)
                session.own = set(own)  # only the reviewer's own verdicts count as reviewed
        except DB_ERRORS as exc:
            screen.post_message(OpenFailed(f"{app.db_path}: {reason(exc)}"))
            return
        screen.post_message(Opened(session, version, marks, keep))
        start = (session.place(keep) if keep is not None else None) or 0
        if len(session.visible):  # the first answer before the tables: they take longer
            first = session.listed(start)
            detail = await screen.read(lambda r: r.detail(first.answer_id))
            if detail is not None:
                screen.post_message(DetailLoaded(session, detail))
        bare, benchmark = session.answers, session.benchmark
        try:
            if session.partial:
                bare = await app.database.run(
                    lambda r: Session.every_answer(r, session.dataset, beside)
                )
                screen.post_message(AnswersRead(session, bare))
            tables = await app.database.run(
                lambda r: Session.compute(
                    r, session.dataset, benchmark, bare, session.judge, choice, beside
                )
            )
        except DB_ERRORS as exc:
            screen.post_message(OpenFailed(f"{app.db_path}: {reason(exc)}"))
            return
        screen.post_message(TablesReady(session, tables))

    def opened(self, message: Opened) -> None:
        """The answers are read: list them (at the answer kept), every detail read anew."""
        screen = self.screen
        session = screen.session = message.session
        screen.poller.opened(message.version, message.marks)
        screen.shared_ends = shared_ends(session.answers.models)
        screen.pane.forget()
        keep = message.keep
        screen.refresh_list(cursor=(session.place(keep) if keep is not None else None) or 0)

    def answers_read(self, message: AnswersRead) -> None:
        session = self.screen.session
        if message.session is not session or session is None:
            return
        self.screen.relist(session, lambda: session.take_answers(message.answers))

    def detail_loaded(self, message: DetailLoaded) -> None:
        """An answer's details are read: keep them; show them if it is the one shown."""
        screen = self.screen
        if message.session is not screen.session:
            return
        detail = message.detail
        screen.pane.keep(detail)
        if message.ahead:
            screen.pane.prefetch_images(detail)
        entry = screen.current()
        if entry is not None and entry.answer_id == detail.answer_id:
            screen.show(entry, detail)

    async def tables_ready(self, message: TablesReady) -> None:
        screen, session = self.screen, self.screen.session
        if message.session is not session or session is None:
            return  # another dataset or judge was opened since
        screen.relist(session, lambda: session.complete(message.tables))
        panel = screen.query_one(JudgesPanel)
        if panel.is_open:  # another judge shown: the view names it
            await screen.views.open_judges(panel, session)
        # The answer shown before the tables came is drawn again as any other: with the
        # judges' names, the one shown marked, and its strip.
        screen.show_current(force=True)
