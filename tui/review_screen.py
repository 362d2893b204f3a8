"""The review screen: the answer list on the left; the answer shown and everything about
it on the right; the status line, the judges view and the tables' strip.

It renders its own widgets. Its workers do the slow parts (database calls in the one
database thread of tui/database.py, image decoding, a judge run in tui/judge_worker.py)
and post messages (tui/messages.py); its `on_<message>` handlers change what is shown.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from lmmreview.db import Store
from lmmreview.db.review import NO_MARKS, Detail, ReviewStore
from lmmreview.db.scoring import DatasetScores
from lmmreview.db.watch import REWRITTEN
from lmmreview.engine.columns import outcomes
from lmmreview.engine.export import Notes, to_markdown
from lmmreview.engine.ordering import LIST_ORDER, ORDERS
from lmmreview.engine.review import Entry, Filter
from lmmreview.engine.scoring import GroupVerdict, Judge, Verdict
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui import detail as render
from lmmreview.tui.answer_list import AnswerList, Row, entry_row, shared_ends
from lmmreview.tui.batch_notice import BatchNotice
from lmmreview.tui.database import (
    DB_ERRORS,
    Opening,
    changed_since,
    read_dataset,
    reason,
)
from lmmreview.tui.file_watch import Moved
from lmmreview.tui.footer import ReviewFooter
from lmmreview.tui.grade_keys import score_keys
from lmmreview.tui.images import (
    IMAGES_OFF,
    Decoded,
    ImagePipeline,
    ImageSet,
    SampleImages,
    settled,
)
from lmmreview.tui.judges_view import JudgesPanel
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
from lmmreview.tui.option_picker import OptionPicker
from lmmreview.tui.safe_text import safe
from lmmreview.tui.screens import Answer, BreakdownScreen, CompareScreen, JudgeScreen, Menu, Prompt
from lmmreview.tui.session import Session
from lmmreview.tui.settings import Settings
from lmmreview.tui.viewer import TemporaryImages, open_outside
from lmmreview.tui.writes import PENDING_MARK, PendingWrite, PendingWrites, changes

# What no first screen shows (a judge run, an export, the zoom, the filters by
# disagreement) loads when first asked for: the first screen comes that much sooner.
if TYPE_CHECKING:
    from lmmreview.tui.app import ReviewApp
    from lmmreview.tui.judge_run import JudgeSetup
    from lmmreview.tui.judge_worker import BackgroundJudge

T = TypeVar("T")
IMAGE_BOX = (480, 240)  # thumbnails are made to fit this many pixels
DETAIL_CACHE = 128
PANELS = ("#title", "#question", "#gold", "#answer", "#judges", "#verdict", "#history")


NO_CAUSE = "(none)"  # the cause picker's choice that clears the cause; no cause id has "("


def _cause_choices(causes: Mapping[str, str], present: Iterable[str]) -> list[tuple[str, str]]:
    """(id, title) of every cause of the taxonomy, then of any other cause an answer has
    (`present`: given under an older taxonomy)."""
    others = sorted(set(present) - causes.keys())
    return [*causes.items(), *((c, c) for c in others)]


class ReviewScreen(Screen[None]):
    """The sample list on the left; the selected answer and everything about it on the right."""

    BINDINGS = [
        Binding("j,down", "move(1)", "next", show=False, id="next"),
        Binding("k,up", "move(-1)", "previous", show=False, id="previous"),
        Binding("g,home", "jump_to(0)", "first", show=False, id="first"),
        Binding("end", "jump_to(-1)", "last", show=False, id="last"),
        Binding("pagedown", "page(1)", "page down", show=False, id="page-down"),
        Binding("pageup", "page(-1)", "page up", show=False, id="page-up"),
        Binding("n", "next_where('unreviewed')", "unreviewed", id="next-unreviewed"),
        Binding("N", "next_where('flagged')", "next flagged", show=False, id="next-flagged"),
        Binding("colon", "goto", "jump to id", key_display=":", show=False, id="jump"),
        *score_keys(),
        Binding("X", "choose('X')", "none of the options", show=False, id="choose-none"),
        Binding("p", "pick_option", "pick any option from a list", show=False, id="pick-option"),
        Binding("a", "accept", "accept", id="accept"),
        Binding("u", "undo", "undo", id="undo"),
        Binding("m", "note", "note", show=False, id="note"),
        Binding("f", "flag", "flag", id="flag"),
        Binding("x", "cause", "error cause", show=False, id="cause"),
        Binding("slash", "search", "search", key_display="/", show=False, id="search"),
        Binding("v", "filters", "filter", id="filter"),
        Binding("escape", "clear_filters", "clear filters", show=False, id="clear-filters"),
        Binding("b", "breakdown", "tables", id="breakdown"),
        Binding("c", "compare", "compare", id="compare"),
        Binding("z", "zoom", "zoom into the image", show=False, id="zoom"),
        Binding("o", "open_image", "open the image outside", show=False, id="open-image"),
        Binding("J", "judge", "judge", id="judge"),
        Binding("w", "switch_judge", "show another judge's scores", show=False, id="switch-judge"),
        Binding("W", "judges", "judges view (against humans)", show=False, id="judges"),
        Binding("e", "export", "export", id="export"),
        Binding("s", "sort", "sort the list", show=False, id="sort"),
        Binding("t", "toggle_advance", "advance after a grade (on/off)", show=False, id="advance"),
        Binding("d", "datasets", "dataset", id="dataset"),
    ]
    DEFAULT_CSS = """
    ReviewScreen #status { height: 1; background: $primary-background; padding: 0 1; }
    ReviewScreen #body { height: 1fr; }
    ReviewScreen AnswerList { width: 47; border-right: solid $primary; }  /* 44 + bar + border */
    ReviewScreen.-narrow AnswerList { width: 36; }  /* shorter ids and models */
    ReviewScreen #detail { width: 1fr; padding: 0 1; }
    ReviewScreen #detail > Static { margin-bottom: 1; }
    ReviewScreen SampleImages { height: 14; }
    ReviewScreen SampleImages.off, ReviewScreen SampleImages.empty { height: 1; }
    ReviewScreen #strip { height: 3; background: $boost; padding: 0 1; }
    /* A short terminal: the image gives up its room first, so question, gold, answer and
       the judge's runs fit without scrolling. */
    ReviewScreen.-short SampleImages { height: 1fr; min-height: 3; max-height: 14; }
    ReviewScreen.-short #detail > Static { margin-bottom: 0; }
    ReviewScreen.-short #strip { height: 2; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self._shared_ends: dict[str, tuple[int, int]] = {}  # per model name, for the list
        self.pending = PendingWrites()  # the reviewer's changes not in the database yet
        self.timings: list[float] = []  # seconds from key press to the next sample shown
        self._pressed_at: float | None = None
        self._images = ImagePipeline()
        self._image_files = TemporaryImages()  # what `o` writes: removed at unmount
        self._details: OrderedDict[int, Detail] = OrderedDict()
        self._shown: dict[str, object] = {}  # panel -> what it shows, to skip repeats
        self._showing: int | None = None  # the answer the detail panels are for
        self._version = 0  # the file's data version and marks, as last read: polls start there
        self._marks = NO_MARKS
        self._stale: set[int] = set()  # saved, but not read back yet: the next poll reads them
        self._unlisted: frozenset[int] = frozenset()  # imported elsewhere, not listed yet
        self._growing = False  # they are being read: the next ones wait for the next poll
        self._polling = False
        self._saving = False  # a save is under way: its end saves whatever is queued
        self._save_problem = ""  # why the first pending change failed, as last seen
        self._problems: dict[str, str] = {}  # "save"/"read" -> the problem last told
        self._moved: Moved | None = None  # what happened to the file, as last told
        self._judge: BackgroundJudge | None = None
        self.judge_stopped = ""  # a judge run stopped by a change of the file: what it said
        self._batches = BatchNotice(lambda text: self.review_app.tell(text))
        self._judge_screen: JudgeScreen | None = None
        self._before_search: int | None = None  # the answer shown when a search began

    def on_unmount(self) -> None:
        self.stop_judge()
        self._images.shutdown()
        self.remove_image_files()

    def remove_image_files(self) -> None:
        """Remove the files `o` wrote; none is written after."""
        self._image_files.remove()

    @property
    def judge_running(self) -> bool:
        """A background judge run is under way (until its JudgeFinished is handled)."""
        return self._judge is not None

    def compose(self) -> ComposeResult:
        yield Static(Text("opening…"), id="status")
        with Horizontal(id="body"):
            yield AnswerList(id="list")
            with VerticalScroll(id="detail"):
                yield Static(id="title")
                yield SampleImages(self.review_app.image_renderer, id="images")
                yield Static(id="question")
                yield Static(id="gold")
                yield Static(id="answer")
                yield Static(id="judges")
                yield Static(id="verdict")
                yield Static(id="history")
        yield JudgesPanel(id="judges-view")
        yield Static(id="strip")
        yield ReviewFooter()

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

    # -- grading ---------------------------------------------------------------------------

    async def _gradable(self, kind: QuestionType) -> tuple[Entry, Sample] | None:
        """The current answer and its sample, if a key for `kind` questions can grade it."""
        entry = self.current()
        sample = await self.sample_of(entry) if entry is not None else None
        if entry is None or sample is None:
            return None
        if sample.question_type is not kind:
            hint = {
                QuestionType.OPEN: "A multiple-choice answer: press the option's letter (X: none).",
                QuestionType.CHOICE: "An open answer: grade with 0-9 and = (1.0).",
            }[kind]
            self.notify(hint)
            return None
        return entry, sample

    async def action_score(self, value: float) -> None:
        found = await self._gradable(QuestionType.OPEN)
        if found is not None:
            self.grade(found[0], Verdict(round(value, 1)))

    async def action_choose(self, letter: str) -> None:
        found = await self._gradable(QuestionType.CHOICE)
        if found is not None:
            self._choose(*found, letter)

    def _choose(self, entry: Entry, sample: Sample, letter: str) -> None:
        """Grade `entry` with option `letter` of its `sample`, if it has one."""
        if letter != "X" and letter not in sample.options:
            self.notify(f"No option {letter} here.", severity="warning")
            return
        self.grade(entry, Verdict(None, letter))

    @work(group="prompt")
    async def action_pick_option(self) -> None:
        """Options past I have no key of their own: choose any option from a list."""
        found = await self._gradable(QuestionType.CHOICE)
        if found is None:
            return
        letter = await self.app.push_screen_wait(OptionPicker(found[1].options))
        if letter is not None:  # the answer whose options were shown, wherever the cursor is
            self._choose(*found, letter)

    def action_accept(self) -> None:
        entry = self.current()
        if entry is None:
            return
        mean = entry.judge_mean()
        if entry.judge_choice is None and mean is None:
            self.notify("Nothing to accept: the judge has no usable result.", severity="warning")
            return
        choice, score = entry.judge_choice, None if entry.judge_choice else round(mean or 0.0, 1)
        self.grade(entry, Verdict(score, choice), "accept")

    def action_undo(self) -> None:
        self.undo()

    def action_flag(self) -> None:
        entry = self.current()
        if entry is not None:
            flagged = not entry.flagged
            label = "flag" if flagged else "unflag"
            self.write(entry, lambda r, a: r.set_flag(a, flagged), label)

    @work(group="prompt")
    async def action_cause(self) -> None:
        """Give the answer an error cause from the taxonomy, or clear it."""
        entry = self.current()
        if entry is None:
            return
        choices = [*self.settings.causes.items(), (NO_CAUSE, "(no cause: clear it)")]
        picked = await self.app.push_screen_wait(Menu("Why is this answer wrong?", choices))
        if picked is None:
            return
        cause = None if picked == NO_CAUSE else picked
        label = f"cause {picked}" if cause else "clear cause"
        self.write(entry, lambda r, a: r.set_cause(a, cause), label)

    @work(group="prompt")
    async def action_note(self) -> None:
        entry = self.current()
        if entry is None:
            return
        text = await self.app.push_screen_wait(Prompt("Note on this answer:"))
        if text:
            self.write(entry, lambda r, a: r.note(a, text), "note")

    # -- filters ---------------------------------------------------------------------------

    @work(group="prompt")
    async def action_search(self) -> None:
        text = await self.app.push_screen_wait(Prompt("Search questions and answers for:"))
        if not text or self.session is None:
            return
        dataset = self.session.dataset
        ids = await self._read(lambda r: r.search(dataset, text))
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
        session = self.session
        if session is None:
            return
        current = session.filter
        choices = [
            ("unreviewed", "Unreviewed"),
            ("failed", "Judge failed"),
            ("no_reply", "Judge result without a reply (an imported 0.0)"),
            ("fallback", "Fallback extractions"),
            ("flagged", "Flagged"),
            ("disagreement", f"|judge - human| > {self.settings.disagreement:g}"),
            ("spread", f"Judge runs disagree (std > {self.settings.spread:g})"),
            ("reviewers", "Reviewers disagree"),
            ("judges", f"Judges disagree (|judge - judge| > {self.settings.disagreement:g})"),
            ("axis", "By breakdown axis…"),
            ("model", "By model…"),
            ("cause", "By error cause…"),
            ("clear", "Clear all filters"),
        ]
        picked = await self.app.push_screen_wait(Menu(f"Filter ({current.describe()})", choices))
        if picked in ("unreviewed", "failed", "no_reply", "fallback", "flagged"):
            toggled: dict[str, Any] = {picked: not getattr(current, picked)}
            self.filter(replace(current, **toggled))
        elif picked == "disagreement":
            limit = None if current.disagreement is not None else self.settings.disagreement
            self.filter(replace(current, disagreement=limit))
        elif picked == "spread":
            limit = None if current.spread is not None else self.settings.spread
            self.filter(replace(current, spread=limit))
        elif picked == "reviewers":
            await self._toggle_reviewers_disagree(current)
        elif picked == "judges":
            await self._toggle_judges_disagree(current)
        elif picked == "model":
            models = sorted(session.answers.models)
            model = await self.app.push_screen_wait(Menu("Model", [(m, m) for m in models]))
            if model:
                self.filter(replace(current, model=model))
        elif picked == "cause":
            causes = _cause_choices(self.settings.causes, session.answers.causes())
            cause = await self.app.push_screen_wait(Menu("Error cause", causes))
            if cause:
                self.filter(replace(current, cause=cause))
        elif picked == "axis":
            await self._pick_axis(current)
        elif picked == "clear":
            self.filter(Filter())

    async def _toggle_reviewers_disagree(self, current: Filter) -> None:
        """Show only the answers whose reviewers' own verdicts differ, or stop doing so."""
        from lmmreview.db.reviewers import disagreeing_answers

        ids = None
        if current.reviewers_disagree is None and self.session is not None:
            dataset = self.session.dataset
            ids = await self._read(lambda r: disagreeing_answers(r.store, dataset))
            if ids is None:
                return
        self.filter(replace(current, reviewers_disagree=ids))

    async def _toggle_judges_disagree(self, current: Filter) -> None:
        """Show only the answers whose judges' scores spread by more than the threshold."""
        from lmmreview.db.judges import disagreeing_judges, read_judges

        ids = None
        if current.judges_disagree is None and self.session is not None:
            dataset, limit = self.session.dataset, self.settings.disagreement
            ids = await self._read(
                lambda r: disagreeing_judges(read_judges(r.store, dataset), limit)
            )
            if ids is None:
                return
        self.filter(replace(current, judges_disagree=ids))

    async def _pick_axis(self, current: Filter) -> None:
        session = self.session
        if session is None or session.tables is None:
            return
        values: dict[str, set[str]] = {}
        for sample in session.tables.samples.profiles:  # alike in what filters read
            for name, found in session.benchmark.filter_axes(sample).items():
                values.setdefault(name, set()).update(found)
        axis = await self.app.push_screen_wait(Menu("Axis", [(a, a) for a in sorted(values)]))
        if not axis:
            return
        value = await self.app.push_screen_wait(Menu(axis, [(v, v) for v in sorted(values[axis])]))
        if value:
            self.filter(replace(current, axis=(axis, value)))

    # -- other screens -----------------------------------------------------------------------

    @work(group="prompt")
    async def action_breakdown(self) -> None:
        session = self.session
        if session is None or session.tables is None or not self.tables_ready():
            return
        notes = await self.notes_text()
        picked = await self.app.push_screen_wait(
            BreakdownScreen(session.tables.breakdown.tables(), notes)
        )
        if picked:
            row, table, column = picked
            ids = session.cell_answers(row, table, column)
            title = f"{row} / {table.split('.', 1)[-1]} / {column}"
            self.filter(Filter(cell_ids=ids, cell_title=title))

    @work(group="prompt")
    async def action_compare(self) -> None:
        entry, session = self.current(), self.session
        if entry is None or session is None:
            return
        rows = await self._read(lambda r: r.answers_to(session.dataset, entry.key))
        detail = await self._read(lambda r: r.detail(entry.answer_id))
        if rows is None or detail is None:
            return
        images = await self._decoded(detail.image_hashes)
        compared = render.compared(
            detail, session.benchmark, images, self.review_app.image_renderer
        )
        answers = [Answer(answer_id, model, text) for answer_id, model, text in rows]
        await self.app.push_screen_wait(
            CompareScreen(compared, answers, self._grade_answer, self._score_of, entry.answer_id)
        )

    def _grade_answer(self, answer_id: int, verdict: Verdict) -> None:
        """A grade from the compare view: the review screen's write path; the list's cursor
        stays where it is (auto-advance is for the list's own keys)."""
        session = self.session
        entry = session.find(answer_id) if session is not None else None
        if entry is not None:
            self._queue_verdict(entry, verdict, "grade")

    def _score_of(self, answer_id: int) -> str:
        """An answer's score as the list shows it, with a mark while it is not saved."""
        session = self.session
        entry = session.find(answer_id) if session is not None else None
        if entry is None:
            return ""
        pending = f" {PENDING_MARK}" if self.pending.labels(answer_id) else ""
        return render.score_text(entry) + pending

    async def _decoded(self, hashes: list[str]) -> list[Decoded]:
        """The images of these hashes, decoded (a problem in place of one that fails)."""
        if self.review_app.image_renderer is None:
            return []
        load = self.review_app.database.image_bytes
        return list(
            await settled(self._images.request(h, partial(load, h), IMAGE_BOX) for h in hashes)
        )

    def action_judge(self) -> None:
        self.open_judge()

    def action_zoom(self) -> None:
        images, renderer = self.shown_images(), self.review_app.image_renderer
        if images is not None and renderer is None:
            self.notify(f"Nothing to zoom: {IMAGES_OFF}.")
        elif images is not None and renderer is not None:
            from lmmreview.tui.zoom import ZoomScreen

            self.app.push_screen(ZoomScreen(images, renderer, self._image_files))

    @work(group="viewer")
    async def action_open_image(self) -> None:
        images = self.shown_images()
        if images is not None:
            await open_outside(self.app, images, range(len(images.hashes)), self._image_files)

    @work(group="prompt")
    async def action_export(self) -> None:
        """Write this dataset's tables, or every dataset's, to a file the reviewer names."""
        from lmmreview.tui.exporting import THIS, all_datasets, ask_scope, ask_target, export

        app, session = self.review_app, self.session
        if session is None or not self.tables_ready():
            return
        scope = await ask_scope(app, session.dataset, session.judge_name, len(session.datasets))
        if scope is None:
            return
        suffix = ".tables.md" if scope == THIS else ".all-datasets.tables.md"
        target = await ask_target(app, app.db_path.with_suffix(suffix))
        if target is not None:
            await export(app, target, self.markdown if scope == THIS else all_datasets(app))

    @work(group="prompt")
    async def action_switch_judge(self) -> None:
        """Show another judge's scores in the list, the strip and the tables."""
        app, session = self.review_app, self.session
        if session is None:
            return
        if len(session.judges) < 2:
            app.tell(f"This dataset has one judge: {session.judge_name}.")
            return
        choices = [
            (name, f"{name}  (shown)" if judge == session.judge else name)
            for judge, name in session.judges.items()
        ]
        picked = await self.app.push_screen_wait(Menu("Show the scores of the judge", choices))
        if picked:
            self.show_judge(picked)

    @work(group="judges-view")
    async def action_judges(self) -> None:
        await self.toggle_judges()

    @work(group="prompt")
    async def action_datasets(self) -> None:
        if self.session is None:
            return
        names = self.session.datasets
        picked = await self.app.push_screen_wait(Menu("Dataset", [(n, n) for n in names]))
        if picked and picked != self.session.dataset:
            self.load(picked)

    # -- loading: the load worker and what it posts ------------------------------------------

    @work(exclusive=True, group="load")
    async def load(
        self, dataset: str | None, judge: Judge | None = None, keep: int | None = None
    ) -> None:
        """Read a dataset in the database thread (as `judge` scored it): the answers (the
        top of the list first, then every one), the first answer's details, then the
        tables, each posted as it comes. The list shows
        the answer `keep` if it is given."""
        app = self.review_app
        preferred = self.settings.shown_judge
        opening = app.take_opening(dataset) if judge is None else None
        if opening is None:  # the top of the list first, unless another answer is kept
            head = app.head if keep is None else None
            opening = app.database.submit(
                lambda r: read_dataset(r, dataset, judge, preferred, head)
            )
        try:
            read: Opening = await asyncio.wrap_future(opening)
        except (LookupError, *DB_ERRORS) as exc:
            self.post_message(OpenFailed(str(exc)))
            return
        session, version, marks, beside = read
        self.post_message(Opened(session, version, marks, keep))
        start = (session.place(keep) if keep is not None else None) or 0
        if len(session.visible):  # the first answer before the tables: they take longer
            first = session.listed(start)
            detail = await self._read(lambda r: r.detail(first.answer_id))
            if detail is not None:
                self.post_message(DetailLoaded(session, detail))
        bare, benchmark = session.answers, session.benchmark
        try:
            if session.partial:
                bare = await app.database.run(
                    lambda r: Session.every_answer(r, session.dataset, beside)
                )
                self.post_message(AnswersRead(session, bare))
            tables = await app.database.run(
                lambda r: Session.compute(
                    r, session.dataset, benchmark, bare, session.judge, preferred, beside
                )
            )
        except DB_ERRORS as exc:
            self.post_message(OpenFailed(f"{app.db_path}: {reason(exc)}"))
            return
        self.post_message(TablesReady(session, tables))

    def on_opened(self, message: Opened) -> None:
        session = self.session = message.session
        self._version, self._marks = message.version, message.marks
        self._shared_ends = shared_ends(session.answers.models)
        self._details.clear()
        self._shown.clear()
        self._showing = None
        keep = message.keep
        self.refresh_list(cursor=(session.place(keep) if keep is not None else None) or 0)

    def on_answers_read(self, message: AnswersRead) -> None:
        session = self.session
        if message.session is not session or session is None:
            return
        self._relist(session, lambda: session.take_answers(message.answers))

    def _relist(self, session: Session, change: Callable[[], None]) -> None:
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
        self._relist(session, lambda: session.complete(message.tables))
        panel = self.query_one(JudgesPanel)
        if panel.is_open:  # another judge shown: the view names it
            await self._open_judges(panel, session)
        # The answer shown before the tables came is drawn again as any other: with the
        # judges' names, the one shown marked, and its strip.
        self.show_current(force=True)

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        if message.session is not self.session:
            return
        detail = message.detail
        self._details[detail.answer_id] = detail
        while len(self._details) > DETAIL_CACHE:
            self._details.popitem(last=False)
        if message.ahead:
            self._prefetch_images(detail)
        entry = self.current()
        if entry is not None and entry.answer_id == detail.answer_id:
            self._show(entry, detail)

    def on_read_failed(self, message: ReadFailed) -> None:
        self._report("read", message.problem)

    async def _read(self, call: Callable[[ReviewStore], T]) -> T | None:
        """Run a read in the database thread: its result, or None when it failed (then a
        ReadFailed is posted: told once, never fatal)."""
        try:
            result = await self.review_app.database.run(call)
        except DB_ERRORS as exc:
            db = self.review_app.db_path
            self.post_message(ReadFailed(f"Could not read {db.name}: {reason(exc)}"))
            return None
        self._problems.pop("read", None)
        return result

    def _report(self, source: str, problem: str) -> None:
        """Tell a problem with the file once: a retry that fails alike stays quiet."""
        if self._problems.get(source) != problem:
            self._problems[source] = problem
            self.review_app.tell(problem, "error")

    async def toggle_judges(self) -> None:
        """Show or hide the judges view: each judge of the dataset against the humans."""
        session = self.session
        if session is None:
            return
        panel = self.query_one(JudgesPanel)
        if panel.is_open:
            panel.close()
        else:
            await self._open_judges(panel, session)

    async def _open_judges(self, panel: JudgesPanel, session: Session) -> None:
        """Read every judge's calls (again) into the judges view."""
        from lmmreview.db.judges import read_judges

        found = await self._read(lambda r: read_judges(r.store, session.dataset))
        if found is None:
            return
        if not found.calls:
            self.review_app.tell("No judge has scored this dataset yet: nothing to compare.")
            return
        panel.open(found, session.judge_name)

    def show_judge(self, name: str) -> None:
        """Show the scores of the judge of this name, staying on the answer shown."""
        session, current = self.session, self.current()
        if session is None:
            return
        judge = next((j for j, n in session.judges.items() if n == name), None)
        if judge is None or judge == session.judge:
            return
        self.load(session.dataset, judge, current.answer_id if current else None)
        self.review_app.tell(f"Showing the scores of {name}.")

    def tables_ready(self) -> bool:
        """Filters, tables and exports need the tables; say so while they are computed."""
        ready = self.session is not None and self.session.tables is not None
        if not ready:
            self.notify("The tables are still being computed; a moment…")
        return ready

    def filter(self, flt: Filter) -> None:
        session = self.session
        if session is None or not self.tables_ready():
            return
        self._relist(session, lambda: session.apply(flt))  # an answer still listed stays
        self.show_current()
        if not len(session.visible):
            self._show_nothing()
            self.notify("No answer matches this filter.", severity="warning")

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
        detail = self._details.get(entry.answer_id) if entry is not None else None
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
        detail = self._details.get(answer_id) or await self._read(lambda r: r.detail(answer_id))
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
        self._status()

    def _status(self) -> None:
        session = self.session
        if session is None:
            return
        total, reviewed, shown = session.counts()
        name, datasets = self.review_app.db_path.name, session.datasets
        where = render.where(name, datasets, session.dataset, session.benchmark.name)
        text = Text.assemble(
            safe(where, one_line=True, style="bold"),
            f"{total} answers{' read so far' if session.partial else ''}, {reviewed} "
            f"reviewed · showing {shown}: ",
            safe(session.filter.describe(), one_line=True, style="italic"),
            " · judge ",
            safe(session.judge_name, one_line=True, style="bold"),
            f" (w: one of {len(session.judges)})" if len(session.judges) > 1 else "",
        )
        if session.order != LIST_ORDER:
            text.append(f" · sorted by {session.order_name}")
        if self.auto_advance:
            text.append(" · advance after a grade")
        if self.pending:
            text.append(f"  · {len(self.pending)} not saved yet", style="bold red")
        if self._judge is not None:
            text.append("  · judge running", style="bold yellow")
        moved = self.review_app.database.moved
        if moved is not None:  # first: it says where every change goes
            said = safe(f"{moved.status()} · ", one_line=True, style="bold red")
            text = Text.assemble(said, text)
        self.query_one("#status", Static).update(text)

    def pressed(self) -> None:
        """A navigation key: time it until the next sample is on screen."""
        self._pressed_at = time.perf_counter()

    def show_current(self, force: bool = False) -> None:
        """Show the current answer: at once from the caches, else after a fetch."""
        entry = self.current()
        if entry is None:
            return
        if entry.answer_id == self._showing and self._pressed_at is None and not force:
            return  # already on screen (the cursor's message after a key that showed it)
        self._showing = entry.answer_id
        cached = self._details.get(entry.answer_id)
        if cached is not None:
            self._show(entry, cached)
        else:
            self._show_loading(entry)
            self._fetch_detail(entry.answer_id)
        self._prefetch()

    def _show_loading(self, entry: Entry | None) -> None:
        """Name the answer the keys now act on at once; its details follow (None: no
        answer, every panel empty)."""
        title = render.loading_title(entry)
        with self.app.batch_update():
            for selector in PANELS:
                self._shown.pop(selector, None)  # repainted when the details come
                shown = title if selector == "#title" else Text("")
                self.query_one(selector, Static).update(shown)
            images = self.query_one(SampleImages)
            if entry is None:
                images.clear()
            else:
                images.show([None])

    def _show_nothing(self) -> None:
        """An empty list: no answer is shown, so none seems to be the one a key grades."""
        self._showing = None
        self._show_loading(None)
        self.query_one("#strip", Static).update(Text(""))

    @work(exclusive=True, group="detail")
    async def _fetch_detail(self, answer_id: int) -> None:
        session = self.session
        detail = await self._read(lambda r: r.detail(answer_id))
        if detail is not None and session is not None:
            self.post_message(DetailLoaded(session, detail))

    @work(exclusive=True, group="prefetch")  # a newer key press makes older prefetches moot
    async def _prefetch(self) -> None:
        """Fetch the next answers' details and start decoding their images."""
        session = self.session
        if session is None:
            return
        cursor = self.query_one(AnswerList).cursor
        for index in (cursor + 1, cursor + 2, cursor - 1):
            if 0 <= index < len(session.visible):
                answer_id = session.listed(index).answer_id
                cached = self._details.get(answer_id)
                if cached is not None:
                    self._prefetch_images(cached)
                    continue
                detail = await self._read(partial(ReviewStore.detail, answer_id=answer_id))
                if detail is None:
                    return  # told already; the answer shows the problem when it is reached
                self.post_message(DetailLoaded(session, detail, ahead=True))

    def _prefetch_images(self, detail: Detail) -> None:
        """Start decoding an answer's images, unless images are off."""
        if self.review_app.image_renderer is None:
            return
        load = self.review_app.database.image_bytes
        for image_hash in detail.image_hashes:
            self._images.prefetch(image_hash, partial(load, image_hash), IMAGE_BOX)

    def _show(self, entry: Entry, detail: Detail) -> None:
        session = self.session
        if session is None:
            return
        sample = detail.sample
        judged = (detail.answer_id, len(detail.judgments), len(detail.history))
        unsaved = self.pending.labels(entry.answer_id)
        causes = self.settings.causes
        panels: list[tuple[str, object, Callable[[], RenderableType]]] = [
            (
                "#title",
                detail.answer_id,
                lambda: render.title(detail, session.benchmark),
            ),
            ("#question", sample.key, lambda: render.question(sample, session.benchmark)),
            (
                "#gold",
                sample.key,
                lambda: Text.assemble(("Ground truth: ", "bold"), render.ground_truth(sample)),
            ),
            ("#answer", detail.answer_id, lambda: render.answer(detail.text)),
            (
                "#judges",
                (*judged, detail.group_verdict, session.judge, tuple(session.judges.values())),
                lambda: render.judge_runs(detail, session.benchmark, session.judges, session.judge),
            ),
            (
                "#verdict",
                (judged, entry.verdict, unsaved, self._save_problem),
                lambda: render.verdict_line(entry.verdict, unsaved, self._save_problem),
            ),
            (
                "#history",
                (judged, detail.causes, detail.flags),
                lambda: render.history(detail.history, detail.causes, causes, detail.flags),
            ),
        ]
        with self.app.batch_update():  # one repaint for the whole answer
            for selector, key, make in panels:
                if self._shown.get(selector) != key:  # the same sample, another model: keep
                    self._shown[selector] = key
                    self.query_one(selector, Static).update(make())
            self._show_strip(entry)
            self._show_images(entry, detail.image_hashes)
        if self._pressed_at is not None:
            started, self._pressed_at = self._pressed_at, None
            self.call_after_refresh(lambda: self.timings.append(time.perf_counter() - started))

    def _show_strip(self, entry: Entry) -> None:
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

    def _show_images(self, entry: Entry, hashes: list[str]) -> None:
        widget = self.query_one(SampleImages)
        if widget.off:
            widget.show([])  # the line saying images are off, again after an empty list
            return
        load = self.review_app.database.image_bytes
        futures = [self._images.request(h, partial(load, h), IMAGE_BOX) for h in hashes]
        shown = [f.result() if f.done() and not f.exception() else None for f in futures]
        widget.show(shown, entry.key)
        if any(not f.done() for f in futures):
            self._await_images(entry.answer_id, entry.key, futures)

    @work(exclusive=True, group="images")
    async def _await_images(self, answer_id: int, key: str, futures: list[Future[Decoded]]) -> None:
        shown = await settled(futures)
        entry = self.current()
        if entry is None or entry.answer_id != answer_id:
            return
        for widget in self.query(SampleImages):  # none once the app is closing
            widget.show(shown, key)

    # -- writes: queued, saved by a worker one at a time, in order ---------------------------

    def grade(self, entry: Entry, verdict: Verdict, action: str = "grade") -> None:
        """Queue a verdict on `entry` (see `_queue_verdict`), then move to the next answer
        if auto-advance is on."""
        if self._queue_verdict(entry, verdict, action) and self.auto_advance:
            self.action_move(1)

    def _queue_verdict(self, entry: Entry, verdict: Verdict, action: str) -> bool:
        """Queue a verdict on `entry`, unless it is the one in force already (saved or
        pending): a repeated key adds no history row, so one undo takes the verdict back.
        Whether it was queued."""
        value = render.score_label(verdict.score, verdict.choice)
        if verdict == self.pending.verdict_in_force(entry):
            self.review_app.tell(
                f"{entry.key} ({entry.model}) is already {value}: nothing to save."
            )
            return False
        change = partial(
            ReviewStore.grade, score=verdict.score, choice=verdict.choice, action=action
        )
        kind = action if action != "grade" else "score" if verdict.choice is None else "choice"
        self.write(entry, change, f"{kind} {value}", verdict)
        return True

    def action_toggle_advance(self) -> None:
        self.auto_advance = not self.auto_advance
        state = "on: a grade moves to the next answer" if self.auto_advance else "off"
        self.review_app.tell(f"Advance after a grade is {state}.")
        self._status()

    @work(group="prompt")
    async def action_sort(self) -> None:
        """Sort the visible answers by score, disagreement or run spread, or list order."""
        session = self.session
        if session is None or not self.tables_ready():
            return
        picked = await self.app.push_screen_wait(Menu("Sort the list by", list(ORDERS.items())))
        if picked is None or self.session is not session:
            return
        session.sort(picked)
        self.refresh_list(cursor=0)  # the top of the new order: where the reviewer starts
        self.show_current(force=True)

    def write(
        self,
        entry: Entry,
        change: Callable[[ReviewStore, int], object],
        label: str,
        verdict: Verdict | None = None,
    ) -> None:
        """Queue a verdict, flag or note on `entry` and save it; it shows as pending, never as
        saved, until it is committed."""
        session = self.session
        if session is None:
            return
        self.pending.append(
            PendingWrite(
                session.dataset, entry.answer_id, entry.key, entry.model, change, label, verdict
            )
        )
        self._pending_changed(entry.answer_id)
        self.save_pending()

    def save_pending(self) -> None:
        """Save the first queued change, unless a save is under way (its end saves the next).
        The first that fails stays queued, with those behind it, and is retried at the next
        poll or change."""
        if self._saving or not self.pending:
            return
        self._saving = True
        self._save_first(self.pending.first())

    @work(group="write")
    async def _save_first(self, first: PendingWrite) -> None:
        database = self.review_app.database
        try:
            shown = await database.run(partial(database.commit, first))
        except DB_ERRORS as exc:
            self.post_message(SaveFailed(first, reason(exc)))
            return
        self.post_message(Saved(first, shown))

    def on_saved(self, message: Saved) -> None:
        self._saving = False
        if self.pending and self.pending.first() is message.pending:
            self.pending.drop_first()
        self._notice_moved()  # after: a file lost since takes this change with it
        self._landed(message.pending.answer_id, message.shown)
        if self.pending:
            self.save_pending()
            return
        self._save_problem = ""
        if self._problems.pop("save", None) is not None:
            self.review_app.tell("Every change that was waiting is saved now.")

    def on_save_failed(self, message: SaveFailed) -> None:
        self._saving = False
        self._notice_moved()
        message.pending.tries += 1
        self._save_problem = message.problem
        self._report(
            "save",
            f"{changes(len(self.pending))} not saved yet ({message.problem}): kept, marked "
            f"{PENDING_MARK}, and retried.",
        )
        self._pending_changed(message.pending.answer_id)

    def _notice_moved(self) -> None:
        """The file was replaced, deleted or rewritten while open: say so once. With no
        copy of it, the changes saved to it are lost with it: pending again, never lost
        silently."""
        moved = self.review_app.database.moved
        if moved is None or moved == self._moved:
            return
        self._moved = moved
        lost = self.pending.unsave() if moved.copy is None else 0
        again = f"; {changes(lost)} saved to it before went with it: kept, not saved"
        self.review_app.tell(moved.told() + (again if lost else ""), "error")
        self.refresh_list()
        self.show_current(force=True)

    def unsaved(self) -> str:
        """The changes not saved yet and why, for quitting ("" when every one is saved)."""
        if not self.pending:
            return ""
        why = self._save_problem or "saving"
        return f"{changes(len(self.pending))} not saved ({why}): {self.pending.described()}"

    def _landed(self, answer_id: int, shown: Shown) -> None:
        """A change is saved: show the answer as the database now has it."""
        session = self.session
        if shown is None:
            self._stale.add(answer_id)
            self._pending_changed(answer_id)
            return
        fresh, detail = shown
        if session is None or not session.has(fresh.answer_id):
            return  # another dataset is open now
        self._apply([fresh])
        self._details[answer_id] = detail
        current = self.current()
        if current is not None and current.answer_id == answer_id:
            self._show(current, detail)

    def _pending_changed(self, answer_id: int) -> None:
        """Show where a change stands: its mark in the list, the status, the verdict panel."""
        self.refresh_list()
        current = self.current()
        if current is not None and current.answer_id == answer_id:
            self.show_current(force=True)

    @work(group="write")
    async def undo(self) -> None:
        """Take back the reviewer's last change: one not saved yet, else their newest verdict
        in force in this dataset, wherever it is; the cursor goes there."""
        session, tell = self.session, self.review_app.tell
        if session is None:
            return
        if self.pending:
            if self._saving and len(self.pending) == 1:
                tell("That change is being saved; press u again once it is.")
                return
            withdrawn = self.pending.withdraw_last()
            tell(
                f"Withdrew {withdrawn.label} on {withdrawn.key} ({withdrawn.model}): "
                "it was never saved."
            )
            self._pending_changed(withdrawn.answer_id)
            self.reveal(withdrawn.answer_id)
            return
        try:
            database = self.review_app.database
            undone = await database.run(partial(database.take_back, session.dataset))
        except DB_ERRORS as exc:
            tell(f"Could not undo ({reason(exc)}); nothing changed.", "error")
            return
        if undone is None:
            tell("Nothing to undo: no verdict or error cause of yours is in force in this dataset.")
            return
        self.post_message(Undone(session, *undone))

    def on_undone(self, message: Undone) -> None:
        session = self.session
        if message.session is not session or session is None:
            return
        if message.kind == "verdict":
            self.pending.undone(message.answer_id)
        self._landed(message.answer_id, message.shown)
        self.reveal(message.answer_id)
        entry = session.find(message.answer_id)
        if entry is None:
            return
        what = "verdict" if message.kind == "verdict" else "error cause"
        self.review_app.tell(f"Undid your last {what}, on {entry.key} ({entry.model}).")

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

    def _apply(self, fresh: Iterable[Entry]) -> None:
        session = self.session
        if session is None:
            return
        fresh = list(fresh)
        for entry in fresh:
            session.update(entry)
            self._details.pop(entry.answer_id, None)
        self.refresh_list()
        self.query_one(JudgesPanel).verdicts_changed(fresh, session.golds)
        if isinstance(self.app.screen, CompareScreen):  # grades given there land there too
            self.app.screen.refresh_scores()

    # -- other writers to the same file: the poll worker -------------------------------------

    def poll(self) -> None:
        """Pick up what another process (or a judge run) wrote since the last look; retry
        the changes not saved yet."""
        if self.session is None or self._polling:
            return
        self._notice_moved()
        self.save_pending()
        self._polling = True
        self._look_for_changes()
        self.run_worker(self._batches.look(self._read), group="batches", exclusive=True)

    # No argument: a worker's description holds the repr of its arguments (a session's is
    # every answer).
    @work(group="poll")
    async def _look_for_changes(self) -> None:
        session = self.session
        assert session is not None
        stale, self._stale = self._stale, set()
        unlisted, self._unlisted = self._unlisted, frozenset()
        version, marks = self._version, self._marks
        try:
            found = await self._read(
                lambda r: changed_since(r, session.dataset, version, marks, stale, unlisted)
            )
        finally:
            self._polling = False
        if found is None:
            self._stale |= stale  # read them at the next poll that can
            self._unlisted |= unlisted
            return
        self.post_message(EntriesChanged(session, *found))

    def on_entries_changed(self, message: EntriesChanged) -> None:
        session = self.session
        if message.session is not session or session is None:
            return
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
            self._apply(fresh)
            current = self.current()
            if current is not None and any(e.answer_id == current.answer_id for e in fresh):
                self.show_current(force=True)

    def _datasets_changed(self, session: Session, names: list[str]) -> None:
        """Another process imported (or removed) a dataset: `d` lists the file's datasets."""
        new = [name for name in names if name not in session.datasets]
        session.datasets = names
        if new:
            self.review_app.tell(f"New in the file: {', '.join(new)} (d switches datasets).")

    def _read_again(self, session: Session, judges: list[Judge]) -> None:
        """Another process removed judgments (an import removed, say): read the dataset's
        judgments again, on the same answer, as a judge switch does; the judge shown stays
        unless it is gone. Pending changes stay queued."""
        keep = session.judge in judges or self.judge_running
        current = self.current()
        self.load(
            session.dataset, session.judge if keep else None, current.answer_id if current else None
        )
        self.review_app.tell("Judgments were removed from the file by another program: read again.")

    @work(group="grow")
    async def _grow(self, session: Session, added: frozenset[int]) -> None:
        """Read answers another process imported into the dataset, and the tables with
        them; kept for the next poll while the tables are computed or the read fails."""
        if session.tables is None or self._growing:  # tables made now would lack them
            self._unlisted |= added
            return
        self._growing = True
        session.start_reading()
        tables = await self._read(
            lambda r: Session.grow(r, session.dataset, session.benchmark, session.judge)
        )
        if tables is None:
            self._growing = False
            self._unlisted |= added
            return
        self.post_message(Grown(session, added, tables))

    def on_grown(self, message: Grown) -> None:
        self._growing = False
        session = self.session
        if message.session is not session or session is None:
            return
        self._relist(session, lambda: session.complete(message.tables))
        fresh = [e for e in map(session.find, sorted(message.added)) if e is not None]
        models = sorted({e.model for e in fresh})
        self.review_app.tell(
            f"{len(fresh)} new answers imported ({', '.join(models)}): listed in their place."
        )
        current = self.current()
        if current is not None:
            self._show_strip(current)

    # -- notes and exports -------------------------------------------------------------------

    async def notes_text(self) -> str:
        session = self.session
        if session is None:
            return ""
        found = await self._read(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        return "" if found is None else self._notes(*found).sentence()

    def _notes(self, judges: tuple[list[str], list[str]], verdicts: list[GroupVerdict]) -> Notes:
        session = self.session
        assert session is not None
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

    async def markdown(self) -> str:
        """The Markdown tables of the dataset shown, as the screen has them, and its notes."""
        session, database = self.session, self.review_app.database
        assert session is not None
        found = await database.run(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        assert session.tables is not None
        return to_markdown(session.tables.breakdown.tables(), [self._notes(*found)])

    # -- a judge run in the background: a thread worker that posts its progress ------------

    def open_judge(self) -> None:
        if self._judge_screen is not None:
            self.app.push_screen(self._judge_screen)
            return
        from lmmreview.tui.judge_run import judge_setup

        setup = judge_setup(self.settings)
        self._judge_screen = JudgeScreen(
            self._judge_description(setup),
            partial(self.start_judge, setup) if setup.api_key is not None else None,
            self.stop_judge,
        )
        self.app.push_screen(self._judge_screen)

    def _judge_description(self, setup: JudgeSetup) -> str:
        """What J would run, or, with no judge configured, what to set."""
        if setup.api_key is None:
            return (
                f"No LLM judge configured. Set the environment variable {setup.api_key_env} "
                "to the API key, then start lmmreview again. That name is the setting "
                f"judge.api_key_env in {self.review_app.settings_path or 'the settings'}"
                "; a local server needs no key: set judge.base_url there instead."
            )
        runs = setup.runs
        dataset = self.session.dataset if self.session else "?"
        return (
            f"LLM judge {setup.model} at {setup.shown_url or 'the OpenAI API'} on {dataset}: "
            f"open answers graded {runs} run{'s' if runs != 1 else ''} each, choice rows "
            "extracted where matching fails."
        )

    def start_judge(self, setup: JudgeSetup) -> None:
        """Start a judge run of the current dataset in a thread worker."""
        session = self.session
        if session is None or self._judge is not None:
            return
        from lmmreview.tui.judge_worker import BackgroundJudge

        self._judge = BackgroundJudge(setup, self.review_app.db_path, session.dataset)
        self.run_worker(
            partial(self._judge.run, self.post_message),
            name="judge",
            group="judge",
            description=f"judge run of {session.dataset} with {setup.model}",
            thread=True,
        )
        running = Judge("llm", setup.model, "")  # the reference prompts, as `judge` asks
        if running != session.judge:  # its scores land in the list as they come
            current = self.current()
            self.load(session.dataset, running, current.answer_id if current else None)
            self.review_app.tell(
                f"Showing the scores of {setup.model} as they come (w shows another judge)."
            )
        self._status()

    def on_judge_progress(self, message: JudgeProgress) -> None:
        if self._judge_screen is not None:
            self._judge_screen.progress(message.done, message.total, message.status)

    def on_judge_finished(self, message: JudgeFinished) -> None:
        self._judge = None
        if message.changed is not None:
            self.judge_stopped = f"judge run {message.outcome}"
        if message.changed == REWRITTEN:
            self.review_app.database.rewritten()
            self._notice_moved()
        self.notify(f"Judge run {message.outcome}.", title="Judge")
        if self._judge_screen is not None:
            self._judge_screen.progress(1, 1, f"Judge run {message.outcome}.")
        self._status()

    def stop_judge(self) -> None:
        if self._judge is not None:
            self._judge.stop()


def _judges_and_verdicts(
    store: Store, dataset: str, judge: Judge | None
) -> tuple[tuple[list[str], list[str]], list[GroupVerdict]]:
    """What the notes of a dataset read from the database: the names of the judges behind
    the scores shown and of the others, and the imported circular verdicts."""
    return store.judge_names(dataset, judge), list(store.group_verdicts(dataset).values())
