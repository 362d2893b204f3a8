"""The offline judge: rules that need no LLM, labelled as such wherever they appear.

Each benchmark's `offline` picks its rules; these are the ones several benchmarks share:
step-1 option matching then the seeded fallback (MMBench and generic multiple choice),
and a transparent grader for short ground truths (MM-Vet and generic open answers; long
answers stay unscored for a human or an LLM judge).
"""

from __future__ import annotations

from functools import lru_cache

from lmmreview.engine.benchmarks.mmbench import rules as mmbench
from lmmreview.engine.benchmarks.mmvet import rules as mmvet
from lmmreview.engine.scoring import OFFLINE_RULES, Judgment, Status, choice_score
from lmmreview.engine.types import Sample

OFFLINE_JUDGE = OFFLINE_RULES  # the model the rules' judgments are recorded with
RULES_VERSION = "rules-2"  # bump when a rule changes, so old results can be told apart
GRADES_KEPT = 50_000  # open grades remembered: short answers repeat across models and samples
CHOICE_KINDS = 256  # choice judgments kept: a letter (A-Z, X), its score, how it was found


def rules_judgment(
    score: float | None,
    method: str,
    reply: str,
    choice: str | None = None,
    status: Status = Status.OK,
) -> Judgment:
    """A judgment of the offline rules; `reply` says what the rule saw."""
    return Judgment(
        run=0, score=score, choice=choice, status=status, method=method, kind="offline",
        judge_model=OFFLINE_JUDGE, prompt_version=RULES_VERSION, reply=reply,
    )  # fmt: skip


def choice_judgment(sample: Sample, answer: str) -> Judgment:
    """Step-1 option matching, else a seeded random choice marked as a fallback."""
    extraction = mmbench.extract_offline(answer, sample.options, sample.key)
    score = choice_score(extraction.choice, sample.golds)
    return _choice_judged(extraction.choice, score, extraction.method, extraction.fallback)


@lru_cache(maxsize=CHOICE_KINDS)
def _choice_judged(
    choice: str | None, score: float | None, method: str, fallback: bool
) -> Judgment:
    """A choice's judgment, made once for every answer judged alike (the Judgment is
    frozen): a third of a million new ones took more time than matching their answers."""
    return rules_judgment(
        score,
        method,
        f"choice {choice}",
        choice=choice,
        status=Status.FALLBACK if fallback else Status.OK,
    )


def open_judgment(sample: Sample, answer: str) -> Judgment | None:
    """The short-answer grader; None when it cannot grade (no gold, a long one)."""
    if sample.answer is None:
        return None
    return _open_graded(tuple(sample.golds), answer)


def forget_grades() -> None:
    """Let go of the remembered grades and option matches once a run is over: scattered
    among a million answers' freed objects, they would keep that memory from going back
    to the system."""
    _open_graded.cache_clear()
    mmbench.forget_matches()


@lru_cache(maxsize=GRADES_KEPT)
def _open_graded(golds: tuple[str, ...], answer: str) -> Judgment | None:
    """The grader reads nothing but the golds and the answer: each pair is graded once
    (the Judgment is frozen, so one object serves every answer that shares it)."""
    grade = mmvet.best_offline_grade(golds, answer)
    if grade.score is None:
        return None
    return rules_judgment(grade.score, "rules", grade.reason)
