"""The review screen's loader: it reads a dataset in the database thread, as one judge
scored it, and posts each part as it comes (Opened, DetailLoaded, AnswersRead,
TablesReady; OpenFailed when the file cannot be used)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lmmreview.engine.scoring import Judge
from lmmreview.tui.database import DB_ERRORS, Opening, read_dataset, reason
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
        preferred = screen.settings.shown_judge
        opening = app.take_opening(dataset) if judge is None else None
        if opening is None:  # the top of the list first, unless another answer is kept
            head = app.head if keep is None else None
            opening = app.database.submit(
                lambda r: read_dataset(r, dataset, judge, preferred, head)
            )
        try:
            read: Opening = await asyncio.wrap_future(opening)
        except (LookupError, *DB_ERRORS) as exc:
            screen.post_message(OpenFailed(str(exc)))
            return
        session, version, marks, beside = read
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
                    r, session.dataset, benchmark, bare, session.judge, preferred, beside
                )
            )
        except DB_ERRORS as exc:
            screen.post_message(OpenFailed(f"{app.db_path}: {reason(exc)}"))
            return
        screen.post_message(TablesReady(session, tables))
