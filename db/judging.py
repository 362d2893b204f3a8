"""The judge's view of the store: pending work, claims, the LLM cache, and results.

Implements `engine.runner.JudgeStorage`. Claims name their owner (host:pid); a claim
whose process is gone on this host is taken over at once, so a killed run resumes
without waiting, and two live runs never ask about the same item.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from lmmreview.db.schema import JUDGE_PROMPT
from lmmreview.db.store import IN_DATASET, Store, new_database, now
from lmmreview.engine.benchmark import Benchmark, JudgeItem, JudgeWork, NoVariants
from lmmreview.engine.guarded import kind_of
from lmmreview.engine.judging import MATCHED
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.runner import Cached
from lmmreview.engine.scoring import USABLE, Judgment, prompt_variant
from lmmreview.engine.types import Sample


def _own_latest(where: str) -> str:
    """This model's latest judgment of each (answer, run) per prompt variant, and the option
    matches (they need no LLM, so they settle a run for every judge), among the judgments
    `where` selects (`l`); the last placeholder is the judge model."""
    return f"""
    SELECT j.answer_id, j.run, j.score, COALESCE(j.prompt_hash, ''), j.method = 'matched'
    FROM judgments j JOIN (
        SELECT MAX(l.id) AS id FROM judgments l {where}
        AND ((l.judge_kind = 'llm' AND l.judge_model = ?) OR l.method = 'matched')
        GROUP BY l.answer_id, l.run, {JUDGE_PROMPT}
    ) USING (id) WHERE j.status IN {USABLE}
    """


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
_Done = dict[tuple[int, int, str], float | None]  # (answer, run, variant) -> score


def _done(rows: Iterable[tuple[int, int, float | None, str, bool]]) -> _Done:
    return {
        (a, run, MATCHED if matched else prompt_variant(prompt)): score
        for a, run, score, prompt, matched in rows
    }


def _settled(done: _Done, answer: int, run: int, work: JudgeWork) -> tuple[float | None] | None:
    """The score (in a 1-tuple: it may be None) that settles a run for a judge asking with
    `work`'s prompt, or None while the run is pending."""
    for key in ((answer, run, prompt_variant(work.prompt_version())), (answer, run, MATCHED)):
        if key in done:
            return (done[key],)
    return None


