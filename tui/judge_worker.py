"""The screen's background judge run (J): a thread worker with an event loop of its own.

It runs what `lmmreview judge` runs (tui/judge_run.py), on its own connection, and tells
the screen by messages: JudgeProgress after each item, JudgeFinished at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from textual.message import Message

from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.db.store import FileChanged
from lmmreview.engine.runner import Progress
from lmmreview.tui.judge_run import JudgeSetup, rescued, run_judge
from lmmreview.tui.messages import JudgeFinished, JudgeProgress


class Stopped(Exception):
    """The file changed under the run: `line` says so, and where its judgments went."""

    def __init__(self, line: str, what: str) -> None:
        super().__init__(line)
        self.line, self.what = line, what


class BackgroundJudge:
    """A judge run of one dataset, for a thread worker; `stop` may be called from any
    thread, before or during the run."""

    def __init__(self, setup: JudgeSetup, db: Path, dataset: str) -> None:
        self.setup, self.db, self.dataset = setup, db, dataset
        self._lock = threading.Lock()
        self._stopped = False
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task[Progress]] | None = None

    def stop(self) -> None:
        """Cancel the run; replies in flight are asked again by the next run."""
        with self._lock:
            self._stopped = True
            if self._task is not None:
                loop, task = self._task
                loop.call_soon_threadsafe(task.cancel)

    def run(self, post: Callable[[Message], object]) -> None:
        """The worker's body: run, posting JudgeProgress after each item and JudgeFinished
        at the end (a failure is an outcome shown to the reviewer, never raised)."""
        outcome, changed = "finished", None
        try:
            asyncio.run(self._judge(post))
        except asyncio.CancelledError:
            outcome = "stopped"
        except Stopped as stopped:
            outcome, changed = f"stopped: {stopped.line}", stopped.what
        except Exception as exc:
            outcome = f"failed: {exc}"
        finally:
            with contextlib.suppress(RuntimeError):  # the app has closed its loop
                post(JudgeFinished(outcome, changed))

    async def _judge(self, post: Callable[[Message], object]) -> Progress:
        task = asyncio.current_task()
        assert task is not None
        with self._lock:
            if self._stopped:
                raise asyncio.CancelledError
            self._task = (asyncio.get_running_loop(), task)

        def progress(p: Progress) -> None:
            status = f"{p.done}/{p.total} · {p.rate:.1f}/s · {p.failed} failed · {p.cached} cached"
            with contextlib.suppress(RuntimeError):  # the app has closed its loop
                post(JudgeProgress(p.done, p.total, status))

        with Store.open(self.db, create=False) as store:
            storage = JudgeStore(store, self.setup.model)
            try:
                with store.noticing():
                    plan = storage.plan(self.setup.runs, [self.dataset])
                return await run_judge(self.setup, storage, plan.chains, progress)
            except FileChanged as changed:
                raise Stopped(rescued(changed, storage), changed.what) from None
