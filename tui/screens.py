"""The screens around the review screen: tables, comparison, help, judge runs, prompts.

Titles, menu choices and table cells hold names from the data (models, tags, datasets,
sample ids) and server text: each is shown through `safe()`, never as a markup string.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from lmmreview.engine.export import counts_row, grid
from lmmreview.engine.names import shared_ends, short_model
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.tables import Table
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.engine.visible import visible
from lmmreview.tui.charts import CapabilityBars
from lmmreview.tui.grade_keys import score_keys
from lmmreview.tui.images import Decoded, Renderer, SampleImages
from lmmreview.tui.safe_text import safe
from lmmreview.tui.styles import stylesheet


class Prompt(ModalScreen[str | None]):
    """Ask for one line of text (an id, a search, a note, a path)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="prompt-cancel")]
    DEFAULT_CSS = stylesheet("prompt")

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(self.question, one_line=True))
            # The default can come from data (the database's file name): no raw control.
            yield Input(value=self.shown_value, id="prompt-input")

    @property
    def shown_value(self) -> str:
        """The default as the field shows it: unsafe characters as visible stand-ins."""
        return visible(self.value, one_line=True)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        # The default left as it was means the real default (a file name with a control
        # character in it), not its stand-ins.
        self.dismiss(self.value if event.value == self.shown_value else event.value)


MARK = "● "  # before the choice in force (a filter on, the dataset shown)


def marked(label: str, on: bool) -> str:
    """A menu label with the mark of the choice in force, or room for it (aligned)."""
    return f"{MARK}{label}" if on else f"{' ' * len(MARK)}{label}"


class Menu(ModalScreen[str | None]):
    """Pick one of a few choices (filters, datasets); `note`: a dim line under the title;
    `start`: the choice highlighted first (else the first)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="menu-cancel")]
    DEFAULT_CSS = stylesheet("menu")

    def __init__(
        self, title: str, choices: list[tuple[str, str]], note: str = "", start: str = ""
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices  # (id, label)
        self.note = note
        self.start = start
        self.drawn = asyncio.Event()  # set once on screen: slow work for it can wait till then

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(self.title_text, one_line=True, style="bold"))
            if self.note:
                yield Label(safe(self.note, one_line=True, style="dim"), id="menu-note")
            yield OptionList(
                *(Option(safe(label, one_line=True), id=key) for key, label in self.choices)
            )

    def on_mount(self) -> None:
        if any(key == self.start for key, _ in self.choices):
            options = self.query_one(OptionList)
            options.highlighted = options.get_option_index(self.start)
        self.call_after_refresh(self.drawn.set)

    def relabel(self, key: str, label: str) -> None:
        """Show choice `key` as `label` from now on (a count found after the menu opened)."""
        self.choices = [(k, label if k == key else old) for k, old in self.choices]
        for options in self.query(OptionList):  # none before the menu is composed
            options.replace_option_prompt(key, safe(label, one_line=True))

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class TableSource(Protocol):
    """Where the tables screen takes its tables: as they are now (fast, on the UI
    thread), and with every cell's 95 % interval (slow: computed off it)."""

    def tables(self) -> list[Table]: ...

    async def with_intervals(self) -> list[Table]: ...


# The tables with errata (named as published; none: no erratum in force) and a sentence
# saying what the errata changed (None: unread).
ErrataTables = Callable[[], Awaitable[tuple[list[Table], str] | None]]


