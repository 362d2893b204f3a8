"""The screen's structure (issue 14, item 1): workers that post typed messages, a worker's
failure told and survived, and a background judge that is a Textual worker sharing its
setup with `lmmreview judge`."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from textual.message import Message
from tui_harness import RENDERER, SIZE, cursor, drive, start_judge, text_of, until

from bench.fake_judge import FakeJudge
from lmmreview.db import Store
from lmmreview.db.review import Detail, ReviewStore
from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.runner import RunnerSettings
from lmmreview.tui import messages
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.judge_run import judge_setup
from lmmreview.tui.screens import JudgeScreen
from lmmreview.tui.session import Beside, Session
from lmmreview.tui.settings import Settings, load

MMVET_ANSWERS = 58  # the demo's MM-Vet answers: one judge item each per run


def _told(app) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


def _failed_judgments(db: Path) -> list[str]:
    """The error of every failed LLM judgment in the file."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT error FROM judgments WHERE status = 'error' AND judge_kind = 'llm'"
        ).fetchall()
    return [error for (error,) in rows]


def test_the_screens_workers_post_typed_messages(demo_db: Path) -> None:
    """Opening, the tables, an answer's details, a saved verdict and another process's
    verdict each reach the screen as a message of their own kind, handled by the screen."""
    seen: list[str] = []

    def hook(message: Message) -> None:
        if type(message).__module__ == messages.__name__:
            seen.append(type(message).__name__)

    async def steps(app, pilot) -> None:
        await pilot.press("3")
        await until(pilot, lambda: app.current().reviewed and not app.review_screen.pending)
        other_answer = app.session.entries[app.session.visible[cursor(app) + 1]].answer_id
        with Store.open(demo_db) as other:  # another terminal, another connection
            ReviewStore(other, "someone-else").grade(other_answer, 0.4)
        await until(pilot, lambda: "EntriesChanged" in seen)
        await until(pilot, lambda: app.session.find(other_answer).reviewed)

    drive(demo_db, steps, poll_seconds=0.1, message_hook=hook)
    assert {"Opened", "TablesReady", "DetailLoaded", "Saved", "EntriesChanged"} <= set(seen)
    assert seen.index("Opened") < seen.index("DetailLoaded") < seen.index("TablesReady")


def test_a_read_that_fails_in_a_worker_is_told_and_the_screen_goes_on(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file breaks under the screen (another process, a bad disk): moving to an answer
    whose details cannot be read says so once, the app stays up, and the answer shows once
    the file reads again."""
    seen: dict[str, object] = {}
    failures: list[str] = []
    broken = threading.Event()
    read_detail = ReviewStore.detail

    def detail(self: ReviewStore, answer_id: int) -> Detail:
        if broken.is_set():
            raise sqlite3.DatabaseError("database disk image is malformed")
        return read_detail(self, answer_id)

    monkeypatch.setattr(ReviewStore, "detail", detail)

    def hook(message: Message) -> None:
        if isinstance(message, messages.ReadFailed):
            failures.append(message.problem)

    async def steps(app, pilot) -> None:
        broken.set()
        await pilot.press("end")  # far from what was read ahead
        await until(pilot, lambda: "Could not read" in _told(app))
        seen["told"] = _told(app)
        seen["running"] = app.is_running
        seen["title"] = text_of(app, "#title")
        broken.clear()
        await pilot.press("k", "j")  # back and forth: the answer is read again
        await until(pilot, lambda: text_of(app, "#answer").strip())
        seen["shown"] = text_of(app, "#title")

    app = drive(demo_db, steps, message_hook=hook)
    assert failures and failures[0] == "Could not read demo.db: database disk image is malformed"
    assert "Could not read demo.db: database disk image is malformed" in str(seen["told"])
    assert seen["running"] and app.return_code in (None, 0) and app.failure is None
    assert "loading…" in str(seen["title"])  # the answer is named; its details did not come
    assert "loading…" not in str(seen["shown"])


def test_the_background_judge_is_a_textual_worker_that_posts_its_progress(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No thread of its own and no wait on the UI thread: the run is one of the app's
    workers, and its progress and end reach the screen as messages."""
    seen: dict[str, object] = {}
    progress: list[tuple[int, int]] = []
    finished: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, messages.JudgeProgress):
            progress.append((message.done, message.total))
        elif isinstance(message, messages.JudgeFinished):
            finished.append(message.outcome)

    with FakeJudge(latency=0.5) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

        async def steps(app, pilot) -> None:
            await start_judge(app, pilot, lambda: server.requests)
            seen["workers"] = [(w.name, w.group, w.is_running) for w in app.workers]
            seen["threads"] = [t.name for t in threading.enumerate()]
            await until(pilot, lambda: finished, 60)

        drive(demo_db, steps, judge_runs=1, judge_base_url=server.base_url, message_hook=hook)
    assert ("judge", "judge", True) in seen["workers"]
    assert "lmmreview-judge" not in seen["threads"]
    assert finished == ["finished"]
    assert progress[-1] == (MMVET_ANSWERS, MMVET_ANSWERS)


