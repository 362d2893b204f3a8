"""Why sources disagree on one model's answers (`lmmreview reconcile`): the kind of each
disagreement between two sources on an answer, and how much of the difference between
their overall figures each kind explains. Pure values in, pure values out.

A source is what one judge made of one model's answers (db/reconcile.py reads them): the
offline rules, an imported verdict (the official script's, VLMEvalKit's, lmms-eval's), an
LLM judge. The figure compared is a source's mean answer score in points (100 x the mean
over the answers it scored): MMMU's overall accuracy, MM-Vet's total. The shares add up to
the whole difference exactly (see `compare`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from statistics import fmean


class Discrepancy(StrEnum):
    """Why two sources score an answer differently; the first that holds, in this order
    (an upstream difference explains the ones after it)."""

    MISSING = "missing"  # one side has no score: no answer, or its judge never judged it
    TEXT = "text"  # the two scored different response texts
    GOLD = "gold"  # the two compared against different gold answers
    JUDGE_FAILURE = "judge-failure"  # a side's judge failed (some tools store that as a 0)
    FALLBACK = "fallback"  # a side's choice was drawn at random
    PARSE = "parse"  # the same text and gold read differently: extraction, parse, judging


TITLES = {
    Discrepancy.MISSING: "item missing on one side",
    Discrepancy.TEXT: "different response text",
    Discrepancy.GOLD: "different gold",
    Discrepancy.JUDGE_FAILURE: "judge failure",
    Discrepancy.FALLBACK: "random fallback",
    Discrepancy.PARSE: "different extraction or parse",
}


@dataclass(frozen=True, slots=True)
class Reading:
    """What one source says of one answer: the text it scored, the golds it scored against,
    its score (the mean of its scored runs; None: unscored), and what its judgment records."""

    text: str
    golds: frozenset[str]
    score: float | None
    choice: str | None = None  # the option it chose (shown beside its score)
    fallback: bool = False  # marked so, or a parse that found no candidate (drawn at random)
    judge_failed: bool = False  # a failed call, or a failure the tool stored as a score


# What VLMEvalKit's choice extractor writes in a row's `log` (vlmeval/dataset/utils/
# multiple_choice.py): the judge was unavailable, so exact matching decided (opt `Z`
# where it found nothing), or the judge failed three times and an option was drawn.
EXACT_MATCHING_MARK = "Failed in Prefetch"
RANDOM_MARK = "randomly generate"


def _scored(reading: Reading | None) -> bool:
    return reading is not None and reading.score is not None


def same_score(one: float | None, other: float | None) -> bool:
    """Two scores equal to within rounding (a mean of runs); None only equals None."""
    if one is None or other is None:
        return one is other
    return math.isclose(one, other, abs_tol=1e-9)


def discrepancy(first: Reading | None, second: Reading | None) -> Discrepancy | None:
    """Why two sources' readings of one answer differ (None: they agree, or neither scored
    it). A side without a score is a judge failure where its judge failed, else missing."""
    if not _scored(first) and not _scored(second):
        return None
    if first is None or second is None or first.score is None or second.score is None:
        unscored = second if _scored(first) else first
        failed = unscored is not None and unscored.judge_failed
        return Discrepancy.JUDGE_FAILURE if failed else Discrepancy.MISSING
    if same_score(first.score, second.score):
        return None
    if first.text != second.text:
        return Discrepancy.TEXT
    if first.golds != second.golds:
        return Discrepancy.GOLD
    if first.judge_failed or second.judge_failed:
        return Discrepancy.JUDGE_FAILURE
    if first.fallback or second.fallback:
        return Discrepancy.FALLBACK
    return Discrepancy.PARSE


@dataclass(frozen=True, slots=True)
class Share:
    """One answer's disagreement between two sources, and its share of the difference of
    their figures (first minus second, in points)."""

    key: str
    kind: Discrepancy
    points: float


@dataclass(frozen=True, slots=True)
class Pair:
    """Two sources compared: their figures (None: a source scored nothing), the difference
    (first minus second), and each disagreeing answer's share of it."""

    first: str
    second: str
    figures: tuple[float | None, float | None]
    shares: tuple[Share, ...]

    @property
    def difference(self) -> float | None:
        one, other = self.figures
        return None if one is None or other is None else one - other

    def by_kind(self) -> dict[Discrepancy, tuple[int, float]]:
        """Per kind present: how many answers, and the points they explain."""
        totals: dict[Discrepancy, tuple[int, float]] = {}
        for share in self.shares:
            count, points = totals.get(share.kind, (0, 0.0))
            totals[share.kind] = (count + 1, points + share.points)
        return {kind: totals[kind] for kind in Discrepancy if kind in totals}


def figure(scores: Collection[float]) -> float | None:
    """A source's overall figure: 100 x its mean answer score (None: it scored none)."""
    return 100 * fmean(scores) if scores else None


def compare(
    first_name: str,
    first: Mapping[str, Reading],
    second_name: str,
    second: Mapping[str, Reading],
) -> Pair:
    """Two sources' readings by answer key, compared.

    The difference of the figures splits exactly over the answers. With A and B the
    answers each side scored, C = A & B, and m_a, m_b each side's mean over C:
    figure_a - figure_b = (figure_a - m_a) + (m_a - m_b) + (m_b - figure_b). The middle
    term is the sum over C of (a_i - b_i) / |C|; the first is the sum over A - C of
    (a_i - m_a) / |A|, the last minus the sum over B - C of (b_i - m_b) / |B|. So an answer
    both scored explains its score difference over |C|, and one only a side scored what
    it moved that side's mean. Where a side scored nothing, there is no difference to
    split: the disagreements are listed with no points."""
    a = {key: r.score for key, r in first.items() if r.score is not None}
    b = {key: r.score for key, r in second.items() if r.score is not None}
    common = a.keys() & b.keys()
    mean_a = fmean(a[k] for k in common) if common else 0.0
    mean_b = fmean(b[k] for k in common) if common else 0.0
    split = bool(a and b)
    shares = []
    for key in sorted(first.keys() | second.keys()):
        kind = discrepancy(first.get(key), second.get(key))
        if kind is None:
            continue
        if not split:
            points = 0.0
        elif key in common:
            points = (a[key] - b[key]) / len(common)
        elif key in a:
            points = (a[key] - mean_a) / len(a)
        else:
            points = -(b[key] - mean_b) / len(b)
        shares.append(Share(key, kind, 100 * points))
    return Pair(first_name, second_name, (figure(a.values()), figure(b.values())), tuple(shares))


def compare_all(sources: Mapping[str, Mapping[str, Reading]]) -> list[Pair]:
    """Every pair of sources, in the order given."""
    names = list(sources)
    return [
        compare(one, sources[one], other, sources[other])
        for i, one in enumerate(names)
        for other in names[i + 1 :]
    ]


def agreeing(readings: Mapping[str, Reading | None]) -> list[list[str]]:
    """The sources that agree on one answer, grouped: those with the same score together
    (to within rounding), those without one in a group of their own, in first-seen order."""
    groups: list[tuple[float | None, list[str]]] = []
    for name, reading in readings.items():
        score = reading.score if reading is not None else None
        for value, members in groups:
            if same_score(value, score):
                members.append(name)
                break
        else:
            groups.append((score, [name]))
    return [members for _, members in groups]