class BreakdownScreen(Screen[tuple[str, str, str] | None]):
    """The paper's tables, live; select a cell to review the answers behind it. `i`
    computes every cell's 95 % interval in a worker; `g` draws the tables as bars; `e`
    shows under each table its twin with the ground-truth errata in force
    (docs/errata.md), and hides them again."""

    BINDINGS = [
        Binding("escape,b", "dismiss(None)", "Back", id="breakdown-back"),
        Binding("i", "intervals", "95% intervals", id="breakdown-intervals"),
        Binding("g", "bars", "bars / table", id="breakdown-bars"),
        Binding("e", "errata", "errata", id="breakdown-errata"),
    ]
    AUTO_FOCUS = "DataTable"  # the first table: arrows move over its cells at once
    DEFAULT_CSS = stylesheet("breakdown_screen")

    def __init__(self, source: TableSource, notes: str, errata: ErrataTables | None = None) -> None:
        super().__init__()
        self.source = source
        self.tables = [t for t in source.tables() if t.rows]
        self.notes = notes
        self.revision = 0  # scores changed this many times since the screen opened
        self.intervals_wanted = False  # `i` was pressed: intervals follow the verdicts
        self.errata = errata
        self.errata_shown = False  # `e` was pressed: the tables with errata are shown
        self.twins: dict[int, Table] = {}  # table number -> its twin with errata, shown

    def compose(self) -> ComposeResult:
        yield Static(id="breakdown-status")
        with VerticalScroll(id="breakdown-scroll"):
            for number, table in enumerate(self.tables):
                title = f"{table.title} ({table.dataset}) · Enter on a cell reviews its answers"
                yield Static(safe(title, one_line=True), classes="title")
                yield DataTable(id=f"table-{number}", cursor_type="cell", zebra_stripes=True)
                yield Static(CapabilityBars(table), id=f"bars-{number}", classes="bars")
                yield Static(id=f"twin-title-{number}", classes="title twin")
                yield DataTable(id=f"twin-{number}", cursor_type="cell", zebra_stripes=True,
                                classes="twin")  # fmt: skip
            yield Static(safe(self.notes), id="notes")
        yield Footer()

    def on_mount(self) -> None:
        self._show(self.tables)

    def _show(self, tables: list[Table]) -> None:
        """Fill every table view and chart from `tables` (matched by name; a table the
        screen did not open with is left out), each table's cursor where it was."""
        by_name = {table.name: table for table in tables}
        self.tables = [by_name.get(table.name, table) for table in self.tables]
        for number, table in enumerate(self.tables):
            _fill(self.query_one(f"#table-{number}", DataTable), table)
            self.query_one(f"#bars-{number}", Static).update(CapabilityBars(table))

    def action_bars(self) -> None:
        """Bars or tables; the focus goes where the keys act at once: the scrolling view
        (the tables, which had it, are hidden under bars) or back to the first table."""
        self.toggle_class("bars")
        if self.has_class("bars"):
            self.query_one("#breakdown-scroll", VerticalScroll).focus()
        elif self.tables:
            self.query_one("#table-0", DataTable).focus()

    def action_intervals(self) -> None:
        self.intervals_wanted = True
        self._show_twins([])  # the intervals are the published tables'
        self._compute_intervals("Computing the 95% intervals (a bootstrap over the samples)…")

    def action_errata(self) -> None:
        """Under each table its twin with the ground-truth errata in force
        (docs/errata.md), or the tables as published alone again."""
        if self.errata is None:
            return
        if self.errata_shown:
            self._show_twins([])
            self._status("The tables as published (e: each with its twin with errata).")
            return
        self.errata_shown = True
        self._compute_errata()

    @work(exclusive=True, group="errata")
    async def _compute_errata(self) -> None:
        """Read the tables with errata off the UI thread and show each under its table as
        published, with what the errata changed."""
        assert self.errata is not None
        self._status("Computing the tables with errata…")
        found = await self.errata()
        if found is None or not self.errata_shown:
            return
        tables, changed = found
        self._show_twins(tables)
        if tables:
            self._status(f"Each table as published, then with errata (e: hide them). {changed}")
        else:
            self._status(changed)

    def _show_twins(self, twins: list[Table]) -> None:
        """Each table's twin with errata (matched by name) under it; none: hidden."""
        by_name = {twin.name: twin for twin in twins}
        self.twins = {n: by_name[t.name] for n, t in enumerate(self.tables) if t.name in by_name}
        self.errata_shown = bool(twins)
        self.set_class(bool(self.twins), "errata")
        for number, twin in self.twins.items():
            title = f"{twin.title} (with errata) ({twin.dataset})"
            self.query_one(f"#twin-title-{number}", Static).update(safe(title, one_line=True))
            _fill(self.query_one(f"#twin-{number}", DataTable), twin)

    def verdicts_changed(self) -> None:
        """Scores changed (another process's verdict, a judge run's scores): the tables
        as they are now; intervals computed before are dropped and computed again."""
        self.revision += 1
        self._show(self.source.tables())
        if self.errata_shown:
            self._compute_errata()
        elif self.intervals_wanted:
            self._compute_intervals("The scores changed: computing the 95% intervals again…")

    @work(exclusive=True, group="intervals")
    async def _compute_intervals(self, status: str) -> None:
        """Compute the intervals off the UI thread; show them unless scores changed
        meanwhile (a newer run, started by the change, shows its own)."""
        self._status(status)
        revision = self.revision
        tables = await self.source.with_intervals()
        if revision != self.revision:
            return
        self._show(tables)
        self._status("95% bootstrap intervals: value [low, high] (± is the spread over runs).")

    def _status(self, text: str) -> None:
        status = self.query_one("#breakdown-status", Static)
        status.update(Text(text, style="italic"))
        status.display = True

    @on(DataTable.CellSelected)
    def pick(self, event: DataTable.CellSelected) -> None:
        """Enter on a model's cell: back to the review list, showing that cell's answers."""
        view = event.data_table
        number = int((view.id or "table-0").split("-")[-1])
        # a twin's cell: the published cell's answers (an erratum may leave some out there)
        table = self.twins[number] if (view.id or "").startswith("twin") else self.tables[number]
        row, column = event.coordinate
        if row >= len(table.rows) or column == 0:
            self.notify("Pick a model's cell (not the N or reviewed rows).", severity="warning")
            return
        self.dismiss((table.rows[row].name, table.name, table.columns[column - 1].key))


