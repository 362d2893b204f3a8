"""`lmmreview judge --batch` against the fake Batch API: sent once, collected by any later
process, stored exactly as a live run stores its judgments."""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import dump
from tui_harness import drive, until

from bench.fake_batch import DROP, FakeBatchAPI
from bench.fake_judge import GARBAGE_REPLY, FakeJudge
from lmmreview.db import Store
from lmmreview.db.batches import BatchJudge
from lmmreview.db.importers import load
from lmmreview.db.importers.batch import AnswerRecord, ImportBatch
from lmmreview.db.judging import JudgeStore
from lmmreview.engine.benchmarks.mmvet.rules import DEFAULT_JUDGE_MODEL, RETRY_SUFFIX
from lmmreview.engine.types import QuestionType, Sample

KEY = "sk-test-SECRET-9b8a7c6d"
DEMO_ITEMS = 58 * 2  # the demo's MM-Vet answers, two runs
CAPABILITIES = ("rec", "ocr", "know", "gen", "spat", "math")


@pytest.fixture
def batch_api(monkeypatch):
    """A fake Batch API that the environment names as the judge, results on release."""
    with FakeBatchAPI(delay=None) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


def _mmvet_db(db: Path, samples: int, models: int, alike: bool = False) -> Path:
    """An MM-Vet dataset: `samples` questions answered by `models` models, each in words
    of its own; with `alike`, the even models word theirs alike (so that some items ask
    one identical call)."""
    batch = ImportBatch("mmvet", "mmvet", "generated")
    for i in range(samples):
        capabilities = tuple(sorted({CAPABILITIES[i % 6], CAPABILITIES[(i // 6) % 6]}))
        gold = f"red{i} <AND> blue{i % 7} <AND> green"
        batch.samples.append(Sample(f"v1_{i}", f"Which colours are in picture {i}?",
                                    QuestionType.OPEN, gold, axes={"capability": capabilities}))  # fmt: skip
        for m in range(models):
            words = [w for k, w in enumerate((f"red{i}", f"blue{i % 7}", "green"))
                     if (i + m + k) % (m % 3 + 2)]  # fmt: skip
            text = " and ".join(words) or "none"
            batch.answers.append(AnswerRecord(f"v1_{i}", f"model-{m}",
                                              text + ("" if alike and m % 2 == 0 else f" ({m})"), "generated"))  # fmt: skip
    with Store.open(db) as store:
        load(store, batch)
    return db


def _judge(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "lmmreview", "judge", *map(str, args)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def _env(base_url: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": base_url}


def _query(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db, timeout=30) as conn:
        return conn.execute(sql).fetchall()


def _llm(db: Path) -> list[tuple]:
    return _query(db, "SELECT answer_id, run, status, score, error, raw_reply FROM judgments "
                      "WHERE judge_kind = 'llm' ORDER BY id")  # fmt: skip


def _sent_everything(db: Path, items: int) -> bool:
    """Every item is in a batch the provider created (and the process recorded)."""
    try:
        rows = _query(db, "SELECT COUNT(*) FROM judge_batch_requests")[0][0]
        unsent = _query(db, "SELECT COUNT(*) FROM judge_batches WHERE batch_id IS NULL")[0][0]
    except sqlite3.OperationalError:  # the schema is being upgraded
        return False
    return rows == items and unsent == 0


def _tables(db: Path) -> tuple[str, str]:
    export = subprocess.run([sys.executable, "-m", "lmmreview", "export", str(db), "--format",
                             "json"], capture_output=True, text=True, check=True)  # fmt: skip
    report = subprocess.run([sys.executable, "-m", "lmmreview", "report", str(db)],
                            capture_output=True, text=True, check=True)  # fmt: skip
    return export.stdout, report.stdout.replace(str(db), "DB")


# -- acceptance c ---------------------------------------------------------------------------


@pytest.mark.slow  # about a minute: the live run it is compared with takes most of it
def test_ten_thousand_items_two_runs_killed_between_submission_and_collection(tmp_path) -> None:
    """10,000 MM-Vet answers x 2 runs go out in several batches; the submitting process is
    killed while it waits; a new one collects everything: each item judged once, each
    custom_id sent once, and the tables equal a live run's against the same script. The
    live run asks one call at a time, so that the script's run-to-run jitter (the n-th
    asking of a prompt) falls on the same runs as the batch's file order gives it."""
    db = _mmvet_db(tmp_path / "batch.db", samples=500, models=20, alike=True)
    live = shutil.copyfile(db, tmp_path / "live.db")
    items = 500 * 20 * 2
    with FakeBatchAPI(delay=None) as server:
        env = _env(server.base_url)
        first = subprocess.Popen(
            [sys.executable, "-m", "lmmreview", "judge", str(db), "--runs", "2", "--batch",
             "--per-batch", "2500", "--wait", "--poll-seconds", "0.05"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 300  # a hang guard
        while not _sent_everything(db, items) and time.monotonic() < deadline:
            assert first.poll() is None, "the submitting process ended before the kill"
            time.sleep(0.05)
        assert first.poll() is None  # waiting for results, which the fake holds
        first.kill()  # SIGKILL: no cleanup runs
        first.wait()
        assert _llm(db) == []
        batches = _query(db, "SELECT COUNT(*) FROM judge_batches")[0][0]
        assert batches == server.batch_count >= 4  # split by the per-batch limit
        server.release()
        second = _judge(db, "--runs", "2", "--batch", "--collect", "--wait", "--poll-seconds",
                        "0.05", env=env)  # fmt: skip
        assert second.returncode == 0, second.stderr
        sent = server.custom_ids
    lines = _query(db, "SELECT COUNT(DISTINCT sent_as) FROM judge_batch_requests")[0][0]
    assert len(sent) == lines < items and set(sent.values()) == {1}  # none paid twice;
    # identical calls (the models that word their answers alike) shared one request
    judged = _llm(db)
    assert len(judged) == items == len({(a, r) for a, r, *_ in judged})
    assert {status for _, _, status, *_ in judged} == {"ok"}
    assert _query(db, "SELECT COUNT(*) FROM judge_claims") == [(0,)]
    assert _query(db, "SELECT COUNT(*) FROM judge_batches WHERE collected_at IS NULL") == [(0,)]
    with FakeJudge() as server:
        result = _judge(live, "--runs", "2", "--concurrency", "1", env=_env(server.base_url))
        assert result.returncode == 0, result.stderr
    assert _tables(db) == _tables(live)


def test_killed_while_a_batch_is_created_the_next_run_finds_it_and_pays_nothing_twice(
    demo_db,
) -> None:
    with FakeBatchAPI(create_limit=1) as server:
        env = _env(server.base_url)
        first = subprocess.Popen(
            [sys.executable, "-m", "lmmreview", "judge", str(demo_db), "--dataset", "mmvet",
             "--runs", "2", "--batch", "--per-batch", "40"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while server.batch_count < 2 and time.monotonic() < deadline:
            assert first.poll() is None
            time.sleep(0.02)
        first.kill()  # the second batch exists, but the process never learnt its id
        first.wait()
        assert _query(demo_db, "SELECT COUNT(*) FROM judge_batches WHERE batch_id IS NULL") == [
            (1,)
        ]
        server.create_limit = None
        again = _judge(demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch",
                       "40", "--wait", "--poll-seconds", "0.05", env=env)  # fmt: skip
        assert again.returncode == 0, again.stderr
        sent = server.custom_ids
        assert server.batch_count == 3
    assert len(sent) == DEMO_ITEMS and set(sent.values()) == {1}
    judged = _llm(demo_db)
    assert len(judged) == DEMO_ITEMS == len({(a, r) for a, r, *_ in judged})


# -- the parts -----------------------------------------------------------------------------


def test_work_above_the_limits_is_split_into_several_batches(cli, batch_api, demo_db) -> None:
    result = cli(
        "judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch", "40"
    )
    assert result.code == 0, result.stderr
    sizes = _query(demo_db, "SELECT COUNT(DISTINCT sent_as) FROM judge_batch_requests "
                            "GROUP BY batch ORDER BY batch")  # fmt: skip
    assert sizes == [(40,), (40,), (36,)] and batch_api.batch_count == 3
    batch_api.max_bytes = 50_000  # a file above it fails validation at the fake
    result = cli(
        "judge", demo_db, "--dataset", "mmvet", "--runs", "3", "--batch", "--batch-mb", "0.05"
    )
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 0 and "0 failed" in result.stdout, result.stdout
    assert batch_api.batch_count > 3 + 58 * 2500 // 50_000
    assert len(_llm(demo_db)) == 58 * 3


def test_requests_larger_than_a_batch_file_are_said_in_the_dry_run_and_when_sent(
    cli, batch_api, demo_db
) -> None:
    """With a --batch-mb below one request, the dry run counted them as sent and the run
    said "Nothing new to send": each is now counted and named as left out."""
    args = ("judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--batch", "--batch-mb")
    dry = cli(*args, "0.001", "--dry-run")
    assert dry.code == 0, dry.stderr
    assert "0 requests" in dry.stdout
    assert f"warning: {DEMO_ITEMS // 2} request(s) are larger than a batch file may be " in (
        dry.stderr
    )
    assert "would not be sent" in dry.stderr
    sent = cli(*args, "0.001")
    assert f"warning: {DEMO_ITEMS // 2} request(s) are larger" in sent.stderr, sent.stderr
    assert "were recorded as failed, not sent" in sent.stderr
    assert batch_api.batch_count == 0


def test_a_dry_run_counts_requests_files_and_tokens_and_changes_nothing(
    cli, batch_api, demo_db
) -> None:
    before = dump(demo_db)
    result = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch",
                 "40", "--dry-run")  # fmt: skip
    assert result.code == 0, result.stderr
    assert f"{DEMO_ITEMS} requests" in result.stdout and "3 batch file(s)" in result.stdout
    assert "prompt tokens" in result.stdout and "Nothing was sent" in result.stdout
    assert dump(demo_db) == before
    assert batch_api.batch_count == 0 and batch_api.files == 0


def test_a_failed_and_an_expired_batch_leave_failures_with_reasons_then_are_asked_again(
    cli, batch_api, demo_db
) -> None:
    batch_api.outcomes = ["failed", "expired"]
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch", "60")
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert "Collected 2 batch(es): 28 judged, 88 failed" in result.stdout, result.stdout
    errors = [error for _, _, status, _, error, _ in _llm(demo_db) if status == "error"]
    assert errors.count("the batch failed: invalid_request: scripted failure") == 60
    assert sum(error.startswith("batch_expired: ") for error in errors) == 28
    batch_api.delay = 0.0
    result = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--wait",
                 "--poll-seconds", "0.05")  # fmt: skip
    assert "Sent 88 requests" in result.stdout and "88 judged" in result.stdout, result.stdout
    latest = _query(demo_db, "SELECT status FROM judgments j WHERE judge_kind = 'llm' AND id = "
                             "(SELECT MAX(id) FROM judgments l WHERE l.answer_id = j.answer_id "
                             "AND l.run = j.run AND l.judge_kind = 'llm')")  # fmt: skip
    assert len(latest) == DEMO_ITEMS and {s for (s,) in latest} == {"ok"}


def test_error_lines_are_stored_as_failures_with_their_reasons(cli, batch_api, demo_db) -> None:
    batch_api.fault_rate, batch_api.faults = 0.3, ("500", "drop")
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch")
    batch_api.release()
    assert cli("judge", demo_db, "--batch", "--collect").code == 0
    judged = _llm(demo_db)
    errors = [(score, error) for _, _, status, score, error, _ in judged if status == "error"]
    outcomes = batch_api.by_outcome
    assert outcomes["500"] > 0 and outcomes["drop"] > 0 and len(judged) == DEMO_ITEMS
    assert (
        sum(e == "HTTP 500 The server had an error (fake judge)." for _, e in errors)
        == outcomes["500"]
    )
    assert sum(e == "server_error: The request was dropped." for _, e in errors) == outcomes["drop"]
    assert all(score is None for score, _ in errors)


def test_an_unparseable_reply_is_asked_again_in_the_next_batch(cli, batch_api, demo_db) -> None:
    batch_api.fault_rate, batch_api.faults = 1.0, ("garbage",)
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--batch")
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert "58 replies that did not parse" in result.stdout, result.stdout
    assert _llm(demo_db) == []
    assert _query(demo_db, "SELECT DISTINCT reply FROM llm_cache") == [(GARBAGE_REPLY,)]
    batch_api.fault_rate = 0.0
    first = batch_api.custom_ids
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--batch")
    retried = batch_api.custom_ids - first
    assert len(retried) == 58 and all("-call-2-" in request for request in retried)
    assert sum(RETRY_SUFFIX in prompt for prompt in batch_api.prompts) == 58
    batch_api.release()
    cli("judge", demo_db, "--batch", "--collect")
    assert {status for _, _, status, *_ in _llm(demo_db)} == {"ok"} and len(_llm(demo_db)) == 58


def test_info_shows_the_batches_in_flight_with_their_counts(cli, batch_api, demo_db) -> None:
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch", "60")
    text = cli("info", demo_db).stdout
    assert "Judge batches in flight: 2 (116 requests, 116 items)." in text
    assert "in_progress, 0 of 60 done, 0 failed" in text
    document = json.loads(cli("info", demo_db, "--json").stdout)
    assert [b["requests"] for b in document["batches_in_flight"]] == [60, 56]
    batch_api.release()
    cli("judge", demo_db, "--batch", "--collect")
    assert "in flight" not in cli("info", demo_db).stdout
    assert json.loads(cli("info", demo_db, "--json").stdout)["batches_in_flight"] == []


def test_a_live_run_leaves_the_items_in_a_batch_alone(cli, batch_api, demo_db) -> None:
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--batch")
    with FakeJudge() as live:
        result = _judge(demo_db, "--dataset", "mmvet", "--runs", "1", env=_env(live.base_url))
        assert result.returncode == 0, result.stdout
        assert "58 skipped (held by another judge run or a batch in flight" in result.stdout
        assert live.requests == 0


def test_the_api_key_lands_in_no_database_file_or_output(cli, batch_api, tmp_path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    batch_api.fault_rate, batch_api.faults = 0.5, ("echo_auth", "echo_auth_reply")
    results = [cli("judge", db, "--dataset", "mmvet", "--runs", "2", "--batch")]
    batch_api.release()
    results += [cli("judge", db, "--batch", "--collect"), cli("info", db, "--json")]
    results += [cli("export", db, "--format", "json"), cli("report", db)]
    assert batch_api.by_outcome["echo_auth"] and batch_api.by_outcome["echo_auth_reply"]
    assert any("[redacted]" in error for *_, error, _ in _llm(db) if error)
    for result in results:
        assert KEY not in result.stdout and KEY not in result.stderr
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes(), path


def test_batch_needs_a_judge_and_refuses_no_cache(cli, monkeypatch, demo_db) -> None:
    before = dump(demo_db)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = cli("judge", demo_db, "--batch")
    assert result.code == 1 and "--batch needs an LLM judge" in result.stderr
    result = cli("judge", demo_db, "--batch", "--no-cache")
    assert result.code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert dump(demo_db) == before


def test_the_review_screen_tells_of_batches_in_flight(cli, batch_api, demo_db) -> None:
    cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2", "--batch", "--per-batch", "60")
    told: list[str] = []

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: any("batches in flight" in str(n.message)
                                       for n in app._notifications))  # fmt: skip
        told.extend(str(n.message) for n in app._notifications)

    drive(demo_db, steps, poll_seconds=0.1)
    assert any("Judge batches in flight: 2 (116 requests, 116 items)." in t for t in told), told


# -- issue 25, item 8: what a misbehaving provider sends, and what the user is told --------------

MMVET_ONE_RUN = ("--dataset", "mmvet", "--runs", "1")


def _outcomes(db: Path) -> list[str]:
    return [o for (o,) in _query(db, "SELECT outcome FROM judge_batch_requests ORDER BY rowid")]


@pytest.mark.parametrize(
    ("mangle", "named"),
    [
        ({"status": DROP}, "status is None"),
        ({"status": "pending-ish"}, "status is 'pending-ish'"),
        ({"id": 5}, "id is 5"),
        ({"output_file_id": 7}, "output_file_id is 7"),
        ({"request_counts": "lots"}, "request_counts is 'lots'"),
        ({"request_counts": {"completed": "many"}}, "request_counts.completed is 'many'"),
        ({"request_counts": {"completed": 10**30}}, "request_counts.completed is 1000000000"),
        # with every count given, the client reads `true` as 1: "1 of 58 done"
        (
            {"request_counts": {"total": 58, "completed": True, "failed": 0}},
            "request_counts.completed is True",
        ),
        ({"id": "b" * 200_000}, "id is 'bbbbbbbb"),
        ({"id": "../files/x"}, "id is '../files/x'"),
    ],
)
def test_a_malformed_batch_object_is_named_and_the_batch_is_collected_once_it_reads(
    demo_db, mangle: dict, named: str
) -> None:
    """8a: the provider answers the creation (and the list, where the batch is then looked
    for) with a broken batch object: one line naming the field, exit 1; the batch's rows
    stay, so a later run finds the batch by its tag, collects it, sends nothing twice."""
    with FakeBatchAPI(mangle=mangle) as server:
        env = _env(server.base_url)
        sent = _judge(demo_db, *MMVET_ONE_RUN, "--batch", env=env)
        assert sent.returncode == 1 and "Traceback" not in sent.stderr, sent.stderr
        assert sent.stderr.startswith("error: Batch API: ")
        assert f"the provider's reply is malformed: {named}" in sent.stderr
        assert len(sent.stderr.strip().splitlines()) == 1 and len(sent.stderr) < 300
        assert _query(demo_db, "SELECT COUNT(*), MIN(status) FROM judge_batches") == [
            (1, "preparing")
        ]
        server.mangle = {}
        again = _judge(demo_db, *MMVET_ONE_RUN, "--batch", "--wait", "--poll-seconds", "0.05",
                       env=env)  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert server.batch_count == 1 and len(server.custom_ids) == 58
        assert set(server.custom_ids.values()) == {1}
    assert len(_llm(demo_db)) == 58


def test_a_malformed_batch_when_polled_changes_nothing_and_is_collected_later(
    cli, batch_api, demo_db
) -> None:
    cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    batch_api.release()
    batch_api.mangle = {"error_file_id": ["x"], "request_counts": {"failed": -1}}
    before = dump(demo_db)
    result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 1 and "asking about batch batch_fake2: " in result.stderr
    assert "malformed" in result.stderr and dump(demo_db) == before
    batch_api.mangle = {"request_counts": {"total": 58, "completed": 58, "failed": False}}
    result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 1 and "request_counts.failed is False" in result.stderr
    assert dump(demo_db) == before
    batch_api.mangle = {}
    result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 0 and "58 judged, 0 failed" in result.stdout, result.stdout


def test_a_batch_recorded_with_an_id_that_is_no_token_is_found_again_by_its_tag(
    cli, batch_api, demo_db
) -> None:
    """T3: an older version recorded any id the provider gave (200,000 characters): a
    collect looks for the batch by its tag instead of asking about that id, and collects it."""
    cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    batch_api.release()
    with sqlite3.connect(demo_db) as conn:
        conn.execute("UPDATE judge_batches SET batch_id = ?", ("b" * 200_000,))
    result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 0 and "58 judged, 0 failed" in result.stdout, result.stderr
    assert _query(demo_db, "SELECT batch_id FROM judge_batches") == [("batch_fake2",)]
    assert set(batch_api.custom_ids.values()) == {1}


def test_a_request_with_two_result_lines_keeps_the_first_reply_and_says_so(
    cli, batch_api, demo_db
) -> None:
    """8b: each answered request has a second output line (a reply that does not parse):
    the first reply is kept, the repeat recorded with the request and reported."""
    batch_api.repeat = "output"
    cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert "58 judged, 0 failed" in result.stdout and "0 replies that did not" in result.stdout
    assert "batch_fake2: 58 request(s) had more than one result line" in result.stderr
    judged = _llm(demo_db)
    assert len(judged) == 58 and GARBAGE_REPLY not in {reply for *_, reply in judged}
    assert set(_outcomes(demo_db)) == {"reply; 1 more result line(s) ignored, the first: "
                                       "another reply"}  # fmt: skip


def test_result_lines_of_no_request_are_counted_and_said(cli, batch_api, demo_db) -> None:
    """A line that is no JSON, or names an id the batch never sent, was dropped without a
    word: it is counted and named with its batch, and every request is still judged."""
    batch_api.repeat = "stray"
    cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert "58 judged, 0 failed" in result.stdout, result.stdout
    assert "batch_fake2: 116 result line(s) named no request of the batch" in result.stderr


class _EmptyOutput(FakeBatchAPI):
    """A provider that reports every request done, then serves an empty output file
    (while `empty` holds)."""

    empty = True

    def _publish(self, batch) -> None:
        if self.empty:
            batch.output = [""]
        super()._publish(batch)


def test_a_batch_reported_done_whose_output_is_empty_exits_1_and_is_asked_again(
    cli, demo_db, monkeypatch
) -> None:
    """U6: "58 of 58 done" with an empty output file was "0 judged, 58 failed", exit 0,
    with no word on the mismatch: one line says it, exit 1, and the next run asks again."""
    with _EmptyOutput(delay=None) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
        server.release()
        result = cli("judge", demo_db, "--batch", "--collect")
        assert result.code == 1, result.stdout
        assert result.stderr == (
            "error: batch batch_fake2: the provider reported 58 requests done, but its result "
            "files hold 0; the others are recorded as failed, and the next `judge --batch` "
            "asks them again.\n"
        )
        server.empty = False
        again = cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
        assert "Sent 58 requests" in again.stdout, again.stdout
        server.release()
        result = cli("judge", demo_db, "--batch", "--collect")
    assert result.code == 0 and "58 judged, 0 failed" in result.stdout, result.stderr


def test_a_request_in_the_output_and_the_error_file_is_done_and_never_sent_again(
    cli, batch_api, demo_db
) -> None:
    """8c: an id with a reply in the output file and a line in the error file is judged by
    its reply; the error is recorded with the request; nothing is sent again."""
    batch_api.repeat = "error"
    cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    batch_api.release()
    result = cli("judge", demo_db, "--batch", "--collect")
    assert "58 judged, 0 failed" in result.stdout, result.stdout
    assert {status for _, _, status, *_ in _llm(demo_db)} == {"ok"}
    assert set(_outcomes(demo_db)) == {
        "reply; 1 more result line(s) ignored, the first: server_error: The request failed "
        "(fake repeat)."
    }
    again = cli("judge", demo_db, *MMVET_ONE_RUN, "--batch")
    assert "Nothing new to send" in again.stdout, again.stdout
    assert len(batch_api.custom_ids) == 58 and set(batch_api.custom_ids.values()) == {1}


def test_a_dry_run_keeps_no_prompt_in_memory(demo_db) -> None:
    """8d: the preview counts each request and lets its prompt go (the old one held every
    prompt of every run at once): its peak stays far below the prompts' size."""
    with Store.open(demo_db, create=False) as store:
        chains = JudgeStore(store, DEFAULT_JUDGE_MODEL).plan(20, ["mmvet"]).chains
        tracemalloc.start()
        try:
            preview = BatchJudge(store, None, DEFAULT_JUDGE_MODEL).preview(chains)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert preview.requests == 58 * 20
    assert peak < preview.tokens * 4 / 10, (peak, preview.tokens * 4)


def test_wait_says_on_stderr_how_the_batches_stand_while_it_polls(cli, batch_api, demo_db) -> None:
    """8e"""
    batch_api.delay = 0.5
    result = cli("judge", demo_db, *MMVET_ONE_RUN, "--batch", "--wait", "--poll-seconds", "0.05")
    assert result.code == 0 and "58 judged" in result.stdout, result.stdout
    waiting = result.stderr.strip().splitlines()
    assert waiting == [
        "Waiting (a poll every 0.05 s): Judge batches in flight: 1 (58 requests, 58 items). "
        f"batch_fake2 ({DEFAULT_JUDGE_MODEL}): in_progress, 0 of 58 done, 0 failed."
    ]


def test_the_collect_hint_carries_the_base_url_and_the_key_variable_and_works(
    demo_db, tmp_path
) -> None:
    """8f: sent with --base-url and --api-key-env, the hint's command collects as it is
    printed (run here in a shell-like split), and names the variable, never the key."""
    with FakeBatchAPI(delay=None) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        env["MY_JUDGE_KEY"] = KEY
        sent = _judge(demo_db, *MMVET_ONE_RUN, "--batch", "--base-url", server.base_url,
                      "--api-key-env", "MY_JUDGE_KEY", env=env)  # fmt: skip
        assert sent.returncode == 0, sent.stderr
        hint = sent.stdout.split("Collect them with `")[1].split("`")[0]
        assert hint == (f"lmmreview judge {demo_db} --batch --collect --base-url "
                        f"{server.base_url} --api-key-env MY_JUDGE_KEY")  # fmt: skip
        assert KEY not in sent.stdout
        server.release()
        command = [sys.executable, "-m", "lmmreview", *shlex.split(hint)[1:]]
        collected = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stderr
    assert "Collected 1 batch(es): 58 judged" in collected.stdout, collected.stdout


def test_ctrl_c_while_waiting_stops_and_says_how_to_collect(demo_db) -> None:
    with FakeBatchAPI(delay=None) as server:
        command = [sys.executable, "-m", "lmmreview", "judge", str(demo_db), *MMVET_ONE_RUN,
                   "--batch", "--wait", "--poll-seconds", "0.05"]  # fmt: skip
        process = subprocess.Popen(command, env=_env(server.base_url), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            assert process.stderr is not None
            said = select.select([process.stderr], [], [], 30)[0]
            assert said, "nothing on stderr while waiting"
            assert process.stderr.readline().startswith("Waiting (a poll every 0.05 s): ")
            time.sleep(0.5)  # not within that print: Rich would print its line again
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 130 and stderr == (
        "Stopped. What was sent is recorded. Collect them with "
        f"`lmmreview judge {demo_db} --batch --collect --base-url {server.base_url}`.\n"
    )
    assert _query(demo_db, "SELECT COUNT(*) FROM judge_batches WHERE batch_id IS NOT NULL") == [
        (1,)
    ]
