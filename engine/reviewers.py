"""Several reviewers on one file: each one's own verdicts, and how far they agree.

Cohen's kappa for a pair of reviewers, Krippendorff's alpha for any number (nominal for
chosen options, interval for scores). Pure values: db/reviewers.py reads the history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, groupby
from operator import attrgetter
from typing import Protocol, TypeVar

from lmmreview.engine.agreement import kappa
from lmmreview.engine.review import HistoryRow, in_force
from lmmreview.engine.scoring import Verdict

V = TypeVar("V")
SCORES, CHOICES = "scores", "choices"


class VerdictRow(Protocol):
    """What a row of one reviewer's history of one answer must tell to find their verdict."""

    @property
    def action(self) -> str: ...
    @property
    def score(self) -> float | None: ...
    @property
    def choice(self) -> str | None: ...


class ReviewRow(VerdictRow, Protocol):
    """What a review row must tell to find its reviewer's own verdict."""

    @property
    def answer_id(self) -> int: ...
    @property
    def reviewer(self) -> str: ...


_Row = TypeVar("_Row", bound=ReviewRow)
_Own = TypeVar("_Own", bound=VerdictRow)


def own_verdicts(rows: Iterable[ReviewRow]) -> dict[int, dict[str, Verdict]]:
    """answer -> reviewer -> the verdict that reviewer's own rows leave in force (see
    `own_rows`)."""
    return verdicts_of(own_rows(rows))


def verdicts_of(tops: Mapping[int, Mapping[str, ReviewRow]]) -> dict[int, dict[str, Verdict]]:
    """The verdicts of `own_rows`'s rows."""
    return {
        answer: {reviewer: Verdict(row.score, row.choice) for reviewer, row in by.items()}
        for answer, by in tops.items()
    }


def own_rows(rows: Iterable[_Row]) -> dict[int, dict[str, _Row]]:
    """answer -> reviewer -> the row of the verdict that reviewer's own rows leave in force.

    `rows` come grouped by answer and reviewer, each group in time order. A reviewer's
    verdicts stack as in `engine.review.in_force`: an undo takes back their latest one (so
    an undo row is never a verdict) and a note changes nothing; a row with neither score
    nor choice leaves the reviewer without a verdict.
    """
    tops: dict[int, dict[str, _Row]] = {}
    for (answer, reviewer), group in groupby(rows, key=attrgetter("answer_id", "reviewer")):
        top = own_top(group)
        if top is not None:
            tops.setdefault(answer, {})[reviewer] = top
    return tops


def own_top(rows: Iterable[_Own]) -> _Own | None:
    """The row of the verdict one reviewer's rows of one answer, in time order, leave in
    force (see `own_rows`); None: no verdict of theirs."""
    stack = in_force(rows)
    if stack and (stack[-1].score is not None or stack[-1].choice is not None):
        return stack[-1]
    return None


def own_verdict(history: Iterable[HistoryRow], reviewer: str) -> Verdict | None:
    """The verdict `reviewer`'s own rows of an answer's history leave in force (None: none;
    another reviewer's may be in force), in time order as `lmmreview reviewers` takes them:
    rows merged from another file come after this file's own in id order, whatever their
    time."""
    mine = sorted(
        (r for r in history if r.reviewer == reviewer), key=attrgetter("created_at", "id")
    )
    top = own_top(mine)
    return None if top is None else Verdict(top.score, top.choice)


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items (engine.agreement.kappa);
    None when undefined: no items, or one and the same label throughout (chance
    agreement 1)."""
    return kappa(pairs) if pairs else None


def nominal(a: Hashable, b: Hashable) -> float:
    """Krippendorff's nominal difference: equal or not."""
    return 0.0 if a == b else 1.0


def interval(a: float, b: float) -> float:
    """Krippendorff's interval difference: the squared distance."""
    return (a - b) ** 2