RANK_STYLES = {1: "bold", 2: "underline", 0: ""}  # best, second, neither
MODEL_WIDTH = 28  # a table row's model name is cut in the middle beyond this (short_model)


def _fill(view: DataTable[RenderableType], table: Table) -> None:
    """A table's rows in its view (again), with each cell's [low, high] where it has an
    interval, as exports write it; the cursor stays on the cell it was on."""
    cursor = view.cursor_coordinate
    view.clear(columns=True)
    view.add_column("Model", key="__model__")
    for column in table.columns:
        view.add_column(safe(column.title, one_line=True), key=column.key)
    shared = shared_ends(row.label for row in table.rows)
    for label, cells in grid(table):
        texts = [Text(text, style=RANK_STYLES[rank]) for text, rank in cells]
        name = short_model(label, MODEL_WIDTH, shared[label])  # a long name hid the numbers
        view.add_row(safe(name, one_line=True), *texts, key=label)
    view.add_row(Text("N", style="dim"), *(Text(n, style="dim") for n in counts_row(table)))
    reviewed = ["reviewed"] + [
        str(sum(r.cells[c.key].reviewed for r in table.rows if c.key in r.cells))
        for c in table.columns
    ]
    view.add_row(*(Text(v, style="dim") for v in reviewed))
    view.move_cursor(row=cursor.row, column=cursor.column, animate=False)


@dataclass(frozen=True, slots=True)
class Answer:
    answer_id: int
    model: str
    text: str


@dataclass(frozen=True, slots=True)
class Compared:
    """What the compare view shows above the answers: the sample and its images."""

    title: str
    sample: Sample
    question: RenderableType
    images: Sequence[Decoded | None]
    renderer: Renderer | None


# A model's box in the compare view keeps room for a name and an answer (22 cells each).
# 26: three boxes share 80 columns as they did before boxes had a minimum.
BOX_MIN = 26
BORDER_LABEL_GAP = 6  # a border title keeps a corner, a line and a blank each side


class AnswerBox(VerticalScroll):
    """One model's answer in the compare view: its name over it, cut in the middle to the
    box's width (see short_model), its score under it."""

    def __init__(self, answer: Answer, shared: tuple[int, int]) -> None:
        super().__init__(classes="answer")
        self.answer = answer
        self.shared = shared  # what the name shares with the others' (see shared_ends)

    def compose(self) -> ComposeResult:
        yield Static(safe(self.answer.text))

    def on_resize(self) -> None:
        # Textual cuts a long title at its end: `llava-v1.5-7b` and `-13b` would look alike.
        room = max(self.outer_size.width - BORDER_LABEL_GAP, 1)
        name = short_model(self.answer.model, room, self.shared)
        # A str title would be read as markup; a model named "[/]" crashed it.
        self.border_title = safe(name, one_line=True)


