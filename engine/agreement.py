"""How far a judge is from the human verdicts: the seeds' own judge studies as formulas.

MM-Vet Table 6 (the mean absolute difference Δ̄ between a judge's score and a human
score), Table 7 (several judges averaged and scored as one) and the judge noise (the
spread of a judge's runs); MMBench §4.2 (the alignment of an LLM's extracted choice with a
human's, its misalignments split into Case I and Case II) and Table 2 (how each answer was
settled); Cohen's kappa. Every interval is a seeded percentile bootstrap: the same data
always gives the same interval.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from statistics import fmean, pstdev

import numpy as np
import numpy.typing as npt

Indices = npt.NDArray[np.intp]  # a row of item indices per resample
Values = npt.NDArray[np.float64]  # a statistic per resample (nan: undefined on it)

RESAMPLES = 2000  # bootstrap resamples per interval
SEED = 13  # the bootstrap's seed: fixed, so an interval is reproducible
CHUNK = 64  # resamples drawn at once: 64 rows of 25,000 indices take 13 MB
CONFIDENCE = 0.95
CORRECT_FROM = 0.5  # an MM-Vet score at or above this counts as correct
NO_OPTION = "X"  # MMBench's label for "no option matches"
SETTLED_BY = ("matched", "llm", "fallback")  # MMBench's steps 1, 2 and 3


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic over `n` items with its bootstrap interval (None: no items, or the
    statistic undefined on them)."""

    value: float | None
    n: int
    low: float | None = None
    high: float | None = None


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, linearly interpolated between neighbours."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _draws(size: int, resamples: int) -> Iterator[Indices]:
    """The resamples' item indices, CHUNK rows at a time: exactly those that
    random.Random(SEED).choices(items, k=size) draws in turn (numpy's Mersenne Twister
    given Python's state makes the same doubles, floor(random() * size) the same picks),
    so the intervals are those of the pure-Python bootstrap, drawn at numpy's speed."""
    state = random.Random(SEED).getstate()[1]
    twister = np.random.RandomState()
    twister.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1], 0, 0.0))
    for start in range(0, resamples, CHUNK):
        rows = min(CHUNK, resamples - start)
        yield np.floor(twister.random_sample((rows, size)) * size).astype(np.intp)


def bootstrap(
    value: float | None,
    size: int,
    resampled: Callable[[Indices], Values],
    resamples: int = RESAMPLES,
) -> Estimate:
    """A statistic's `value` over `size` items with its percentile bootstrap interval
    (CONFIDENCE), drawn with the fixed SEED: the items resampled with replacement
    `resamples` times, `resampled` giving the statistic of each resample (a row of item
    indices) at once. Where the statistic is undefined (None) on the items there is no
    interval; a resample where it is undefined (nan: kappa of a draw with one label) is
    left out."""
    if not size:
        return Estimate(None, 0)
    if value is None:
        return Estimate(None, size)
    drawn = np.concatenate([resampled(rows) for rows in _draws(size, resamples)])
    values = sorted(drawn[~np.isnan(drawn)].tolist())
    if not values:
        return Estimate(value, size)
    tail = (1 - CONFIDENCE) / 2
    return Estimate(value, size, _percentile(values, tail), _percentile(values, 1 - tail))


def answer_score(runs: Sequence[float]) -> float:
    """A judge's score of one answer: the mean over its scored runs (MM-Vet averages a
    judge's runs before comparing it with the human score)."""
    return fmean(runs)


def _mean_distance(pairs: Sequence[tuple[float, float]]) -> float:
    return fmean(abs(judge - human) for judge, human in pairs)


def mean_abs_difference(pairs: Sequence[tuple[float, float]]) -> Estimate:
    """MM-Vet Table 6's Δ̄: the mean of |judge score - human score| over the human-reviewed
    answers, given as (judge score, human score) pairs, the judge's score being the mean of
    its runs on that answer (`answer_score`); N is the number of pairs."""
    if not pairs:
        return Estimate(None, 0)
    distances = np.array([abs(judge - human) for judge, human in pairs], dtype=np.float64)
    return bootstrap(_mean_distance(pairs), len(pairs), lambda rows: distances[rows].mean(axis=1))


def mean_run_std(runs_per_answer: Iterable[Sequence[float]]) -> float | None:
    """The judge noise: the population std of a judge's scores across its runs on one
    answer, averaged over the answers it scored at least twice (None: no such answer)."""
    spreads = [pstdev(runs) for runs in runs_per_answer if len(runs) >= 2]
    return fmean(spreads) if spreads else None


def kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters, from (label of one, label of the other) per item:
    (observed agreement - chance agreement) / (1 - chance agreement). Undefined (None)
    when chance agreement is 1, both raters always giving the same one label, as
    engine.judge_stats.weighted_kappa (sklearn gives nan)."""
    if not pairs:
        raise ValueError("kappa of no items")
    size = len(pairs)
    observed = sum(a == b for a, b in pairs) / size
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[label] * second[label] for label in first) / size**2
    return None if chance == 1 else (observed - chance) / (1 - chance)


def kappa_estimate(pairs: Sequence[tuple[Hashable, Hashable]]) -> Estimate:
    """Cohen's kappa with its bootstrap interval (each resample's kappa worked out as
    `kappa` does, over label codes, in the same integer counts and divisions)."""
    if not pairs:
        return Estimate(None, 0)
    size = len(pairs)
    codes: dict[Hashable, int] = {}
    first = np.array([codes.setdefault(a, len(codes)) for a, _ in pairs], dtype=np.intp)
    second = np.array([codes.setdefault(b, len(codes)) for _, b in pairs], dtype=np.intp)

    def resampled(rows: Indices) -> Values:
        one, other = first[rows], second[rows]
        observed = (one == other).sum(axis=1) / size
        both = sum((one == c).sum(axis=1) * (other == c).sum(axis=1) for c in range(len(codes)))
        chance = both / size**2
        with np.errstate(divide="ignore", invalid="ignore"):  # chance 1: undefined, as kappa's
            return np.where(chance == 1, np.nan, (observed - chance) / (1 - chance))

    return bootstrap(kappa(pairs), size, resampled)


def correct(score: float) -> bool:
    """Whether a score counts as a correct answer, for kappa on correct/incorrect."""
    return score >= CORRECT_FROM


@dataclass(frozen=True, slots=True)
class Alignment:
    """MMBench §4.2: of `n` answers, `aligned` where the judge's choice equals the human's;
    the others are Case I (exactly one side said "no option matches") or Case II (both
    chose an option, different ones)."""

    n: int
    aligned: int
    case_one: int
    case_two: int

    @property
    def rate(self) -> float | None:
        return self.aligned / self.n if self.n else None


def alignment(pairs: Iterable[tuple[str, str]]) -> Alignment:
    """The alignment of (judge's choice, human's choice) pairs, on answers that option
    matching (step 1) could not settle."""
    counts = Counter(
        "aligned" if judge == human else "one" if NO_OPTION in (judge, human) else "two"
        for judge, human in pairs
    )
    return Alignment(counts.total(), counts["aligned"], counts["one"], counts["two"])


def settled_shares(methods: Iterable[str]) -> dict[str, float]:
    """MMBench Table 2: the share of answers settled by each step (matched, llm,
    fallback), given each answer's method; empty for no answers."""
    counts = Counter(methods)
    total = counts.total()
    return {step: counts[step] / total for step in SETTLED_BY} if total else {}


def combined(scores: Sequence[float]) -> float:
    """MM-Vet Table 7: several judges' scores of one answer averaged into one score."""
    return fmean(scores)
