"""The review screen: the answer list on the left; the answer shown and everything about
it on the right (tui/detail_pane.py); the status line, the judges view and the tables'
strip.

Its parts do the slow work in workers (database calls in the one database thread of
tui/database.py, image decoding, a judge run) and post messages (tui/messages.py): the
writer saves the reviewer's changes (tui/writer.py), the poller reads what others wrote
(tui/poller.py), the judge control runs J (tui/judge_control.py). Its `on_<message>`
handlers hand each message to the part it is for, and change what is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen

from lmmreview.db.review import Detail, ReviewStore
from lmmreview.engine.review import Entry, Filter
from lmmreview.engine.scoring import Judge
from lmmreview.tui import detail as render
from lmmreview.tui.answer_list import AnswerList, Row, entry_row
from lmmreview.tui.blind import Blinding
from lmmreview.tui.database import DB_ERRORS, reason
from lmmreview.tui.detail_pane import DetailPane
from lmmreview.tui.errata_dialog import erratum_dialog
from lmmreview.tui.filter_menu import FilterMenu
from lmmreview.tui.footer import ReviewFooter
from lmmreview.tui.grading import Grading
from lmmreview.tui.group_view import GroupScreen, open_group
from lmmreview.tui.judge_control import JudgeControl
from lmmreview.tui.judges_view import JudgesPanel
from lmmreview.tui.loader import Loader
from lmmreview.tui.messages import (
    AnswersRead,
    DetailLoaded,
    EntriesChanged,
    Grown,
    JudgeFinished,
    JudgeProgress,
    Opened,
    OpenFailed,
    ReadFailed,
    Saved,
    SaveFailed,
    TablesReady,
    Undone,
)
from lmmreview.tui.navigation import Navigation
from lmmreview.tui.poller import Poller
from lmmreview.tui.review_keys import review_keys
from lmmreview.tui.review_views import Views
from lmmreview.tui.screens import BreakdownScreen, CompareScreen
from lmmreview.tui.session import Session
from lmmreview.tui.settings import Settings
from lmmreview.tui.status_line import StatusLine
from lmmreview.tui.strip import TablesStrip
from lmmreview.tui.styles import stylesheet
from lmmreview.tui.versus_view import VersusScreen
from lmmreview.tui.viewer import TemporaryImages
from lmmreview.tui.writer import Writer
from lmmreview.tui.writes import PendingWrites

if TYPE_CHECKING:
    from lmmreview.tui.app import ReviewApp

T = TypeVar("T")


class ReviewScreen(Screen[None]):
    """The sample list on the left; the selected answer and everything about it on the right."""

    BINDINGS = review_keys()
    DEFAULT_CSS = stylesheet("review_screen")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self.shared_ends: dict[str, tuple[int, int]] = {}  # per model name, for the list
        self.timings: list[float] = []  # seconds from key press to the next sample shown
        self._pressed_at: float | None = None
        self.image_files = TemporaryImages()  # what `o` writes: removed at unmount
        self.problems: dict[str, str] = {}  # "save"/"read" -> the problem last told
        self.writer = Writer(self)
        self.poller = Poller(self)
        self.judge_run = JudgeControl(self)
        self.views = Views(self)
        self.grading = Grading(self)
        self.loader = Loader(self)
        self.navigation = Navigation(self)
        self.filters = FilterMenu(self)
        self.blind = Blinding(self)  # what blind review hides (tui/blind.py)
        self.emptied_on: int | None = None  # the answer shown when the list was emptied

    def on_unmount(self) -> None:
        self.judge_run.stop()
        self.remove_image_files()

    def remove_image_files(self) -> None:
        """Remove the files `o` wrote; none is written after."""
        self.image_files.remove()

    @property
    def pending(self) -> PendingWrites:
        """The reviewer's changes not in the database yet."""
        return self.writer.pending

    @property
    def judge_running(self) -> bool:
        """A background judge run is under way (until its JudgeFinished is handled)."""
        return self.judge_run.running

    def compose(self) -> ComposeResult:
        yield StatusLine(Text("opening…"), id="status")
        with Horizontal(id="body"):
            yield AnswerList(id="list")
            app = self.review_app
            self.pane = DetailPane(
                app.image_renderer, self.read, app.database.image_bytes, id="detail"
            )
            yield self.pane
        yield JudgesPanel(id="judges-view")
        yield TablesStrip(id="strip")
        yield ReviewFooter(self.blind.footer_hidden)

    @property
    def review_app(self) -> ReviewApp:
        return self.app  # type: ignore[return-value]

    @property
    def settings(self) -> Settings:
        return self.review_app.settings

    def on_mount(self) -> None:
        self.auto_advance = self.settings.auto_advance  # t toggles it for this session
        self.query_one(AnswerList).focus()

    # -- navigation ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self.navigation.move(step)

    def action_page(self, direction: int) -> None:
        self.navigation.page(direction)

    def action_jump_to(self, index: int) -> None:
        self.navigation.jump_to(index)

    def action_next_where(self, what: str) -> None:
        self.navigation.next_where(what)

    def action_goto(self) -> None:
        self.run_worker(self.navigation.goto(), group="prompt")

    @on(AnswerList.Moved)
    def moved(self, event: AnswerList.Moved) -> None:
        self.show_current()

    # -- grading (tui/grading.py): each key makes one write command for the writer ----------

    async def action_score(self, value: float) -> None:
        await self.grading.score(value)

    async def action_choose(self, letter: str) -> None:
        await self.grading.choose(letter)

    def action_pick_option(self) -> None:
        self.run_worker(self.grading.pick_option(), group="prompt")

    def action_accept(self) -> None:
        self.grading.accept()

    def action_undo(self) -> None:
        self.run_worker(self.writer.undo(), group="write")

    def action_flag(self) -> None:
        self.grading.flag()

    def action_cause(self) -> None:
        self.run_worker(self.grading.cause(), group="prompt")

    def action_note(self) -> None:
        self.run_worker(self.grading.note(), group="prompt")

    def action_erratum(self) -> None:
        self.run_worker(erratum_dialog(self), group="prompt")

    def action_toggle_advance(self) -> None:
        self.auto_advance = not self.auto_advance
        state = "on: a grade moves to the next answer" if self.auto_advance else "off"
        self.review_app.tell(f"Advance after a grade is {state}.")
        self.show_status()

    # -- filters ---------------------------------------------------------------------------

    def action_search(self) -> None:
        self.run_worker(self.filters.search(), group="prompt")

    def action_clear_filters(self) -> None:
        self.filters.clear()

    def action_filters(self) -> None:
        self.run_worker(self.filters.menu(), group="prompt")

    def filter(self, flt: Filter) -> None:
        session = self.session
        if session is None or not self.tables_ready():
            return
        self.relist(session, lambda: session.apply(flt))  # an answer still listed stays
        self.show_current()
        if not len(session.visible):
            self._show_nothing()
            self.notify("No answer matches this filter.", severity="warning")

    def tables_ready(self) -> bool:
        """Filters, tables and exports need the tables; say so while they are computed."""
        ready = self.session is not None and self.session.tables is not None
        if not ready:
            self.notify("The tables are still being computed; a moment…")
        return ready

    # -- other views (tui/review_views.py) -----------------------------------------------------

    def action_breakdown(self) -> None:
        self.run_worker(self.views.breakdown(), group="prompt")

    def action_compare(self) -> None:
        self.run_worker(self.views.compare(), group="prompt")

    def action_rotations(self) -> None:
        # The view shows each rotation's judged choice and the model's name.
        if not self.blind.refused("The circular-group view"):
            self.run_worker(open_group(self), group="prompt")

    def action_zoom(self) -> None:
        self.views.zoom()

    def action_open_image(self) -> None:
        self.run_worker(self.views.open_image(), group="viewer")

    def action_export(self) -> None:
        self.run_worker(self.views.export(), group="prompt")

    def action_switch_judge(self) -> None:
        self.run_worker(self.views.switch_judge(), group="prompt")

    def action_judges(self) -> None:
        self.run_worker(self.views.toggle_judges(), group="judges-view")

    def action_judges_page(self) -> None:
        self.run_worker(self.views.judges_page(), group="judges-view")

    def action_datasets(self) -> None:
        self.run_worker(self.views.datasets(), group="prompt")

    def action_sort(self) -> None:
        self.run_worker(self.views.sort(), group="prompt")

    async def notes_text(self) -> str:
        return await self.views.notes_text()

    def show_judge(self, name: str) -> None:
        """Show the scores of the judge of this name, staying on the answer shown."""
        session = self.session
        if session is None:
            return
        judge = next((j for j, n in session.judges.items() if n == name), None)
        if judge is None or judge == session.judge:
            return
        self.reload(judge)
        self.review_app.tell(f"Showing the scores of {name}.")

    # -- a judge run in the background (tui/judge_control.py) --------------------------------

    def action_judge(self) -> None:
        if not self.blind.refused("Running the judge"):  # its progress and results show scores
            self.judge_run.open()

    def on_judge_progress(self, message: JudgeProgress) -> None:
        self.judge_run.progress(message)

    def on_judge_finished(self, message: JudgeFinished) -> None:
        self.judge_run.finished(message)

    # -- loading: the load worker and what it posts ------------------------------------------

    def reload(self, judge: Judge | None) -> None:
        """Read the dataset shown again, as `judge` scored it, on the answer shown."""
        session, current = self.session, self.current()
        assert session is not None
        self.load(session.dataset, judge, current.answer_id if current else None)

    @work(exclusive=True, group="load")
    async def load(
        self, dataset: str | None, judge: Judge | None = None, keep: int | None = None
    ) -> None:
        """Read a dataset (tui/loader.py) as `judge` scored it, on the answer `keep`."""
        await self.loader.load(dataset, judge, keep)

    def on_opened(self, message: Opened) -> None:
        self.loader.opened(message)

    def on_answers_read(self, message: AnswersRead) -> None:
        self.loader.answers_read(message)

    def relist(self, session: Session, change: Callable[[], None]) -> None:
        """Make `change` to the session's answers and list them again, with the answer
        under the cursor still under it (after a change that emptied the list: the answer
        shown before it)."""
        current = self.current()
        shown = current.answer_id if current is not None else self.emptied_on
        change()
        place = session.place(shown) if shown is not None else None
        self.emptied_on = None if len(session.visible) else shown
        self.refresh_list(cursor=place or 0)

    def on_open_failed(self, message: OpenFailed) -> None:
        self.review_app.stop(message.failure)

    async def on_tables_ready(self, message: TablesReady) -> None:
        await self.loader.tables_ready(message)

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        self.loader.detail_loaded(message)

    def on_read_failed(self, message: ReadFailed) -> None:
        self.report("read", message.problem)

    async def read(self, call: Callable[[ReviewStore], T]) -> T | None:
        """Run a read in the database thread: its result, or None when it failed (then a
        ReadFailed is posted: told once, never fatal)."""
        try:
            result = await self.review_app.database.run(call)
        except DB_ERRORS as exc:
            db = self.review_app.db_path
            self.post_message(ReadFailed(f"Could not read {db.name}: {reason(exc)}"))
            return None
        self.problems.pop("read", None)
        return result

    def report(self, source: str, problem: str) -> None:
        """Tell a problem with the file once: a retry that fails alike stays quiet."""
        if self.problems.get(source) != problem:
            self.problems[source] = problem
            self.review_app.tell(problem, "error")

    # -- what the screen shows ---------------------------------------------------------------

    def current(self) -> Entry | None:
        """The answer under the cursor, if the list has one."""
        session = self.session
        if session is None or not len(session.visible) or not self.is_mounted:
            return None
        cursor = self.query_one(AnswerList).cursor
        return session.listed(min(cursor, len(session.visible) - 1))

    def _row(self, index: int) -> Row:
        session = self.session
        assert session is not None
        entry = self.blind.entry(session.listed(index))
        pending = bool(self.pending.labels(entry.answer_id))
        width = self.query_one(AnswerList).scrollable_content_region.width
        shared = self.shared_ends.get(entry.model, (0, 0))
        return entry_row(
            entry, render.score_text(entry), session.rightness(entry), pending, width, shared
        )

    def refresh_list(self, cursor: int | None = None) -> None:
        session = self.session
        if session is None:
            return
        answers = self.query_one(AnswerList)
        if cursor is not None:
            answers.show(len(session.visible), self._row, cursor)
        else:
            answers.refresh()
        self.show_status()

    def show_status(self) -> None:
        if self.session is not None:
            self.query_one(StatusLine).show(
                self.session,
                self.review_app.db_path.name,
                advance=self.auto_advance,
                unsaved=len(self.pending),
                judging=self.judge_running,
                moved=self.review_app.database.moved,
                hide=self.blind.text,
            )

    def pressed(self) -> None:
        """A navigation key: time it until the next sample is on screen."""
        self._pressed_at = time.perf_counter()

    def show_current(self, force: bool = False) -> None:
        """Show the current answer: at once from the caches, else after a fetch."""
        entry, session, pane = self.current(), self.session, self.pane
        if entry is None or session is None:
            return
        if entry.answer_id == pane.showing and self._pressed_at is None and not force:
            return  # already on screen (the cursor's message after a key that showed it)
        pane.showing = entry.answer_id
        cached = pane.details.get(entry.answer_id)
        if cached is not None:
            self.show(entry, cached)
        else:
            with self.app.batch_update():
                pane.show_loading(self.blind.entry(entry))
            pane.fetch(session, entry.answer_id)
        pane.prefetch(session, self.query_one(AnswerList).cursor)

    def _show_nothing(self) -> None:
        """An empty list: no answer is shown, so none seems to be the one a key grades."""
        self.pane.showing = None
        with self.app.batch_update():
            self.pane.show_loading(None)
        self.query_one(TablesStrip).update(Text(""))

    def show(self, entry: Entry, detail: Detail) -> None:
        session = self.session
        if session is None:
            return
        pane = self.pane
        unsaved = self.pending.labels(entry.answer_id)
        with self.app.batch_update():  # one repaint for the whole answer
            pane.show(
                self.blind.entry(entry), self.blind.detail(detail), session, unsaved,
                self.writer.problem, self.settings.causes, self.blind.hidden(entry.answer_id),
            )  # fmt: skip
            self.show_strip(entry)
            pane.show_images(entry, detail.image_hashes)
        if self._pressed_at is not None:
            started, self._pressed_at = self._pressed_at, None
            self.call_after_refresh(lambda: self.timings.append(time.perf_counter() - started))

    def show_strip(self, entry: Entry) -> None:
        if self.session is not None:
            self.query_one(TablesStrip).show(self.session, entry, self.blind.on)

    # -- writes (tui/writer.py) and what they change on screen --------------------------------

    def on_saved(self, message: Saved) -> None:
        self.blind.saved(message.pending)  # first: the answer shows its judges as it lands
        self.writer.saved(message)

    def on_save_failed(self, message: SaveFailed) -> None:
        self.writer.failed(message)

    def on_undone(self, message: Undone) -> None:
        self.writer.undone(message)

    def reveal(self, answer_id: int) -> None:
        """Put the cursor on an answer and show it; clear the filters if they hide it."""
        session = self.session
        if session is None or not session.has(answer_id):
            return
        row = session.reveal(answer_id)
        if row is None:
            session.apply(Filter())
            self.review_app.tell("Cleared the filters to show it.")
            row = session.place(answer_id)  # every answer is listed
        self.refresh_list(cursor=row or 0)
        self.show_current(force=True)

    def apply_fresh(self, fresh: Iterable[Entry]) -> None:
        """Answers as the file has them now: in the session, the list and the judges view."""
        session = self.session
        if session is None:
            return
        fresh = list(fresh)
        for entry in fresh:
            session.update(entry)
            self.pane.details.pop(entry.answer_id, None)
        self.refresh_list()
        self.query_one(JudgesPanel).verdicts_changed(fresh, session.golds)
        for shown in self.app.screen_stack:  # the views over this one follow the verdicts
            if isinstance(shown, CompareScreen):  # grades given there land there too
                shown.refresh_scores()
            elif isinstance(shown, BreakdownScreen | VersusScreen):
                shown.verdicts_changed()
            elif isinstance(shown, GroupScreen):
                shown.refresh_rows()

    # -- other writers to the same file (tui/poller.py) ---------------------------------------

    def on_entries_changed(self, message: EntriesChanged) -> None:
        self.poller.changed(message)

    def on_grown(self, message: Grown) -> None:
        self.poller.grown(message)
