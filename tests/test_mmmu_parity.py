"""MMMU parser parity: every answer of the reference's parity corpus parses and scores alike.

The corpus (../shared/fixtures/mmmu/parity_corpus.jsonl, SCORING.md section 3) holds 10,000
answers with the official evaluation code's results: open answers with the candidate list and
the verdict against a gold, multiple-choice answers with the letter or the random fallback.
"""

from __future__ import annotations

import json
from typing import Any

from conftest import FIXTURES, needs_fixture

from lmmreview.engine.benchmarks.mmmu.rules import judge
from lmmreview.engine.types import QuestionType, Sample

CORPUS = FIXTURES / "mmmu" / "parity_corpus.jsonl"
SHOWN_DISAGREEMENTS = 5


def _disagreement(line: dict[str, Any], number: int) -> str | None:
    """What our parser says differently from the reference on one corpus line, or None."""
    key = f"validation_Parity_{number}"
    if line["kind"] == "open":
        ours = judge(Sample(key, "", QuestionType.OPEN, line["gold"]), line["response"])
        # The reference's candidates come from a set; str and float never compare equal.
        agrees = set(ours.prediction) == set(line["parsed"]) and ours.correct == line["correct"]
        reference = f"{line['parsed']} correct={line['correct']}"
    else:
        sample = Sample(key, "", QuestionType.CHOICE, options=line["options"])
        ours = judge(sample, line["response"])
        # Where the reference drew a random letter, ours must be marked as a draw too.
        agrees = ours.fallback == line["fallback"] and (
            line["fallback"] or ours.prediction == line["parsed"]
        )
        reference = f"{line['parsed']} fallback={line['fallback']}"
    if agrees:
        return None
    return f"line {number}: {line['response']!r} -> {ours}, reference {reference}"


@needs_fixture("mmmu/parity_corpus.jsonl")
def test_every_corpus_line_agrees_with_the_reference() -> None:
    lines = [json.loads(text) for text in CORPUS.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 10_000
    found = (_disagreement(line, number) for number, line in enumerate(lines, start=1))
    disagreements = [text for text in found if text is not None]
    shown = "\n".join(disagreements[:SHOWN_DISAGREEMENTS])
    assert not disagreements, f"{len(disagreements)} of {len(lines)} lines disagree:\n{shown}"
