"""The LLM judge against a real HTTP server: complete, cached, faulty, honest, key-safe."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import dump, write_tsv

from bench.fake_judge import ALL_FAULTS, FakeJudge
from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.engine.llm import OpenAIChat
from lmmreview.engine.runner import Runner, RunnerSettings


def _llm_judgments(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT answer_id, run, status, score, error FROM judgments WHERE judge_kind = 'llm'"
        ).fetchall()


def test_mmvet_demo_five_runs_then_nothing_left_to_ask(
    cli, judge_env, fake_judge, tmp_path
) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    result = cli("judge", db, "--dataset", "mmvet", "--runs", "5")
    assert result.code == 0, result.stderr
    answers = 20 + 20 + 18  # demo-gamma misses two
    judged = _llm_judgments(db)
    assert len(judged) == answers * 5
    assert len({(a, r) for a, r, *_ in judged}) == answers * 5
    assert {status for _, _, status, _, _ in judged} == {"ok"}
    assert fake_judge.requests == answers * 5
    document = json.loads(cli("export", db, "--format", "json", "--dataset", "mmvet").stdout)
    table = next(t for t in document["tables"] if t["name"] == "mmvet.capabilities")
    assert table["runs"] == 5
    alpha = next(r for r in table["rows"] if r["model"] == "demo-alpha")
    assert alpha["values"]["total"] is not None and alpha["std"]["total"] is not None
    assert "±" in cli("export", db, "--format", "md", "--dataset", "mmvet").stdout
    again = cli("judge", db, "--dataset", "mmvet", "--runs", "5")
    assert again.code == 0 and "Nothing to judge" in again.stdout
    assert fake_judge.requests == answers * 5  # not one more request


def test_dry_run_asks_nothing(cli, judge_env, fake_judge, tmp_path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    result = cli("judge", db, "--dataset", "mmvet", "--runs", "2", "--dry-run")
    assert "116 items to judge" in result.stdout and "prompt tokens" in result.stdout
    assert fake_judge.requests == 0 and _llm_judgments(db) == []


def test_cache_answers_a_rejudge_after_the_judgments_are_gone(
    cli, judge_env, fake_judge, tmp_path
) -> None:
    """Identical calls are never paid twice: with the judgments deleted, the cache answers."""
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    cli("judge", db, "--dataset", "mmvet", "--runs", "1")
    paid = fake_judge.requests
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM judgments WHERE judge_kind = 'llm'")
    result = cli("judge", db, "--dataset", "mmvet", "--runs", "1")
    assert f"{paid} from the cache" in result.stdout
    assert fake_judge.requests == paid
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM judgments WHERE judge_kind = 'llm'")
    cli("judge", db, "--dataset", "mmvet", "--runs", "1", "--no-cache")
    assert fake_judge.requests == 2 * paid


def test_mmbench_step_two_only_where_matching_fails(
    cli, judge_env, fake_judge, mmbench_tsv, tmp_path
) -> None:
    db = tmp_path / "r.db"
    predictions = write_tsv(
        tmp_path / "p.tsv",
        ["index", "prediction"],
        [
            [7, "yes or no, hard to say"],  # two option texts: step 1 fails, ask the LLM
            [1000007, "B"],  # matched without the LLM
            [9, "the star, not the square"],  # ask the LLM: the fake picks square, wrong
            [1000009, "(B)"],  # not needed: the group failed on its main row
            [2000009, "a star or a circle"],  # not needed either
        ],
    )
    cli("import", "mmbench", db, mmbench_tsv, "--answers", predictions, "--model", "m")
    result = cli("judge", db)
    assert result.code == 0, result.stderr
    assert fake_judge.requests == 2
    assert all("matching an answer with several options" in p for p in fake_judge.prompts)
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute(
            "SELECT s.key, j.method || ' ' || j.judge_kind FROM judgments j "
            "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id"
        ).fetchall())  # fmt: skip
    assert rows == {"7": "llm llm", "1000007": "matched offline", "9": "llm llm"}
    assert "2 skipped" in result.stdout


def test_a_dry_run_writes_nothing_even_without_a_judge(
    cli, monkeypatch, mmvet_files, tmp_path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    db = tmp_path / "r.db"
    f = mmvet_files
    cli("import", "mmvet", db, f["questions"], "--images", f["images"], "--answers", f["alpha"])
    before = dump(db)
    result = cli("judge", db, "--dry-run")
    assert result.code == 0 and "a real run would use the offline rules" in result.stdout
    assert "items to judge" in result.stdout
    assert dump(db) == before
    cli("judge", db)  # without --dry-run the rules do write
    assert dump(db) != before


def test_without_a_configured_judge_the_offline_rules_run(cli, monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    result = cli("judge", db)
    assert result.code == 0 and "No LLM judge configured" in result.stdout
    assert "running the offline rules instead" in result.stdout


@pytest.mark.parametrize("seed", [1, 2])
def test_faults_at_30_percent_every_item_judged_or_failed_once(tmp_path: Path, seed: int) -> None:
    from typer.testing import CliRunner

    from lmmreview.tui.cli import app

    db = tmp_path / "demo.db"
    CliRunner().invoke(app, ["demo", str(db), "--no-open"])
    with (
        FakeJudge(fault_rate=0.3, faults=ALL_FAULTS, seed=seed, slow_seconds=1.0) as server,
        Store.open(db) as store,
    ):
        storage = JudgeStore(store, "judge-x")
        plan = storage.plan(3, ["mmvet"])
        settings = RunnerSettings(
            "judge-x", concurrency=8, max_attempts=4, backoff_base=0.01, backoff_max=0.05
        )

        async def main():
            client = OpenAIChat(api_key="k", base_url=server.base_url, timeout=0.3)
            try:
                # A hang guard, not a speed check: a run with faults must end.
                return await asyncio.wait_for(
                    Runner(client, storage, settings).run(plan.chains), 300
                )
            finally:
                await client.close()

        done = asyncio.run(main())
        faults = sum(n for kind, n in server.by_outcome.items() if kind != "ok")
    assert faults > 0
    judged = _llm_judgments(db)
    items = {(chain[0].answer_id, chain[0].run) for chain in plan.chains}
    assert sorted((a, r) for a, r, *_ in judged) == sorted(items)  # each item once, none lost
    for _, _, status, score, error in judged:
        if status == "ok":
            assert score is not None and 0 <= score <= 1
        else:
            assert status in ("error", "unparseable") and score is None and error
    assert done.done == len(items) and done.failed == sum(s != "ok" for _, _, s, _, _ in judged)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judge_claims").fetchone()[0] == 0


def test_the_api_key_lands_nowhere(cli, judge_env, fake_judge, tmp_path) -> None:
    key = judge_env
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    fake_judge.fault_rate = 0.2  # failure reasons are recorded too
    results = [cli("judge", db, "--runs", "2", "--max-attempts", "2", "--timeout", "2")]
    results += [cli("export", db, "--format", fmt) for fmt in ("md", "csv", "json", "latex")]
    results += [cli("report", db), cli("info", db, "--json")]
    for result in results:
        assert key not in result.stdout and key not in result.stderr
    for path in tmp_path.iterdir():  # the database, its WAL and anything else written
        assert key.encode() not in path.read_bytes(), path
    assert fake_judge.requests > 0


def test_kill_nine_halfway_then_resume_loses_nothing_and_pays_little(cli, tmp_path) -> None:
    import os
    import subprocess
    import sys
    import time

    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    items, concurrency = 58 * 5, 4
    command = [sys.executable, "-m", "lmmreview", "judge", str(db),
               "--dataset", "mmvet", "--runs", "5", "--concurrency", str(concurrency)]  # fmt: skip
    with FakeJudge(latency=0.03) as server:
        env = {**os.environ, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.base_url}
        first = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 120  # a hang guard
        while len(_llm_judgments(db)) < items // 2 and time.monotonic() < deadline:
            assert first.poll() is None, "the run ended before it could be killed"
            time.sleep(0.02)
        first.kill()  # SIGKILL: no cleanup runs
        first.wait()
        before_kill = _llm_judgments(db)
        assert items // 2 <= len(before_kill) < items
        with sqlite3.connect(db) as conn:
            assert (
                conn.execute("SELECT COUNT(*) FROM judge_claims").fetchone()[0] > 0
            )  # left behind
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
        requests = server.requests
    after = _llm_judgments(db)
    assert len(after) == items
    assert len({(a, r) for a, r, *_ in after}) == items  # none judged twice
    assert set(before_kill) <= set(after)  # nothing judged before the kill was lost
    assert requests <= items + concurrency


def test_a_run_in_a_background_task_reports_progress_and_cancels_cleanly(cli, tmp_path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    seen: list[int] = []
    with FakeJudge(latency=0.05) as server, Store.open(db) as store:
        storage = JudgeStore(store, "judge-x")
        plan = storage.plan(5, ["mmvet"])

        async def main() -> None:
            client = OpenAIChat(api_key="k", base_url=server.base_url, timeout=5)
            runner = Runner(client, storage, RunnerSettings("judge-x", concurrency=4),
                            on_progress=lambda p: seen.append(p.done))  # fmt: skip
            task = asyncio.create_task(runner.run(plan.chains))
            while not seen or seen[-1] < 20:
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await client.close()

        asyncio.run(main())
    judged = _llm_judgments(db)
    assert seen == sorted(seen) and 20 <= len(judged) < plan.items
    assert len(judged) == seen[-1]  # every reported item is stored, nothing half-written
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judge_claims").fetchone()[0] == 0


def test_retry_after_is_honoured_and_other_failures_back_off_with_jitter() -> None:
    from lmmreview.engine.llm import CallFailed

    runner = Runner(
        None, None, RunnerSettings("m", backoff_base=0.5, backoff_max=4.0, retry_after_max=30)
    )  # type: ignore[arg-type]
    assert runner._delay(CallFailed("429", retryable=True, retry_after=2.5), attempt=1) == 2.5
    assert runner._delay(CallFailed("429", retryable=True, retry_after=500), attempt=1) == 30
    delays = [
        runner._delay(CallFailed("timed out", retryable=True), attempt=a)
        for a in range(1, 9)
        for _ in range(20)
    ]
    assert all(0 <= d <= 4.0 for d in delays) and len(set(delays)) > 100  # jittered, capped
    assert max(runner._delay(CallFailed("x", retryable=True), attempt=1) for _ in range(50)) <= 0.5


def test_a_choice_without_gold_once_extracted_is_not_planned_again(
    cli, judge_env, fake_judge, tmp_path
) -> None:
    """An extraction of a question with no gold has no score; it is settled all the same,
    so a second run has nothing to ask (and its plan counts nothing)."""
    data = tmp_path / "nogold.jsonl"
    data.write_text(
        '{"id": "q1", "question": "Which?", "options": ["red", "blue"], "answer": null}\n'
        '{"id": "q1", "prediction": "I would say the second colour", "model": "m"}\n',
        encoding="utf-8",
    )
    db = tmp_path / "r.db"
    assert cli("import", "jsonl", db, data).code == 0
    assert cli("judge", db).code == 0
    asked = fake_judge.requests
    assert asked > 0 and len(_llm_judgments(db)) == 1
    assert cli("judge", db, "--dry-run").stdout.startswith("0 items to judge")
    again = cli("judge", db)
    assert again.code == 0 and "Nothing to judge" in again.stdout, again.stdout
    assert fake_judge.requests == asked
