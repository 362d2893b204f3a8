"""Judge runs through a Batch API, kept in the database (the tables of migration 9).

`submit` walks the pending work as the live judge does (the same plan, claims, ladder and
cache); where a call must be asked, it goes into a batch file instead. A file's rows (its
batch, its requests and their claims, and the judgments the cache already gives) are
committed before it is uploaded, and its tag goes with the batch as metadata: a process
killed at any point loses nothing, and the next one finds a batch whose creation it did
not record rather than paying for it again. `collect` stores each finished batch's results
in one write, as the live judge stores its replies: the cache, the judgment (or the failure
and its reason), the claim released; a reply that does not parse is cached, and the item's
next call on its ladder goes into the next batch.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lmmreview.db.judging import OWNER, JudgeStore, _alive, _old
from lmmreview.db.store import Store, now
from lmmreview.engine.batch import (
    BatchClient,
    BatchFailed,
    BatchInfo,
    Limits,
    Outcome,
    custom_id,
    is_token,
    read_results,
    request_line,
)
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.judging import failed
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.runner import Ask, Lookup, usable_cached, walk_ladder
from lmmreview.engine.scoring import USABLE, Judgment

PREPARING = "preparing"  # the rows are written; the batch is not known to be created yet
NOT_PENDING = "not pending"  # a request whose item was settled meanwhile (the outcome kept)
REPLY = "reply"  # a request's outcome when it brought a reply
WINDOW = timedelta(hours=24)  # the completion window: a batch's claims last that long

_Chains = Iterator[list[JudgeItem]]
_Found = tuple[JudgeItem, Ask]  # an item and the call it must ask


@dataclass(frozen=True, slots=True)
class InFlight:
    """A batch not collected yet, with its counts (the provider's, as last polled)."""

    id: int
    batch_id: str | None
    judge_model: str
    status: str
    requests: int  # lines sent
    items: int  # the items they answer (items asking one identical call share its line)
    completed: int
    failed: int


@dataclass(slots=True)
class Submitted:
    requests: int = 0
    batches: list[str] = field(default_factory=list)  # the provider's ids
    answered: int = 0  # items settled without a request (the cache, option matching)
    too_large: int = 0  # requests larger than a batch file may be: recorded as failed


@dataclass(slots=True)
class Collected:
    batches: int = 0
    judged: int = 0
    failed: int = 0
    again: int = 0  # replies that did not parse: the next call goes into the next batch
    failed_items: set[tuple[int, int]] = field(default_factory=set)  # (answer id, run)
    repeated: list[tuple[str, int]] = field(default_factory=list)  # (batch, ids seen twice)
    # (batch, lines no request of it: unreadable, or a custom_id it never sent)
    strays: list[tuple[str, int]] = field(default_factory=list)
    # (batch, requests the provider reported ended, those its files hold a result for)
    short: list[tuple[str, int, int]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Preview:
    requests: int
    files: int
    tokens: int  # estimated prompt tokens (4 characters a token)
    answered: int
    too_large: int  # requests larger than a batch file may be: they would not be sent


@dataclass(slots=True)
class _File:
    row: int
    tag: str
    lines: list[bytes] = field(default_factory=list)
    size: int = 0


def batches_in_flight(store: Store) -> list[InFlight]:
    """Every batch not collected yet, oldest first."""
    rows = store.conn.execute(
        "SELECT b.id, b.batch_id, b.judge_model, b.status, COUNT(DISTINCT r.sent_as), "
        "COUNT(r.custom_id), b.completed, b.failed FROM judge_batches b "
        "LEFT JOIN judge_batch_requests r ON r.batch = b.id "
        "WHERE b.collected_at IS NULL GROUP BY b.id ORDER BY b.id"
    )
    return [InFlight(*row) for row in rows]


def in_flight_urls(store: Store) -> list[str | None]:
    """The APIs the batches in flight went to (None: the default), each once: a collect
    polls one of them."""
    rows = store.conn.execute(
        "SELECT DISTINCT base_url FROM judge_batches WHERE collected_at IS NULL ORDER BY base_url"
    )
    return [url for (url,) in rows]


def in_flight_lines(batches: list[InFlight]) -> list[str]:
    """`info`'s and the review screen's lines on the batches in flight (none: none)."""
    if not batches:
        return []
    requests, items = sum(b.requests for b in batches), sum(b.items for b in batches)
    return [f"Judge batches in flight: {len(batches)} ({requests} requests, {items} items)."] + [
        f"  {b.batch_id or 'not created yet'} ({b.judge_model}): {b.status}, "
        f"{b.completed} of {b.requests} done, {b.failed} failed"
        for b in batches
    ]


class BatchJudge:
    """One judge's batch runs over a Store, through one Batch API (`client`; None for a
    dry run, which only reads)."""

    def __init__(
        self,
        store: Store,
        client: BatchClient | None,
        model: str,
        *,
        variant: str | None = None,
        base_url: str | None = None,
        limits: Limits = Limits(),  # noqa: B008 - frozen, so one default is safe
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.store = store
        self.client = client
        self.model = model
        self.variant = variant
        self.base_url = base_url
        self.limits = limits
        self.secrets = secrets  # to keep the key out of what is stored

    # -- submitting ------------------------------------------------------------------

    def submit(
        self, chains: list[list[JudgeItem]], skip: Iterable[tuple[int, int]] = ()
    ) -> Submitted:
        """Send every chain's next call in batches (a chain with an item in flight, or in
        `skip`, waits); store what the cache and option matching settle at once. Items
        asking one identical call share its request, as the live judge's cache would
        have them share its reply."""
        done = Submitted()
        owner = f"batch {uuid.uuid4().hex[:12]}@{OWNER}"
        held = (datetime.fromisoformat(now()) + WINDOW).isoformat(timespec="milliseconds")
        storage = JudgeStore(self.store, self.model, self.variant, owner=owner,
                             held_until=held)  # fmt: skip
        with self.store.transaction():
            calls = self._calls(self._found(storage, self._waiting(chains, skip), done))
        while calls:
            with self.store.transaction():
                file = self._fill(storage, calls, done)
            if file is not None:
                done.batches.append(self._send(file))
                done.requests += len(file.lines)
        return done

    def preview(self, chains: list[list[JudgeItem]]) -> Preview:
        """What `submit` would send, without writing or asking anything."""
        storage = JudgeStore(self.store, self.model, self.variant)
        done = Submitted()
        found = self._found(storage, self._waiting(chains, ()), done, write=False)
        seen = self._flying()  # only the keys are kept: the prompts are counted and let go
        sent, files, lines, size, tokens, too_large = 0, 0, 0, 0, 0, 0
        for item, ask in found:
            if ask.key in seen:
                continue
            seen.add(ask.key)
            line = len(request_line(custom_id(0, item.answer_id, item.run, ask.step), ask.call))
            if not self.limits.fits(1, line):
                too_large += 1
                continue
            if not lines or not self.limits.fits(lines + 1, size + line):
                files, lines, size = files + 1, 0, 0
            sent, lines, size = sent + 1, lines + 1, size + line
            tokens += sum(len(text) for _, text in ask.call.messages) // 4
        return Preview(sent, files, tokens, done.answered, too_large)

    def _waiting(self, chains: list[list[JudgeItem]], skip: Iterable[tuple[int, int]]) -> _Chains:
        """The chains with no item in flight (in a batch not collected) or in `skip`."""
        busy = set(skip) | set(
            self.store.conn.execute(
                "SELECT r.answer_id, r.run FROM judge_batch_requests r JOIN judge_batches b "
                "ON b.id = r.batch WHERE b.collected_at IS NULL AND b.judge_model = ?",
                (self.model,),
            )
        )
        return (c for c in chains if not any((i.answer_id, i.run) in busy for i in c))

    def _calls(self, found: Iterator[_Found]) -> deque[list[_Found]]:
        """The calls to send, each with the items asking it, in the order first asked; a
        call already in flight is left out (its items wait for its reply in the cache)."""
        flying = self._flying()
        calls: dict[str, list[_Found]] = {}
        for item, ask in found:
            if ask.key not in flying:
                calls.setdefault(ask.key, []).append((item, ask))
        return deque(calls.values())

    def _flying(self) -> set[str]:
        """The cache keys of the calls in a batch not collected yet."""
        return {
            key
            for (key,) in self.store.conn.execute(
                "SELECT r.cache_key FROM judge_batch_requests r JOIN judge_batches b "
                "ON b.id = r.batch WHERE b.collected_at IS NULL"
            )
        }

    def _found(
        self, storage: JudgeStore, chains: _Chains, done: Submitted, write: bool = True
    ) -> Iterator[_Found]:
        """Each chain's next call to ask. What needs none (the cache has a reply that
        parses, option matching decides) is stored at once (`write`) in the caller's
        transaction, and the chain goes on as the live runner's would."""
        lookup = _lookup(storage)
        for chain in chains:
            for item in chain:
                if storage.judged(item):
                    continue
                walk = walk_ladder(item, self.model, lookup)
                try:
                    ask = next(walk)
                except StopIteration as walked:
                    judgment: Judgment = walked.value
                    if write and storage.take(item):
                        storage.write(item, judgment, [])
                    done.answered += 1
                    if len(chain) > 1 and item.work.ends_chain(judgment.score):
                        break
                    continue
                yield item, ask
                break  # the rest of the chain waits for this reply

    def _fill(
        self, storage: JudgeStore, calls: deque[list[_Found]], done: Submitted
    ) -> _File | None:
        """Write the rows of the next file (in the caller's transaction), taking calls
        from `calls` up to the limits: one line per call, one claimed row per item asking
        it (a call larger than a file may be is recorded as failed, and counted in
        `done`). Returns the file, or None when no call is left to send."""
        file = self._new_file(storage.owner)
        conn = self.store.conn
        while calls:
            conn.execute("SAVEPOINT call")  # its claims are undone if it waits for a next file
            items = [(item, ask) for item, ask in calls[0] if storage.take(item)]
            if not items:  # a live run holds them, or judged them
                conn.execute("RELEASE call")
                calls.popleft()
                continue
            item, ask = items[0]
            sent_as = custom_id(file.row, item.answer_id, item.run, ask.step)
            line = request_line(sent_as, ask.call)
            if not self.limits.fits(1, len(line)):
                reason = f"the request ({len(line):,} bytes) is larger than a batch file may be"
                for item, ask in items:
                    storage.write(item, failed(item, self.model, reason, ask.last_reply), [])
                done.too_large += 1
                conn.execute("RELEASE call")
                calls.popleft()
                continue
            if file.lines and not self.limits.fits(len(file.lines) + 1, file.size + len(line)):
                conn.execute("ROLLBACK TO call")
                conn.execute("RELEASE call")
                break
            conn.execute("RELEASE call")
            calls.popleft()
            conn.executemany(
                "INSERT INTO judge_batch_requests (custom_id, sent_as, batch, answer_id, run, "
                "step, cache_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((custom_id(file.row, i.answer_id, i.run, a.step), sent_as, file.row,
                  i.answer_id, i.run, a.step, a.key) for i, a in items),
            )  # fmt: skip
            file.lines.append(line)
            file.size += len(line)
        if file.lines:
            return file
        conn.execute("DELETE FROM judge_batches WHERE id = ?", (file.row,))
        return None

    def _new_file(self, owner: str) -> _File:
        tag = uuid.uuid4().hex
        cursor = self.store.conn.execute(
            "INSERT INTO judge_batches (tag, judge_model, prompt_variant, base_url, owner, "
            "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tag, self.model, self.variant, self.base_url, owner, PREPARING, now()),
        )
        return _File(int(cursor.lastrowid or 0), tag)

    def _send(self, file: _File) -> str:
        """Upload a file and create its batch; on a failure, settle what was written (a
        batch created after all is kept) and raise BatchFailed."""
        client = self._client()
        try:
            file_id = client.upload(b"".join(file.lines))
            with self.store.transaction():
                self._update(file.row, input_file_id=file_id)
            info = client.create(file_id, file.tag)
        except BatchFailed:
            self._settle_unsent(file.row)
            raise
        with self.store.transaction():
            self._adopt(file.row, info)
        return info.id

    # -- collecting ------------------------------------------------------------------

    def collect(self) -> Collected:
        """Poll every batch in flight that went to this API; store the results of those
        that ended. Batches a killed process left unrecorded are found first."""
        done = Collected()
        self._recover()
        rows = self.store.conn.execute(
            "SELECT id, batch_id, judge_model, prompt_variant, owner FROM judge_batches "
            "WHERE collected_at IS NULL AND batch_id IS NOT NULL "
            "AND COALESCE(base_url, '') = ? ORDER BY id",
            (self.base_url or "",),
        ).fetchall()
        items: dict[tuple[str, str | None], dict[tuple[int, int], JudgeItem]] = {}
        for row, batch_id, model, variant, owner in rows:
            info = self._client().retrieve(batch_id)
            with self.store.transaction():
                self._update(row, status=info.status, completed=info.completed,
                             failed=info.failed)  # fmt: skip
            if not info.done:
                continue
            if (model, variant) not in items:
                items[(model, variant)] = self._items(model, variant)
            storage = JudgeStore(self.store, model, variant, owner=owner)
            self._store_results(row, info, storage, items[(model, variant)], done)
            done.batches += 1
        return done

    def _items(self, model: str, variant: str | None) -> dict[tuple[int, int], JudgeItem]:
        """(answer id, run) -> item, for the judge's pending items in every run a batch
        in flight asks about."""
        runs = self.store.conn.execute(
            "SELECT MAX(r.run) FROM judge_batch_requests r JOIN judge_batches b ON b.id = r.batch "
            "WHERE b.collected_at IS NULL"
        ).fetchone()[0]
        plan = JudgeStore(self.store, model, variant).plan((runs or 0) + 1)
        return {(i.answer_id, i.run): i for chain in plan.chains for i in chain}

    def _store_results(
        self,
        row: int,
        info: BatchInfo,
        storage: JudgeStore,
        items: dict[tuple[int, int], JudgeItem],
        done: Collected,
    ) -> None:
        """Store an ended batch's results in one write, and release its claims. A request
        with several lines keeps its first reply (else its first failure) and records what
        the others said; its item is settled once."""
        files = [self._client().content(f) for f in (info.output_file_id, info.error_file_id) if f]
        results = read_results(files, self.secrets)
        if results.ignored:
            done.repeated.append((info.id, len(results.ignored)))
        missing = _missing_reason(info)
        requests = self.store.conn.execute(
            "SELECT custom_id, sent_as, answer_id, run, cache_key FROM judge_batch_requests "
            "WHERE batch = ? AND outcome IS NULL ORDER BY rowid",
            (row,),
        ).fetchall()
        sent = {sent_as for _, sent_as, *_ in requests}
        received = sum(1 for found in results.outcomes if found in sent)
        strays = results.unreadable + len(results.outcomes) - received
        if strays:
            done.strays.append((info.id, strays))
        if info.completed + info.failed > received:  # an empty or truncated result file
            done.short.append((info.id, info.completed + info.failed, received))
        with self.store.transaction():
            for request_id, sent_as, answer_id, run, key in requests:
                outcome = results.outcomes.get(sent_as, missing)
                item = items.get((answer_id, run))
                stored = (
                    NOT_PENDING if item is None else self._settle(storage, item, key, outcome, done)
                )
                self.store.conn.execute(
                    "UPDATE judge_batch_requests SET outcome = ? WHERE custom_id = ?",
                    (_with_ignored(stored, results.ignored.get(sent_as, [])), request_id),
                )
            self._release_claims(storage.owner, row)
            self._update(row, collected_at=now())

    def _settle(
        self, storage: JudgeStore, item: JudgeItem, key: str, outcome: Outcome, done: Collected
    ) -> str:
        """Store one request's outcome as the live runner stores a reply or a failure, and
        walk the item's ladder on; returns what the request's row keeps (REPLY, or why it
        failed). An item sharing the call of another sees its reply in the cache."""
        if storage.judged(item):
            return NOT_PENDING
        kept = REPLY if isinstance(outcome, Reply) else outcome
        walk = walk_ladder(item, storage.judge_model, _lookup(storage))
        paid: list[tuple[str, Call, Reply]] = []
        try:
            ask = next(walk)
            if ask.key == key:  # else the cache took the walk past this call already
                if isinstance(outcome, str):
                    judgment = failed(item, storage.judge_model, outcome, ask.last_reply)
                    self._count(storage, item, judgment, [], done)
                    return kept
                paid = [(key, ask.call, outcome)]
                walk.send(outcome)
        except StopIteration as walked:
            self._count(storage, item, walked.value, paid, done)
            return kept
        storage.cache(paid)  # it did not parse: the next call goes into the next batch
        done.again += 1
        return kept

    @staticmethod
    def _count(
        storage: JudgeStore,
        item: JudgeItem,
        judgment: Judgment,
        paid: list[tuple[str, Call, Reply]],
        done: Collected,
    ) -> None:
        storage.write(item, judgment, paid)
        if judgment.status.value in USABLE:  # as the live runner counts: OK or FALLBACK
            done.judged += 1
        else:
            done.failed += 1
            done.failed_items.add((item.answer_id, item.run))

    # -- batches a killed process left ---------------------------------------------------

    def _recover(self) -> None:
        """Settle the batches whose submitting process is gone before it recorded them,
        and those recorded with an id that is no token (an older version took any; asking
        about it would fail every collect): both are looked for again by their tag."""
        rows = self.store.conn.execute(
            "SELECT id, owner, created_at, batch_id FROM judge_batches "
            "WHERE status = ? OR (batch_id IS NOT NULL AND collected_at IS NULL "
            "AND COALESCE(base_url, '') = ?)",
            (PREPARING, self.base_url or ""),
        ).fetchall()
        for row, owner, created_at, batch_id in rows:
            if batch_id is not None:
                if not is_token(batch_id):
                    self._settle_unsent(row)
                continue
            process = owner.rpartition("@")[2]
            if not _alive(process) or _old(created_at):
                self._settle_unsent(row)

    def _settle_unsent(self, row: int) -> None:
        """A batch whose creation was not recorded: the provider's, if it was created after
        all (found by its tag); else its rows and claims go, and its items wait again."""
        tag, file_id, created_at, owner = self.store.conn.execute(
            "SELECT tag, input_file_id, created_at, owner FROM judge_batches WHERE id = ?",
            (row,),
        ).fetchone()
        client = self._client()
        since = datetime.fromisoformat(created_at).timestamp() - 60
        info = client.find(tag, since) if file_id else None
        with self.store.transaction():
            if info is not None:
                self._adopt(row, info)
                return
            self._release_claims(owner, row)
            self.store.conn.execute("DELETE FROM judge_batch_requests WHERE batch = ?", (row,))
            self.store.conn.execute("DELETE FROM judge_batches WHERE id = ?", (row,))
        if file_id:
            client.delete_file(file_id)

    def _release_claims(self, owner: str, row: int) -> None:
        """Give back the claims a batch's items still hold (in the caller's transaction)."""
        self.store.conn.execute(
            "DELETE FROM judge_claims WHERE owner = ? AND EXISTS (SELECT 1 FROM "
            "judge_batch_requests r WHERE r.batch = ? AND r.answer_id = judge_claims.answer_id "
            "AND r.run = judge_claims.run)",
            (owner, row),
        )

    def _adopt(self, row: int, info: BatchInfo) -> None:
        self._update(row, batch_id=info.id, status=info.status, completed=info.completed,
                     failed=info.failed)  # fmt: skip

    def _update(self, row: int, **values: object) -> None:
        """Set columns of a batch's row (names from this module only)."""
        columns = ", ".join(f"{name} = ?" for name in values)
        self.store.conn.execute(
            f"UPDATE judge_batches SET {columns} WHERE id = ?", (*values.values(), row)
        )

    def _client(self) -> BatchClient:
        if self.client is None:
            raise BatchFailed("no Batch API is configured")
        return self.client


def _lookup(storage: JudgeStore) -> Lookup:
    """The cache, read as the live runner reads it."""
    return lambda key, item, call: usable_cached(storage, key, item, call)


def _with_ignored(stored: str, ignored: list[str]) -> str:
    """A request's recorded outcome, with what its other result lines said (the first)."""
    if not ignored:
        return stored
    return f"{stored}; {len(ignored)} more result line(s) ignored, the first: {ignored[0]}"


def _missing_reason(info: BatchInfo) -> str:
    """Why a request of an ended batch has no line in its files."""
    if info.status == "failed":
        return f"the batch failed: {info.errors or 'no reason given'}"
    if info.status in ("expired", "cancelled"):
        return f"the batch {info.status} before this request ran"
    return "no result for this request in the batch's files"
