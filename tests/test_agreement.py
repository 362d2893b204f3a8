"""The judge-study formulas of engine/agreement.py, against hand computations."""

from __future__ import annotations

import random
from statistics import fmean

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.agreement import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    Alignment,
    Estimate,
    alignment,
    answer_score,
    bootstrap,
    combined,
    correct,
    kappa,
    kappa_estimate,
    mean_abs_difference,
    mean_run_std,
    settled_shares,
)
from lmmreview.engine.judge_stats import confusion, levels, weighted_kappa

scores = st.floats(min_value=0, max_value=1, allow_nan=False)
labels = st.sampled_from("ABX")


def test_mean_abs_difference_is_the_mean_distance_with_n_and_an_interval_around_it() -> None:
    pairs = [(0.5, 1.0), (1.0, 1.0), (0.2, 0.0)]  # |.5-1| + 0 + .2 = .7 over 3
    estimate = mean_abs_difference(pairs)
    assert estimate.value == pytest.approx(0.7 / 3)
    assert estimate.n == 3
    assert estimate.low is not None and estimate.high is not None
    assert 0 <= estimate.low <= estimate.value <= estimate.high <= 0.5


def test_the_bootstrap_is_seeded_the_same_data_gives_the_same_interval() -> None:
    pairs = [(i / 10, (i % 3) / 2) for i in range(11)]
    assert mean_abs_difference(pairs) == mean_abs_difference(list(pairs))


def test_no_pairs_give_no_value_and_n_zero() -> None:
    estimate = mean_abs_difference([])
    assert (estimate.value, estimate.n, estimate.low, estimate.high) == (None, 0, None, None)


@given(st.lists(st.tuples(scores, scores), min_size=1, max_size=20))
def test_the_interval_holds_only_values_the_resamples_can_take(pairs) -> None:
    distances = [abs(a - b) for a, b in pairs]
    d = np.array(distances)
    estimate = bootstrap(float(d.mean()), len(pairs), lambda rows: d[rows].mean(axis=1), 200)
    assert estimate.low is not None and estimate.high is not None
    assert min(distances) - 1e-9 <= estimate.low <= estimate.high <= max(distances) + 1e-9


def test_a_judges_answer_score_is_the_mean_of_its_runs() -> None:
    assert answer_score([0.2, 0.4, 0.9]) == pytest.approx(0.5)


def test_mean_run_std_averages_the_population_std_of_answers_with_two_runs_or_more() -> None:
    # pstdev(0, 1) = 0.5, pstdev(1, 1, 1) = 0, the single run is left out
    assert mean_run_std([[0.0, 1.0], [0.5], [1.0, 1.0, 1.0]]) == pytest.approx(0.25)
    assert mean_run_std([[0.3], []]) is None


def test_kappa_of_the_textbook_table() -> None:
    # 50 items: both A 20, A/B 5, B/A 10, both B 15. Observed .7; the first says A 25
    # times, the second 30: chance (25*30 + 25*20) / 2500 = .5; kappa (.7-.5)/.5 = .4
    pairs = [("A", "A")] * 20 + [("A", "B")] * 5 + [("B", "A")] * 10 + [("B", "B")] * 15
    assert kappa(pairs) == pytest.approx(0.4)


def test_kappa_of_perfect_agreement_is_one_and_of_nothing_an_error() -> None:
    assert kappa([("A", "A"), ("B", "B")]) == 1.0
    with pytest.raises(ValueError):
        kappa([])


def test_kappa_of_one_label_throughout_is_undefined_as_the_weighted_one() -> None:
    """Chance agreement 1: None, as weighted_kappa says and sklearn's nan; no interval."""
    pairs = [("A", "A")] * 4
    assert kappa(pairs) is None
    table = confusion(levels([(1.0, 1.0)] * 4, False), False)
    assert weighted_kappa(table, None) is None
    assert kappa_estimate(pairs) == Estimate(None, 4)


@given(st.lists(st.tuples(labels, labels), min_size=1, max_size=30))
def test_kappa_is_symmetric_and_at_most_one(pairs) -> None:
    value = kappa(pairs)
    if value is None:  # one label throughout
        assert len({label for pair in pairs for label in pair}) == 1
        return
    assert value <= 1 + 1e-12
    assert value == pytest.approx(kappa([(b, a) for a, b in pairs]))


def test_kappa_estimate_carries_its_interval() -> None:
    pairs = [(True, True)] * 6 + [(False, False)] * 3 + [(True, False)]
    estimate = kappa_estimate(pairs)
    assert estimate.value == pytest.approx(kappa(pairs))
    assert estimate.n == 10
    assert estimate.high is not None and estimate.high <= 1.0


def test_a_score_of_a_half_is_correct() -> None:
    assert correct(0.5) and not correct(0.4)


def test_alignment_splits_misalignments_into_case_one_and_case_two() -> None:
    pairs = [("A", "A"), ("X", "B"), ("C", "X"), ("A", "B"), ("X", "X")]
    found = alignment(pairs)
    assert found == Alignment(n=5, aligned=2, case_one=2, case_two=1)
    assert found.rate == pytest.approx(0.4)
    assert alignment([]).rate is None


def test_settled_shares_per_step() -> None:
    shares = settled_shares(["matched", "matched", "llm", "fallback"])
    assert shares == {"matched": 0.5, "llm": 0.25, "fallback": 0.25}
    assert settled_shares([]) == {}


def test_combined_judges_average_their_scores() -> None:
    assert combined([0.2, 0.6]) == pytest.approx(0.4)


def _written_out(pairs, statistic) -> tuple[float, float]:
    """The seeded percentile bootstrap one resample at a time (undefined ones left out)."""
    draw = random.Random(SEED)
    drawn = (statistic(draw.choices(pairs, k=len(pairs))) for _ in range(RESAMPLES))
    found = sorted(v for v in drawn if v is not None)

    def percentile(q: float) -> float:
        at = q * (len(found) - 1)
        below = int(at)
        above = min(below + 1, len(found) - 1)
        return found[below] + (found[above] - found[below]) * (at - below)

    tail = (1 - CONFIDENCE) / 2
    return percentile(tail), percentile(1 - tail)


def test_the_bootstrap_draws_the_resamples_random_choices_draws() -> None:
    draw = random.Random(7)
    graded = [(draw.choice((0, 0.3, 0.5, 1)), draw.choice((0, 0.5, 1))) for _ in range(300)]
    estimate = mean_abs_difference(graded)
    reference = _written_out(graded, lambda p: fmean(abs(a - b) for a, b in p))
    assert (estimate.low, estimate.high) == pytest.approx(reference, abs=1e-12)
    labelled = [(draw.choice("ABX"), draw.choice("ABXC")) for _ in range(300)]
    estimate = kappa_estimate(labelled)
    assert (estimate.low, estimate.high) == _written_out(labelled, kappa)  # the same divisions
    rare = [("A", "A")] * 6 + [("B", "B")]  # many resamples draw A only: undefined, left out
    estimate = kappa_estimate(rare)
    assert (estimate.low, estimate.high) == _written_out(rare, kappa)