def krippendorff_alpha(
    units: Iterable[Sequence[V]], difference: Callable[[V, V], float]
) -> float | None:
    """Krippendorff's alpha: 1 - observed / expected disagreement, over the units (the
    values the raters gave one item) that hold at least two values. None when undefined:
    no such unit, or every value is the same (no disagreement is expected)."""
    pairable = [unit for unit in units if len(unit) > 1]
    values: Counter[V] = Counter(v for unit in pairable for v in unit)
    n = sum(values.values())
    if n < 2:
        return None
    observed = (
        sum(
            sum(difference(a, b) for a, b in combinations(unit, 2)) * 2 / (len(unit) - 1)
            for unit in pairable
        )
        / n
    )
    expected = sum(
        values[a] * values[b] * difference(a, b) * 2 for a, b in combinations(values, 2)
    ) / (n * (n - 1))
    return None if expected == 0 else 1 - observed / expected


@dataclass(frozen=True, slots=True)
class PairKappa:
    """Cohen's kappa of two reviewers on the answers both gave a verdict of one kind."""

    first: str
    second: str
    answers: int
    kappa: float | None


@dataclass(frozen=True, slots=True)
class Measure:
    """Agreement on one kind of verdict (scores or chosen options)."""

    kind: str  # SCORES | CHOICES
    answers: int  # answers with verdicts of this kind by at least two reviewers
    pairs: list[PairKappa]
    alpha: float | None  # interval for scores, nominal for choices


@dataclass(frozen=True, slots=True)
class ReviewerAgreement:
    """How a dataset's reviewers agree, and where they do not."""

    reviewed: dict[str, int]  # reviewer -> answers with their own verdict
    scores: Measure
    choices: Measure
    disagreements: list[int]  # answers on which two reviewers' verdicts differ


def _value(verdict: Verdict, kind: str) -> float | str | None:
    """The verdict's value of one kind: a score given as a score, or a chosen option."""
    if kind == CHOICES:
        return verdict.choice
    return verdict.score if verdict.choice is None else None


def _values(by_reviewer: Mapping[str, Verdict], kind: str) -> dict[str, float | str]:
    """reviewer -> value of one kind, for the reviewers whose verdict is of that kind."""
    values = {reviewer: _value(verdict, kind) for reviewer, verdict in by_reviewer.items()}
    return {reviewer: value for reviewer, value in values.items() if value is not None}


def _measure(verdicts: Mapping[int, Mapping[str, Verdict]], kind: str) -> Measure:
    """Pairwise kappa and overall alpha on the verdicts of one kind."""
    units = {
        answer: values
        for answer, by_reviewer in verdicts.items()
        if len(values := _values(by_reviewer, kind)) > 1
    }
    reviewers = sorted({r for values in units.values() for r in values})
    pairs = []
    for first, second in combinations(reviewers, 2):
        both = [(v[first], v[second]) for v in units.values() if first in v and second in v]
        if both:
            pairs.append(PairKappa(first, second, len(both), cohen_kappa(both)))
    difference: Callable[[float | str, float | str], float] = (
        nominal if kind == CHOICES else interval  # type: ignore[assignment]
    )
    alpha = krippendorff_alpha([list(v.values()) for v in units.values()], difference)
    return Measure(kind, len(units), pairs, alpha)


def disagreements(verdicts: Mapping[int, Mapping[str, Verdict]]) -> list[int]:
    """Answers (in id order) on which reviewers' own verdicts are not all the same."""
    return sorted(answer for answer, by in verdicts.items() if len(set(by.values())) > 1)


def agreement(verdicts: Mapping[int, Mapping[str, Verdict]]) -> ReviewerAgreement:
    """Everything `lmmreview reviewers` shows for one dataset, from `own_verdicts`."""
    reviewed = Counter(r for by_reviewer in verdicts.values() for r in by_reviewer)
    return ReviewerAgreement(
        dict(sorted(reviewed.items())),
        _measure(verdicts, SCORES),
        _measure(verdicts, CHOICES),
        disagreements(verdicts),
    )
