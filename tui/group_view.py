"""MMBench's circular-group view (r): every rotation of the group of the answer under the
list's cursor, the same model's answers, together, with the group's CircularEval result.
The option keys grade the rotation under the view's cursor through the review screen's
write path (a human verdict like any other: `u` undoes it); the result follows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from lmmreview.engine.benchmark import Unit
from lmmreview.engine.errata import Erratum
from lmmreview.engine.review import Entry
from lmmreview.engine.rotations import circular_result
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.types import Sample
from lmmreview.tui.grade_keys import score_keys
from lmmreview.tui.safe_text import safe
from lmmreview.tui.styles import stylesheet
from lmmreview.tui.writes import PENDING_MARK, Grade

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

NOT_GROUPED = "r shows MMBench's circular groups: this dataset has none."
RIGHTNESS_STYLES = {"right": "green", "wrong": "red", "partial": "yellow"}


@dataclass(frozen=True, slots=True)
class Rotation:
    """One row of the group: the sample and the model's answer to it (None: no answer)."""

    key: str
    answer_id: int | None
    sample: Sample | None
    text: str


class LiveGroup:
    """One model's answers to one group, as the review screen's session has them now;
    `errata`: those in force on its rotations (read when the view opened)."""

    def __init__(
        self, screen: ReviewScreen, model: str, group: Unit, errata: dict[str, Erratum]
    ) -> None:
        self.screen = screen
        self.model = model
        self.group = group
        self.errata = errata

    def entry(self, rotation: Rotation) -> Entry | None:
        session = self.screen.session
        if session is None or rotation.answer_id is None:
            return None
        return session.find(rotation.answer_id)

    def result(self) -> Text:
        """The group's CircularEval result; with errata too, where they change it."""
        session = self.screen.session
        if session is None or session.tables is None:
            return Text("")
        published = circular_result(session.group_outcome(self.model, self.group))
        samples = session.tables.samples
        corrected = {
            samples.index[key]: erratum.golds(samples.golds_for(key))
            for key, erratum in self.errata.items()
            if key in samples.index
        }
        errata = published
        if corrected:  # as the tables with errata count the group
            errata = circular_result(session.group_outcome(self.model, self.group, corrected))
        if errata == published:
            return Text.assemble(("CircularEval: ", "bold"), published)
        return Text.assemble(
            ("CircularEval as published: ", "bold"), published,
            ("\nwith errata: ", "bold"), errata,
        )  # fmt: skip

    def state(self, rotation: Rotation) -> Text:
        """What the model's answer comes to: the choice extracted, the human's, right/wrong."""
        entry, session = self.entry(rotation), self.screen.session
        if entry is None or session is None:
            return Text("no answer by this model", style="italic")
        verdict = entry.verdict
        human = "–" if verdict is None else verdict.choice or f"{verdict.score}"
        pending = f" {PENDING_MARK}" if self.screen.pending.labels(entry.answer_id) else ""
        rightness = session.rightness(entry) or "unscored"
        return Text.assemble(
            "extracted ", safe(entry.judge_choice or "–", one_line=True, style="bold"),
            " · human ", safe(human, one_line=True, style="bold"), pending,
            " · ", (rightness, RIGHTNESS_STYLES.get(rightness, "dim")),
        )  # fmt: skip

    def grade(self, rotation: Rotation, verdict: Verdict) -> None:
        entry = self.entry(rotation)
        if entry is not None:
            self.screen.writer.submit(entry, Grade(verdict))

    async def undo(self, answers: set[int]) -> None:
        """Take back the reviewer's newest change, as `u` does on the review screen, when it
        is on one of this group's `answers`; else say where it is, taking back nothing."""
        screen, session = self.screen, self.screen.session
        if session is None:
            return
        pending = list(screen.pending)  # an unsaved change is the newest
        if pending:
            newest: int | None = pending[-1].answer_id
        else:
            dataset = session.dataset
            found = await screen.read(lambda r: [r.newest_change(dataset)])
            if found is None:
                return  # the read failed, and said so
            newest = None if found[0] is None else found[0][0]
        if newest is None or newest in answers:
            screen.action_undo()  # a change here, or none: as on the review screen
            return
        entry = session.find(newest)
        where = f"{entry.key} ({entry.model})" if entry else f"answer {newest}"
        screen.review_app.tell(
            f"Your newest change is on {where}, outside this group: "
            "u on the review screen takes it back."
        )


