"""What the LLM judge is asked about one answer, and how its reply becomes a judgment.

Two kinds of work: *score* (MM-Vet's grading prompt, for MM-Vet and open answers) and
*extract* (MMBench's step-2 choice extraction, for multiple choice). Each item walks a
ladder of calls until a reply parses; what happens when none does is decided here too.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum

from lmmreview.engine import mmbench, mmvet
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import OFFLINE_JUDGE, RULES_VERSION
from lmmreview.engine.scoring import Judgment, Status, choice_score

EXTRACT_MAX_TOKENS = 16  # room for "The answer is C." from chatty judges
EXTRACT_TEMPERATURES = (0.0, 0.5, 1.0)  # step 2 is asked up to three times
DEFAULT_EXTRACT_MODEL = "gpt-3.5-turbo-0613"  # the MMBench paper's ChatGPT


class Work(StrEnum):
    SCORE = "score"
    EXTRACT = "extract"


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One answer and run to judge, with everything the prompt needs."""

    answer_id: int
    run: int
    work: Work
    question: str
    golds: tuple[str, ...]
    prediction: str
    options: dict[str, str] = field(default_factory=dict)
    seed_key: str = ""  # seeds the fallback of an extraction (the row's index)


def ground_truth(golds: tuple[str, ...]) -> str:
    """The ground truth as MM-Vet writes it: several acceptable answers joined by <OR>."""
    return "<OR>".join(golds)


def ladder(item: JudgeItem, model: str) -> list[Call]:
    """The calls to try, in order, until one reply parses."""
    if item.work is Work.SCORE:
        gold = ground_truth(item.golds)
        plain = mmvet.judge_prompt(item.question, gold, item.prediction)
        retry = mmvet.retry_prompt(item.question, gold, item.prediction)
        max_tokens = int(mmvet.JUDGE_SETTINGS["max_tokens"])
        return [
            Call(model, (("user", retry if use_retry else plain),), temperature, max_tokens)
            for use_retry, temperature in mmvet.retry_ladder()
        ]
    prompt = mmbench.extraction_prompt(item.question, item.options, item.prediction)
    return [
        Call(model, (("user", prompt),), temperature, EXTRACT_MAX_TOKENS)
        for temperature in EXTRACT_TEMPERATURES
    ]


def prompt_version(item: JudgeItem) -> str:
    return mmvet.PROMPT_VERSION if item.work is Work.SCORE else mmbench.EXTRACTION_PROMPT_VERSION


def cache_key(call: Call, run: int) -> str:
    """Identical calls share a key: model, messages, settings and the run number."""
    document = [call.model, call.messages, call.temperature, call.max_tokens, run]
    return hashlib.sha256(json.dumps(document, ensure_ascii=False).encode()).hexdigest()


def settings_json(call: Call) -> str:
    return json.dumps({"temperature": call.temperature, "max_tokens": call.max_tokens})


def without_llm(item: JudgeItem) -> Judgment | None:
    """Step 1 of choice extraction: a clear letter or option text needs no LLM call."""
    if item.work is not Work.EXTRACT:
        return None
    choice = mmbench.match_choice(item.prediction, item.options)
    if choice is None:
        return None
    return Judgment(
        item.run, choice_score(choice, list(item.golds)), choice, Status.OK, "matched",
        "offline", OFFLINE_JUDGE, RULES_VERSION, f"choice {choice}",
    )  # fmt: skip


def interpret(item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
    """The judgment a reply gives, or None when it does not parse."""
    common = {
        "kind": "llm",
        "judge_model": call.model,
        "prompt_version": prompt_version(item),
        "reply": reply.text,
        "settings": settings_json(call),
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "latency_ms": reply.latency_ms,
    }
    if item.work is Work.SCORE:
        score = mmvet.parse_score(reply.text)
        if score is None:
            return None
        return Judgment(item.run, score, None, Status.OK, "llm", **common)  # type: ignore[arg-type]
    choice = mmbench.parse_extraction_reply(reply.text, item.options)
    if choice is None:
        return None
    score = choice_score(choice, list(item.golds))
    return Judgment(item.run, score, choice, Status.OK, "llm", **common)  # type: ignore[arg-type]


def exhausted(item: JudgeItem, model: str, last_reply: str) -> Judgment:
    """No reply parsed: a score stays unscored (never a silent 0); an extraction falls
    back to a seeded random choice, marked as such (step 3 of the MMBench paper)."""
    if item.work is Work.SCORE:
        return Judgment(
            item.run, None, None, Status.UNPARSEABLE, "llm", "llm", model, prompt_version(item),
            last_reply, error=f"no valid score after {mmvet.MAX_JUDGE_CALLS} calls",
        )  # fmt: skip
    choice = mmbench.fallback_choice(item.options, item.seed_key)
    return Judgment(
        item.run, choice_score(choice, list(item.golds)), choice, Status.FALLBACK, "fallback",
        "llm", model, prompt_version(item), last_reply,
        error=f"no option in {len(EXTRACT_TEMPERATURES)} replies; seeded random choice",
    )  # fmt: skip


def failed(item: JudgeItem, model: str, reason: str, last_reply: str = "") -> Judgment:
    """The per-item cap was reached without a usable reply: recorded, never scored, with
    the last reply that did not parse (if any), for the reviewer to read."""
    return Judgment(
        item.run, None, None, Status.ERROR, "llm", "llm", model, prompt_version(item),
        last_reply, error=reason,
    )  # fmt: skip
