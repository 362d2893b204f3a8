"""`lmmreview open`: walk a benchmark answer by answer, grade by keyboard, watch the tables.

The UI thread never touches SQLite, an image decoder or the network: every database call
runs in one database thread (in order, so a verdict is committed before the screen shows
it), images are decoded in the image pipeline's threads, and an LLM judge run has a
thread of its own. The screens only read `Session`, which the UI thread updates by small
deltas.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Footer, Static

from lmmreview.db import Store, StoreError
from lmmreview.db.files import ExportRefused, write_export
from lmmreview.db.judges import disagreeing_judges, read_judges
from lmmreview.db.judging import JudgeStore
from lmmreview.db.review import NO_MARKS, Detail, Marks, ReviewStore
from lmmreview.db.reviewers import disagreeing_answers
from lmmreview.db.scoring import DatasetScores
from lmmreview.db.store import is_read_only
from lmmreview.engine.causes import MMMU_CAUSES
from lmmreview.engine.export import Notes, to_markdown
from lmmreview.engine.llm import OpenAIChat
from lmmreview.engine.mmvet import DEFAULT_JUDGE_MODEL
from lmmreview.engine.review import DISAGREEMENT, SPREAD, Entry, Filter
from lmmreview.engine.runner import Progress, Runner, RunnerSettings
from lmmreview.engine.scoring import GroupVerdict, Judge, Verdict
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.engine.visible import visible
from lmmreview.tui import detail as render
from lmmreview.tui.answer_list import AnswerList, Row
from lmmreview.tui.images import (
    IMAGES_OFF,
    RENDERERS,
    Decoded,
    ImagePipeline,
    ImageSet,
    Renderer,
    SampleImages,
    broken,
)
from lmmreview.tui.judges_view import JudgesPanel
from lmmreview.tui.option_picker import OptionPicker
from lmmreview.tui.safe_text import plain_line, safe
from lmmreview.tui.screens import (
    Answer,
    BreakdownScreen,
    CompareScreen,
    HelpScreen,
    JudgeScreen,
    Menu,
    Prompt,
)
from lmmreview.tui.session import Session
from lmmreview.tui.settings import Settings, save_theme
from lmmreview.tui.viewer import open_outside
from lmmreview.tui.zoom import ZoomScreen

T = TypeVar("T")
IMAGE_BOX = (480, 240)  # thumbnails are made to fit this many pixels
DETAIL_CACHE = 128
PANELS = ("#title", "#question", "#gold", "#answer", "#judges", "#verdict", "#history")
PENDING_MARK = "…"  # in the list: a change to this answer is not in the database yet
UNSAVED_NAMED = 5  # quitting names this many changes not saved, then counts the rest

# What the file can raise while the screen is open: another process holds the write lock
# or dropped a table, the file is read-only, the disk is full, a folder is missing.
DB_ERRORS = (sqlite3.Error, OSError, StoreError)


def changes(count: int) -> str:
    """ "1 change", "2 changes"."""
    return f"{count} change{'s' if count != 1 else ''}"


def reason(exc: BaseException) -> str:
    """What went wrong, in a few words (an OSError's message without its errno)."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


@dataclass(slots=True)
class PendingWrite:
    """A verdict, flag or note not in the database yet: marked, retried, never shown as saved."""

    dataset: str
    answer_id: int
    key: str
    model: str
    change: Callable[[ReviewStore, int], object]
    label: str  # what it sets, e.g. "score 0.3"
    verdict: Verdict | None = None  # the verdict it puts in force, if it is one
    tries: int = 0


OPTION_KEYS = "ABCDEFGHI"  # MMMU questions have up to nine options; these letters choose
NO_CAUSE = "(none)"  # the cause picker's choice that clears the cause; no cause id has "("


def _cause_choices(causes: Mapping[str, str], entries: Iterable[Entry]) -> list[tuple[str, str]]:
    """(id, title) of every cause of the taxonomy, then of any other cause an answer has
    (given under an older taxonomy)."""
    others = sorted({e.cause for e in entries if e.cause} - causes.keys())
    return [*causes.items(), *((c, c) for c in others)]


def _score_keys() -> list[Binding]:
    keys = [
        Binding(str(d), f"score({d / 10})", f"score {d / 10:.1f}", show=False, id=f"score-{d}")
        for d in range(10)
    ]
    keys.append(
        Binding(
            "equals_sign", "score(1.0)", "score 1.0", key_display="=", show=False, id="score-10"
        )
    )
    keys += [
        Binding(
            letter, f"choose('{letter}')", f"choose {letter}", show=False, id=f"choose-{letter}"
        )
        for letter in OPTION_KEYS
    ]
    return keys


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
        *_score_keys(),
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
        Binding("d", "datasets", "dataset", show=False, id="dataset"),
    ]
    DEFAULT_CSS = """
    ReviewScreen #status { height: 1; background: $primary-background; padding: 0 1; }
    ReviewScreen #body { height: 1fr; }
    ReviewScreen AnswerList { width: 46; border-right: solid $primary; }  /* 43 + bar + border */
    ReviewScreen #detail { width: 1fr; padding: 0 1; }
    ReviewScreen #detail > Static { margin-bottom: 1; }
    ReviewScreen SampleImages { height: 14; }
    ReviewScreen SampleImages.off, ReviewScreen SampleImages.empty { height: 1; }
    ReviewScreen #strip { height: 3; background: $boost; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("opening…"), id="status")
        with Horizontal(id="body"):
            yield AnswerList(id="list")
            with VerticalScroll(id="detail"):
                yield Static(id="title")
                yield SampleImages(self.app.image_renderer, id="images")  # type: ignore[attr-defined]
                yield Static(id="question")
                yield Static(id="gold")
                yield Static(id="answer")
                yield Static(id="judges")
                yield Static(id="verdict")
                yield Static(id="history")
        yield JudgesPanel(id="judges-view")
        yield Static(id="strip")
        yield Footer()

    @property
    def review_app(self) -> ReviewApp:
        return self.app  # type: ignore[return-value]

    def on_mount(self) -> None:
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
        self.review_app.pressed()
        self.query_one(AnswerList).cursor = index
        self.review_app.show_current()

    def action_next_where(self, what: str) -> None:
        app = self.review_app
        session = app.session
        if session is None:
            return
        answers = self.query_one(AnswerList)
        wanted = (lambda e: not e.reviewed) if what == "unreviewed" else (lambda e: e.flagged)
        count = len(session.visible)
        for step in range(1, count + 1):
            index = (answers.cursor + step) % count
            if wanted(session.entries[session.visible[index]]):
                self._go(index)
                return
        self.notify(f"No {what} answer in this list.")

    @work(group="prompt")
    async def action_goto(self) -> None:
        session = self.review_app.session
        key = await self.app.push_screen_wait(Prompt("Jump to sample id (e.g. v1_12):"))
        if not key or session is None:
            return
        for index, entry_index in enumerate(session.visible):
            if session.entries[entry_index].key == key.strip():
                self.query_one(AnswerList).cursor = index
                return
        self.notify(f"No answer to {key!r} in this list.", severity="warning")

    @on(AnswerList.Moved)
    def moved(self, event: AnswerList.Moved) -> None:
        self.review_app.show_current()

    # -- grading ---------------------------------------------------------------------------

    def _gradable(self, kind: QuestionType) -> tuple[Entry, Sample] | None:
        """The current answer and its sample, if a key for `kind` questions can grade it."""
        entry = self.review_app.current()
        sample = self.review_app.sample_of(entry) if entry is not None else None
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

    def action_score(self, value: float) -> None:
        found = self._gradable(QuestionType.OPEN)
        if found is not None:
            self.review_app.grade(found[0], Verdict(round(value, 1)))

    def action_choose(self, letter: str) -> None:
        found = self._gradable(QuestionType.CHOICE)
        if found is None:
            return
        entry, sample = found
        if letter != "X" and letter not in sample.options:
            self.notify(f"No option {letter} here.", severity="warning")
            return
        self.review_app.grade(entry, Verdict(None, letter))

    @work(group="prompt")
    async def action_pick_option(self) -> None:
        """Options past I have no key of their own: choose any option from a list."""
        found = self._gradable(QuestionType.CHOICE)
        if found is None:
            return
        letter = await self.app.push_screen_wait(OptionPicker(found[1].options))
        if letter is not None:
            self.action_choose(letter)

    def action_accept(self) -> None:
        entry = self.review_app.current()
        if entry is None:
            return
        mean = entry.judge_mean()
        if entry.judge_choice is None and mean is None:
            self.notify("Nothing to accept: the judge has no usable result.", severity="warning")
            return
        choice, score = entry.judge_choice, None if entry.judge_choice else round(mean or 0.0, 1)
        self.review_app.grade(entry, Verdict(score, choice), "accept")

    def action_undo(self) -> None:
        self.review_app.undo()

    def action_flag(self) -> None:
        entry = self.review_app.current()
        if entry is not None:
            flagged = not entry.flagged
            label = "flag" if flagged else "unflag"
            self.review_app.write(entry, lambda r, a: r.set_flag(a, flagged), label)

    @work(group="prompt")
    async def action_cause(self) -> None:
        """Give the answer an error cause from the taxonomy, or clear it."""
        app = self.review_app
        entry = app.current()
        if entry is None:
            return
        choices = [*app.causes.items(), (NO_CAUSE, "(no cause: clear it)")]
        picked = await app.push_screen_wait(Menu("Why is this answer wrong?", choices))
        if picked is None:
            return
        cause = None if picked == NO_CAUSE else picked
        label = f"cause {picked}" if cause else "clear cause"
        app.write(entry, lambda r, a: r.set_cause(a, cause), label)

    @work(group="prompt")
    async def action_note(self) -> None:
        entry = self.review_app.current()
        if entry is None:
            return
        text = await self.app.push_screen_wait(Prompt("Note on this answer:"))
        if text:
            self.review_app.write(entry, lambda r, a: r.note(a, text), "note")

    # -- filters ---------------------------------------------------------------------------

    @work(group="prompt")
    async def action_search(self) -> None:
        app = self.review_app
        text = await app.push_screen_wait(Prompt("Search questions and answers for:"))
        if not text or app.session is None:
            return
        dataset = app.session.dataset
        ids = await app.read(lambda r: r.search(dataset, text))
        if ids is None:
            return
        app.filter(replace(app.session.filter, text=text, text_ids=ids))

    def action_clear_filters(self) -> None:
        self.review_app.filter(Filter())

    @work(group="prompt")
    async def action_filters(self) -> None:
        app = self.review_app
        session = app.session
        if session is None:
            return
        current = session.filter
        choices = [
            ("unreviewed", "Unreviewed"),
            ("failed", "Judge failed"),
            ("no_reply", "Judge result without a reply (an imported 0.0)"),
            ("fallback", "Fallback extractions"),
            ("flagged", "Flagged"),
            ("disagreement", f"|judge - human| > {app.disagreement:g}"),
            ("spread", f"Judge runs disagree (std > {app.spread:g})"),
            ("reviewers", "Reviewers disagree"),
            ("judges", f"Judges disagree (|judge - judge| > {app.disagreement:g})"),
            ("axis", "By breakdown axis…"),
            ("model", "By model…"),
            ("cause", "By error cause…"),
            ("clear", "Clear all filters"),
        ]
        picked = await app.push_screen_wait(Menu(f"Filter ({current.describe()})", choices))
        if picked in ("unreviewed", "failed", "no_reply", "fallback", "flagged"):
            toggled: dict[str, Any] = {picked: not getattr(current, picked)}
            app.filter(replace(current, **toggled))
        elif picked == "disagreement":
            limit = None if current.disagreement is not None else app.disagreement
            app.filter(replace(current, disagreement=limit))
        elif picked == "spread":
            limit = None if current.spread is not None else app.spread
            app.filter(replace(current, spread=limit))
        elif picked == "reviewers":
            await self._toggle_reviewers_disagree(current)
        elif picked == "judges":
            await self._toggle_judges_disagree(current)
        elif picked == "model":
            models = sorted({e.model for e in session.entries})
            model = await app.push_screen_wait(Menu("Model", [(m, m) for m in models]))
            if model:
                app.filter(replace(current, model=model))
        elif picked == "cause":
            causes = _cause_choices(app.causes, session.entries)
            cause = await app.push_screen_wait(Menu("Error cause", causes))
            if cause:
                app.filter(replace(current, cause=cause))
        elif picked == "axis":
            await self._pick_axis(current)
        elif picked == "clear":
            app.filter(Filter())

    async def _toggle_reviewers_disagree(self, current: Filter) -> None:
        """Show only the answers whose reviewers' own verdicts differ, or stop doing so."""
        app, ids = self.review_app, None
        if current.reviewers_disagree is None and app.session is not None:
            dataset = app.session.dataset
            ids = await app.read(lambda r: disagreeing_answers(r.store, dataset))
            if ids is None:
                return
        app.filter(replace(current, reviewers_disagree=ids))

    async def _toggle_judges_disagree(self, current: Filter) -> None:
        """Show only the answers whose judges' scores spread by more than the threshold."""
        app, ids = self.review_app, None
        if current.judges_disagree is None and app.session is not None:
            dataset, limit = app.session.dataset, app.disagreement
            ids = await app.read(lambda r: disagreeing_judges(read_judges(r.store, dataset), limit))
            if ids is None:
                return
        app.filter(replace(current, judges_disagree=ids))

    async def _pick_axis(self, current: Filter) -> None:
        app = self.review_app
        session = app.session
        if session is None:
            return
        values: dict[str, set[str]] = {}
        for sample in session.samples.values():
            for name, found in session.benchmark.filter_axes(sample).items():
                values.setdefault(name, set()).update(found)
        axis = await app.push_screen_wait(Menu("Axis", [(a, a) for a in sorted(values)]))
        if not axis:
            return
        value = await app.push_screen_wait(Menu(axis, [(v, v) for v in sorted(values[axis])]))
        if value:
            app.filter(replace(current, axis=(axis, value)))

    # -- other screens -----------------------------------------------------------------------

    @work(group="prompt")
    async def action_breakdown(self) -> None:
        app = self.review_app
        session = app.session
        if session is None or session.tables is None or not app.tables_ready():
            return
        notes = await app.notes_text()
        picked = await app.push_screen_wait(
            BreakdownScreen(session.tables.breakdown.tables(), notes)
        )
        if picked:
            row, table, column = picked
            ids = session.cell_answers(row, table, column)
            title = f"{row} / {table.split('.', 1)[-1]} / {column}"
            app.filter(Filter(cell_ids=ids, cell_title=title))

    @work(group="prompt")
    async def action_compare(self) -> None:
        app = self.review_app
        entry, session = app.current(), app.session
        if entry is None or session is None:
            return
        rows = await app.read(lambda r: r.answers_to(session.dataset, entry.key))
        if rows is None:
            return
        answers = []
        for answer_id, model, text in rows:
            other = session.entries[session.by_id[answer_id]]
            answers.append(Answer(model, render.score_text(other), text))
        await app.push_screen_wait(CompareScreen(f"{entry.key}: every model's answer", answers))

    def action_judge(self) -> None:
        self.review_app.open_judge()

    def action_zoom(self) -> None:
        images, renderer = self.review_app.shown_images(), self.review_app.image_renderer
        if images is not None and renderer is None:
            self.notify(f"Nothing to zoom: {IMAGES_OFF}.")
        elif images is not None and renderer is not None:
            self.app.push_screen(ZoomScreen(images, renderer))

    @work(group="viewer")
    async def action_open_image(self) -> None:
        images = self.review_app.shown_images()
        if images is not None:
            await open_outside(self.app, images, range(len(images.hashes)))

    @work(group="prompt")
    async def action_export(self) -> None:
        app = self.review_app
        if not app.tables_ready():
            return
        default = str(app.db_path.with_suffix(".tables.md"))
        path = await app.push_screen_wait(Prompt("Write the Markdown tables to:", default))
        if path:
            try:
                written, replaced = await app.export(Path(path).expanduser())
            except ExportRefused as exc:
                app.tell(f"{exc}.", "error")
                return
            except DB_ERRORS as exc:
                app.tell(f"Could not write the tables to {path}: {reason(exc)}", "error")
                return
            again = " (it replaced the file that was there)" if replaced else ""
            self.notify(f"Wrote the tables to {written}{again}", title="Exported", timeout=8)

    @work(group="prompt")
    async def action_switch_judge(self) -> None:
        """Show another judge's scores in the list, the strip and the tables."""
        app, session = self.review_app, self.review_app.session
        if session is None:
            return
        if len(session.judges) < 2:
            app.tell(f"This dataset has one judge: {session.judge_name}.")
            return
        choices = [
            (name, f"{name}  (shown)" if judge == session.judge else name)
            for judge, name in session.judges.items()
        ]
        picked = await app.push_screen_wait(Menu("Show the scores of the judge", choices))
        if picked:
            app.show_judge(picked)

    @work(group="judges-view")
    async def action_judges(self) -> None:
        await self.review_app.toggle_judges()

    @work(group="prompt")
    async def action_datasets(self) -> None:
        app = self.review_app
        if app.session is None:
            return
        names = app.session.datasets
        picked = await app.push_screen_wait(Menu("Dataset", [(n, n) for n in names]))
        if picked and picked != app.session.dataset:
            app.load(picked)


