"""The offline judge: the rules that need no LLM, labelled as such wherever they appear.

MMMU: the official rule-based parsing (its own method). MMBench and generic multiple
choice: step-1 matching, then the seeded fallback. MM-Vet and generic open answers: a
transparent grader for short ground truths; long answers stay unscored for a human or
an LLM judge.
"""

from __future__ import annotations

import json

from lmmreview.engine import mmbench, mmmu, mmvet
from lmmreview.engine.scoring import Judgment, Status, choice_score
from lmmreview.engine.types import DatasetKind, QuestionType, Sample

OFFLINE_JUDGE = "offline rules"
RULES_VERSION = "rules-1"  # bump when a rule changes, so old results can be told apart


def offline_judgment(kind: DatasetKind, sample: Sample, answer: str) -> Judgment | None:
    """Judge one answer by rule; None when the rules cannot (a long open answer)."""
    if kind is DatasetKind.MMMU:
        return _mmmu(sample, answer)
    if sample.question_type is QuestionType.CHOICE:
        return _choice(sample, answer)
    return _open(sample, answer)


def _judgment(score: float | None, method: str, reply: str, **fields: object) -> Judgment:
    return Judgment(
        run=0,
        score=score,
        method=method,
        kind="offline",
        judge_model=OFFLINE_JUDGE,
        prompt_version=RULES_VERSION,
        reply=reply,
        **fields,  # type: ignore[arg-type]
    )


def _mmmu(sample: Sample, answer: str) -> Judgment:
    verdict = mmmu.judge(sample, answer)
    score = (1.0 if verdict.correct else 0.0) if sample.golds else None
    choice = verdict.prediction if isinstance(verdict.prediction, str) else None
    return _judgment(
        score,
        verdict.method,
        json.dumps(verdict.prediction, ensure_ascii=False),
        choice=choice,
        status=Status.FALLBACK if verdict.fallback else Status.OK,
    )


def _choice(sample: Sample, answer: str) -> Judgment:
    extraction = mmbench.extract_offline(answer, sample.options, sample.key)
    return _judgment(
        choice_score(extraction.choice, sample.golds),
        extraction.method,
        f"choice {extraction.choice}",
        choice=extraction.choice,
        status=Status.FALLBACK if extraction.fallback else Status.OK,
    )


def _open(sample: Sample, answer: str) -> Judgment | None:
    if sample.answer is None:
        return None
    grade = mmvet.best_offline_grade(sample.golds, answer)
    if grade.score is None:
        return None
    return _judgment(grade.score, "rules", grade.reason)
