"""The judge's view of the store: pending work, claims, the LLM cache, and results.

Implements `engine.runner.JudgeStorage`. Claims name their owner (host:pid); a claim
whose process is gone on this host is taken over at once, so a killed run resumes
without waiting, and two live runs never ask about the same item.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime

from lmmreview.db.store import DECIDES_RUN, DECIDING_IN_DATASET, Store, now
from lmmreview.engine.benchmark import JudgeItem, JudgeWork
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.runner import Cached
from lmmreview.engine.scoring import USABLE, Judgment
from lmmreview.engine.types import Sample

# A run is settled for this judge (the ? is its model) when its latest judgment (`j`, one
# that decides its run) is usable and is this judge's, or an option match that needs no
# LLM; a newer failure, from any judge, makes it worth asking again.
_SETTLED_FOR_THIS_JUDGE = (
    f"j.status IN {USABLE} AND ((j.judge_kind = 'llm' AND j.judge_model = ?) "
    "OR j.method = 'matched')"
)

OWNER = f"{socket.gethostname()}:{os.getpid()}"
STALE_AFTER_S = 3600  # a claim from another host is given up after an hour


def _alive(owner: str) -> bool:
    """Whether the run that made a claim may still be working on it."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or os.name == "nt":
        return True  # can't tell: the claim's age decides
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


_Row = tuple[int, JudgeItem | None, float | None]  # place in chain, item to ask, decided score


@dataclass(frozen=True, slots=True)
class Plan:
    """What a judge run would do."""

    chains: list[list[JudgeItem]]
    items: int
    llm_items: int  # items that need an LLM call (not settled by option matching)
    prompt_tokens: int  # estimated, for the first call of each LLM item (4 chars a token)


