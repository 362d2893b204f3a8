"""The reviewer's view of a dataset: one entry per answer, filters, undo, agreement.

Pure values: the store fills them, the screen shows them, and both stay simple.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from lmmreview.engine.scoring import Outcome, Verdict, effective, human_score
from lmmreview.engine.types import Sample


@dataclass(slots=True)
class Entry:
    """One answer in the review list, with what its marks and filters need."""

    answer_id: int
    model: str
    key: str
    judged: tuple[float | None, ...] = ()  # the judge's score per run
    judge_choice: str | None = None
    verdict: Verdict | None = None  # the current human verdict
    flagged: bool = False
    failed: bool = False  # some run's latest judgment is a failure: that run is unscored
    fallback: bool = False
    offline: bool = False
    # An imported 0.0 with no judge reply: how lmms-eval stores a judge API failure.
    no_reply: bool = False
    cause: str | None = None  # the current error cause (engine.causes), if any
    noted: bool = False  # a reviewer attached a note

    @property
    def reviewed(self) -> bool:
        return self.verdict is not None

    def judge_mean(self) -> float | None:
        scores = [s for s in self.judged if s is not None]
        return statistics.fmean(scores) if scores else None

    def spread(self) -> float | None:
        """Population std of the judge's scores across runs (None with fewer than two)."""
        scores = [s for s in self.judged if s is not None]
        return statistics.pstdev(scores) if len(scores) > 1 else None

    def outcome(self, runs: int, golds: list[str]) -> Outcome:
        """The effective outcome, as the tables count it."""
        return effective(self.judged, self.verdict, runs, golds, self.fallback, self.offline)

    def disagreement(self, golds: list[str]) -> float | None:
        """How far the judge is from the human (see `judge_human_difference`)."""
        return judge_human_difference(self.verdict, self.judge_choice, self.judge_mean(), golds)


def judge_human_difference(
    verdict: Verdict | None, judge_choice: str | None, judge_mean: float | None, golds: list[str]
) -> float | None:
    """The judge-human difference of one answer: where both chose an option, 0.0 for the
    same one and 1.0 for another (two different wrong options disagree although both score
    0, and no gold is needed); else |judge mean - human score|. None without a verdict, or
    without a judge score or a human score to compare."""
    if verdict is not None and verdict.choice is not None and judge_choice is not None:
        return 0.0 if verdict.choice == judge_choice else 1.0
    human = human_score(verdict, golds)
    return None if human is None or judge_mean is None else abs(judge_mean - human)


AxesOf = Callable[[Sample], dict[str, list[str]]]


@dataclass(frozen=True, slots=True)
class Filter:
    """Which entries the list shows; every condition set must hold."""

    unreviewed: bool = False
    flagged: bool = False
    failed: bool = False
    fallback: bool = False
    no_reply: bool = False  # judge results without a reply (see Entry.no_reply)
    disagreement: float | None = None  # `judge_human_difference` above this
    spread: float | None = None  # std across judge runs above this
    axis: tuple[str, str] | None = None  # (axis, value)
    model: str | None = None
    cause: str | None = None  # the answer's current error cause is this
    text: str | None = None  # searched in question and answer (the store finds the ids)
    text_ids: frozenset[int] | None = None
    cell_ids: frozenset[int] | None = None  # the answers counted in one table cell
    reviewers_disagree: frozenset[int] | None = None  # the store finds them (db/reviewers.py)
    judges_disagree: frozenset[int] | None = None  # the store finds them (db/judges.py)
    sources_disagree: frozenset[int] | None = None  # the store finds them (db/reconcile.py)
    sources_title: str = ""  # the cause they disagree by ("" for any)
    cell_title: str = ""
    flips: frozenset[int] | None = None  # the answers flipping between two judges (db/flips.py)
    flips_between: str = ""  # those judges: "A vs B"
    assigned: frozenset[int] | None = None  # the reviewer's assignments (db/assign.py)

    def _sources(self) -> str:
        if self.sources_disagree is None:
            return ""
        return (
            f"sources disagree: {self.sources_title}" if self.sources_title else "sources disagree"
        )

    def describe(self) -> str:
        """The active conditions, for the header ("all answers" when none)."""
        return " & ".join(self.conditions()) or "all answers"

    def conditions(self) -> list[str]:
        """Each active condition, as the header names it."""
        parts = [
            "unreviewed" if self.unreviewed else "",
            "flagged" if self.flagged else "",
            "judge failed" if self.failed else "",
            "fallback" if self.fallback else "",
            "judge result without a reply" if self.no_reply else "",
            f"|judge-human|>{self.disagreement:g}" if self.disagreement is not None else "",
            f"run std>{self.spread:g}" if self.spread is not None else "",
            f"{self.axis[0]}={self.axis[1]}" if self.axis else "",
            f"model={self.model}" if self.model else "",
            f"cause={self.cause}" if self.cause else "",
            f"text~{self.text!r}" if self.text else "",
            f"cell {self.cell_title}" if self.cell_ids is not None else "",
            "reviewers disagree" if self.reviewers_disagree is not None else "",
            "judges disagree" if self.judges_disagree is not None else "",
            f"judges disagree: {self.flips_between}" if self.flips is not None else "",
            self._sources(),
            "assigned to me" if self.assigned is not None else "",
        ]
        return [p for p in parts if p]


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One row of an answer's review history."""

    id: int
    score: float | None
    choice: str | None
    previous_score: float | None
    previous_choice: str | None
    action: str  # grade | accept | undo | note
    reviewer: str
    note: str | None
    created_at: str


def current(history: list[HistoryRow]) -> Verdict | None:
    """The verdict in force after a history (None when there is none)."""
    stack = _states(history)
    return stack[-1]


def undo_target(history: list[HistoryRow]) -> tuple[bool, Verdict | None]:
    """Whether an undo is possible, and the verdict it would restore."""
    stack = _states(history)
    return (len(stack) > 1, stack[-2] if len(stack) > 1 else None)


class _Action(Protocol):
    @property
    def action(self) -> str: ...


_Row = TypeVar("_Row", bound=_Action)


def in_force(history: Iterable[_Row]) -> list[_Row]:
    """The rows of one answer's history whose verdicts stack up: a verdict row pushes, an
    undo pops back to the one before, a note changes nothing. The last is in force."""
    stack: list[_Row] = []
    for row in history:
        if row.action == "undo":
            if stack:
                stack.pop()
        elif row.action != "note":
            stack.append(row)
    return stack


def _states(history: list[HistoryRow]) -> list[Verdict | None]:
    """The verdicts of `in_force`, over None (no verdict yet)."""
    return [None] + [
        Verdict(row.score, row.choice) if row.score is not None or row.choice is not None else None
        for row in in_force(history)
    ]


@dataclass(slots=True)
class Agreement:
    """The paper's judge-quality measure, live: the mean `judge_human_difference` over
    reviewed answers (for chosen options: the share where the judge chose another)."""

    total: float = 0.0
    count: int = 0
    per_answer: dict[int, float] = field(default_factory=dict)

    def set(self, answer_id: int, difference: float | None) -> None:
        old = self.per_answer.pop(answer_id, None)
        if old is not None:
            self.total -= old
            self.count -= 1
        if difference is not None:
            self.per_answer[answer_id] = difference
            self.total += difference
            self.count += 1

    @property
    def delta(self) -> float | None:
        return self.total / self.count if self.count else None