class AnswerRow(HorizontalScroll, can_focus=False, inherit_bindings=False):
    """The compare view's boxes side by side, sharing the width while each keeps BOX_MIN
    cells; when they do not all fit, as many as fit share it and the row scrolls. No keys
    of its own (its arrows would scroll it away from the highlighted box), no focus stop."""

    def fits(self) -> bool:
        return len(self.children) * BOX_MIN <= self.size.width

    def on_resize(self) -> None:
        shown = max(self.size.width // BOX_MIN, 1)
        width: int | str = "1fr" if self.fits() else self.size.width // shown
        for box in self.children:
            box.styles.width = width
        focused = self.screen.focused
        if focused is not None and focused in self.children:
            self.show(focused)

    def show(self, box: Widget) -> None:
        """Scroll `box` just into view, once it is laid out (focus would centre it, with
        half boxes either side)."""
        self.call_after_refresh(self.scroll_to_widget, box, animate=False)


class CompareScreen(Screen[None]):
    """Every model's answer to the current sample, side by side, under its question, gold
    and image, the answer `start` highlighted. Left/right (or Tab) highlight another; the
    grading keys grade it through `grade` (the review screen's write path); `score_of`
    says its score now. Boxes keep a readable width: when they do not all fit, the row
    scrolls to keep the highlighted one in view, and the title says which one it is."""

    BINDINGS = [
        Binding("escape,c", "dismiss(None)", "Back", id="compare-back"),
        Binding("left,h", "move(-1)", "previous model", key_display="←", id="compare-previous"),
        Binding("right,l", "move(1)", "next model", key_display="→", id="compare-next"),
        *score_keys(),
        Binding("X", "choose('X')", "none of the options", show=False, id="choose-none"),
        Binding("v", "versus", "versus", id="compare-versus"),
    ]
    DEFAULT_CSS = f"$box-min: {BOX_MIN};\n{stylesheet('compare_screen')}"

    def __init__(
        self,
        compared: Compared,
        answers: list[Answer],
        grade: Callable[[int, Verdict], None],
        score_of: Callable[[int], str],
        start: int,
        versus: Callable[[str, str], Screen[None]] | None = None,
    ) -> None:
        """`versus(a, b)`: the view of model a minus model b (None: not offered)."""
        super().__init__()
        self.compared = compared
        self.answers = answers
        self.start = start  # the answer id under the list's cursor
        self._grade = grade
        self._score_of = score_of
        self._versus = versus

    def compose(self) -> ComposeResult:
        compared = self.compared
        yield Static(safe(compared.title, one_line=True, style="bold"), id="compare-title")
        with Horizontal(id="compare-top"):
            images = SampleImages(compared.renderer, id="compare-images")
            images.show(compared.images, compared.sample.key)
            yield images
            yield Static(compared.question, id="compare-question")
        with AnswerRow(id="compare-answers"):
            shared = shared_ends(answer.model for answer in self.answers)
            for answer in self.answers:
                box = AnswerBox(answer, shared[answer.model])
                box.border_subtitle = self._score(answer)
                yield box
        yield Footer()

    def on_mount(self) -> None:
        """Highlight the answer the list's cursor is on: the one a key grades at once."""
        ids = [answer.answer_id for answer in self.answers]
        if self.start in ids:
            self._highlight(ids.index(self.start))

    def action_move(self, step: int) -> None:
        """Highlight the next (or previous) model's box, after the last the first."""
        answer = self.highlighted()
        number = self.answers.index(answer) + step if answer is not None else 0
        if self.answers:  # none when another process removed them all meanwhile
            self._highlight(number % len(self.answers))

    def action_versus(self) -> None:
        """The highlighted model against the next one: left/right pick the pair."""
        answer = self.highlighted()
        models = list(dict.fromkeys(a.model for a in self.answers))
        if self._versus is None or answer is None or len(models) < 2:
            self.notify("Versus needs two models' answers, one of them highlighted.")
            return
        a = models.index(answer.model)
        self.app.push_screen(self._versus(models[a], models[(a + 1) % len(models)]))

    def _highlight(self, number: int) -> None:
        box = self.query(AnswerBox)[number]
        box.focus(scroll_visible=False)
        self.query_one(AnswerRow).show(box)

    def on_descendant_focus(self) -> None:
        self._show_position()

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_position)  # once the row has its new width

    def _show_position(self) -> None:
        """The title says which model is highlighted when some boxes are out of view."""
        title = safe(self.compared.title, one_line=True, style="bold")
        answer = self.highlighted()
        if answer is not None and not self.query_one(AnswerRow).fits():
            number = self.answers.index(answer) + 1
            title.append(f" · model {number} of {len(self.answers)}")
        self.query_one("#compare-title", Static).update(title)

    def refresh_scores(self) -> None:
        """Show each answer's score as it is now (a grade given here, saved or pending)."""
        for box in self.query(AnswerBox):
            box.border_subtitle = self._score(box.answer)

    def _score(self, answer: Answer) -> Text:
        """An answer's score under its column: a choice comes from the data (a merged
        file's verdict), so it is shown literally, never read as markup."""
        return safe(self._score_of(answer.answer_id), one_line=True)

    def highlighted(self) -> Answer | None:
        """The answer whose box has the focus: the one the grading keys grade."""
        focused = self.focused
        while focused is not None and not isinstance(focused, AnswerBox):
            focused = focused.parent if isinstance(focused.parent, Widget) else None
        return focused.answer if focused is not None else None

    def action_score(self, value: float) -> None:
        if self.compared.sample.question_type is not QuestionType.OPEN:
            self.notify("A multiple-choice answer: press the option's letter (X: none).")
            return
        self._grade_highlighted(Verdict(round(value, 1)))

    def action_choose(self, letter: str) -> None:
        sample = self.compared.sample
        if sample.question_type is not QuestionType.CHOICE:
            self.notify("An open answer: grade with 0-9 and = (1.0).")
        elif letter != "X" and letter not in sample.options:
            self.notify(f"No option {letter} here.", severity="warning")
        else:
            self._grade_highlighted(Verdict(None, letter))

    def _grade_highlighted(self, verdict: Verdict) -> None:
        answer = self.highlighted()
        if answer is None:
            self.notify("Highlight a model's answer first (left/right).")
            return
        self._grade(answer.answer_id, verdict)
        self.refresh_scores()


