"""Answers as columns: every whole-column rule equals the one-answer rule it stands for."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmmreview.engine.columns import AnswerColumns, outcomes
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict

GOLDS = [["A"], ["B", "C"], []]  # a sample with one gold, with two, with none (a test split)
KEYS = ["s0", "s1", "s2"]
scores = st.one_of(st.none(), st.sampled_from([0.0, 0.3, 0.5, 1.0]), st.floats(0, 1))
verdicts = st.one_of(
    st.none(),
    st.builds(Verdict, scores.filter(lambda s: s is not None)),
    st.builds(Verdict, st.none(), st.sampled_from(["A", "B", "C", "Z"])),
)
entries = st.builds(
    lambda i, key, judged, choice, verdict, fallback, offline, failed: Entry(
        i, f"m{i % 2}", key, judged, choice, verdict, False, failed, fallback, offline
    ),
    st.integers(0, 10**9),
    st.sampled_from(KEYS),
    st.lists(scores, max_size=3).map(tuple),
    st.one_of(st.none(), st.sampled_from(["A", "B"])),
    verdicts,
    st.booleans(),
    st.booleans(),
    st.booleans(),
)


def _columns(found: list[Entry]) -> AnswerColumns:
    unique = list({e.answer_id: e for e in found}.values())
    return AnswerColumns.from_entries([*unique], KEYS)


def _same(array_value: float, value: float | None) -> bool:
    """Equal up to the millionths the columns count in, as the tables do."""
    return (value is None and math.isnan(array_value)) or (
        value is not None and math.isclose(array_value, value, abs_tol=1e-6)
    )


@settings(max_examples=80, deadline=None)
@given(found=st.lists(entries, min_size=1, max_size=12), runs=st.integers(1, 3))
def test_outcomes_over_columns_equal_effective_one_answer_at_a_time(found, runs) -> None:
    answers = _columns(found)
    golds_of = lambda i: GOLDS[i]  # noqa: E731
    columns = outcomes(answers, runs, golds_of)
    for row in range(len(answers)):
        entry = answers.entry(row)
        one = entry.outcome(runs, GOLDS[KEYS.index(entry.key)])
        micro = tuple(
            int(m) if s else None
            for m, s in zip(columns.micro[row], columns.scored[row], strict=True)
        )
        assert micro == one.micro
        flags = (columns.reviewed[row], columns.fallback[row], columns.offline[row])
        assert flags == (one.reviewed, one.fallback, one.offline)
        assert (columns.complete[row], columns.unscored[row]) == (one.complete, one.unscored)


@settings(max_examples=80, deadline=None)
@given(found=st.lists(entries, min_size=1, max_size=12))
def test_means_spreads_and_disagreements_equal_each_entrys(found) -> None:
    answers = _columns(found)
    means, spreads = answers.judge_mean(), answers.spread()
    differences = answers.disagreement(lambda i: GOLDS[i])
    for row in range(len(answers)):
        entry = answers.entry(row)
        golds = GOLDS[KEYS.index(entry.key)]
        assert _same(means[row], entry.judge_mean())
        assert _same(spreads[row], entry.spread())
        assert _same(differences[row], entry.disagreement(golds))


def test_runs_that_agree_have_no_spread_whatever_float_sums_say() -> None:
    # 0.1 + 0.1 + 0.1 is not 0.3 in floats: a float spread would say the runs differ
    answers = AnswerColumns.from_entries([Entry(1, "m", "s0", judged=(0.1, 0.1, 0.1))], KEYS)
    assert answers.spread()[0] == 0.0 and answers.judge_mean()[0] == 0.1


@settings(max_examples=60, deadline=None)
@given(found=st.lists(entries, min_size=1, max_size=12))
def test_an_entry_comes_back_from_its_row_as_it_went_in(found) -> None:
    unique = list({e.answer_id: e for e in found}.values())
    answers = _columns(unique)
    for row, entry in enumerate(unique):
        back = answers.entry(row)
        assert back.verdict == entry.verdict and back.judge_choice == entry.judge_choice
        assert back.judged == entry.judged
        assert answers.index_of(entry.answer_id) == row
        assert answers.row_of(entry.model, entry.key) is not None


def test_rows_are_found_by_model_and_sample_and_missing_ones_are_none() -> None:
    answers = AnswerColumns.from_entries(
        [Entry(7, "m", "s1"), Entry(9, "n", "s0"), Entry(3, "m", "s0")], KEYS
    )
    assert [answers.row_of("m", "s0"), answers.row_of("n", "s0")] == [2, 1]
    assert answers.row_of("n", "s1") is None and answers.row_of("x", "s0") is None
    assert [answers.index_of(9), answers.index_of(4)] == [1, None]
    more = AnswerColumns.from_entries([Entry(4, "n", "s1", judge_choice="Q")], KEYS)
    answers.append(more)  # other labels: recoded into these
    assert answers.index_of(4) == 3 and answers.entry(3).judge_choice == "Q"
    assert np.array_equal(answers.ids, [7, 9, 3, 4])


def test_an_answer_costs_at_most_64_bytes_of_columns_with_one_run() -> None:
    """A million answers are held twice while the tables are made (the screen's and the
    tables' own): label codes and run counts are 32-bit, not 64 (was 79 bytes)."""
    n = 1_000
    ids = np.arange(n, dtype=np.int64)
    answers = AnswerColumns.of(ids, ids % 3, ids % 2, KEYS, ["m0", "m1"], 1)
    held = sum(column.nbytes for column in vars_of(answers) if isinstance(column, np.ndarray))
    assert held / n <= 64
    merged = AnswerColumns.of(ids, ids % 3, ids % 2, KEYS, ["m0", "m1"], 1)
    merged.append(answers)  # read in two parts: the codes stay 32-bit
    assert merged.judge_choice.dtype == merged.cause.dtype == np.int32


def vars_of(answers: AnswerColumns) -> list[object]:
    return [getattr(answers, name) for name in AnswerColumns.__slots__]