@dataclass(frozen=True, slots=True)
class _Answer:
    """An answer a run judges, as the file held it (see JudgeStore.save_received)."""

    dataset: str
    kind: str
    model: str
    sample: Sample
    text: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What a judge run would do."""

    chains: list[list[JudgeItem]]
    items: int
    llm_items: int  # items that need an LLM call (not settled by option matching)
    prompt_tokens: int  # estimated, for the first call of each LLM item (4 chars a token)


class UnknownVariant(ValueError):
    """No dataset a judge run covers has the prompt variant it names."""


class JudgeStore:
    """`JudgeStorage` over a Store, for one judge: a model, and the prompt each item's work
    asks with (`variant` names a prompt variant: Benchmark.prompt_variant). A run is
    pending until this judge's own latest judgment of it, with that prompt, is usable;
    another judge's judgments change nothing here."""

    def __init__(
        self,
        store: Store,
        judge_model: str,
        variant: str | None = None,
        *,
        owner: str = OWNER,
        held_until: str | None = None,
    ) -> None:
        """`owner` names the claims this store takes (a batch names itself); `held_until`
        dates them later than now, so that the stale rule frees them only an hour after
        that moment (a batch's claims last its completion window)."""
        self.store = store
        self.judge_model = judge_model
        self.variant = variant
        self.owner = owner
        self.held_until = held_until
        self._answers: dict[int, _Answer] = {}  # the answers planned, by id
        self._received: list[tuple[int, Judgment]] = []  # what this run recorded

    # -- planning ------------------------------------------------------------------

    def plan(
        self, runs: int, datasets: list[str] | None = None, models: list[str] | None = None
    ) -> Plan:
        """Every item still to judge: for work asked in every run, an item per run; for
        work asked once, one item, chained with the rows of its group in order (none for a
        group that a decided row already ended)."""
        chains: list[list[JudgeItem]] = []
        variants: dict[str, JudgeWork | ValueError] = {}  # benchmark name -> its variant work
        for name, benchmark in self.store.datasets(datasets or None):
            variant = self._variant(benchmark, variants)
            samples = {s.key: s for s in self.store.samples(name)}
            done = self._done(name)
            groups: dict[tuple[str, object], list[_Row]] = {}
            for answer_id, model, key, text in self.store.answer_rows(name):
                if models and model not in models:
                    continue
                sample = samples[key]
                work = _asked(benchmark.judge_work(sample), variant)
                if work is None:
                    continue
                self._answers[answer_id] = _Answer(name, benchmark.name, model, sample, text)
                if work.every_run:
                    chains.extend(
                        [_item(answer_id, run, work, sample, text)]
                        for run in range(runs)
                        if _settled(done, answer_id, run, work) is None
                    )
                    continue
                group, place = benchmark.chain(sample) or (("alone", answer_id), 0)
                settled = _settled(done, answer_id, 0, work)
                decided = settled[0] if settled else None  # with no gold, no score
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
        refused = [work for work in variants.values() if isinstance(work, ValueError)]
        if refused and len(refused) == len(variants):  # no dataset here has it: say why,
            refused.sort(key=lambda exc: isinstance(exc, NoVariants))  # from one that has some
            raise UnknownVariant(str(refused[0])) from refused[0]
        return self._plan(chains)

    def _variant(
        self, benchmark: Benchmark, variants: dict[str, JudgeWork | ValueError]
    ) -> JudgeWork | None:
        """The work of this judge's prompt variant for `benchmark`, if it has it."""
        if self.variant is None:
            return None
        if benchmark.name not in variants:
            try:
                variants[benchmark.name] = benchmark.prompt_variant(self.variant)
            except ValueError as exc:
                variants[benchmark.name] = exc
        work = variants[benchmark.name]
        return None if isinstance(work, ValueError) else work

    def _plan(self, chains: list[list[JudgeItem]]) -> Plan:
        items = [item for chain in chains for item in chain]
        needing = [item for item in items if item.work.without_llm(item) is None]
        tokens = sum(
            len(item.work.ladder(item, self.judge_model)[0].messages[0][1]) // 4 for item in needing
        )
        return Plan(chains, len(items), len(needing), tokens)

    def _done(self, dataset: str) -> _Done:
        """(answer id, run, prompt variant or MATCHED) -> score, for the runs this judge's
        latest judgment with that prompt settled, and the option matches."""
        return _done(self.store.conn.execute(_own_latest(IN_DATASET), (dataset, self.judge_model)))

    # -- JudgeStorage ----------------------------------------------------------------

    def claim(self, item: JudgeItem) -> bool:
        with self.store.transaction():
            return self.take(item)

    def take(self, item: JudgeItem) -> bool:
        """`claim`, in the caller's transaction."""
        conn = self.store.conn
        key = (item.answer_id, item.run, self.judge_model)
        if self.judged(item):
            return False
        row = conn.execute(
            "SELECT owner, claimed_at FROM judge_claims "
            "WHERE answer_id = ? AND run = ? AND judge_model = ?",
            key,
        ).fetchone()
        if row is not None and row[0] != self.owner and _alive(row[0]) and not _old(row[1]):
            return False
        conn.execute(
            "INSERT OR REPLACE INTO judge_claims (answer_id, run, judge_model, owner, "
            "claimed_at) VALUES (?, ?, ?, ?, ?)",
            (*key, self.owner, self.held_until or now()),
        )
        return True

    def judged(self, item: JudgeItem) -> bool:
        """Whether this judge's latest judgment of the item, with its prompt, settles it."""
        query = _own_latest("WHERE l.answer_id = ? AND l.run = ?")
        rows = self.store.conn.execute(query, (item.answer_id, item.run, self.judge_model))
        return _settled(_done(rows), item.answer_id, item.run, item.work) is not None

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
            self.cache(replies)

    def cache(self, replies: list[tuple[str, Call, Reply]]) -> None:
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
            self.write(item, judgment, replies)

    def write(
        self, item: JudgeItem, judgment: Judgment, replies: list[tuple[str, Call, Reply]]
    ) -> None:
        """`record`, in the caller's transaction."""
        self.cache(replies)
        self.store.add_judgments([(item.answer_id, judgment)])
        self._received.append((item.answer_id, judgment))
        self.store.conn.execute(
            "DELETE FROM judge_claims WHERE answer_id = ? AND run = ? AND judge_model = ?",
            (item.answer_id, item.run, self.judge_model),
        )

    def received(self) -> int:
        """How many judgments this run recorded."""
        return len(self._received)

    def save_received(self, target: Path) -> None:
        """Write the judgments this run recorded, with their answers, samples and datasets,
        to a new database at `target`: after the file was rewritten in place they are held
        nowhere else (its old content is gone)."""
        from lmmreview.db.importers import ImportBatch, load
        from lmmreview.db.importers.batch import AnswerRecord

        batches: dict[str, ImportBatch] = {}
        for answer_id in dict.fromkeys(answer for answer, _ in self._received):
            a = self._answers[answer_id]
            batch = batches.setdefault(a.dataset, ImportBatch(a.dataset, a.kind, str(target)))
            batch.samples.append(a.sample)
            batch.answers.append(AnswerRecord(a.sample.key, a.model, a.text, str(target)))
        for batch in batches.values():  # a sample answered by several models: once
            batch.samples = list({sample.key: sample for sample in batch.samples}.values())
        with new_database(target) as store:
            for batch in batches.values():
                load(store, batch)
            ids = {name: store.answer_ids(name) for name in batches}
            with store.transaction():
                store.add_judgments(
                    (ids[a.dataset][a.model, a.sample.key], judgment)
                    for a, judgment in ((self._answers[i], j) for i, j in self._received)
                )

    def release_all(self) -> None:
        with self.store.transaction():
            self.store.conn.execute("DELETE FROM judge_claims WHERE owner = ?", (self.owner,))


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


def _asked(work: JudgeWork | None, variant: JudgeWork | None) -> JudgeWork | None:
    """The work an item is asked with: the prompt variant's, in place of work of its own
    kind (MM-Vet v2's grading is of another kind than a variant of MM-Vet's)."""
    if variant is None or work is None or kind_of(work) is not kind_of(variant):
        return work
    return variant