def gold_text(published: list[str], erratum: Erratum | None) -> Text:
    """A rotation's gold, and the one an erratum puts in force ("A → B (wrong erratum)")."""
    gold = safe(" / ".join(published) or "unknown", one_line=True, style="green")
    if erratum is None:
        return gold
    corrected = erratum.golds(published)
    now = " / ".join(corrected) if corrected else "none acceptable"
    return (
        gold.append(" → ")
        .append_text(safe(now, one_line=True, style="bold yellow"))
        .append(f" ({erratum.status} erratum)")
    )


def rotation_block(
    number: int,
    rotation: Rotation,
    state: Text,
    here: bool,
    erratum: Erratum | None,
    stacked: bool = False,
) -> Group:
    """A rotation: its id and gold (with the erratum in force), its options in their order
    (a line each when `stacked`), the model's answer (one line) and what it comes to."""
    sample = rotation.sample
    head = Text("▶ " if here else "  ", style="bold", no_wrap=True, overflow="ellipsis")
    head.append(f"rotation {number}  ", style="bold")
    head.append_text(safe(rotation.key, one_line=True))
    options = OptionsLine({}, [])
    if sample is not None:
        head.append("  gold ")
        head.append_text(gold_text(sample.golds, erratum))
        options = OptionsLine(sample.options, sample.golds, stacked)
    answer = Text("  answer: ", style="bold", no_wrap=True, overflow="ellipsis")
    answer.append_text(safe(rotation.text or "(no answer)", one_line=True))
    return Group(head, options, answer, Text("  ").append_text(state))


@dataclass(frozen=True, slots=True)
class OptionsLine:
    """A rotation's options in their order (the gold in green), on one line, or a line each
    when `stacked`: long ones cut with "…" to what the width leaves them, so every letter
    shows and four rotations fit 80×24."""

    options: dict[str, str]
    golds: list[str]
    stacked: bool = False

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        letters, texts = list(self.options), list(self.options.values())
        room = options.max_width - len(INDENT)
        if self.stacked:
            widths = [cell_len(f"{letter}. {text}") for letter, text in self.options.items()]
            if max(widths, default=0) > room:  # cut where they differ, not in the shared words
                texts = without_common_start(texts)
            for letter, text in zip(letters, texts, strict=True):
                part = _option(letter, text, letter in self.golds)
                part.truncate(room, overflow="ellipsis")
                yield Text(INDENT, no_wrap=True).append_text(part)
            return
        room -= len(GAP) * max(len(letters) - 1, 0)
        whole = sum(cell_len(f"{letter}. {text}") for letter, text in self.options.items())
        if whole > room:
            texts = without_common_start(texts)
        parts = [
            _option(letter, text, letter in self.golds)
            for letter, text in zip(letters, texts, strict=True)
        ]
        for part, width in zip(parts, shares([p.cell_len for p in parts], room), strict=True):
            part.truncate(width, overflow="ellipsis")
        line = Text(INDENT, no_wrap=True, overflow="ellipsis")
        yield line.append_text(Text(GAP).join(parts))


def _option(letter: str, text: str, gold: bool) -> Text:
    style = "green" if gold else ""
    return Text.assemble((f"{letter}. ", f"bold {style}"), safe(text, one_line=True, style=style))


INDENT, GAP = "  ", "   "


def without_common_start(texts: list[str]) -> list[str]:
    """`texts` with the words they all begin with replaced by "…" (MMBench's options often
    differ only at the end: "Does it slide faster with a thin layer…" / "…thick layer")."""
    if len(texts) < 2:
        return texts
    first, last = min(texts), max(texts)  # the prefix these share, all share
    pairs = enumerate(zip(first, last, strict=False))
    same = next((i for i, (a, b) in pairs if a != b), len(first))
    cut = first.rfind(" ", 0, same) + 1  # whole words only: the differing word stays whole
    if cut < len(ELLIPSIS) + 2:
        return texts
    return [ELLIPSIS + text[cut:] for text in texts]


ELLIPSIS = "…"


