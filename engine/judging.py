"""What every LLM judge shares: the cache key of a call, the record of its settings, the
judgment of an item settled with no call, and that of an item whose attempts ran out.
What a judge is asked, and how its reply is read, is each benchmark's `JudgeWork`.
"""

from __future__ import annotations

import hashlib
import json

from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import OFFLINE_JUDGE, RULES_VERSION
from lmmreview.engine.scoring import Judgment, Status

# The method of a judgment an item's options settle with no call (a judge's `without_llm`):
# it counts for every LLM judge, so a judge's store files it under this key, not its prompt.
MATCHED = "matched"


def matched(item: JudgeItem, score: float | None, choice: str | None, reply: str) -> Judgment:
    """A judgment the offline rules give an item with no call (JudgeWork.without_llm)."""
    return Judgment(
        run=item.run, score=score, choice=choice, method=MATCHED, kind="offline",
        judge_model=OFFLINE_JUDGE, prompt_version=RULES_VERSION, reply=reply,
    )  # fmt: skip


def cache_key(call: Call, run: int) -> str:
    """Identical calls share a key: model, messages, settings and the run number."""
    document = [call.model, call.messages, call.temperature, call.max_tokens, run]
    return hashlib.sha256(json.dumps(document, ensure_ascii=False).encode()).hexdigest()


def settings_json(call: Call) -> str:
    return json.dumps({"temperature": call.temperature, "max_tokens": call.max_tokens})


def llm_judgment(
    item: JudgeItem, call: Call, reply: Reply, score: float | None, choice: str | None = None
) -> Judgment:
    """The judgment a parsed reply gives, with the call and reply it came from."""
    return Judgment(
        run=item.run,
        score=score,
        choice=choice,
        method="llm",
        kind="llm",
        judge_model=call.model,
        prompt_version=item.work.prompt_version(),
        reply=reply.text,
        settings=settings_json(call),
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        latency_ms=reply.latency_ms,
    )


def failed(
    item: JudgeItem, model: str, reason: str, last_reply: str = "", status: Status = Status.ERROR
) -> Judgment:
    """The per-item cap was reached without a usable reply: recorded, never scored, with
    the last reply that did not parse (if any), for the reviewer to read."""
    return Judgment(
        run=item.run,
        score=None,
        status=status,
        method="llm",
        kind="llm",
        judge_model=model,
        prompt_version=item.work.prompt_version(),
        reply=last_reply,
        error=reason,
    )