class JudgeStore:
    """`JudgeStorage` over a Store, for one judge model."""

    def __init__(self, store: Store, judge_model: str) -> None:
        self.store = store
        self.judge_model = judge_model

    # -- planning ------------------------------------------------------------------

    def plan(
        self, runs: int, datasets: list[str] | None = None, models: list[str] | None = None
    ) -> Plan:
        """Every item still to judge: for work asked in every run, an item per run; for
        work asked once, one item, chained with the rows of its group in order (none for a
        group that a decided row already ended)."""
        chains: list[list[JudgeItem]] = []
        for name, benchmark in self.store.datasets(datasets or None):
            samples = {s.key: s for s in self.store.samples(name)}
            done = self._done(name)
            groups: dict[tuple[str, object], list[_Row]] = {}
            for answer_id, model, key, text in self.store.answer_rows(name):
                if models and model not in models:
                    continue
                sample = samples[key]
                work = benchmark.judge_work(sample)
                if work is None:
                    continue
                if work.every_run:
                    chains.extend(
                        [_item(answer_id, run, work, sample, text)]
                        for run in range(runs)
                        if (answer_id, run) not in done
                    )
                    continue
                group, place = benchmark.chain(sample) or (("alone", answer_id), 0)
                settled = (answer_id, 0) in done  # with no gold, settled has no score
                decided = done.get((answer_id, 0))
                item = None if settled else _item(answer_id, 0, work, sample, text)
                groups.setdefault((model, group), []).append((place, item, decided))
            for rows in groups.values():
                rows.sort(key=lambda row: row[0])
                chain = [item for _, item, _ in rows if item is not None]
                if chain and not any(
                    decided is not None and chain[0].work.ends_chain(decided)
                    for _, _, decided in rows
                ):  # else a decided row already ended this chain
                    chains.append(chain)
        return self._plan(chains)

    def _plan(self, chains: list[list[JudgeItem]]) -> Plan:
        items = [item for chain in chains for item in chain]
        needing = [item for item in items if item.work.without_llm(item) is None]
        tokens = sum(
            len(item.work.ladder(item, self.judge_model)[0].messages[0][1]) // 4 for item in needing
        )
        return Plan(chains, len(items), len(needing), tokens)

    def _done(self, dataset: str) -> dict[tuple[int, int], float | None]:
        """(answer id, run) -> score of the items this judge need not ask again: decided
        (latest judgment) by this judge model, or settled by option matching."""
        query = (
            f"SELECT j.answer_id, j.run, j.score FROM judgments j JOIN ({DECIDING_IN_DATASET}) "
            f"USING (id) WHERE {_SETTLED_FOR_THIS_JUDGE} ORDER BY j.id"
        )
        rows = self.store.conn.execute(query, (dataset, self.judge_model))
        return {(answer, run): score for answer, run, score in rows}

    # -- JudgeStorage ----------------------------------------------------------------

    def claim(self, item: JudgeItem) -> bool:
        conn = self.store.conn
        key = (item.answer_id, item.run, self.judge_model)
        with self.store.transaction():
            if self._judged(item):
                return False
            row = conn.execute(
                "SELECT owner, claimed_at FROM judge_claims "
                "WHERE answer_id = ? AND run = ? AND judge_model = ?",
                key,
            ).fetchone()
            if row is not None and row[0] != OWNER and _alive(row[0]) and not _old(row[1]):
                return False
            conn.execute(
                "INSERT OR REPLACE INTO judge_claims (answer_id, run, judge_model, owner, "
                "claimed_at) VALUES (?, ?, ?, ?, ?)",
                (*key, OWNER, now()),
            )
        return True

    def _judged(self, item: JudgeItem) -> bool:
        query = (
            "SELECT 1 FROM judgments j WHERE j.answer_id = ? AND j.run = ? "
            f"AND {_SETTLED_FOR_THIS_JUDGE} AND {DECIDES_RUN} LIMIT 1"
        )
        return bool(
            self.store.conn.execute(query, (item.answer_id, item.run, self.judge_model)).fetchone()
        )

    def cached(self, key: str, item: JudgeItem) -> Cached | None:
        # Timestamps compare as text (one ISO format); a tie counts as not newer, so a
        # failed walk's reply is asked again rather than replayed.
        row = self.store.conn.execute(
            "SELECT c.reply, c.prompt_tokens, c.completion_tokens, c.created_at > COALESCE("
            "(SELECT MAX(j.created_at) FROM judgments j WHERE j.answer_id = ? AND j.run = ? "
            "AND j.judge_kind = 'llm' AND j.judge_model = ?), '') "
            "FROM llm_cache c WHERE c.key = ?",
            (item.answer_id, item.run, self.judge_model, key),
        ).fetchone()
        return None if row is None else Cached(Reply(row[0], row[1], row[2], 0.0), bool(row[3]))

    def store_replies(self, replies: list[tuple[str, Call, Reply]]) -> None:
        with self.store.transaction():
            self._cache(replies)

    def _cache(self, replies: list[tuple[str, Call, Reply]]) -> None:
        """Write replies to the cache (in the caller's transaction)."""
        self.store.conn.executemany(
            "INSERT OR REPLACE INTO llm_cache (key, model, reply, prompt_tokens, "
            "completion_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                (key, call.model, reply.text, reply.prompt_tokens, reply.completion_tokens, now())
                for key, call, reply in replies
            ),
        )

    def record(
        self, item: JudgeItem, judgment: Judgment, replies: list[tuple[str, Call, Reply]]
    ) -> None:
        with self.store.transaction():
            self._cache(replies)
            self.store.add_judgments([(item.answer_id, judgment)])
            self.store.conn.execute(
                "DELETE FROM judge_claims WHERE answer_id = ? AND run = ? AND judge_model = ?",
                (item.answer_id, item.run, self.judge_model),
            )

    def release_all(self) -> None:
        with self.store.transaction():
            self.store.conn.execute("DELETE FROM judge_claims WHERE owner = ?", (OWNER,))


def _old(claimed_at: str) -> bool:

    age = datetime.now(datetime.fromisoformat(claimed_at).tzinfo) - datetime.fromisoformat(
        claimed_at
    )
    return age.total_seconds() > STALE_AFTER_S


def _item(answer_id: int, run: int, work: JudgeWork, sample: Sample, text: str) -> JudgeItem:
    return JudgeItem(
        answer_id, run, work, sample.question, tuple(sample.golds), text, dict(sample.options),
        sample.key,
    )  # fmt: skip