class HelpScreen(Screen[None]):
    """Every key of the review screen, with its id and what it does."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "Back", id="help-back")]

    def __init__(self, bindings: list[Binding]) -> None:
        super().__init__()
        self.bindings = bindings

    def compose(self) -> ComposeResult:
        view: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
        view.add_columns("key", "what it does", "id")
        for binding in self.bindings:
            keys = binding.key_display or binding.key.replace(",", " / ")
            view.add_row(Text(keys), Text(binding.description), Text(binding.id or "", style="dim"))
        yield Static(Text("lmmreview: keys of the review screen", style="bold"))
        yield view
        yield Footer()


class JudgeScreen(ModalScreen[None]):
    """A background LLM judge run: what it does, its progress, and a way to stop it."""

    BINDINGS = [
        Binding("enter", "start", "Start", id="judge-start"),
        Binding("s", "stop", "Stop the run", id="judge-stop"),
        Binding("escape", "dismiss(None)", "Hide (keeps running)", id="judge-hide"),
    ]
    DEFAULT_CSS = stylesheet("judge_screen")

    def __init__(
        self, description: str, start: Callable[[], None] | None, stop: Callable[[], None]
    ) -> None:
        """`start` is None when no judge is configured: the screen then only says what to
        set (the description), with no key, bar or status promising a run."""
        super().__init__()
        self.description = description
        self._start = start
        self._stop = stop
        self._progress: tuple[int, int, str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(safe(self.description), id="judge-description")
            if self._start is None:
                yield Static(Text("Esc closes this."), id="judge-close")
                return
            yield ProgressBar(id="judge-bar", show_eta=True)
            yield Static(
                Text("Enter starts; s stops; Esc hides this (the run goes on)."), id="judge-status"
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Start and stop exist only where a run can start."""
        return self._start is not None or action not in ("start", "stop")

    def action_start(self) -> None:
        if self._start is not None:
            self._start()

    def action_stop(self) -> None:
        self._stop()

    def on_mount(self) -> None:
        self._show_progress()

    def progress(self, done: int, total: int, status: str) -> None:
        """Keep the run's progress; show it now, or when the screen is shown again (Esc
        hides it while the run goes on)."""
        self._progress = (done, total, status)
        self._show_progress()

    def _show_progress(self) -> None:
        bars = self.query("#judge-bar").results(ProgressBar)
        statuses = self.query("#judge-status").results(Static)
        bar, shown = next(bars, None), next(statuses, None)
        if self._progress is None or bar is None or shown is None:
            return  # hidden, or not composed yet: on_mount shows it
        done, total, status = self._progress
        bar.update(total=max(total, 1), progress=done)
        shown.update(safe(status))
