"""`lmmreview judge --batch`: the judge's pending work through a Batch API.

Each round collects the batches that ended, then (unless --collect) sends what is still
pending; --wait repeats the rounds until no batch is in flight, saying on stderr how the
batches stand whenever that changes. The key, model, base URL and timeout come from
`judge_setup`, as for a live run; the planning, claims, ladder and cache are the live
judge's (db/batches.py).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer

from lmmreview.db import Store
from lmmreview.db.batches import (
    BatchJudge,
    Collected,
    Submitted,
    batches_in_flight,
    in_flight_lines,
    in_flight_urls,
)
from lmmreview.engine.batch import BatchFailed, Limits, OpenAIBatches
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.tui.batch_notice import BatchNotice
from lmmreview.tui.crash import DEFAULT_KEY_VARIABLE
from lmmreview.tui.judge_run import JudgeSetup
from lmmreview.tui.output import clear_errors, err, fail, say

Chains = list[list[JudgeItem]]


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """What `judge --batch` was asked to do."""

    collect_only: bool
    dry_run: bool
    wait: bool
    poll_seconds: float
    limits: Limits
    variant: str | None  # the prompt variant's name (Benchmark.prompt_variant)


def judge_in_batches(
    db: Path,
    setup: JudgeSetup,
    options: BatchOptions,
    datasets: list[str] | None,
    plan: Callable[[Store], Chains],
) -> None:
    """Collect, send, and (--wait) repeat; `plan` gives the pending chains of a store."""
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        if options.dry_run:
            _preview(store, setup, options, plan(store))
            return
        if setup.api_key is None:
            raise fail(f"--batch needs an LLM judge: set {setup.api_key_env} or --base-url")
        client = OpenAIBatches(api_key=setup.api_key, base_url=setup.base_url,
                               timeout=setup.timeout)  # fmt: skip
        judge = BatchJudge(store, client, setup.model, variant=options.variant,
                           base_url=setup.shown_url, limits=options.limits,
                           secrets=client.secrets)  # fmt: skip
        try:
            _rounds(store, judge, options, plan, setup)
        except BatchFailed as exc:
            raise fail(f"Batch API: {exc}. What was sent is recorded; run again.") from None
        except KeyboardInterrupt:
            say(f"Stopped. What was sent is recorded. {_collect_them(store, setup)}", console=err)
            raise typer.Exit(130) from None
        finally:
            client.close()


def _rounds(
    store: Store,
    judge: BatchJudge,
    options: BatchOptions,
    plan: Callable[[Store], Chains],
    setup: JudgeSetup,
) -> None:
    """Collect and send until nothing is in flight (--wait) or once. An item that failed
    in this command is not sent again by it (a later command asks it again)."""
    failed: set[tuple[int, int]] = set()
    short: list[tuple[str, int, int]] = []
    first = True
    waiting = BatchNotice(
        lambda text: say(f"Waiting (a poll every {options.poll_seconds:g} s): {text}", console=err)
    )
    while True:
        collected = judge.collect()
        failed |= collected.failed_items
        short += collected.short
        _say_collected(collected)
        if not options.collect_only:
            submitted = judge.submit(plan(store), failed)
            _say_submitted(submitted, judge.model, quiet=not first)
            _say_too_large(submitted.too_large, options, "were recorded as failed, not sent")
        first = False
        flying = batches_in_flight(store)
        if not (options.wait and flying):
            _say_in_flight(store, setup)
            _fail_if_short(short)
            return
        waiting.seen(flying)
        time.sleep(options.poll_seconds)


def _preview(store: Store, setup: JudgeSetup, options: BatchOptions, chains: Chains) -> None:
    judge = BatchJudge(store, None, setup.model, variant=options.variant, limits=options.limits)
    preview = judge.preview(chains)
    say(
        f"{preview.requests} requests to {setup.model} in {preview.files} batch file(s), "
        f"about {preview.tokens:,} prompt tokens; {preview.answered} items settled without "
        "a request. Nothing was sent (--dry-run)."
    )
    _say_too_large(preview.too_large, options, "would not be sent")
    _say_in_flight(store, setup)


def _say_too_large(count: int, options: BatchOptions, fate: str) -> None:
    """Requests no batch file can hold under --batch-mb: said, never left out silently."""
    if count:
        say(
            f"warning: {count} request(s) are larger than a batch file may be "
            f"({options.limits.bytes:,} bytes, --batch-mb) and {fate}: raise --batch-mb, or "
            "judge them without --batch.",
            console=err,
        )


def _say_collected(done: Collected) -> None:
    if done.batches:
        say(
            f"Collected {done.batches} batch(es): {done.judged} judged, {done.failed} failed "
            f"(recorded with the reason, not scored), {done.again} replies that did not "
            "parse (asked again in the next batch)."
        )
    for batch_id, strays in done.strays:
        say(
            f"warning: batch {batch_id}: {strays} result line(s) named no request of the batch "
            "(not JSON, no custom_id, or an id it never sent): left out.",
            console=err,
        )
    for batch_id, repeated in done.repeated:
        say(
            f"warning: batch {batch_id}: {repeated} request(s) had more than one result line; "
            "the first reply (else the first failure) was kept, the others are recorded "
            "with the request, and none is sent again.",
            console=err,
        )


def _fail_if_short(short: list[tuple[str, int, int]]) -> None:
    """Exit 1 when a provider reported requests done that its result files left out: they
    are recorded as failed (the next `judge --batch` asks them again), not judged."""
    if short:
        batches = ", ".join(batch for batch, _, _ in short)
        reported, received = sum(r for _, r, _ in short), sum(r for _, _, r in short)
        raise fail(
            f"batch {batches}: the provider reported {reported} requests done, but its result "
            f"files hold {received}; the others are recorded as failed, and the next "
            "`judge --batch` asks them again."
        )


def _say_submitted(done: Submitted, model: str, quiet: bool) -> None:
    """What a round sent; `quiet`: nothing when it sent nothing (a later round of --wait)."""
    if done.answered:
        say(f"{done.answered} items settled from the cache or without the judge.")
    if done.requests:
        say(
            f"Sent {done.requests} requests to {model} in {len(done.batches)} batch(es): "
            f"{', '.join(done.batches)}."
        )
    elif not quiet:
        say(f"Nothing new to send to {model}.")


def _say_in_flight(store: Store, setup: JudgeSetup) -> None:
    lines = in_flight_lines(batches_in_flight(store))
    if lines:
        say(f"{lines[0]} {_collect_them(store, setup)}")


def _collect_them(store: Store, setup: JudgeSetup) -> str:
    """How to collect the batches in flight: a command per API they went to, with every
    option that collecting needs (the key's variable, never the key)."""
    urls = in_flight_urls(store)
    commands = [f"`{_collect_command(store.path, url, setup)}`" for url in urls]
    return f"Collect them with {' and '.join(commands)}." if commands else ""


def _collect_command(db: Path, base_url: str | None, setup: JudgeSetup) -> str:
    words = ["lmmreview", "judge", str(db), "--batch", "--collect"]
    if base_url:
        words += ["--base-url", setup.shown(base_url)]  # stored before it was redacted
    if setup.api_key_env != DEFAULT_KEY_VARIABLE:
        words += ["--api-key-env", setup.api_key_env]
    return shlex.join(words)