def _judge_from_the_screen(db: Path, server: FakeJudge, **settings: object) -> list[str]:
    """Start a judge run with J and Enter, with these settings; the run's outcomes."""
    finished: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, messages.JudgeFinished):
            finished.append(message.outcome)

    async def steps(app, pilot) -> None:
        await pilot.press("J")
        await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
        await pilot.press("enter")
        await until(pilot, lambda: finished, 120)

    drive(db, steps, message_hook=hook, judge_runs=1, judge_base_url=server.base_url, **settings)
    return finished


def test_the_screens_judge_run_uses_the_settings_attempts_and_concurrency(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judge.max_attempts and judge.concurrency hold for a run started with J as for
    `lmmreview judge`: a judge that replies garbage is asked max_attempts times per item
    (the whole retry ladder before), at most concurrency requests at once."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeJudge(latency=0.3, fault_rate=1.0, faults=("garbage",)) as server:
        outcome = _judge_from_the_screen(demo_db, server, judge_max_attempts=2, judge_concurrency=4)
        asked, at_once = server.requests, server.max_in_flight
    assert outcome == ["finished"]
    assert asked == 2 * MMVET_ANSWERS
    assert at_once == 4
    assert _failed_judgments(demo_db) == ["gave up after 2 requests"] * MMVET_ANSWERS


def test_the_screens_judge_run_gives_up_a_request_after_the_settings_timeout(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judge.timeout holds for a run started with J: a reply that would come in 30 s is
    given up after the timeout; fifty of them in a row end the run, saying why."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeJudge(fault_rate=1.0, faults=("slow",), slow_seconds=30) as server:
        [outcome] = _judge_from_the_screen(
            demo_db, server, judge_max_attempts=1, judge_timeout=0.2, judge_concurrency=16
        )
    assert outcome.startswith("failed: 50 requests in a row failed, the last with: timed out")


def test_the_judge_command_and_the_screen_share_one_setup(
    cli, demo_db: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judge.max_attempts in the settings file holds for `lmmreview judge` too, and the
    setup both build from the settings is the same runner settings."""
    (config_home / "lmmreview").mkdir(parents=True)
    (config_home / "lmmreview" / "config.toml").write_text(
        "[judge]\nmax_attempts = 3\nconcurrency = 5\ntimeout = 7\n"
    )
    monkeypatch.setenv("MY_KEY", "sk-x")
    settings = load().merged(judge_api_key_env="MY_KEY")
    setup = judge_setup(settings)
    assert setup.runner == RunnerSettings("gpt-4-0613", 5, 3)
    assert (setup.timeout, setup.api_key, setup.base_url) == (7.0, "sk-x", None)
    with FakeJudge(fault_rate=1.0, faults=("garbage",)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        result = cli(
            "judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--base-url", server.base_url
        )
        asked = server.requests
    assert result.code == 0, result.stderr
    assert asked == 3 * MMVET_ANSWERS


def test_the_first_screen_shows_the_top_of_the_list_before_every_answer_is_read(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a million answers the first screen cannot wait for all of them: the answers to
    the first samples are listed and shown, and the rest join the list when read."""
    release = threading.Event()
    every_answer = Session.every_answer

    def held_back(review: ReviewStore, dataset: str, beside: Beside | None) -> AnswerColumns:
        release.wait(15)
        return every_answer(review, dataset, beside)

    monkeypatch.setattr(Session, "every_answer", staticmethod(held_back))

    async def main() -> None:
        app = ReviewApp(
            demo_db, Settings(path=demo_db.with_suffix(".toml"), reviewer="tester"),
            dataset="mmvet", image_renderer=RENDERER, head=3,
        )  # fmt: skip
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.current() is not None and text_of(app, "#answer"))
            session = app.session
            assert session is not None and session.partial and session.tables is None
            assert session.counts() == (9, 0, 9)  # three samples by three models
            assert "9 answers read so far" in text_of(app, "#status")
            await pilot.press("j", "j")
            release.set()
            await until(pilot, lambda: session.tables is not None)
            assert not session.partial and session.counts() == (MMVET_ANSWERS, 0, MMVET_ANSWERS)
            assert cursor(app) == 2  # the same answer, in the same place
            assert f"{MMVET_ANSWERS} answers, 0 reviewed" in text_of(app, "#status")

    asyncio.run(main())