class ReviewApp(App[None]):
    """Audit judge scores and grade by keyboard, with the papers' tables kept live."""

    TITLE = "lmmreview"
    BINDINGS = [
        Binding("question_mark", "help", "help", key_display="?", id="help"),
        Binding("q", "quit", "quit", id="quit"),
    ]

    def __init__(
        self,
        db: Path,
        *,
        reviewer: str,
        dataset: str | None = None,
        image_renderer: Renderer | None = RENDERERS["auto"],
        poll_seconds: float = 1.5,
        judge_model: str = DEFAULT_JUDGE_MODEL,
        judge_runs: int = 5,
        judge_base_url: str | None = None,
        judge_api_key_env: str = "OPENAI_API_KEY",
        judge_concurrency: int = 16,
        judge_timeout: float = 60.0,
        disagreement: float = DISAGREEMENT,
        spread: float = SPREAD,
        causes: Mapping[str, str] = MMMU_CAUSES,
        shown_judge: str | None = None,
        keymap: Mapping[str, str] | None = None,
        theme: str | None = None,
        settings_path: Path | None = None,
    ) -> None:
        """`image_renderer` None turns images off; `keymap` maps binding ids to keys; a
        theme chosen in the command palette is saved to `settings_path`, if given."""
        super().__init__()
        self.settings_path = settings_path
        self._saved_theme = theme or self.theme  # what the file has: setting it saves nothing
        if theme is not None:
            self.theme = theme
        self._keymap_wanted = dict(keymap or {})
        self.db_path = db
        self.disagreement = disagreement  # the filters' thresholds
        self.spread = spread
        self.causes = causes  # the error-cause taxonomy: id -> title
        self.shown_judge = shown_judge  # the settings' choice of the judge shown first
        self.reviewer = reviewer
        self.dataset = dataset
        self.image_renderer = image_renderer
        self.poll_seconds = poll_seconds
        self.judge_model = judge_model  # for runs started from the screen (J)
        self.judge_runs = judge_runs
        self.judge_base_url = judge_base_url
        self.judge_api_key_env = judge_api_key_env  # the variable's name, never the key
        self.judge_concurrency = judge_concurrency
        self.judge_timeout = judge_timeout
        self.session: Session | None = None
        self.timings: list[float] = []  # seconds from key press to the next sample shown
        self._pressed_at: float | None = None
        self._db = ThreadPoolExecutor(1, thread_name_prefix="lmmreview-db")
        self._images = ImagePipeline()
        self._image_lock = threading.Lock()
        self._review: ReviewStore | None = None
        self._image_store: Store | None = None
        self._details: OrderedDict[int, Detail] = OrderedDict()
        self._shown: dict[str, object] = {}  # panel -> what it shows, to skip repeats
        self._showing: int | None = None  # the answer the detail panels are for
        self._version = 0
        self._marks = NO_MARKS
        self._judge: tuple[asyncio.AbstractEventLoop, asyncio.Task[Progress]] | None = None
        self._judge_screen: JudgeScreen | None = None
        self.failure: str | None = None  # why the app stopped itself, for `open` to print
        self._pending: deque[PendingWrite] = deque()  # in order; the first is saved first
        self._saving = False  # a save is under way: it takes up whatever is queued
        self._save_problem = ""  # why the first pending change failed, as last seen
        self._problems: dict[str, str] = {}  # "save"/"read" -> the problem last told
        self._stale: set[int] = set()  # saved, but not read back yet: the next poll reads them
        self._quit_warned = False
        # Start reading at once, while Textual starts: the first screen comes sooner.
        self._opening: Future[tuple[Session, int, Marks]] | None = self._db.submit(
            self._read, dataset, None
        )

    def compose(self) -> ComposeResult:
        return iter(())

    def on_mount(self) -> None:
        if self._keymap_wanted:
            self.set_keymap(self._keymap_wanted)
        self.push_screen(ReviewScreen())
        self.load(self.dataset)
        self.set_interval(self.poll_seconds, self.poll)

    def watch_theme(self, theme: str) -> None:
        """Keep the theme chosen (in the command palette) in the settings file."""
        if self.settings_path is None or theme == self._saved_theme:
            return
        try:
            save_theme(self.settings_path, theme)
        except (OSError, ValueError) as exc:  # the file cannot be written or was broken since
            self.tell(f"Theme {theme} not saved to {self.settings_path}: {reason(exc)}", "warning")
            return
        self._saved_theme = theme

    async def on_unmount(self) -> None:
        self.stop_judge()
        self._images.shutdown()
        self._db.submit(self._close)
        self._db.shutdown(wait=True)

    # -- the database thread ---------------------------------------------------------------

    def _read(self, dataset: str | None, judge: Judge | None) -> tuple[Session, int, Marks]:
        review = self._open()
        session = Session.open(review, dataset, judge)
        return session, review.data_version(), review.marks()

    async def in_db(self, call: Callable[[ReviewStore], T]) -> T:
        """Run `call(review store)` in the database thread; await it without blocking."""
        return await asyncio.wrap_future(self._db.submit(lambda: call(self._open())))

    def _open(self) -> ReviewStore:
        if self._image_store is None:
            self._image_store = Store.open(self.db_path, create=False)
        if self._review is None:
            self._review = ReviewStore(Store.open(self.db_path, create=False), self.reviewer)
        return self._review

    def _close_review(self) -> None:
        """Close the review connection; the next database call opens a new one."""
        if self._review is not None:
            self._review.store.close()
            self._review = None

    def _close(self) -> None:
        self._close_review()
        if self._image_store is not None:
            self._image_store.close()

    def _image_bytes(self, image_hash: str) -> bytes | None:
        with self._image_lock:  # one connection, shared by the image threads
            return self._image_store.image_bytes(image_hash) if self._image_store else None

    # -- loading -----------------------------------------------------------------------------

    @work(exclusive=True, group="load")
    async def load(
        self, dataset: str | None, judge: Judge | None = None, keep: int | None = None
    ) -> None:
        """Read a dataset in the database thread (as `judge` scored it), then show it, at
        the answer `keep` if it is given."""

        opening, self._opening = self._opening, None
        if opening is None or dataset != self.dataset or judge is not None:
            opening = self._db.submit(self._read, dataset, judge)
        try:
            session, self._version, self._marks = await asyncio.wrap_future(opening)
        except (LookupError, *DB_ERRORS) as exc:
            self.stop(str(exc))
            return
        self.session = session
        self._details.clear()
        self._shown.clear()
        self._showing = None
        start = session.by_id.get(keep, 0) if keep is not None else 0
        self.refresh_list(cursor=start)  # the list is usable now; scores and tables follow
        first = self.current()
        if first is not None:  # the first answer before the tables: they take longer
            detail = await self._detail(first.answer_id)
            if detail is not None:
                self._show(first, detail)
        snapshot = list(session.entries)
        try:
            tables = await self.in_db(
                lambda r: Session.compute(
                    r, session.dataset, session.benchmark, snapshot, session.judge, self.shown_judge
                )
            )
        except DB_ERRORS as exc:
            self.stop(f"{self.db_path}: {reason(exc)}")
            return
        session.complete(tables)
        self.refresh_list()
        screen = self.review_screen
        if screen is not None and screen.query_one(JudgesPanel).is_open:  # another judge shown
            await self._open_judges(screen.query_one(JudgesPanel), session)
        current = self.current()
        if current is not None:
            self._show_strip(current)

    async def toggle_judges(self) -> None:
        """Show or hide the judges view: each judge of the dataset against the humans."""
        session, screen = self.session, self.review_screen
        if session is None or screen is None:
            return
        panel = screen.query_one(JudgesPanel)
        if panel.is_open:
            panel.close()
        else:
            await self._open_judges(panel, session)

    async def _open_judges(self, panel: JudgesPanel, session: Session) -> None:
        """Read every judge's calls (again) into the judges view."""
        found = await self.read(lambda r: read_judges(r.store, session.dataset))
        if found is None:
            return
        if not found.calls:
            self.tell("No judge has scored this dataset yet: nothing to compare.")
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
        self.tell(f"Showing the scores of {name}.")

    def stop(self, failure: str) -> None:
        """End the app over a file it cannot use; `open` prints `failure` and exits 1."""
        self.failure = failure
        self.exit(return_code=1)

    def tell(self, message: str, severity: SeverityLevel = "information") -> None:
        """A notification whose text (names, paths, error messages) is shown literally."""
        self.notify(plain_line(message, 400), severity=severity, markup=False, timeout=8)

    def _report(self, source: str, problem: str) -> None:
        """Tell a problem with the file once: a retry that fails alike stays quiet."""
        if self._problems.get(source) != problem:
            self._problems[source] = problem
            self.tell(problem, "error")

    async def read(self, call: Callable[[ReviewStore], T]) -> T | None:
        """`in_db` for a step that only reads: a failure is told, and None returned."""
        try:
            result = await self.in_db(call)
        except DB_ERRORS as exc:
            self._report("read", f"Could not read {self.db_path.name}: {reason(exc)}")
            return None
        self._problems.pop("read", None)
        return result

    def tables_ready(self) -> bool:
        """Filters, tables and exports need the tables; say so while they are computed."""
        ready = self.session is not None and self.session.tables is not None
        if not ready:
            self.notify("The tables are still being computed; a moment…")
        return ready

    def filter(self, flt: Filter) -> None:
        if self.session is None or not self.tables_ready():
            return
        self.session.apply(flt)
        self.refresh_list(cursor=0)
        if not self.session.visible:
            self.notify("No answer matches this filter.", severity="warning")

    # -- what the review screen shows --------------------------------------------------------

    @property
    def review_screen(self) -> ReviewScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, ReviewScreen)), None)

    def current(self) -> Entry | None:
        screen, session = self.review_screen, self.session
        if screen is None or session is None or not session.visible:
            return None
        cursor = screen.query_one(AnswerList).cursor
        return session.entries[session.visible[min(cursor, len(session.visible) - 1)]]

    def shown_images(self) -> ImageSet | None:
        """The images of the answer on screen, to zoom into or open; None, and why, if none."""
        entry = self.current()
        detail = self._details.get(entry.answer_id) if entry is not None else None
        if entry is None or detail is None:
            self.notify("No answer is shown yet.")
            return None
        if not detail.image_hashes:
            self.notify(f"{entry.key} has no image.")
            return None
        title = f"{entry.key} · {entry.model}"
        return ImageSet(entry.key, title, detail.image_hashes, self._image_bytes)

    def sample_of(self, entry: Entry) -> Sample | None:
        """The entry's sample: from its shown detail, or the session once the tables came."""
        detail = self._details.get(entry.answer_id)
        if detail is not None:
            return detail.sample
        return self.session.samples.get(entry.key) if self.session else None

    def _row(self, index: int) -> Row:
        session = self.session
        assert session is not None
        entry = session.entries[session.visible[index]]
        marks = (
            (PENDING_MARK if self.unsaved(entry.answer_id) else "✓" if entry.reviewed else " ")
            + ("⚑" if entry.flagged else " ")
            + ("!" if entry.failed else " ")
            + ("~" if entry.fallback else " ")
            + ("°" if entry.offline and not entry.reviewed else " ")  # scored by the rules
        )
        score = render.score_text(entry)
        style = "answer-list--good" if entry.reviewed else ""
        return [
            (f"{plain_line(entry.key, 16):<16} ", ""),
            (f"{plain_line(entry.model, 14):<14} ", "answer-list--dim"),
            (f"{score:>5} ", style),
            (marks, "answer-list--mark"),
        ]

    def refresh_list(self, cursor: int | None = None) -> None:
        screen, session = self.review_screen, self.session
        if screen is None or session is None:
            return
        answers = screen.query_one(AnswerList)
        if cursor is not None:
            answers.show(len(session.visible), self._row, cursor)
        else:
            answers.refresh()
        self._status()

    def _status(self) -> None:
        screen, session = self.review_screen, self.session
        if screen is None or session is None:
            return
        total, reviewed, shown = session.counts()
        where = f"{self.db_path.name} · {session.dataset} ({session.benchmark.name}) · "
        text = Text.assemble(
            safe(where, one_line=True, style="bold"),
            f"{total} answers, {reviewed} reviewed · showing {shown}: ",
            safe(session.filter.describe(), one_line=True, style="italic"),
            " · judge ",
            safe(session.judge_name, one_line=True, style="bold"),
            f" (w: one of {len(session.judges)})" if len(session.judges) > 1 else "",
        )
        if self._pending:
            text.append(f"  · {len(self._pending)} not saved yet", style="bold red")
        if self._judge is not None:
            text.append("  · judge running", style="bold yellow")
        screen.query_one("#status", Static).update(text)

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
            self._fetch_and_show(entry.answer_id)
        self._prefetch()

    def _show_loading(self, entry: Entry) -> None:
        """Name the answer the keys now act on at once; its details follow."""
        screen = self.review_screen
        if screen is None:
            return
        title = f"{plain_line(entry.key, 60)} · {plain_line(entry.model, 60)} · loading…"
        with self.batch_update():
            for selector in PANELS:
                self._shown.pop(selector, None)  # repainted when the details come
                shown = Text(title, style="bold") if selector == "#title" else Text("")
                screen.query_one(selector, Static).update(shown)
            screen.query_one(SampleImages).show([None])

    @work(exclusive=True, group="detail")
    async def _fetch_and_show(self, answer_id: int) -> None:
        detail = await self._detail(answer_id)
        entry = self.current()
        if detail is not None and entry is not None and entry.answer_id == answer_id:
            self._show(entry, detail)

    async def _detail(self, answer_id: int) -> Detail | None:
        """One answer's details, cached; None if they could not be read (and it was told)."""
        detail = await self.read(lambda r: r.detail(answer_id))
        if detail is None:
            return None
        self._details[answer_id] = detail
        while len(self._details) > DETAIL_CACHE:
            self._details.popitem(last=False)
        return detail

    @work(exclusive=True, group="prefetch")  # a newer key press makes older prefetches moot
    async def _prefetch(self) -> None:
        """Fetch the next answers' details and start decoding their images."""
        screen, session = self.review_screen, self.session
        if screen is None or session is None:
            return
        cursor = screen.query_one(AnswerList).cursor
        for index in (cursor + 1, cursor + 2, cursor - 1):
            if 0 <= index < len(session.visible):
                entry = session.entries[session.visible[index]]
                detail = self._details.get(entry.answer_id) or await self._detail(entry.answer_id)
                if detail is None:
                    return  # told already; the answer shows the problem when it is reached
                if self.image_renderer is None:
                    continue  # images are off: none is decoded
                for image_hash in detail.image_hashes:
                    self._images.prefetch(
                        image_hash, partial(self._image_bytes, image_hash), IMAGE_BOX
                    )

    def _show(self, entry: Entry, detail: Detail) -> None:
        screen, session = self.review_screen, self.session
        if screen is None or session is None:
            return
        sample = detail.sample
        judged = (detail.answer_id, len(detail.judgments), len(detail.history))
        unsaved = self.unsaved(entry.answer_id)
        panels: list[tuple[str, object, Callable[[], RenderableType]]] = [
            (
                "#title",
                detail.answer_id,
                lambda: Text(render.describe(detail, session.benchmark), style="bold"),
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
                (*judged, detail.group_verdict, session.judge),
                lambda: render.judge_runs(detail, session.benchmark, session.judges, session.judge),
            ),
            (
                "#verdict",
                (judged, entry.verdict, unsaved, self._save_problem),
                lambda: render.verdict_line(entry.verdict, unsaved, self._save_problem),
            ),
            (
                "#history",
                (judged, detail.causes),
                lambda: render.history(detail.history, detail.causes, self.causes),
            ),
        ]
        with self.batch_update():  # one repaint for the whole answer
            for selector, key, make in panels:
                if self._shown.get(selector) != key:  # the same sample, another model: keep
                    self._shown[selector] = key
                    screen.query_one(selector, Static).update(make())
            self._show_strip(entry)
            self._show_images(entry, detail.image_hashes)
        if self._pressed_at is not None:
            started, self._pressed_at = self._pressed_at, None
            self.call_after_refresh(lambda: self.timings.append(time.perf_counter() - started))

    def _show_strip(self, entry: Entry) -> None:
        screen, session = self.review_screen, self.session
        if screen is None or session is None:
            return
        tables = session.tables
        if tables is None:
            screen.query_one("#strip", Static).update(Text("computing the tables…", style="italic"))
            return
        strip = render.breakdown_strip(
            session.strip(entry),
            tables.breakdown.layout.titles,
            tables.agreement.delta,
            tables.agreement.count,
        )
        screen.query_one("#strip", Static).update(strip)

    def _show_images(self, entry: Entry, hashes: list[str]) -> None:
        screen = self.review_screen
        if screen is None:
            return
        widget = screen.query_one(SampleImages)
        if widget.off:
            return
        futures = [
            self._images.request(h, partial(self._image_bytes, h), IMAGE_BOX) for h in hashes
        ]
        shown = [f.result() if f.done() and not f.exception() else None for f in futures]
        widget.show(shown, entry.key)
        if any(not f.done() for f in futures):
            self._await_images(entry.answer_id, entry.key, futures)

    @work(exclusive=True, group="images")
    async def _await_images(self, answer_id: int, key: str, futures: list[Future[Decoded]]) -> None:
        results = await asyncio.gather(
            *(asyncio.wrap_future(f) for f in futures), return_exceptions=True
        )
        entry, screen = self.current(), self.review_screen
        if entry is None or screen is None or entry.answer_id != answer_id:
            return
        shown = [r if not isinstance(r, BaseException) else broken(r) for r in results]
        screen.query_one(SampleImages).show(shown, key)

    # -- writes ------------------------------------------------------------------------------

    def grade(self, entry: Entry, verdict: Verdict, action: str = "grade") -> None:
        """Queue a verdict on `entry`, unless it is the one in force already (saved or
        pending): a repeated key adds no history row, so one undo takes the verdict back."""
        value = render.score_label(verdict.score, verdict.choice)
        if verdict == self._verdict_in_force(entry):
            self.tell(f"{entry.key} ({entry.model}) is already {value}: nothing to save.")
            return
        change = partial(
            ReviewStore.grade, score=verdict.score, choice=verdict.choice, action=action
        )
        kind = action if action != "grade" else "score" if verdict.choice is None else "choice"
        self.write(entry, change, f"{kind} {value}", verdict)

    def _verdict_in_force(self, entry: Entry) -> Verdict | None:
        """The verdict `entry` has once what is queued for it is saved."""
        queued = [
            p.verdict
            for p in self._pending
            if p.answer_id == entry.answer_id and p.verdict is not None
        ]
        return queued[-1] if queued else entry.verdict

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
        self._pending.append(
            PendingWrite(
                session.dataset, entry.answer_id, entry.key, entry.model, change, label, verdict
            )
        )
        self._quit_warned = False
        self._pending_changed(entry.answer_id)
        self.save_pending()

    def unsaved(self, answer_id: int) -> tuple[str, ...]:
        """What is queued for one answer and not saved yet, oldest first."""
        return tuple(p.label for p in self._pending if p.answer_id == answer_id)

    @work(group="write")
    async def save_pending(self) -> None:
        """Commit the queued changes in order. The first that fails stays queued, with those
        behind it, and is retried at the next poll or change."""
        if self._saving:
            return  # the save under way takes up what was queued since
        self._saving = True
        try:
            while self._pending:
                head = self._pending[0]
                try:
                    shown = await self.in_db(partial(self._commit, head))
                except DB_ERRORS as exc:
                    head.tries += 1
                    self._save_problem = reason(exc)
                    count = len(self._pending)  # this one and those queued behind it
                    self._report(
                        "save",
                        f"{changes(count)} not saved yet ({reason(exc)}): kept, marked "
                        f"{PENDING_MARK}, and retried.",
                    )
                    self._pending_changed(head.answer_id)
                    return
                self._pending.popleft()
                self._landed(head.answer_id, shown)
            self._save_problem = ""
            if self._problems.pop("save", None) is not None:
                self.tell("Every change that was waiting is saved now.")
        finally:
            self._saving = False

    def _commit(self, pending: PendingWrite, review: ReviewStore) -> tuple[Entry, Detail] | None:
        """In the database thread: apply one change (an error means it is not saved), then
        read the answer back. A retry waits only briefly for another process's lock."""
        try:
            with review.impatient() if pending.tries else nullcontext():
                pending.change(review, pending.answer_id)
        except sqlite3.Error as exc:
            if is_read_only(exc):
                # SQLite decides read-only when it opens the file: only a new connection
                # can write once the file is writable again.
                self._close_review()
            raise
        return self._read_back(review, pending.dataset, pending.answer_id)

    def _read_back(
        self, review: ReviewStore, dataset: str, answer_id: int
    ) -> tuple[Entry, Detail] | None:
        """A saved answer's fresh entry and details; None if they cannot be read now (the
        change is saved all the same, and the next poll reads them)."""
        try:
            (fresh,) = review.refresh(dataset, {answer_id})
            return fresh, review.detail(answer_id)
        except DB_ERRORS:
            return None

    def _landed(self, answer_id: int, shown: tuple[Entry, Detail] | None) -> None:
        """A change is saved: show the answer as the database now has it."""
        session = self.session
        if shown is None:
            self._stale.add(answer_id)
            self._pending_changed(answer_id)
            return
        fresh, detail = shown
        if session is None or fresh.answer_id not in session.by_id:
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
        session = self.session
        if session is None:
            return
        if self._pending:
            if self._saving and len(self._pending) == 1:
                self.tell("That change is being saved; press u again once it is.")
                return
            withdrawn = self._pending.pop()
            self.tell(
                f"Withdrew {withdrawn.label} on {withdrawn.key} ({withdrawn.model}): "
                "it was never saved."
            )
            self._pending_changed(withdrawn.answer_id)
            self.reveal(withdrawn.answer_id)
            return
        dataset = session.dataset

        def take_back(
            review: ReviewStore,
        ) -> tuple[int, str, tuple[Entry, Detail] | None] | None:
            undone = review.undo_change(dataset)
            if undone is None:
                return None
            answer_id, kind = undone
            return answer_id, kind, self._read_back(review, dataset, answer_id)

        try:
            undone = await self.in_db(take_back)
        except DB_ERRORS as exc:
            self.tell(f"Could not undo ({reason(exc)}); nothing changed.", "error")
            return
        if undone is None:
            self.tell(
                "Nothing to undo: no verdict or error cause of yours is in force in this dataset."
            )
            return
        answer_id, kind, shown = undone
        self._landed(answer_id, shown)
        self.reveal(answer_id)
        entry = session.entries[session.by_id[answer_id]]
        what = "verdict" if kind == "verdict" else "error cause"
        self.tell(f"Undid your last {what}, on {entry.key} ({entry.model}).")

    def reveal(self, answer_id: int) -> None:
        """Put the cursor on an answer and show it; clear the filters if they hide it."""
        session = self.session
        if session is None or answer_id not in session.by_id:
            return
        row = session.reveal(answer_id)
        if row is None:
            session.apply(Filter())
            self.tell("Cleared the filters to show it.")
            row = session.by_id[answer_id]  # every answer is listed, in order
        self.refresh_list(cursor=row)
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
        screen = self.review_screen
        if screen is not None:
            screen.query_one(JudgesPanel).verdicts_changed(fresh, session.samples)

    # -- other writers to the same file ------------------------------------------------------

    async def poll(self) -> None:
        """Pick up what another process (or a judge run) wrote since the last look."""
        session = self.session
        if session is None:
            return
        if self._pending:
            self.save_pending()
        stale, self._stale = self._stale, set()

        def changes(review: ReviewStore) -> tuple[int, Marks, list[Entry]]:
            version = review.data_version()
            if version == self._version and not stale:
                return version, self._marks, []
            marks = review.marks()
            touched = review.touched_since(self._marks) | stale
            return version, marks, review.refresh(session.dataset, touched) if touched else []

        found = await self.read(changes)
        if found is None:
            self._stale |= stale  # read them at the next poll that can
            return
        self._version, self._marks, fresh = found
        fresh = [e for e in fresh if e.answer_id in session.by_id]
        if fresh:
            self._apply(fresh)
            current = self.current()
            if current is not None and any(e.answer_id == current.answer_id for e in fresh):
                self.show_current(force=True)

    # -- screens and exports -------------------------------------------------------------------

    async def notes_text(self) -> str:
        session = self.session
        if session is None:
            return ""
        found = await self.read(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        return "" if found is None else self._notes(*found).sentence()

    def _notes(self, judges: tuple[list[str], list[str]], verdicts: list[GroupVerdict]) -> Notes:
        session = self.session
        assert session is not None
        assert session.tables is not None
        no_reply = sum(e.no_reply and e.verdict is None for e in session.entries)
        scores = DatasetScores(
            session.dataset,
            session.benchmark,
            session.samples,
            {},
            session.tables.breakdown,
            no_reply,
        )
        shown, others = judges
        return scores.notes(shown, verdicts=verdicts, other_judges=others)

    async def export(self, path: Path) -> tuple[Path, bool]:
        """Write the Markdown tables to `path` (never over a database): where they went, and
        whether an existing file was replaced."""
        session = self.session
        assert session is not None
        found = await self.in_db(
            lambda r: _judges_and_verdicts(r.store, session.dataset, session.judge)
        )
        assert session.tables is not None
        text = to_markdown(session.tables.breakdown.tables(), [self._notes(*found)])
        write = partial(write_export, path, text, self.db_path)
        replaced = await asyncio.wrap_future(self._db.submit(write))
        return path.resolve(), replaced

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification, from any screen, shows its text literally: messages hold ids,
        names, paths and judge errors, so they are never markup or terminal control."""
        super().notify(
            visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    def _unsaved_list(self) -> str:
        """The changes not saved yet, each as answer key (model): change; the first few."""
        named = [
            f"{plain_line(p.key, 40)} ({plain_line(p.model, 40)}): {plain_line(p.label, 40)}"
            for p in list(self._pending)[:UNSAVED_NAMED]
        ]
        more = len(self._pending) - len(named)
        return "; ".join(named) + (f"; and {more} more" if more else "")

    async def action_quit(self) -> None:
        """Quit; with changes not saved yet, only when asked twice (they would be lost)."""
        unsaved = (
            f"{changes(len(self._pending))} not saved ({self._save_problem or 'saving'}): "
            f"{self._unsaved_list()}"
        )
        if not self._pending:
            self.exit()
        elif not self._quit_warned:
            self._quit_warned = True
            self.tell(f"{unsaved}. Press q again to quit without them.", "warning")
        else:
            self.stop(f"{self.db_path}: quit with {unsaved}")

    def remapped(self, binding: Binding) -> Binding:
        """`binding` with the keys the settings' keymap gives it, for help and the palette."""
        keys = self._keymap_wanted.get(binding.id or "")
        return binding if keys is None else replace(binding, key=keys, key_display=None)

    def action_help(self) -> None:
        bindings = [
            self.remapped(b)
            for b in ReviewScreen.BINDINGS + self.BINDINGS
            if isinstance(b, Binding)
        ]
        self.push_screen(HelpScreen(bindings))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette offers every review action by its description."""
        yield from super().get_system_commands(screen)
        review = self.review_screen
        if review is None:
            return
        for binding in ReviewScreen.BINDINGS:
            if not isinstance(binding, Binding) or (binding.id or "").startswith(
                ("score-", "choose-")
            ):
                continue  # one command per key, not one per digit or letter
            binding = self.remapped(binding)
            yield SystemCommand(
                binding.description.capitalize(),
                f"key: {binding.key_display or binding.key}",
                lambda action=binding.action: self.run_action(action, review),
            )
        session = self.session
        if session is None:
            return
        for judge, name in session.judges.items():
            if judge != session.judge:
                yield SystemCommand(
                    f"Show judge: {plain_line(name, 80)}",
                    "its scores in the list, the strip and the tables",
                    partial(self.show_judge, name),
                )

    # -- a judge run in the background ---------------------------------------------------------

    def open_judge(self) -> None:
        if self._judge_screen is not None:
            self.push_screen(self._judge_screen)
            return
        model, runs = self.judge_model, self.judge_runs
        base_url = self.judge_base_url or os.environ.get("OPENAI_BASE_URL")
        configured = bool(os.environ.get(self.judge_api_key_env) or base_url)
        session = self.session
        dataset = session.dataset if session else "?"
        description = (
            f"LLM judge {model} at {base_url or 'the OpenAI API'} on {dataset}: open answers "
            f"graded {runs} run{'s' if runs != 1 else ''} each, choice rows extracted where "
            "matching fails."
            if configured
            else f"No LLM judge configured. Set the environment variable "
            f"{self.judge_api_key_env} to the API key, then start lmmreview again. "
            f"That name is the setting judge.api_key_env in {self.settings_path or 'the settings'}"
            "; a local server needs no key: set judge.base_url there instead."
        )
        self._judge_screen = JudgeScreen(
            description,
            (lambda: self.start_judge(model, base_url, runs)) if configured else None,
            self.stop_judge,
        )
        self.push_screen(self._judge_screen)

    def start_judge(self, model: str, base_url: str | None, runs: int = 5) -> None:
        """Start a judge run of the current dataset in its own thread."""
        session = self.session
        if session is None or self._judge is not None:
            return
        api_key = os.environ.get(self.judge_api_key_env) or "not-needed"
        concurrency, timeout = self.judge_concurrency, self.judge_timeout
        dataset = session.dataset
        ready = threading.Event()

        def progress(p: Progress) -> None:
            status = f"{p.done}/{p.total} · {p.rate:.1f}/s · {p.failed} failed · {p.cached} cached"
            self._from_judge_thread(self._judge_progress, p.done, p.total, status)

        def run() -> None:
            async def main() -> Progress:
                with Store.open(self.db_path, create=False) as store:
                    storage = JudgeStore(store, model)
                    plan = storage.plan(runs, [dataset])
                    client = OpenAIChat(api_key=api_key, base_url=base_url, timeout=timeout)
                    runner = Runner(client, storage, RunnerSettings(model, concurrency), progress)
                    task = asyncio.current_task()
                    assert task is not None
                    self._judge = (asyncio.get_running_loop(), task)
                    ready.set()
                    try:
                        return await runner.run(plan.chains)
                    finally:
                        await client.close()

            outcome = "finished"
            try:
                asyncio.run(main())
            except asyncio.CancelledError:
                outcome = "stopped"
            except Exception as exc:  # shown to the reviewer, never raised into the UI
                outcome = f"failed: {exc}"
            finally:
                ready.set()
                self._judge = None
                self._from_judge_thread(self._judge_done, outcome)

        threading.Thread(target=run, name="lmmreview-judge", daemon=True).start()
        ready.wait(timeout=5)
        running = Judge("llm", model, "")  # the reference prompts, as `lmmreview judge` asks
        if running != session.judge:  # its scores land in the list as they come
            current = self.current()
            self.load(session.dataset, running, current.answer_id if current else None)
            self.tell(f"Showing the scores of {model} as they come (w shows another judge).")
        self._status()

    def _from_judge_thread(self, callback: Callable[..., None], *args: object) -> None:
        """Run `callback` on the UI thread. A run outlives the app when the reviewer quits
        mid-run (its replies in flight are asked again next time): then no one is told."""
        if self.is_running:
            with contextlib.suppress(RuntimeError):  # the app stopped in between
                self.call_from_thread(callback, *args)

    def _judge_progress(self, done: int, total: int, status: str) -> None:
        if self._judge_screen is not None:
            self._judge_screen.progress(done, total, status)

    def _judge_done(self, outcome: str) -> None:
        self.notify(f"Judge run {outcome}.", title="Judge")
        if self._judge_screen is not None:
            self._judge_screen.progress(1, 1, f"Judge run {outcome}.")
        self._status()

    def stop_judge(self) -> None:
        running = self._judge
        if running is not None:
            loop, task = running
            loop.call_soon_threadsafe(task.cancel)


def _judges_and_verdicts(
    store: Store, dataset: str, judge: Judge | None
) -> tuple[tuple[list[str], list[str]], list[GroupVerdict]]:
    """What the notes of a dataset read from the database: the names of the judges behind
    the scores shown and of the others, and the imported circular verdicts."""
    return store.judge_names(dataset, judge), list(store.group_verdicts(dataset).values())


def binding_ids() -> set[str]:
    """Every binding id a keymap in the settings can name."""
    bindings = (*ReviewScreen.BINDINGS, *ReviewApp.BINDINGS)
    return {b.id for b in bindings if isinstance(b, Binding) and b.id}


def review_app(db: Path, settings: Settings, dataset: str | None = None) -> ReviewApp:
    """The review screen as `lmmreview open` sets it up from the effective settings."""
    return ReviewApp(
        db,
        reviewer=settings.reviewer,
        dataset=dataset,
        image_renderer=RENDERERS[settings.images],
        judge_model=settings.judge_model,
        judge_runs=settings.judge_runs,
        judge_base_url=settings.judge_base_url,
        judge_api_key_env=settings.judge_api_key_env,
        judge_concurrency=settings.judge_concurrency,
        judge_timeout=settings.judge_timeout,
        disagreement=settings.disagreement,
        spread=settings.spread,
        causes=settings.causes,
        shown_judge=settings.shown_judge,
        keymap=settings.keymap,
        theme=settings.theme,
        settings_path=settings.path,
    )
