"""What the review screen opens over itself: the tables (b), the compare view (c), the
zoom (z) and the outside viewer (o), an export (e), the judge picker (w), the judges view
(W), the dataset picker (d), the sort menu (s); and the notes and Markdown they show."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from lmmreview.db import Store
from lmmreview.db.errata import ErrataStore
from lmmreview.db.scoring import DatasetScores, with_errata_scores
from lmmreview.engine.columns import outcomes
from lmmreview.engine.export import Notes, to_markdown
from lmmreview.engine.ordering import ORDERS
from lmmreview.engine.review import Filter
from lmmreview.engine.scoring import GroupVerdict, Judge, Verdict
from lmmreview.engine.table_options import for_readers, with_names
from lmmreview.engine.tables import Table
from lmmreview.engine.uncertainty import Difference
from lmmreview.tui import detail as render
from lmmreview.tui.images import IMAGES_OFF, Decoded, ImageSet, settled
from lmmreview.tui.judges_view import JudgesPanel
from lmmreview.tui.screens import Answer, BreakdownScreen, CompareScreen, Menu, marked
from lmmreview.tui.session import Session
from lmmreview.tui.versus_view import VersusScreen
from lmmreview.tui.viewer import open_outside
from lmmreview.tui.writes import PENDING_MARK, Grade

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen


class Views:
    """The review screen's other views, each asked for by a key."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    async def _menu(
        self, title: str, choices: list[tuple[str, str]], start: str = ""
    ) -> str | None:
        return await self.screen.app.push_screen_wait(Menu(title, choices, start=start))

    async def breakdown(self) -> None:
        screen, session = self.screen, self.screen.session
        if screen.blind.refused("The tables"):
            return
        if session is None or session.tables is None or not screen.tables_ready():
            return
        notes = await self.notes_text()
        live = LiveTables(session, screen.settings.models)
        picked = await screen.app.push_screen_wait(
            BreakdownScreen(live, notes, self._errata_tables)
        )
        if picked:
            row, table, column = picked
            ids = session.cell_answers(row, table, column)
            title = f"{row} / {table.split('.', 1)[-1]} / {column}"
            screen.filter(Filter(cell_ids=ids, cell_title=title))

    async def _errata_tables(self) -> tuple[list[Table], str] | None:
        """The open dataset's tables with the errata in force in the file, on the answers
        as the screen has them (copied: the session changes meanwhile), not read again."""
        session = self.screen.session
        if session is None or session.tables is None:
            return None
        dataset = session.dataset
        none = f"No erratum in force in {dataset} (! on an answer sets one)."
        # one small query first: without errata, no copy of the answers, no tables anew
        given = await self.screen.read(lambda r: bool(ErrataStore(r.store, "").in_force(dataset)))
        if not given:
            return None if given is None else ([], none)
        frozen = session.frozen()
        found = await self.screen.read(lambda r: with_errata_scores(r.store, frozen.scores()))
        if found is None:
            return None
        if found.errata is None:  # cleared meanwhile
            return [], none
        tables = with_names(found.breakdown.tables(), self.screen.settings.models).tables
        return tables, found.errata.sentence(session.dataset)

    async def compare(self) -> None:
        screen = self.screen
        entry, session = screen.current(), screen.session
        if entry is None or session is None or screen.blind.refused("The compare view"):
            return
        rows = await screen.read(lambda r: r.answers_to(session.dataset, entry.key))
        detail = await screen.read(lambda r: r.detail(entry.answer_id))
        if rows is None or detail is None:
            return
        renderer = screen.review_app.image_renderer
        images = await self._decoded(detail.image_hashes)
        compared = render.compared(detail, session.benchmark, images, renderer)
        answers = [Answer(answer_id, model, text) for answer_id, model, text in rows]
        live = LiveTables(session, screen.settings.models)
        await screen.app.push_screen_wait(
            CompareScreen(compared, answers, self._grade_answer, self._score_of, entry.answer_id,
                          lambda a, b: VersusScreen(a, b, live.versus, live.tables, live.names))
        )  # fmt: skip

    def _grade_answer(self, answer_id: int, verdict: Verdict) -> None:
        """A grade from the compare view: the review screen's write path; the list's cursor
        stays where it is (auto-advance is for the list's own keys)."""
        session = self.screen.session
        entry = session.find(answer_id) if session is not None else None
        if entry is not None:
            self.screen.writer.submit(entry, Grade(verdict))

    def _score_of(self, answer_id: int) -> str:
        """An answer's score as the list shows it, with a mark while it is not saved."""
        session = self.screen.session
        entry = session.find(answer_id) if session is not None else None
        if entry is None:
            return ""
        pending = f" {PENDING_MARK}" if self.screen.pending.labels(answer_id) else ""
        return render.score_text(entry) + pending

    async def _decoded(self, hashes: list[str]) -> list[Decoded]:
        """The images of these hashes, decoded (a problem in place of one that fails)."""
        if self.screen.review_app.image_renderer is None:
            return []
        return list(await settled(self.screen.pane.image_request(h) for h in hashes))

    def shown_images(self) -> ImageSet | None:
        """The images of the answer on screen, to zoom into or open; None, and why, if none."""
        screen = self.screen
        entry = screen.current()
        detail = screen.pane.details.get(entry.answer_id) if entry is not None else None
        if entry is None:
            screen.notify("No answer is shown yet.")
            return None
        if detail is None:
            screen.notify(f"{entry.key} is still loading; press again.")
            return None
        if not detail.image_hashes:
            screen.notify(f"{entry.key} has no image.")
            return None
        title = f"{entry.key} · {screen.blind.alias(entry.model)}"
        image_bytes = screen.review_app.database.image_bytes
        return ImageSet(entry.key, title, detail.image_hashes, image_bytes)

    def zoom(self) -> None:
        screen = self.screen
        images, renderer = self.shown_images(), screen.review_app.image_renderer
        if images is not None and renderer is None:
            screen.notify(f"Nothing to zoom: {IMAGES_OFF}.")
        elif images is not None and renderer is not None:
            from lmmreview.tui.zoom import ZoomScreen

            screen.app.push_screen(ZoomScreen(images, renderer, screen.image_files))

    async def open_image(self) -> None:
        screen = self.screen
        images = self.shown_images()
        if images is not None:
            hashes = range(len(images.hashes))
            await open_outside(screen.app, images, hashes, screen.image_files)

    async def export(self) -> None:
        """Write this dataset's tables, or every dataset's, to a file the reviewer names."""
        from lmmreview.tui.exporting import THIS, all_datasets, ask_scope, ask_target, export

        app, session = self.screen.review_app, self.screen.session
        if session is None or self.screen.blind.refused("Exporting the tables"):
            return
        if not self.screen.tables_ready():
            return
        scope = await ask_scope(app, session.dataset, session.judge_name, len(session.datasets))
        if scope is None:
            return
        suffix = ".tables.md" if scope == THIS else ".all-datasets.tables.md"
        target = await ask_target(app, app.db_path.with_suffix(suffix))
        if target is not None:
            await export(app, target, self.markdown if scope == THIS else all_datasets(app))

    async def switch_judge(self) -> None:
        """Show another judge's scores in the list, the strip and the tables."""
        app, session = self.screen.review_app, self.screen.session
        if session is None:
            return
        if len(session.judges) < 2:
            app.tell(f"This dataset has one judge: {session.judge_name}.")
            return
        choices = [
            (name, f"{name}  (shown)" if judge == session.judge else name)
            for judge, name in session.judges.items()
        ]
        picked = await self._menu("Show the scores of the judge", choices)
        if picked:
            self.screen.show_judge(picked)

    async def datasets(self) -> None:
        session = self.screen.session
        if session is None:
            return
        choices = [(n, marked(n, n == session.dataset)) for n in session.datasets]
        picked = await self._menu("Dataset (● the one shown)", choices, start=session.dataset)
        if picked and picked != session.dataset:
            self.screen.load(picked)

    async def sort(self) -> None:
        """Sort the visible answers by score, disagreement or run spread, or list order."""
        screen, session = self.screen, self.screen.session
        if session is None or not screen.tables_ready():
            return
        picked = await self._menu("Sort the list by", screen.blind.orders(ORDERS))
        if picked is None or screen.session is not session:
            return
        session.sort(picked)
        screen.refresh_list(cursor=0)  # the top of the new order: where the reviewer starts
        screen.show_current(force=True)

    async def toggle_judges(self) -> None:
        """Show or hide the judges view: each judge of the dataset against the humans."""
        session = self.screen.session
        if session is None or self.screen.blind.refused("The judges view"):
            return
        panel = self.screen.query_one(JudgesPanel)
        if panel.is_open:
            panel.close()
        else:
            await self.open_judges(panel, session)

    async def judges_page(self) -> None:
        """The judges view's next page (opened first if it is hidden: at its tables)."""
        session = self.screen.session
        if session is None or self.screen.blind.refused("The judges view"):
            return
        panel = self.screen.query_one(JudgesPanel)
        if not panel.is_open:
            await self.open_judges(panel, session)
        if panel.is_open:
            panel.turn_page()

    async def open_judges(self, panel: JudgesPanel, session: Session) -> None:
        """Read every judge's calls (again) into the judges view."""
        from lmmreview.db.judges import read_judges

        found = await self.screen.read(lambda r: read_judges(r.store, session.dataset))
        if found is None:
            return
        if not found.calls:
            self.screen.review_app.tell("No judge has scored this dataset yet: nothing to compare.")
            return
        found.families = self.screen.settings.families  # the self-preference flag's map
        panel.open(found, session.judge_name)

    async def notes_text(self) -> str:
        session = self.screen.session
        if session is None:
            return ""
        found = await self.screen.read(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        return "" if found is None else _notes(session, *found).sentence()

    async def markdown(self) -> str:
        """The Markdown tables of the dataset shown, as the screen has them, and its notes."""
        session, database = self.screen.session, self.screen.review_app.database
        assert session is not None
        found = await database.run(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        assert session.tables is not None
        tables = for_readers(session.tables.breakdown.tables(), self.screen.settings.models).tables
        return to_markdown(tables, [_notes(session, *found)])


class LiveTables:
    """The tables screen's tables: the session's, live; their intervals computed in a
    worker thread from a copy of its answers (Session.frozen)."""

    def __init__(self, session: Session, names: Mapping[str, str]) -> None:
        self.session = session
        self.names = names  # the settings' [models]: order and display names

    def tables(self) -> list[Table]:
        assert self.session.tables is not None
        return with_names(self.session.tables.breakdown.tables(), self.names).tables

    async def with_intervals(self) -> list[Table]:
        found = await asyncio.to_thread(self.session.frozen().intervals)
        return with_names(found, self.names).tables

    async def versus(self, a: str, b: str) -> list[Difference]:
        return await asyncio.to_thread(self.session.frozen().versus, a, b)


def _judges_and_verdicts(
    store: Store, dataset: str, judge: Judge | None
) -> tuple[tuple[list[str], list[str]], list[GroupVerdict]]:
    """What the notes of a dataset read from the database: the names of the judges behind
    the scores shown and of the others, and the imported circular verdicts."""
    return store.judge_names(dataset, judge), list(store.group_verdicts(dataset).values())


def _notes(
    session: Session, judges: tuple[list[str], list[str]], verdicts: list[GroupVerdict]
) -> Notes:
    assert session.tables is not None
    tables = session.tables
    scores = DatasetScores(
        session.dataset,
        session.benchmark,
        tables.samples,
        session.answers,
        outcomes(session.answers, tables.breakdown.runs, tables.samples.golds),
        tables.breakdown,
    )
    shown, others = judges
    return scores.notes(shown, verdicts=verdicts, other_judges=others)
