"""Judge-human agreement on multiple-choice answers compares the options chosen.

Two different wrong options both score 0, yet the judge and the human disagree: the
strip's Δ, the |judge - human| filter and the live agreement count it as a disagreement.
"""

from __future__ import annotations

from pathlib import Path

from tui_harness import drive, text_of, until

from lmmreview.engine.columns import AnswerColumns, matching
from lmmreview.engine.registry import benchmark
from lmmreview.engine.review import Agreement, Entry, Filter, judge_human_difference
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.types import QuestionType, Sample

CHOICE = Sample("q", "Where?", QuestionType.CHOICE, "A", options={"A": "x", "B": "y", "C": "z"})
NO_GOLD = Sample("t", "Where?", QuestionType.CHOICE, None, options={"A": "x", "B": "y"})


def _entry(answer_id: int, judge: str, verdict: Verdict | None, score: float | None) -> Entry:
    return Entry(answer_id, "m", "q", judged=(score,), judge_choice=judge, verdict=verdict)


def test_choices_are_compared_not_their_scores() -> None:
    golds = CHOICE.golds
    assert judge_human_difference(Verdict(None, "C"), "B", 0.0, golds) == 1.0  # both wrong
    assert judge_human_difference(Verdict(None, "B"), "B", 0.0, golds) == 0.0  # same wrong one
    assert judge_human_difference(Verdict(None, "A"), "B", 0.0, golds) == 1.0
    assert judge_human_difference(Verdict(None, "A"), None, 0.0, golds) == 1.0  # no judge choice
    assert judge_human_difference(Verdict(0.5), "B", 0.0, golds) == 0.5  # a score: scores
    assert judge_human_difference(None, "B", 0.0, golds) is None
    # No gold: neither choice scores, yet they can be compared.
    assert judge_human_difference(Verdict(None, "A"), "B", None, NO_GOLD.golds) == 1.0


def test_the_filter_and_the_agreement_follow_the_choices() -> None:
    both_wrong = _entry(1, "B", Verdict(None, "C"), 0.0)
    same = _entry(2, "B", Verdict(None, "B"), 0.0)
    right = _entry(3, "A", Verdict(None, "A"), 1.0)
    answers = AnswerColumns.from_entries([both_wrong, same, right], [CHOICE.key])
    mmbench = benchmark("mmbench")
    chosen = matching(
        Filter(disagreement=0.3), answers, SampleSet.of([CHOICE]), mmbench.filter_axes
    )
    assert answers.ids[chosen].tolist() == [1]
    agreement = Agreement()
    for entry in (both_wrong, same, right):
        agreement.set(entry.answer_id, entry.disagreement(CHOICE.golds))
    assert (agreement.delta, agreement.count) == (1 / 3, 3)


def test_the_strip_counts_another_wrong_option_as_a_disagreement(demo_db: Path) -> None:
    """demo-gamma's answer to MMBench question 0 (gold A) is read as B; the reviewer
    chooses C: both wrong, and the strip's Δ is 1, not 0."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("j", "j")
        await until(pilot, lambda: (app.current().model, app.current().key) == ("demo-gamma", "0"))
        assert (app.current().judge_choice, app.current().judged) == ("B", (0.0,))
        await pilot.press("C")
        await until(pilot, lambda: app.current().reviewed)
        await until(pilot, lambda: "over 1 reviewed" in text_of(app, "#strip"))
        seen["strip"] = text_of(app, "#strip")
        session = app.session
        seen["outcome"] = app.current().outcome(1, session.golds("0"))
        session.apply(Filter(disagreement=0.3))
        seen["filtered"] = [session.entries[i].model for i in session.visible]

    drive(demo_db, steps, dataset="mmbench")
    assert "judge-human Δ 1.000 over 1 reviewed" in seen["strip"], seen["strip"]
    assert seen["outcome"].micro == (0,)  # the human's C scores 0, as the judge's B did
    assert seen["filtered"] == ["demo-gamma"]
