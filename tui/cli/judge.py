"""`lmmreview judge`: run the LLM judge over a database, with a progress bar.

The command's options are defined here with what they cost nothing to import; the store,
the judge and the progress bar load when the command runs (see tui/cli/__init__.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.engine.defaults import DEFAULT_JUDGE_MODEL, MAX_BYTES, MAX_REQUESTS
from lmmreview.tui.options import (
    MAX_RUNS,
    MAX_TIMEOUT,
    MIN_TIMEOUT,
    DatasetsOpt,
    DbArg,
    JudgeUrlOpt,
    checked_key_variable,
)
from lmmreview.tui.output import clear_errors, err, fail, say

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from lmmreview.db.judging import JudgeStore, Plan
    from lmmreview.engine.runner import Progress as RunProgress
    from lmmreview.tui.judge_run import JudgeSetup


def judge(
    db: DbArg,
    dataset: DatasetsOpt = None,
    model_filter: Annotated[
        list[str] | None,
        typer.Option(
            metavar="MODEL", help="Only the answers of this model (repeatable).", show_default=False
        ),
    ] = None,
    runs: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_RUNS,
            metavar="N",
            help="Judge runs per open answer (default: 5, as MM-Vet).",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="Requests in flight (default: 16).")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(metavar="MODEL", help=f"The judge model (default: {DEFAULT_JUDGE_MODEL})."),
    ] = None,
    base_url: JudgeUrlOpt = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            metavar="VAR",
            help="Environment variable holding the API key (default: OPENAI_API_KEY).",
            callback=checked_key_variable,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=MIN_TIMEOUT,
            max=MAX_TIMEOUT,  # inf waited for ever on a stalled server
            metavar="SECONDS",
            help="Seconds per request (default: 60).",
        ),
    ] = None,
    max_attempts: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Requests per item, retries included, before it fails (default: 10).",
        ),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask again even if cached.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the calls and tokens; ask nothing.")
    ] = False,
    prompt_variant: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Ask with one of the benchmarks' prompt variants (each names its own: for "
            "MM-Vet's and the JSONL format's open answers, shots=1,2,5 keeps only those "
            "few-shot rows, 1 to 7). Recorded as a prompt version of its own, so "
            "`lmmreview judges` compares it as a judge.",
            show_default=False,
        ),
    ] = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Send the pending work through the Batch API (half the price, results "
            "within 24 hours) and return; a later --batch collects what ended and sends "
            "what is left.",
        ),
    ] = False,
    collect: Annotated[
        bool,
        typer.Option("--collect", help="With --batch: only collect the batches that ended."),
    ] = False,
    wait: Annotated[
        bool,
        typer.Option("--wait", help="With --batch: poll until no batch is in flight."),
    ] = False,
    poll_seconds: Annotated[
        float,
        typer.Option(min=0.01, max=86_400, metavar="SECONDS", help="With --wait: between polls."),
    ] = 60.0,
    per_batch: Annotated[
        int,
        typer.Option(
            min=1,
            max=MAX_REQUESTS,  # the provider's own limits: a larger batch is refused there
            metavar="N",
            help="With --batch: requests per batch at most.",
        ),
    ] = MAX_REQUESTS,
    batch_mb: Annotated[
        float,
        typer.Option(
            min=0.001,
            max=MAX_BYTES / 1e6,
            metavar="MB",
            help="With --batch: megabytes per batch file.",
        ),
    ] = MAX_BYTES / 1e6,
) -> None:
    """Judge with an LLM, as each dataset's benchmark asks.

    lmmreview's own: open answers are graded with the MM-Vet prompt (--runs times each);
    multiple-choice answers that option matching cannot settle go to MMBench's step-2
    extraction. A plug-in's benchmark asks its own.
    Resumable: what is judged is stored at once, and a new run asks only what is left.
    Without OPENAI_API_KEY or a base URL, the offline rules run instead.
    """
    from lmmreview.db import Store
    from lmmreview.db.judging import JudgeStore
    from lmmreview.db.scoring import score_offline
    from lmmreview.db.store import FileChanged
    from lmmreview.engine.batch import Limits
    from lmmreview.engine.scoring import OFFLINE_RULES
    from lmmreview.tui.cli.judge_batch import BatchOptions, judge_in_batches
    from lmmreview.tui.judge_run import judge_setup, rescued
    from lmmreview.tui.settings import for_command

    effective = for_command(
        uses=["judge"],
        judge_runs=runs,
        judge_concurrency=concurrency,
        judge_model=model,
        judge_base_url=base_url,
        judge_api_key_env=api_key_env,
        judge_timeout=timeout,
        judge_max_attempts=max_attempts,
    )
    setup = judge_setup(effective, use_cache=not no_cache)
    model, runs = setup.model, setup.runs
    if model == OFFLINE_RULES:  # the name would hide lmmreview's own rules behind it
        raise fail(f"the judge model {OFFLINE_RULES!r} is lmmreview's own name: give another")
    unconfigured = f"No LLM judge configured (set {setup.api_key_env} or --base-url)"
    if batch or collect:
        if no_cache:
            raise fail("--no-cache does not apply to --batch (a batch continues from the cache)")
        options = BatchOptions(
            collect, dry_run, wait, poll_seconds, Limits(per_batch, int(batch_mb * 1e6)),
            prompt_variant,
        )  # fmt: skip
        judge_in_batches(
            db, setup, options, dataset,
            lambda store: _plan(JudgeStore(store, model, prompt_variant), runs, dataset,
                                model_filter).chains,
        )  # fmt: skip
        return
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        if dry_run:  # before anything writes: a dry run leaves the file as it was
            _describe(
                _plan(JudgeStore(store, model, prompt_variant), runs, dataset, model_filter), model
            )
            if setup.api_key is None:
                say(f"{unconfigured}: a real run would use the offline rules instead.")
            return
        if setup.api_key is None:
            if prompt_variant is not None:
                raise fail(
                    f"--prompt-variant needs an LLM judge: set {setup.api_key_env} or --base-url"
                )
            say(f"{unconfigured}: running the offline rules instead.")
            for result in score_offline(store, dataset):
                say(result.summary())
            return
        storage = JudgeStore(store, model, prompt_variant)
        with store.noticing():
            plan = _plan(storage, runs, dataset, model_filter)
        if not plan.items:
            say(f"Nothing to judge with {model}: every item has a judgment.")
            return
        try:
            done = _run_with_progress(setup, storage, plan)
        except FileChanged as changed:
            raise fail(rescued(changed, storage)) from None
        except KeyboardInterrupt:
            say("Stopped. What was judged is stored; run again to resume.", console=err)
            raise typer.Exit(130) from None
    _summary(done, model)


def _run_with_progress(setup: JudgeSetup, storage: JudgeStore, plan: Plan) -> RunProgress:
    import asyncio

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from lmmreview.tui.judge_run import run_judge

    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f}/s"),
        TimeRemainingColumn(),
        TextColumn("failed {task.fields[failed]}  tokens {task.fields[tokens]:,}"),
    )
    with Progress(*columns, console=err, transient=False) as bar:
        task = bar.add_task("judging", total=plan.items, rate=0.0, failed=0, tokens=0)
        return asyncio.run(
            run_judge(setup, storage, plan.chains, lambda progress: _update(bar, task, progress))
        )


def _update(bar: Progress, task: TaskID, progress: RunProgress) -> None:
    bar.update(
        task,
        completed=progress.done,
        total=progress.total,
        rate=progress.rate,
        failed=progress.failed,
        tokens=progress.prompt_tokens + progress.completion_tokens,
    )


def _describe(plan: Plan, model: str) -> None:
    say(
        f"{plan.items} items to judge with {model}: {plan.llm_items} need an LLM call "
        f"(at least one each; retries add more), about {plan.prompt_tokens:,} prompt tokens "
        "for the first calls. Nothing was asked (--dry-run)."
    )


_WHY_SKIPPED = (
    " (held by another judge run or a batch in flight, or not needed once their circular "
    "group failed)"
)


def _summary(done: RunProgress, model: str) -> None:
    say(
        f"{model}: {done.judged} judged, {done.fallback} by the seeded fallback, "
        f"{done.failed} failed (recorded with the reason, not scored), "
        f"{done.skipped} skipped{_WHY_SKIPPED if done.skipped else ''}; "
        f"{done.requests} requests, {done.cached} from the cache, "
        f"{done.prompt_tokens + done.completion_tokens:,} tokens."
    )


def _plan(
    storage: JudgeStore, runs: int, datasets: list[str] | None, models: list[str] | None
) -> Plan:
    """The run's plan; a prompt variant no dataset here has ends the command in one line,
    before anything is written."""
    from lmmreview.db.judging import UnknownVariant

    try:
        return storage.plan(runs, datasets, models)
    except UnknownVariant as exc:
        raise fail(str(exc)) from None
