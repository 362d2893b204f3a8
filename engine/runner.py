"""The judge runner: many items, N requests in flight, every result stored as it lands.

Work comes in *chains*: one item for a scored answer; the rows of a circular group, in
rotation order, for choice extraction (the first wrong row decides the group, so the
rest are not asked). Each item is claimed in the store before it is asked, so two runs
on one file never judge the same item twice, and recorded in one write when decided.
Every reply is stored as it arrives, before anything else is awaited, so a killed run
pays again only for the requests that were in flight. Failures are recorded with their
reason; none becomes a score.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Protocol

from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.judging import cache_key, failed
from lmmreview.engine.llm import Call, CallFailed, ChatClient, JudgeUnavailable, Reply
from lmmreview.engine.scoring import Judgment, Status


@dataclass(frozen=True, slots=True)
class Cached:
    """A stored reply, and whether it came after the item's latest judgment by this judge
    (then it belongs to a walk of the item's ladder that a killed run left unfinished)."""

    reply: Reply
    unfinished: bool


class JudgeStorage(Protocol):
    """Where the runner takes and leaves work (the store implements it)."""

    def claim(self, item: JudgeItem) -> bool:
        """Take an item; False when it is judged already or another live run holds it."""
        ...

    def cached(self, key: str, item: JudgeItem) -> Cached | None:
        """The stored reply to the call with this cache key, if any."""
        ...

    def store_replies(self, replies: list[tuple[str, Call, Reply]]) -> None:
        """Store replies for the cache at once (the item is not decided yet)."""
        ...

    def record(
        self, item: JudgeItem, judgment: Judgment, replies: list[tuple[str, Call, Reply]]
    ) -> None:
        """Store the judgment and the new replies for the cache; release the claim."""
        ...

    def release_all(self) -> None:
        """Give back the claims still held (the run stops)."""
        ...


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    model: str
    concurrency: int = 16
    max_attempts: int = 10  # HTTP requests per item, retries and ladder steps included
    use_cache: bool = True
    backoff_base: float = 0.5  # seconds; doubled per failed attempt, with full jitter
    backoff_max: float = 20.0
    retry_after_max: float = 60.0
    # This many failed requests in a row, with no reply between them, ends the run: the
    # server is down or misconfigured, and every item would only burn its attempts.
    give_up_after: int = 50


@dataclass(slots=True)
class Progress:
    """What a run has done so far; handed to the progress callback after each item."""

    total: int
    done: int = 0  # decided: judged, fallback or failed
    judged: int = 0
    fallback: int = 0
    failed: int = 0
    skipped: int = 0  # claimed elsewhere, or not needed (their circular group failed)
    cached: int = 0  # replies answered from the store's cache
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def rate(self) -> float:
        """Items decided per second."""
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Ask:
    """A call on an item's ladder that the cache cannot answer: it must be asked."""

    key: str  # the call's cache key
    call: Call
    step: int  # its place on the ladder, from 0
    last_reply: str  # the last reply before it that did not parse ("" for none)


Lookup = Callable[[str, JudgeItem, Call], Reply | None]  # (cache key, item, call) -> reply


def walk_ladder(item: JudgeItem, model: str, cached: Lookup) -> Generator[Ask, Reply, Judgment]:
    """Walk an item's ladder until a reply parses: each call the cache (`cached`) cannot
    answer is yielded as an `Ask`, and its reply sent back; returns the judgment (without
    a call when the work needs none; `exhausted` when no reply parses). The live runner
    asks at once; a batch run sends the call in a batch and walks again once the reply is
    in the cache."""
    quick = item.work.without_llm(item)
    if quick is not None:
        return quick
    last = ""
    for step, call in enumerate(item.work.ladder(item, model)):
        key = cache_key(call, item.run)
        reply = cached(key, item, call)
        if reply is None:
            reply = yield Ask(key, call, step, last)
        judgment = item.work.interpret(item, call, reply)
        if judgment is not None:
            return judgment
        last = reply.text
    return item.work.exhausted(item, model, last)


def usable_cached(storage: JudgeStorage, key: str, item: JudgeItem, call: Call) -> Reply | None:
    """The stored reply to `call` when it may stand in for a new one: it parses, or it
    belongs to this item's unfinished walk. An unparseable reply from a walk that ended
    in a judgment is asked again, since the server may answer properly now."""
    hit = storage.cached(key, item)
    if hit is None or not (
        hit.unfinished or item.work.interpret(item, call, hit.reply) is not None
    ):
        return None
    return hit.reply


class _OutOfAttempts(Exception):
    pass


class Runner:
    """Judge chains of items with one client and one storage."""

    def __init__(
        self,
        client: ChatClient,
        storage: JudgeStorage,
        settings: RunnerSettings,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.client = client
        self.storage = storage
        self.settings = settings
        self.on_progress = on_progress or (lambda progress: None)
        self.progress = Progress(0)
        self._random = random.Random()
        self._failures_in_a_row = 0

    async def run(self, chains: list[list[JudgeItem]]) -> Progress:
        """Judge every chain; cancel the task to stop (work in flight is abandoned)."""
        self.progress = Progress(sum(len(chain) for chain in chains))
        queue: asyncio.Queue[list[JudgeItem]] = asyncio.Queue()
        for chain in chains:
            queue.put_nowait(chain)
        workers = [
            asyncio.create_task(self._worker(queue))
            for _ in range(min(self.settings.concurrency, len(chains)) or 1)
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            self.storage.release_all()
        return self.progress

    async def _worker(self, queue: asyncio.Queue[list[JudgeItem]]) -> None:
        while not queue.empty():
            chain = queue.get_nowait()
            for position, item in enumerate(chain):
                if not self.storage.claim(item):
                    self._count_skipped(1)
                    continue
                judgment, replies = await self._judge(item)
                self.storage.record(item, judgment, replies)
                self._count(judgment)
                if len(chain) > 1 and item.work.ends_chain(judgment.score):
                    self._count_skipped(len(chain) - position - 1)
                    break

    async def _judge(self, item: JudgeItem) -> tuple[Judgment, list[tuple[str, Call, Reply]]]:
        """Walk the item's ladder; return its judgment and the replies paid for."""
        walk = walk_ladder(item, self.settings.model, self._cached)
        attempts = [0]
        paid: list[tuple[str, Call, Reply]] = []
        try:
            ask = next(walk)
            while True:
                if paid:  # stored before the next request: a kill would not pay it again
                    self.storage.store_replies(paid)
                try:
                    reply = await self._ask(ask.call, attempts)
                except _OutOfAttempts as exc:
                    return failed(item, self.settings.model, str(exc), ask.last_reply), []
                paid = [(ask.key, ask.call, reply)]
                ask = walk.send(reply)
        except StopIteration as walked:
            return walked.value, paid  # stored with the judgment, in one write

    def _cached(self, key: str, item: JudgeItem, call: Call) -> Reply | None:
        """The stored reply that may stand in for a new one (see `usable_cached`)."""
        reply = usable_cached(self.storage, key, item, call) if self.settings.use_cache else None
        if reply is not None:
            self.progress.cached += 1
        return reply

    async def _ask(self, call: Call, attempts: list[int]) -> Reply:
        """One reply, retrying what may pass later, within the item's attempt cap."""
        while True:
            if attempts[0] >= self.settings.max_attempts:
                raise _OutOfAttempts(f"gave up after {attempts[0]} requests")
            attempts[0] += 1
            self.progress.requests += 1
            try:
                reply = await self.client.complete(call)  # JudgeUnavailable ends the run
            except CallFailed as exc:
                self._failures_in_a_row += 1
                if self._failures_in_a_row >= self.settings.give_up_after:
                    raise JudgeUnavailable(
                        f"{self._failures_in_a_row} requests in a row failed, the last with: "
                        f"{exc.reason}. Is the judge server up?"
                    ) from None
                if not exc.retryable or attempts[0] >= self.settings.max_attempts:
                    raise _OutOfAttempts(
                        f"{exc.reason} (after {attempts[0]} request{'s' * (attempts[0] > 1)})"
                    ) from None
                await asyncio.sleep(self._delay(exc, attempts[0]))
                continue
            self._failures_in_a_row = 0
            self.progress.prompt_tokens += reply.prompt_tokens or 0
            self.progress.completion_tokens += reply.completion_tokens or 0
            return reply

    def _delay(self, failure: CallFailed, attempt: int) -> float:
        """retry-after when the server gives it; else exponential backoff, full jitter."""
        if failure.retry_after is not None:
            return min(failure.retry_after, self.settings.retry_after_max)
        ceiling = min(self.settings.backoff_max, self.settings.backoff_base * 2 ** (attempt - 1))
        return self._random.uniform(0, ceiling)

    def _count(self, judgment: Judgment) -> None:
        progress = self.progress
        progress.done += 1
        if judgment.status is Status.OK:
            progress.judged += 1
        elif judgment.status is Status.FALLBACK:
            progress.fallback += 1
        else:
            progress.failed += 1
        self.on_progress(progress)

    def _count_skipped(self, count: int) -> None:
        self.progress.skipped += count
        self.progress.total -= count
        self.on_progress(self.progress)
