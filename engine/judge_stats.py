"""A judge measured as the judge-reliability papers measure it, against the human verdicts.

Correlations between judge and human scores (Pearson, Spearman, Kendall's tau-b), at the
answer level and at the system level (per-model means: do they rank the models alike?),
as MLLM-as-a-Judge (Chen et al., 2024) and G-Eval report them; Cohen's kappa unweighted
and weighted (linear, quadratic) over the score levels; the confusion matrix judge ×
human; calibration (reliability bins, ECE and Brier, Guo et al., 2017; Brier, 1950); order
consistency, the share of items asked in several orders whose verdicts do not depend on the
order (Zheng et al., 2023; Wang et al., 2023; on rotated options, whether the judge picks
the same option text wherever it sits); and the model families that make a judge
self-preferring (Panickssery et al., 2024). Pure values: db/judges.py reads them.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean

import numpy as np

from lmmreview.engine.agreement import correct
from lmmreview.engine.reviewers import interval, krippendorff_alpha

BINS = 10  # reliability-diagram bins: equal-width over the judge's score, 0 to 1
WRONG, RIGHT = "wrong", "right"  # a binary benchmark's two levels
LEVEL_DIGITS = 6  # a score level is its value to this many decimals (float noise aside)


@dataclass(frozen=True, slots=True)
class Correlation:
    """Pearson, Spearman and Kendall's tau-b over `n` (judge, human) pairs; None where
    undefined (fewer than two pairs, or one side constant)."""

    n: int
    pearson: float | None
    spearman: float | None
    kendall: float | None


@dataclass(frozen=True, slots=True)
class Kappas:
    """Cohen's kappa over the score levels of `n` answers: unweighted, and weighted by the
    levels' rank distance (linear) or its square (quadratic); None where undefined."""

    n: int
    unweighted: float | None
    linear: float | None
    quadratic: float | None


@dataclass(frozen=True, slots=True)
class Confusion:
    """Judge × human: counts[judge_level][human_level] over the levels, in order."""

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def n(self) -> int:
        return sum(map(sum, self.counts))


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One bin of the judge's score, [lower, upper) (the last one closed): its answers,
    and their mean judge and human scores (None: empty)."""

    lower: float
    upper: float
    count: int
    mean_judge: float | None
    mean_human: float | None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The reliability diagram's bins, the expected calibration error and the Brier score
    (None: no answers)."""

    bins: tuple[ReliabilityBin, ...]
    ece: float | None
    brier: float | None


@dataclass(frozen=True, slots=True)
class OrderConsistency:
    """Of `groups` items a judge gave a verdict in at least two orders, `consistent` got
    the same verdict in every order."""

    groups: int
    consistent: int

    @property
    def rate(self) -> float | None:
        return self.consistent / self.groups if self.groups else None


# -- correlations ---------------------------------------------------------------------


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None for fewer than two pairs or a constant side."""
    a, b = np.asarray(x, float), np.asarray(y, float)
    if len(a) < 2 or _constant(a) or _constant(b):
        return None
    a, b = a - a.mean(), b - b.mean()
    return float(np.clip((a @ b) / np.sqrt((a @ a) * (b @ b)), -1.0, 1.0))


def _constant(values: np.ndarray) -> bool:
    """Zero variance, tested on the values themselves: the deviations from a float mean
    of equal values (0.1 seven times) need not be exactly zero."""
    return bool(values.min() == values.max())


def ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties given their mean rank (as Spearman's rho wants)."""
    array = np.asarray(values, float)
    order = np.argsort(array, kind="stable")
    ordered = array[order]
    result = np.empty(len(array))
    start = 0
    for end in range(1, len(array) + 1):
        if end == len(array) or ordered[end] != ordered[start]:
            result[order[start:end]] = (start + end + 1) / 2
            start = end
    return result


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's r of the mean ranks."""
    return pearson(list(ranks(x)), list(ranks(y))) if len(x) >= 2 else None


def kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b: (concordant - discordant) pairs over the geometric mean of the
    pairs untied in x and untied in y, so ties are accounted for. Counted from the values'
    levels, not pair by pair: from their contingency table when the levels are few (judge
    and human scores), else by merge counting (O(n log n))."""
    xs, ys = _dense(x), _dense(y)
    n = len(xs)
    pairs = n * (n - 1) // 2
    untied_x, untied_y = pairs - _tied(xs), pairs - _tied(ys)
    if untied_x == 0 or untied_y == 0:
        return None
    levels_x, levels_y = int(xs.max()) + 1, int(ys.max()) + 1
    if levels_x * levels_y <= max(n, 1) * 4:
        both = _concordance(np.bincount(xs * levels_y + ys, minlength=levels_x * levels_y)
                            .reshape(levels_x, levels_y))  # fmt: skip
    else:
        tied_both = _tied(xs * levels_y + ys)
        order = np.lexsort((ys, xs))  # by x, then y: a pair out of order is discordant
        discordant = _inversions(ys[order], levels_y)
        both = untied_x - _tied(ys) + tied_both - 2 * discordant
    return float(np.clip(both / math.sqrt(untied_x * untied_y), -1.0, 1.0))


def _dense(values: Sequence[float]) -> np.ndarray:
    """Each value's level: its place among the distinct values, from 0."""
    return np.unique(np.asarray(values, float), return_inverse=True)[1].ravel().astype(np.int64)