def shares(widths: list[int], room: int) -> list[int]:
    """`widths` cut to fit in `room` together: the narrowest stay whole, the others share
    what they leave equally."""
    cut, left = list(widths), room
    order = sorted(range(len(widths)), key=widths.__getitem__)
    for done, i in enumerate(order):
        cut[i] = min(widths[i], max(left // (len(order) - done), 1))
        left -= cut[i]
    return cut


class GroupScreen(Screen[None]):
    """Every rotation of a circular group, one model's answers, and the CircularEval result;
    j/k move, A-I (X: none) grade the rotation under the cursor, Esc goes back."""

    BINDINGS = [
        Binding("escape,r", "dismiss(None)", "back", id="rotations-back"),
        Binding("j,down", "move(1)", "next rotation", id="rotations-next"),
        Binding("k,up", "move(-1)", "previous rotation", id="rotations-previous"),
        *(b for b in score_keys() if b.id and b.id.startswith("choose-")),
        Binding("X", "choose('X')", "none of the options", show=False, id="choose-none"),
        Binding("u", "undo", "undo", id="rotations-undo"),
    ]
    DEFAULT_CSS = stylesheet("group_view")

    def __init__(self, title: str, rotations: list[Rotation], live: LiveGroup, start: int) -> None:
        super().__init__()
        self.title_text = title
        self.rotations = rotations
        self.live = live
        self.cursor = start

    def compose(self) -> ComposeResult:
        title = safe(self.title_text, one_line=True, style="bold")
        yield Static(title.append(self.keys_hint(), style="dim"), id="group-title")
        yield Static(id="group-result")
        with VerticalScroll(id="group-rotations"):
            for _ in self.rotations:
                yield Static(classes="rotation")
        yield Footer()

    def keys_hint(self) -> str:
        """The grading keys, which the footer leaves out: " · A–D grade ▶"."""
        letters = sorted({o for r in self.rotations if r.sample for o in r.sample.options})
        return f" · {letters[0]}–{letters[-1]} grade ▶" if len(letters) > 1 else ""

    def on_mount(self) -> None:
        self.refresh_rows()

    def refresh_rows(self) -> None:
        """Show every rotation and the result as the session has them now."""
        live = self.live
        self.query_one("#group-result", Static).update(live.result())
        blocks = self.query(".rotation").results(Static)
        stacked = self.room_to_stack()
        for number, (block, rotation) in enumerate(zip(blocks, self.rotations, strict=True)):
            here, erratum = number == self.cursor, live.errata.get(rotation.key)
            state = live.state(rotation)
            block.update(rotation_block(number, rotation, state, here, erratum, stacked))
            block.set_class(here, "-cursor")
            if here:
                self.query_one(VerticalScroll).scroll_to_widget(block, animate=False)

    def room_to_stack(self) -> bool:
        """Whether every rotation fits with its options a line each (two rotations at 80×24,
        four at 160×48); else they share a line, and four rotations still fit 80×24."""
        counts = [len(r.sample.options) if r.sample else 1 for r in self.rotations]
        # per rotation: id and gold, the options, answer, state, the gap below it
        needed = sum(count + 4 for count in counts)
        return needed <= self.size.height - 4  # title, result (2 lines with errata), footer

    def on_resize(self) -> None:
        self.refresh_rows()

    def action_move(self, step: int) -> None:
        self.cursor = min(max(self.cursor + step, 0), len(self.rotations) - 1)
        self.refresh_rows()

    def action_choose(self, letter: str) -> None:
        rotation = self.rotations[self.cursor]
        sample = rotation.sample
        if rotation.answer_id is None or sample is None:
            self.notify("This model has no answer to this rotation.")
        elif letter != "X" and letter not in sample.options:
            self.notify(f"No option {letter} here.", severity="warning")
        else:
            self.live.grade(rotation, Verdict(None, letter))
            self.refresh_rows()

    def action_undo(self) -> None:
        answers = {r.answer_id for r in self.rotations if r.answer_id is not None}
        self.run_worker(self.live.undo(answers), group="rotations-undo")


async def open_group(screen: ReviewScreen) -> None:
    """The group view of the answer under the cursor; back on that answer afterwards."""
    entry, session = screen.current(), screen.session
    if entry is None or session is None or not screen.tables_ready():
        return
    if session.benchmark.rotation_field is None:  # MME's pairs are groups, not rotations
        screen.notify(NOT_GROUPED)
        return
    group = session.group_of(entry.key)
    rows = [session.answers.row_of(entry.model, key) for key in group.members]
    ids = [None if row is None else int(session.answers.ids[row]) for row in rows]
    details = await screen.read(lambda r: [None if i is None else r.detail(i) for i in ids])
    if details is None:
        return
    # each row's erratum in force, as the pane and the tables read it (db.errata.on_row)
    errata = {d.sample.key: d.row_erratum for d in details if d and d.row_erratum}
    rotations = [
        Rotation(key, answer_id, d.sample if d else None, d.text if d else "")
        for key, answer_id, d in zip(group.members, ids, details, strict=True)
    ]
    title = f"Circular group of {entry.key} · {entry.model} · {len(rotations)} rotations"
    live = LiveGroup(screen, entry.model, group, errata)
    start = group.members.index(entry.key)
    await screen.app.push_screen_wait(GroupScreen(title, rotations, live, start))
    place = session.place(entry.answer_id) if screen.session is session else None
    if place is not None:  # `u` there may have moved the list's cursor to another answer
        screen.refresh_list(cursor=place)
        screen.show_current(force=True)  # the strip: grades there change the group's cells
