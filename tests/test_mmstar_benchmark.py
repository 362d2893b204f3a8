"""MMStar's Benchmark: its tables (micro accuracies by capability and axis, the questions
without the image only in their setting's score, MG and ML from the row's own scores), the
derived columns' runs, and the offline rule, on a small dataset of our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.mmstar import rules
from lmmreview.engine.benchmarks.mmstar.benchmark import AXIS, CAPABILITY, MMSTAR, SETTING
from lmmreview.engine.breakdown import summed
from lmmreview.engine.scoring import Outcome
from lmmreview.engine.tables import Cell
from lmmreview.engine.types import QuestionType, Sample
from tests.test_breakdown import Keyed, _cells, _layout


def question(index: int, axis: str, setting: str = rules.WITH_IMAGE) -> Sample:
    key = str(index) if setting == rules.WITH_IMAGE else f"{setting}/{index}"
    axes = {CAPABILITY: (rules.AXES[axis],), AXIS: (axis,), SETTING: (setting,)}
    return Sample(key, "Which color?", QuestionType.CHOICE, "A", axes=axes)


# math: 3 questions (2 geometry, 1 statistical), coarse perception: 1
WITH = [question(1, "geometry"), question(2, "geometry"),
        question(3, "statistical reasoning"), question(4, "image emotion")]  # fmt: skip
WITHOUT = [question(i, "geometry", rules.WITHOUT_IMAGE) for i in (1, 2)]
LLM = [question(i, "geometry", rules.LLM) for i in (1, 2)]
RIGHT, WRONG = Outcome.of((1.0,)), Outcome.of((0.0,))


def _scored(samples: list[Sample], right: set[str]) -> Keyed:
    breakdown = Keyed(_layout("mmstar", MMSTAR, samples), runs=1)
    breakdown.load_keyed({"m": {s.key: RIGHT if s.key in right else WRONG for s in samples}})
    return breakdown


def test_capabilities_count_questions_not_axes() -> None:
    breakdown = _scored(WITH, {"1", "3"})
    final = _cells(breakdown, "mmstar.capabilities")
    # math 2 of 3 right (micro; the mean of its axes would be (50 + 100) / 2 = 75)
    assert final["math"].value == pytest.approx(200 / 3)
    assert final["final"].value == 50.0 and final["final"].n == 4
    assert final["coarse perception"].value == 0.0
    math = _cells(breakdown, "mmstar.MA")
    assert (math["geometry"].value, math["statistical reasoning"].value) == (50.0, 100.0)
    names = [t.name for t in breakdown.tables()]
    assert names == ["mmstar.capabilities", "mmstar.CP", "mmstar.MA"]  # no settings table


def test_other_settings_count_only_in_their_score_and_give_mg_and_ml() -> None:
    breakdown = _scored(WITH + WITHOUT + LLM, {"1", "3", "without-image/1", "llm/2"})
    assert _cells(breakdown, "mmstar.capabilities")["final"].n == 4  # with the image only
    gains = _cells(breakdown, "mmstar.settings")
    values = {key: cell.value for key, cell in gains.items()}
    assert values == {"S_v": 50.0, "S_wv": 50.0, "S_t": 50.0, "MG": 0.0, "ML": 0.0}
    other = _scored(WITH + WITHOUT + LLM, {"1", "2", "without-image/1"})
    values = {key: cell.value for key, cell in _cells(other, "mmstar.settings").items()}
    assert values == {"S_v": 50.0, "S_wv": 50.0, "S_t": 0.0, "MG": 0.0, "ML": 50.0}


def test_mg_is_blank_without_the_answers_it_needs() -> None:
    gains = _cells(_scored(WITH + LLM, {"1"}), "mmstar.settings")
    assert set(gains) == {"S_v", "S_t"}  # no S_wv: no MG, no ML


def test_a_derived_column_keeps_its_runs() -> None:
    with_image, without = (50.0, 70.0), (30.0, 10.0)
    gain = summed([with_image, without], Cell(value=None, n=8), rules.gain)
    assert (gain.value, gain.per_run, gain.n) == (40.0, (20.0, 60.0), 8)
    assert gain.std == pytest.approx(20.0)
    assert summed([without, with_image], Cell(None, 8), rules.leakage).per_run == (0.0, 0.0)


def test_a_derived_column_pairs_only_runs_every_part_scored_in() -> None:
    """Each part's runs that scored nothing are left out of its mean, and out of the
    derived column's runs, never paired with another run of the other part."""
    counts = Cell(value=None, n=8)
    gain = summed([(50.0, None, 70.0), (None, 30.0, 10.0)], counts, rules.gain)
    assert (gain.value, gain.per_run, gain.std) == (40.0, (60.0,), None)
    apart = summed([(50.0, None), (None, 30.0)], counts, rules.gain)
    assert (apart.value, apart.per_run, apart.std) == (20.0, (), None)
    assert summed([(None, None), (30.0, 10.0)], counts, rules.gain).value is None


def test_a_nonlinear_column_spreads_around_its_runs_mean() -> None:
    """ML per run is (10, 0): its std is 5, around the runs' mean; the value stays the
    formula of the parts' means, max(0, 20 - 20) = 0."""
    leakage = summed([(30.0, 10.0), (20.0, 20.0)], Cell(None, 4), rules.leakage)
    assert (leakage.value, leakage.per_run) == (0.0, (10.0, 0.0))
    assert leakage.std == pytest.approx(5.0)


def test_runs_with_no_answer_scored_are_not_paired_across_settings() -> None:
    """With the image scored in run 1 only, without it in run 2 only: MG has no run of
    its own (it was run 1's S_v minus run 2's S_wv), its value the means' difference."""
    samples = WITH + WITHOUT
    breakdown = Keyed(_layout("mmstar", MMSTAR, samples), runs=2)
    first, second = Outcome.of((1.0, None)), Outcome.of((None, 0.0))
    breakdown.load_keyed({"m": {s.key: first if s in WITH else second for s in samples}})
    gain = _cells(breakdown, "mmstar.settings")["MG"]
    assert (gain.value, gain.per_run, gain.std, gain.n) == (100.0, (), None, 6)


@pytest.mark.parametrize(
    ("answer", "score", "choice"),
    [("A", 1.0, "A"), ("(a) red", 1.0, "A"), ("Based on it, A", 0.0, "B"), ("", 0.0, None)],
)
def test_the_offline_rule_is_the_strict_one(answer: str, score: float, choice: str | None) -> None:
    judgment = MMSTAR.offline(WITH[0], answer)  # gold A
    assert judgment is not None
    assert (judgment.score, judgment.choice) == (score, choice)
    assert MMSTAR.judge_work(WITH[0]) is None  # no judge: the rule decides all
