"""The review screen's `!`: mark the answer's gold wrong or ambiguous, clear or undo its
erratum (db.errata), saved through the screen's write queue; and the erratum as the
detail pane shows it under the gold."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text

from lmmreview.db.errata import ErrataStore
from lmmreview.engine.errata import Erratum, problem
from lmmreview.engine.types import Sample
from lmmreview.tui.safe_text import safe
from lmmreview.tui.screens import Menu, Prompt
from lmmreview.tui.writes import ErratumChange

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

SEPARATOR = "|"  # between further acceptable answers typed on one line


def erratum_line(erratum: Erratum | None) -> Text:
    """The erratum in force as a line under the gold (nothing without one); every part
    from the data sanitised."""
    if erratum is None:
        return Text()
    shown = Text.assemble("\n", ("Erratum in force: ", "bold red"), (f"{erratum.status}", "bold"))
    if erratum.gold is not None:
        shown.append_text(Text.assemble("; corrected gold ", safe(erratum.gold, one_line=True)))
    if erratum.alternatives:
        shown.append("; also ")
        shown.append_text(safe(" or ".join(erratum.alternatives), one_line=True))
    if erratum.reason:
        shown.append_text(Text.assemble(" (", safe(erratum.reason, one_line=True), ")"))
    shown.append_text(Text.assemble(" by ", safe(erratum.reviewer, one_line=True)))
    if erratum.origin:  # given on another rotation of the question
        shown.append_text(Text.assemble(", from rotation ", safe(erratum.origin, one_line=True)))
    return shown


async def erratum_dialog(screen: ReviewScreen) -> None:
    """Ask what to do with the gold of the answer under the cursor, then queue it."""
    entry, session = screen.current(), screen.session
    if entry is None or session is None:
        return
    detail = screen.pane.details.get(entry.answer_id)
    if detail is None:
        detail = await screen.read(lambda r: r.detail(entry.answer_id))
    if detail is None:
        return
    sample, dataset = detail.sample, session.dataset
    undoable = await screen.read(lambda r: ErrataStore(r.store, "").undoable(dataset, sample.key))
    change = await _asked(screen, sample, detail.erratum, bool(undoable))
    if change is None:
        return
    change = ErratumChange(dataset, change.erratum, change.undo)
    screen.writer.submit(entry, change)


async def _asked(
    screen: ReviewScreen, sample: Sample, in_force: Erratum | None, undoable: bool
) -> ErratumChange | None:
    """The change the reviewer asks for (its dataset filled in by the caller); None:
    cancelled, or a gold that cannot stand (said before the reason is asked, so no typed
    reason is lost)."""
    choices = [
        ("wrong", "wrong: give the corrected gold"),
        ("ambiguous", "ambiguous: further answers count too (none: the sample leaves the "
                      "tables with errata)"),
    ]  # fmt: skip
    if in_force is not None:
        choices.append(("clear", "clear: the gold as published"))
    if undoable:  # a clear too
        choices.append(("undo", "undo: back to the state before the last change"))
    gold = ", ".join(sample.golds) or "none"
    title = f"The gold of {sample.key} (published: {gold})"
    picked = await screen.app.push_screen_wait(Menu(title, choices))
    if picked is None:
        return None
    if picked in ("clear", "undo"):
        return ErratumChange("", Erratum(sample.key, None), undo=picked == "undo")
    corrected = await _gold(screen, sample) if picked == "wrong" else None
    if picked == "wrong" and not corrected:
        return None
    wrong = problem(sample, Erratum(sample.key, picked, corrected))
    if wrong:
        screen.review_app.tell(f"Not saved: {wrong}.", "error")
        return None
    erratum = await _alternatives(screen, sample, Erratum(sample.key, picked, corrected))
    if erratum is None:
        return None
    reason = await screen.app.push_screen_wait(Prompt("Reason (sent upstream with it):"))
    if reason is None:
        return None
    return ErratumChange("", replace(erratum, reason=reason.strip()))


async def _alternatives(screen: ReviewScreen, sample: Sample, erratum: Erratum) -> Erratum | None:
    """`erratum` with the further answers the reviewer types, asked again until they can
    stand (so no key typed after a refusal lands on the review screen); None: cancelled."""
    kind = "option letters" if sample.options else "answers"
    while True:
        typed = await screen.app.push_screen_wait(
            Prompt(f"Further acceptable {kind}, separated by {SEPARATOR} (empty: none):")
        )
        if typed is None:
            return None
        others = tuple(a.strip() for a in typed.split(SEPARATOR) if a.strip())
        wrong = problem(sample, replace(erratum, alternatives=others))
        if not wrong:
            return replace(erratum, alternatives=others)
        screen.review_app.tell(f"{wrong}: type them again, or Esc to cancel.", "error")


async def _gold(screen: ReviewScreen, sample: Sample) -> str | None:
    """The corrected gold: one of the option letters (the first that is not published
    highlighted), or a text for an open question."""
    if sample.options:
        letters = [(letter, f"{letter}. {text}") for letter, text in sample.options.items()]
        first = next((letter for letter, _ in letters if letter not in sample.golds), "")
        return await screen.app.push_screen_wait(Menu("The corrected gold:", letters, start=first))
    return await screen.app.push_screen_wait(Prompt("The corrected gold:"))
