"""Blind review on the screen (`open --blind`, the setting review.blind): until the
reviewer's own verdict on an answer is saved, nothing names its model or shows what a
judge said of it; models show under their aliases (engine/blind.py) all session long.

The screen asks this one place what to show: an answer, its details, a text naming
models, a menu's choices; and whether a view that would show judge scores is refused.
Off (not blind), everything passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from lmmreview.db.review import Detail, ReviewStore
from lmmreview.engine.blind import aliases, hide_names, masked
from lmmreview.engine.ordering import LIST_ORDER
from lmmreview.engine.review import Entry
from lmmreview.tui.writes import Grade, PendingWrite

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

HIDDEN = "hidden in blind review"
HIDDEN_SOURCE = f"a file (its name {HIDDEN})"
HIDDEN_UNTIL = f"Judge scores: {HIDDEN} until your verdict on this answer is saved."
NEW_MODEL = "model (new)"  # a model imported since the aliases were read
# The filters that would show what a judge said (engine.review.Filter's fields).
# The actions of the footer's keys that blind review refuses (each asks `refused`): left
# out of the footer, which would offer them; pressed, they still say why in one line.
REFUSED_KEYS = frozenset({"accept", "breakdown", "compare", "judge", "export"})
# "reviewers": the answers others grade differently from each other.
JUDGE_FILTERS = frozenset(
    {"failed", "no_reply", "fallback", "disagreement", "spread", "reviewers", "judges", "flips",
     "sources"}
)  # fmt: skip


def read_blind(
    review: ReviewStore, dataset: str
) -> tuple[list[str], frozenset[int], frozenset[int]]:
    """In the database thread: the file's models (an alias depends on the dataset and the
    name alone, so the letters are the same whichever are read, in every reviewer's copy),
    the answers this reviewer has given a verdict, and those with theirs in force."""
    return review.model_names(), *review.own_answers(dataset)


class Blinding:
    """What one review screen hides in blind review."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen
        self.names: dict[str, str] = {}  # model -> alias, of the dataset open
        self.seen: set[int] = set()  # the answers graded by this reviewer: judges shown

    @cached_property  # the settings of a session do not change
    def on(self) -> bool:
        return self.screen.settings.blind

    def opened(self, dataset: str, models: list[str], graded: frozenset[int]) -> None:
        """A dataset is open: its models' aliases and the answers already graded."""
        self.names = aliases(dataset, models)
        self.seen = set(graded)

    @property
    def footer_hidden(self) -> frozenset[str]:
        """The actions whose keys the footer leaves out."""
        return REFUSED_KEYS if self.on else frozenset()

    def alias(self, model: str) -> str:
        return self.names.get(model, NEW_MODEL) if self.on else model

    def hidden(self, answer_id: int) -> bool:
        """Whether what the judges said of this answer is hidden."""
        return self.on and answer_id not in self.seen

    def saved(self, pending: PendingWrite) -> None:
        """A change is saved: a verdict shows its answer's judges from now on."""
        if isinstance(pending.command, Grade):
            self.seen.add(pending.answer_id)

    def entry(self, entry: Entry) -> Entry:
        """The answer as the list and the pane show it."""
        if not self.on:
            return entry
        return masked(entry, self.alias(entry.model), self.hidden(entry.answer_id))

    def detail(self, detail: Detail) -> Detail:
        """An answer's details as the pane shows them: under its alias; while hidden,
        without the judges' calls, the imported group verdict and the other reviewers'
        history (an accept there is a judge's score)."""
        if not self.on:
            return detail
        if not self.hidden(detail.answer_id):
            # A file imported from is often named after its model, in any spelling.
            judgments = [
                replace(r, reply=self.text(r.reply), error=self.text(r.error),
                        source=r.source and HIDDEN_SOURCE)
                for r in detail.judgments
            ]  # fmt: skip
            return replace(detail, model=self.alias(detail.model), judgments=judgments)
        me = self.screen.settings.reviewer
        return replace(
            detail, model=self.alias(detail.model), judgments=[], group_verdict=None,
            history=[row for row in detail.history if row.reviewer == me],
        )  # fmt: skip

    def text(self, text: str) -> str:
        """`text` with every model's name replaced by its alias (a model imported since
        the aliases were read: NEW_MODEL)."""
        if not self.on:
            return text
        session = self.screen.session
        models = session.answers.models if session is not None else []
        return hide_names(text, {m: NEW_MODEL for m in models} | self.names)

    def filters(self, choices: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The filter menu's choices, less those that would show a judge's results."""
        return [c for c in choices if not (self.on and c[0] in JUDGE_FILTERS)]

    def models(self, models: list[str]) -> list[tuple[str, str]]:
        """The model filter's choices (name, shown), in the order of what is shown."""
        return sorted(((m, self.alias(m)) for m in models), key=lambda choice: choice[1])

    def orders(self, orders: Mapping[str, str]) -> list[tuple[str, str]]:
        """The sort menu's choices: only the list order in blind review (the others sort
        by judge scores)."""
        return [(o, name) for o, name in orders.items() if not self.on or o == LIST_ORDER]

    def refused(self, what: str) -> bool:
        """In blind review, say in one line that `what` is hidden, and refuse it."""
        if self.on:
            self.screen.notify(f"{what}: {HIDDEN}.", severity="warning")
        return self.on
