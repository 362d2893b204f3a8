"""MMMU's official file: the test server's JSON of id -> parsed answer. Pure values in,
text out."""

from __future__ import annotations

import json

from lmmreview.engine.benchmarks.mmmu import rules as mmmu
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.types import QuestionType, Sample


def mmmu_answer(
    sample: Sample, response: str, judge_choice: str | None, verdict: Verdict | None
) -> str | list[mmmu.Candidate]:
    """What the test server reads for one question: the chosen letter of a multiple-choice
    question (the reviewer's, else the judge's, else the official parser's), the parsed
    candidates of an open one."""
    if sample.question_type == QuestionType.CHOICE:
        if verdict is not None and verdict.choice is not None:
            return verdict.choice
        return judge_choice or mmmu.parse_choice(response, sample.options, sample.key)[0]
    return mmmu.parse_open(response)


def submission_json(answers: dict[str, str | list[mmmu.Candidate]]) -> str:
    """id -> answer, as one JSON object."""
    return json.dumps(answers, indent=2, ensure_ascii=False) + "\n"
