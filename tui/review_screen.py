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
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from lmmreview.db.review import Detail, ReviewStore
from lmmreview.engine.review import Entry, Filter
from lmmreview.engine.scoring import Judge
from lmmreview.engine.types import Sample
from lmmreview.tui import detail as render
from lmmreview.tui.answer_list import AnswerList, Row, entry_row, shared_ends
from lmmreview.tui.database import DB_ERRORS, reason
from lmmreview.tui.detail_pane import DetailPane
from lmmreview.tui.filter_menu import FilterMenu
from lmmreview.tui.footer import ReviewFooter
from lmmreview.tui.grading import Grading
from lmmreview.tui.images import ImageSet
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
    Shown,
    TablesReady,
    Undone,
)
from lmmreview.tui.poller import Poller
from lmmreview.tui.review_keys import review_keys
from lmmreview.tui.review_views import Views
from lmmreview.tui.screens import CompareScreen, Prompt
from lmmreview.tui.session import Session
from lmmreview.tui.settings import Settings
from lmmreview.tui.status_line import StatusLine
from lmmreview.tui.styles import stylesheet
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
        self._shared_ends: dict[str, tuple[int, int]] = {}  # per model name, for the list
        self.timings: list[float] = []  # seconds from key press to the next sample shown
        self._pressed_at: float | None = None
        self.image_files = TemporaryImages()  # what `o` writes: removed at unmount
        self.problems: dict[str, str] = {}  # "save"/"read" -> the problem last told
        self._before_search: int | None = None  # the answer shown when a search began
        self.writer = Writer(self)
        self.poller = Poller(self)
        self.judge_run = JudgeControl(self)
        self.views = Views(self)
        self.grading = Grading(self)
        self.loader = Loader(self)

    def on_unmount(self) -> None:
        self.stop_judge()
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

    @property
    def judge_stopped(self) -> str:
        """A judge run stopped by a change of the file: what it said."""
        return self.judge_run.stopped

    def compose(self) -> ComposeResult:
        yield StatusLine(Text("opening…"), id="status")
        with Horizontal(id="body"):
            yield AnswerList(id="list")
            app = self.review_app
            yield DetailPane(app.image_renderer, self.read, app.database.image_bytes, id="detail")
        yield JudgesPanel(id="judges-view")
        yield Static(id="strip")
        yield ReviewFooter()

    @property
    def pane(self) -> DetailPane:
        return self.query_one(DetailPane)

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
        answers = self.query_one(AnswerList)
        self._go(min(max(answers.cursor + step, 0), max(answers.count - 1, 0)))

    def action_page(self, direction: int) -> None:
        """A screenful down (1) or up (-1): the list's height, less a line of context."""
        answers = self.query_one(AnswerList)
        self.action_move(direction * max(answers.size.height - 1, 1))

    def action_jump_to(self, index: int) -> None:
        answers = self.query_one(AnswerList)
        self._go(index % answers.count if answers.count else 0)

    def _go(self, index: int) -> None:
        """Move the cursor and show the answer in the same frame (timed for the benchmark)."""
        self.pressed()
        self.query_one(AnswerList).cursor = index
        self.show_current()

    def action_next_where(self, what: str) -> None:
        session = self.session
        if session is None:
            return
        answers = self.query_one(AnswerList)
        wanted = (lambda e: not e.reviewed) if what == "unreviewed" else (lambda e: e.flagged)
        count = len(session.visible)
        for step in range(1, count + 1):
            index = (answers.cursor + step) % count
            if wanted(session.listed(index)):
                self._go(index)
                return
        self.notify(f"No {what} answer in this list.")

    @work(group="prompt")
    async def action_goto(self) -> None:
        session = self.session
        key = await self.app.push_screen_wait(Prompt("Jump to sample id (e.g. v1_12):"))
        if not key or session is None:
            return
        for index in range(len(session.visible)):
            if session.listed(index).key == key.strip():
                self.query_one(AnswerList).cursor = index
                return
        self.notify(f"No answer to {key!r} in this list.", severity="warning")

    @on(AnswerList.Moved)
    def moved(self, event: AnswerList.Moved) -> None:
        self.show_current()

    # -- grading (tui/grading.py): each key makes one write command for the writer ----------

    async def action_score(self, value: float) -> None:
        await self.grading.score(value)

    async def action_choose(self, letter: str) -> None:
        await self.grading.choose(letter)

    @work(group="prompt")
    async def action_pick_option(self) -> None:
        await self.grading.pick_option()

    def action_accept(self) -> None:
        self.grading.accept()

    def action_undo(self) -> None:
        self.run_worker(self.writer.undo(), group="write")

    def action_flag(self) -> None:
        self.grading.flag()

    @work(group="prompt")
    async def action_cause(self) -> None:
        await self.grading.cause()

    @work(group="prompt")
    async def action_note(self) -> None:
        await self.grading.note()

    def action_toggle_advance(self) -> None:
        self.auto_advance = not self.auto_advance
        state = "on: a grade moves to the next answer" if self.auto_advance else "off"
        self.review_app.tell(f"Advance after a grade is {state}.")
        self.show_status()

    # -- filters ---------------------------------------------------------------------------

    @work(group="prompt")
    async def action_search(self) -> None:
        text = await self.app.push_screen_wait(Prompt("Search questions and answers for:"))
        if not text or self.session is None:
            return
        dataset = self.session.dataset
        ids = await self.read(lambda r: r.search(dataset, text))
        if ids is None:
            return
        shown = self.current()
        self.filter(replace(self.session.filter, text=text, text_ids=ids))
        if self._before_search is None and shown is not None:
            self._before_search = shown.answer_id

    def action_clear_filters(self) -> None:
        """Show every answer again, back on the one shown before a search, if one was."""
        back, self._before_search = self._before_search, None
        self.filter(Filter())
        if back is not None:
            self.reveal(back)

    @work(group="prompt")
    async def action_filters(self) -> None:
        if self.session is not None:
            picked = await FilterMenu(self).pick(self.session)
            if picked is not None:
                self.filter(picked)

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

    @work(group="prompt")
    async def action_breakdown(self) -> None:
        await self.views.breakdown()

    @work(group="prompt")
    async def action_compare(self) -> None:
        await self.views.compare()

    def action_zoom(self) -> None:
        self.views.zoom()

    @work(group="viewer")
    async def action_open_image(self) -> None:
        await self.views.open_image()

    @work(group="prompt")
    async def action_export(self) -> None:
        await self.views.export()

    @work(group="prompt")
    async def action_switch_judge(self) -> None:
        await self.views.switch_judge()

    @work(group="judges-view")
    async def action_judges(self) -> None:
        await self.views.toggle_judges()

    @work(group="prompt")
    async def action_datasets(self) -> None:
        await self.views.datasets()

    @work(group="prompt")
    async def action_sort(self) -> None:
        await self.views.sort()

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
        self.judge_run.open()

    def on_judge_progress(self, message: JudgeProgress) -> None:
        self.judge_run.progress(message)

    def on_judge_finished(self, message: JudgeFinished) -> None:
        self.judge_run.finished(message)

    def stop_judge(self) -> None:
        self.judge_run.stop()

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
        session = self.session = message.session
        self.poller.opened(message.version, message.marks)
        self._shared_ends = shared_ends(session.answers.models)
        self.pane.forget()
        keep = message.keep
        self.refresh_list(cursor=(session.place(keep) if keep is not None else None) or 0)

    def on_answers_read(self, message: AnswersRead) -> None:
        session = self.session
        if message.session is not session or session is None:
            return
        self.relist(session, lambda: session.take_answers(message.answers))

    def relist(self, session: Session, change: Callable[[], None]) -> None:
        """Make `change` to the session's answers and list them again, with the answer
        under the cursor still under it."""
        current = self.current()
        change()
        place = session.place(current.answer_id) if current is not None else None
        self.refresh_list(cursor=place or 0)

    def on_open_failed(self, message: OpenFailed) -> None:
        self.review_app.stop(message.failure)

    async def on_tables_ready(self, message: TablesReady) -> None:
        session = self.session
        if message.session is not session or session is None:
            return  # another dataset or judge was opened since
        self.relist(session, lambda: session.complete(message.tables))
        panel = self.query_one(JudgesPanel)
        if panel.is_open:  # another judge shown: the view names it
            await self.views.open_judges(panel, session)
        # The answer shown before the tables came is drawn again as any other: with the
        # judges' names, the one shown marked, and its strip.
        self.show_current(force=True)

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        if message.session is not self.session:
            return
        detail = message.detail
        self.pane.keep(detail)
        if message.ahead:
            self.pane.prefetch_images(detail)
        entry = self.current()
        if entry is not None and entry.answer_id == detail.answer_id:
            self._show(entry, detail)

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

    def shown_images(self) -> ImageSet | None:
        """The images of the answer on screen, to zoom into or open; None, and why, if none."""
        entry = self.current()
        detail = self.pane.details.get(entry.answer_id) if entry is not None else None
        if entry is None:
            self.notify("No answer is shown yet.")
            return None
        if detail is None:
            self.notify(f"{entry.key} is still loading; press again.")
            return None
        if not detail.image_hashes:
            self.notify(f"{entry.key} has no image.")
            return None
        title = f"{entry.key} · {entry.model}"
        return ImageSet(entry.key, title, detail.image_hashes, self.review_app.database.image_bytes)

    async def sample_of(self, entry: Entry) -> Sample | None:
        """The entry's whole sample (its options too): from its detail, read now if a key
        came before it (None: it cannot be read now)."""
        answer_id = entry.answer_id
        cached = self.pane.details.get(answer_id)
        detail = cached or await self.read(lambda r: r.detail(answer_id))
        return None if detail is None else detail.sample

    def _row(self, index: int) -> Row:
        session = self.session
        assert session is not None
        entry = session.listed(index)
        pending = bool(self.pending.labels(entry.answer_id))
        width = self.query_one(AnswerList).scrollable_content_region.width
        shared = self._shared_ends.get(entry.model, (0, 0))
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
            self._show(entry, cached)
        else:
            with self.app.batch_update():
                pane.show_loading(entry)
            pane.fetch(session, entry.answer_id)
        cursor, count = self.query_one(AnswerList).cursor, len(session.visible)
        near = [i for i in (cursor + 1, cursor + 2, cursor - 1) if 0 <= i < count]
        pane.prefetch(session, [session.listed(i).answer_id for i in near])

    def _show_nothing(self) -> None:
        """An empty list: no answer is shown, so none seems to be the one a key grades."""
        self.pane.showing = None
        with self.app.batch_update():
            self.pane.show_loading(None)
        self.query_one("#strip", Static).update(Text(""))

    def _show(self, entry: Entry, detail: Detail) -> None:
        session = self.session
        if session is None:
            return
        pane = self.pane
        unsaved = self.pending.labels(entry.answer_id)
        with self.app.batch_update():  # one repaint for the whole answer
            pane.show(entry, detail, session, unsaved, self.writer.problem, self.settings.causes)
            self.show_strip(entry)
            pane.show_images(entry, detail.image_hashes)
        if self._pressed_at is not None:
            started, self._pressed_at = self._pressed_at, None
            self.call_after_refresh(lambda: self.timings.append(time.perf_counter() - started))

    def show_strip(self, entry: Entry) -> None:
        session = self.session
        if session is None:
            return
        tables = session.tables
        if tables is None:
            self.query_one("#strip", Static).update(Text("computing the tables…", style="italic"))
            return
        strip = render.breakdown_strip(
            session.strip(entry),
            tables.breakdown.layout.titles,
            tables.agreement.delta,
            tables.agreement.count,
        )
        self.query_one("#strip", Static).update(strip)

    # -- writes (tui/writer.py) and what they change on screen --------------------------------

    def on_saved(self, message: Saved) -> None:
        self.writer.saved(message)

    def on_save_failed(self, message: SaveFailed) -> None:
        self.writer.failed(message)

    def on_undone(self, message: Undone) -> None:
        self.writer.undone(message)

    def unsaved(self) -> str:
        """The changes not saved yet and why, for quitting ("" when every one is saved)."""
        return self.writer.unsaved()

    def landed(self, answer_id: int, shown: Shown) -> None:
        """A change is saved: show the answer as the database now has it."""
        session = self.session
        if shown is None:
            self.poller.stale(answer_id)
            self.pending_changed(answer_id)
            return
        fresh, detail = shown
        if session is None or not session.has(fresh.answer_id):
            return  # another dataset is open now
        self.apply_fresh([fresh])
        self.pane.details[answer_id] = detail
        current = self.current()
        if current is not None and current.answer_id == answer_id:
            self._show(current, detail)

    def pending_changed(self, answer_id: int) -> None:
        """Show where a change stands: its mark in the list, the status, the verdict panel."""
        self.refresh_list()
        current = self.current()
        if current is not None and current.answer_id == answer_id:
            self.show_current(force=True)

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
        if isinstance(self.app.screen, CompareScreen):  # grades given there land there too
            self.app.screen.refresh_scores()

    # -- other writers to the same file (tui/poller.py) ---------------------------------------

    def poll(self) -> None:
        """Pick up what another process (or a judge run) wrote since the last look; retry
        the changes not saved yet."""
        self.poller.poll()

    def on_entries_changed(self, message: EntriesChanged) -> None:
        self.poller.changed(message)

    def on_grown(self, message: Grown) -> None:
        self.poller.grown(message)
