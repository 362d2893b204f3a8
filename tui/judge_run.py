"""One judge-run setup for `lmmreview judge` and the screen's background run (J).

Both take the model, runs, base URL, key variable, concurrency, timeout and maximum
attempts from the effective settings, read the key alike (a local server needs none) and
run the same Runner; only the progress display differs (a bar, or the judge screen).
"""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from lmmreview.db.judging import JudgeStore
from lmmreview.db.store import FileChanged, StoreError
from lmmreview.db.watch import REWRITTEN, SAID
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.llm import OpenAIChat
from lmmreview.engine.runner import Progress, Runner, RunnerSettings
from lmmreview.engine.secrets import redact_url
from lmmreview.tui.file_watch import make_copy
from lmmreview.tui.settings import Settings

DUMMY_KEY = "not-needed"  # local servers (vLLM, Ollama) ignore the key, but one is required


@dataclass(frozen=True, slots=True)
class JudgeSetup:
    """What a judge run asks with. `api_key` None: no LLM judge is configured."""

    runs: int
    base_url: str | None
    api_key_env: str  # the variable's name, never the key
    api_key: str | None
    timeout: float
    runner: RunnerSettings

    @property
    def model(self) -> str:
        return self.runner.model

    def shown(self, url: str) -> str:
        """A base URL as it may be shown or stored: without the key."""
        return redact_url(url, [self.api_key])

    @property
    def shown_url(self) -> str | None:
        return None if self.base_url is None else self.shown(self.base_url)

    def client(self) -> OpenAIChat:
        assert self.api_key is not None, "no LLM judge is configured"
        return OpenAIChat(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout)


def judge_setup(settings: Settings, *, use_cache: bool = True) -> JudgeSetup:
    """The judge run the effective settings ask for, with the key read from the variable
    they name (or the dummy key a local server at `judge.base_url` needs)."""
    base_url = settings.judge_base_url
    api_key = settings.api_key or (DUMMY_KEY if base_url else None)
    runner = RunnerSettings(
        settings.judge_model,
        settings.judge_concurrency,
        settings.judge_max_attempts,
        use_cache=use_cache,
    )
    return JudgeSetup(
        settings.judge_runs,
        base_url,
        settings.judge_api_key_env,
        api_key,
        settings.judge_timeout,
        runner,
    )


async def run_judge(
    setup: JudgeSetup,
    storage: JudgeStore,
    chains: list[list[JudgeItem]],
    on_progress: Callable[[Progress], None] | None = None,
) -> Progress:
    """Judge `chains` with the setup's client and runner settings; the client is closed
    however the run ends. A file replaced or rewritten under the run raises FileChanged
    (also when a read meets the new content first)."""
    client = setup.client()
    try:
        with storage.store.noticing():
            return await Runner(client, storage, setup.runner, on_progress).run(chains)
    finally:
        await client.close()


def rescued(changed: FileChanged, storage: JudgeStore) -> str:
    """Save what the run received (paid for) to a copy beside the file, as the screen
    saves its verdicts, and say so in one line: after a rewrite in place, the judgments
    with their answers (the file's old content is gone); else the file as the run had it."""
    store = storage.store
    said = (
        f"{store.path}: the file was {SAID[changed.what]} while this run had it open, so "
        "nothing more is written to it"
    )
    count = storage.received()
    if not count:
        return f"{said}; no judgment had been received yet"
    save = storage.save_received if changed.what == REWRITTEN else store.copy_to
    try:
        copy = make_copy(store.path, save)
    except (OSError, sqlite3.Error, StoreError) as problem:
        return f"{said}; the {count} judgments it received could not be saved ({problem})"
    return (
        f"{said}; the {count} judgments it received are saved, with their answers, in "
        f"{copy} (see them: lmmreview info {shlex.quote(str(copy))})"
    )