def _tied(levels: np.ndarray) -> int:
    """The pairs of equal levels."""
    counts = np.unique(levels, return_counts=True)[1]
    return int((counts * (counts - 1) // 2).sum())


def _concordance(table: np.ndarray) -> int:
    """Concordant minus discordant pairs of a contingency table (x levels by y levels): each
    cell's count times the counts above it in x and above (concordant) or below
    (discordant) in y, from 2-D cumulative sums."""
    padded = np.zeros((table.shape[0] + 1, table.shape[1] + 2), np.int64)
    padded[:-1, 1:-1] = table
    above_x = padded[::-1].cumsum(axis=0)[::-1]  # rows i and above
    higher = above_x[:, ::-1].cumsum(axis=1)[:, ::-1]  # and columns j and above
    lower = above_x.cumsum(axis=1)  # and columns j and below
    concordant = int((table * higher[1:, 2:]).sum())
    discordant = int((table * lower[1:, :-2]).sum())
    return concordant - discordant


def _inversions(values: np.ndarray, levels: int) -> int:
    """The pairs i < j with values[i] > values[j], by bottom-up merging: at each width,
    every right half's values count the larger ones of its left half (whose blocks are
    sorted, so one sorted array of (block, value) keys serves them all)."""
    found, current, at = 0, values.copy(), np.arange(len(values))
    width = 1
    while width < len(values):
        block = at // (2 * width) * levels
        left = (at // width) % 2 == 0
        keys = block[left] + current[left]
        right_keys = block[~left] + current[~left]
        found += int(
            (
                np.searchsorted(keys, block[~left] + levels)
                - np.searchsorted(keys, right_keys, side="right")
            ).sum()
        )
        current = np.sort(block + current) - block
        width *= 2
    return found


def correlation(pairs: Sequence[tuple[float, float]]) -> Correlation:
    """The three correlations of (judge, human) pairs."""
    x, y = [j for j, _ in pairs], [h for _, h in pairs]
    return Correlation(len(pairs), pearson(x, y), spearman(x, y), kendall(x, y))


def system_pairs(
    pairs: Mapping[int, tuple[float, float]], models: Mapping[int, str]
) -> list[tuple[float, float]]:
    """Per model (in name order), its mean judge score and mean human score over its
    answers among `pairs` (answer -> (judge, human))."""
    by_model: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for answer, pair in pairs.items():
        by_model[models[answer]].append(pair)
    return [
        (fmean(j for j, _ in mine), fmean(h for _, h in mine))
        for _, mine in sorted(by_model.items())
    ]


# -- levels: confusion and kappa ------------------------------------------------------


def is_graded(scores: Iterable[float]) -> bool:
    """Whether some score lies strictly between 0 and 1 (else the benchmark is 0/1)."""
    return any(0 < s < 1 for s in scores)


def levels(pairs: Sequence[tuple[float, float]], graded: bool) -> list[tuple[str, str]]:
    """Each (judge, human) pair as two level labels: the score's value when graded, else
    wrong/right (a score of 0.5 or more is right)."""
    if graded:
        return [(_level(j), _level(h)) for j, h in pairs]
    return [(RIGHT if correct(j) else WRONG, RIGHT if correct(h) else WRONG) for j, h in pairs]


def _level(score: float) -> str:
    return f"{round(score, LEVEL_DIGITS):g}"


def confusion(labelled: Sequence[tuple[str, str]], graded: bool) -> Confusion:
    """The judge × human counts; labels are wrong/right, or the score levels seen in
    ascending order."""
    if graded:
        labels = tuple(sorted({label for pair in labelled for label in pair}, key=float))
    else:
        labels = (WRONG, RIGHT)
    index = {label: i for i, label in enumerate(labels)}
    counts = np.zeros((len(labels), len(labels)), dtype=int)
    for judge, human in labelled:
        counts[index[judge], index[human]] += 1
    return Confusion(labels, tuple(tuple(int(c) for c in row) for row in counts))


def weighted_kappa(table: Confusion, power: int | None) -> float | None:
    """Cohen's kappa from a confusion table: 1 - weighted observed / weighted chance
    disagreement, the weight of levels i, j being |i - j| ** power (None: 1 off the
    diagonal, the unweighted kappa). None when no disagreement is expected by chance."""
    counts = np.asarray(table.counts, float)
    total = counts.sum()
    if total == 0:
        return None
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / total
    distance = np.abs(np.subtract.outer(np.arange(len(counts)), np.arange(len(counts))))
    weights = (distance > 0).astype(float) if power is None else distance.astype(float) ** power
    chance = float((weights * expected).sum())
    return None if chance == 0 else 1 - float((weights * counts).sum()) / chance


def kappas(table: Confusion) -> Kappas:
    """The unweighted, linear and quadratic kappas of one confusion table."""
    return Kappas(
        table.n, weighted_kappa(table, None), weighted_kappa(table, 1), weighted_kappa(table, 2)
    )


@dataclass(frozen=True, slots=True)
class ReviewerPair:
    """Two reviewers' kappas over the score levels, on the answers both scored."""

    first: str
    second: str
    kappas: Kappas


@dataclass(frozen=True, slots=True)
class HumanAgreement:
    """How the reviewers agree with each other, to set beside a judge's agreement with
    them: per pair the kappas, and Krippendorff's interval alpha over every reviewer."""

    answers: int  # answers scored by two reviewers or more
    pairs: tuple[ReviewerPair, ...]
    alpha: float | None


def human_agreement(scores: Mapping[int, Mapping[str, float]], graded: bool) -> HumanAgreement:
    """The reviewers' agreement, from answer -> reviewer -> the score of their own verdict
    (engine.reviewers reads the verdicts; its alpha is reused)."""
    units = {answer: by for answer, by in scores.items() if len(by) > 1}
    reviewers = sorted({r for by in units.values() for r in by})
    pairs = []
    for first, second in combinations(reviewers, 2):
        both = [(by[first], by[second]) for by in units.values() if first in by and second in by]
        if both:
            pairs.append(
                ReviewerPair(first, second, kappas(confusion(levels(both, graded), graded)))
            )
    alpha = krippendorff_alpha([list(by.values()) for by in units.values()], interval)
    return HumanAgreement(len(units), tuple(pairs), alpha)


# -- calibration ----------------------------------------------------------------------


def calibration(pairs: Sequence[tuple[float, float]], bins: int = BINS) -> Calibration:
    """Reliability bins of the judge's score (equal width over 0 to 1: bin floor(10 x
    score), the product rounded to LEVEL_DIGITS decimals; a score of 1 in the last bin),
    ECE (the count-weighted mean of |mean judge - mean human| per bin) and Brier (the
    mean squared judge - human difference)."""
    placed: list[list[tuple[float, float]]] = [[] for _ in range(bins)]
    for judge, human in pairs:
        # rounded first: a mean of runs such as 0.7 - 1e-16 is in the bin of 0.7
        placed[min(max(math.floor(round(judge * bins, LEVEL_DIGITS)), 0), bins - 1)].append(
            (judge, human)
        )
    found = tuple(
        ReliabilityBin(
            i / bins,
            (i + 1) / bins,
            len(inside),
            fmean(j for j, _ in inside) if inside else None,
            fmean(h for _, h in inside) if inside else None,
        )
        for i, inside in enumerate(placed)
    )
    if not pairs:
        return Calibration(found, None, None)
    ece = sum(
        b.count * abs(b.mean_judge - b.mean_human)
        for b in found
        if b.mean_judge is not None and b.mean_human is not None
    ) / len(pairs)
    brier = fmean((j - h) ** 2 for j, h in pairs)
    return Calibration(found, ece, brier)


# -- order consistency and self-preference --------------------------------------------


def order_consistency(groups: Iterable[Sequence[float | str]]) -> OrderConsistency:
    """Over the groups of one item's verdicts in its orders (a review asked with either
    answer first; the option texts a judge picked in a circular group's rotations), those
    with two verdicts or more, and how many of them are all equal."""
    judged = [verdicts for verdicts in groups if len(verdicts) >= 2]
    return OrderConsistency(len(judged), sum(len(set(v)) == 1 for v in judged))


# A bare option letter, as a model answers a choice question: "A", "(b)", "C.", "Answer: D"
_BARE_LETTER = re.compile(r"(answer\s*:?\s*)?\(?[a-z]\)?[.:]?")
NO_OPTION_TEXT = ""  # what a judge picked when it said no option matches (or named none)


def answered_alike(texts: Sequence[str]) -> bool:
    """Whether a circular group's answers are one and the same text in every rotation
    (spaces and case aside) and not a bare option letter, whose meaning moves with the
    options: the groups where a judge's extraction can be checked against the order."""
    found = {" ".join(text.split()).casefold() for text in texts}
    return len(found) == 1 and _BARE_LETTER.fullmatch(next(iter(found))) is None


def rotation_consistency(groups: Iterable[Sequence[str | None]]) -> OrderConsistency:
    """A judge's order consistency on circular groups answered alike (`answered_alike`),
    from the option text it picked in each rotation (None: it extracted no choice).
    Counted: the groups with a choice in every rotation; consistent: the same option text
    in all of them, wherever the option sat."""
    counted = []
    for group in groups:
        picked = [p for p in group if p is not None]
        if len(picked) == len(group):
            counted.append(picked)
    return order_consistency(counted)


def family(model: str, families: Mapping[str, str]) -> str | None:
    """A model's family: the longest pattern of `families` its name (lower case, any
    provider prefix such as `openai/` dropped) starts with at a token boundary; None when
    none does."""
    name = model.lower().rsplit("/", 1)[-1]
    matches = [p for p in families if _starts_token(name, p.lower())]
    return families[max(matches, key=len)] if matches else None


def _starts_token(name: str, start: str) -> bool:
    """Whether `name` starts with `start` and the token goes no further: not "o1" in
    "o10-x" nor "phi" in "phind", but "gpt" in "gpt-4o" and "gpt4" (letters to digits)."""
    if not start or not name.startswith(start):
        return False
    if name == start:
        return True
    last, after = start[-1], name[len(start)]
    same_kind = (last.isalpha() and after.isalpha()) or (last.isdigit() and after.isdigit())
    return not same_kind


def same_family(judge: str, models: Iterable[str], families: Mapping[str, str]) -> tuple[str, ...]:
    """The evaluated models of the judge model's own family (in name order)."""
    own = family(judge, families) if judge else None
    if own is None:
        return ()
    return tuple(sorted(m for m in set(models) if family(m, families) == own))
