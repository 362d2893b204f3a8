"""`lmmreview judge`: run the LLM judge over a database, with a progress bar."""

from __future__ import annotations

import asyncio
import os
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore, Plan
from lmmreview.db.scoring import score_offline
from lmmreview.engine.llm import OpenAIChat
from lmmreview.engine.mmvet import DEFAULT_JUDGE_MODEL
from lmmreview.engine.runner import Progress as RunProgress
from lmmreview.engine.runner import Runner, RunnerSettings
from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeUrlOpt
from lmmreview.tui.output import clear_errors, err, say

DUMMY_KEY = "not-needed"  # local servers (vLLM, Ollama) ignore the key, but one is required


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
        int, typer.Option(min=1, metavar="N", help="Judge runs per open answer (MM-Vet: 5).")
    ] = 5,
    concurrency: Annotated[int, typer.Option(min=1, metavar="N", help="Requests in flight.")] = 16,
    model: Annotated[
        str, typer.Option(metavar="MODEL", help="The judge model.")
    ] = DEFAULT_JUDGE_MODEL,
    base_url: JudgeUrlOpt = None,
    api_key_env: Annotated[
        str, typer.Option(metavar="VAR", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    timeout: Annotated[
        float, typer.Option(min=0.1, metavar="SECONDS", help="Seconds per request.")
    ] = 60.0,
    max_attempts: Annotated[
        int,
        typer.Option(
            min=1, metavar="N", help="Requests per item, retries included, before it fails."
        ),
    ] = 10,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask again even if cached.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the calls and tokens; ask nothing.")
    ] = False,
) -> None:
    """Judge with an LLM: MM-Vet grading, MMBench extraction.

    Open answers are graded with the MM-Vet prompt (--runs times each); multiple-choice
    answers that option matching cannot settle go to MMBench's step-2 extraction.
    Resumable: what is judged is stored at once, and a new run asks only what is left.
    Without OPENAI_API_KEY or a base URL, the offline rules run instead.
    """
    api_key = os.environ.get(api_key_env) or (DUMMY_KEY if base_url else None)
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        if dry_run:  # before anything writes: a dry run leaves the file as it was
            _describe(JudgeStore(store, model).plan(runs, dataset, model_filter), model)
            if api_key is None:
                say(
                    f"No LLM judge configured (set {api_key_env} or --base-url): a real "
                    "run would use the offline rules instead."
                )
            return
        if api_key is None:
            say(
                f"No LLM judge configured (set {api_key_env} or --base-url): "
                "running the offline rules instead."
            )
            for result in score_offline(store, dataset):
                say(f"{result.dataset}: {result.judged} scored by the offline rules")
            return
        storage = JudgeStore(store, model)
        plan = storage.plan(runs, dataset, model_filter)
        if not plan.items:
            say(f"Nothing to judge with {model}: every item has a judgment.")
            return
        settings = RunnerSettings(model, concurrency, max_attempts, use_cache=not no_cache)
        client = OpenAIChat(api_key=api_key, base_url=base_url, timeout=timeout)
        try:
            done = _run_with_progress(Runner(client, storage, settings), plan, client)
        except KeyboardInterrupt:
            say("Stopped. What was judged is stored; run again to resume.", console=err)
            raise typer.Exit(130) from None
    _summary(done, model)


def _run_with_progress(runner: Runner, plan: Plan, client: OpenAIChat) -> RunProgress:
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
        runner.on_progress = lambda progress: _update(bar, task, progress)

        async def main() -> RunProgress:
            try:
                return await runner.run(plan.chains)
            finally:
                await client.close()

        return asyncio.run(main())


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


def _summary(done: RunProgress, model: str) -> None:
    say(
        f"{model}: {done.judged} judged, {done.fallback} by the seeded fallback, "
        f"{done.failed} failed (recorded with the reason, not scored), "
        f"{done.skipped} skipped; {done.requests} requests, {done.cached} from the cache, "
        f"{done.prompt_tokens + done.completion_tokens:,} tokens."
    )
