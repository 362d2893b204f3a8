"""The fake Batch API: the openai client's files and batches calls over real HTTP, the chat
server's script per line, delays, failures per request and per batch, a custom_id count,
and its command line, against which `lmmreview judge --batch` runs end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import openai
import pytest
from conftest import serve_fake, stop_fake

from bench.fake_batch import FakeBatchAPI
from bench.fake_judge import FakeJudge, scripted_reply
from lmmreview.engine.benchmarks.mmvet import rules as mmvet

PROMPTS = [
    mmvet.judge_prompt("What colour?", "red <AND> blue", "red"),
    mmvet.judge_prompt("What colour?", "red <AND> blue", "red and blue"),
    mmvet.judge_prompt("What colour?", "red <AND> blue", "red"),  # asked again: jitter
]


def _client(server: FakeBatchAPI) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-fake-batch-key", base_url=server.base_url, max_retries=0)


def _lines(prompts: list[str], prefix: str = "r") -> bytes:
    rows = [
        {"custom_id": f"{prefix}{n}", "method": "POST", "url": "/v1/chat/completions",
         "body": {"model": "judge", "messages": [{"role": "user", "content": p}],
                  "temperature": 0.0, "max_tokens": 3}}
        for n, p in enumerate(prompts)
    ]  # fmt: skip
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _run(client: openai.OpenAI, data: bytes, tag: str = "t") -> str:
    file = client.files.create(file=("in.jsonl", data), purpose="batch")
    batch = client.batches.create(
        input_file_id=file.id, endpoint="/v1/chat/completions", completion_window="24h",
        metadata={"tag": tag},
    )  # fmt: skip
    return batch.id


def _results(client: openai.OpenAI, file_id: str | None) -> dict[str, dict]:
    if file_id is None:
        return {}
    lines = client.files.content(file_id).text.splitlines()
    return {row["custom_id"]: row for row in map(json.loads, lines)}


def test_a_batch_round_trip_gets_the_scripted_replies_in_order_and_counts_custom_ids() -> None:
    with FakeBatchAPI() as server:
        client = _client(server)
        batch = client.batches.retrieve(_run(client, _lines(PROMPTS)))
        assert batch.status == "completed" and batch.request_counts.completed == 3
        out = _results(client, batch.output_file_id)
        replies = [out[f"r{n}"]["response"]["body"]["choices"][0]["message"]["content"]
                   for n in range(3)]  # fmt: skip
        assert replies[:2] == [scripted_reply(PROMPTS[0]), scripted_reply(PROMPTS[1])]
        assert replies[2] == scripted_reply(PROMPTS[2], answered_before=1) == "0.6"
        assert server.custom_ids == {"r0": 1, "r1": 1, "r2": 1}
        listed = client.batches.list()
        assert [b.id for b in listed.data] == [batch.id] and listed.data[0].metadata == {"tag": "t"}
        client.files.delete(batch.output_file_id or "")
        with pytest.raises(openai.NotFoundError):
            client.files.content(batch.output_file_id or "")


def test_a_live_run_and_a_batch_against_one_script_get_the_same_replies() -> None:
    with FakeJudge() as live, FakeBatchAPI() as batches:
        chat = openai.OpenAI(api_key="k", base_url=live.base_url, max_retries=0)
        asked = [
            chat.chat.completions.create(
                model="judge", messages=[{"role": "user", "content": p}], temperature=0.0,
                max_tokens=3,
            ).choices[0].message.content
            for p in PROMPTS
        ]  # fmt: skip
        client = _client(batches)
        out = _results(
            client, client.batches.retrieve(_run(client, _lines(PROMPTS))).output_file_id
        )
        sent = [
            out[f"r{n}"]["response"]["body"]["choices"][0]["message"]["content"] for n in range(3)
        ]
    assert sent == asked


def test_results_wait_for_the_delay_or_the_release() -> None:
    with FakeBatchAPI(delay=None) as server:
        client = _client(server)
        batch_id = _run(client, _lines(PROMPTS[:1]))
        waiting = client.batches.retrieve(batch_id)
        assert waiting.status == "in_progress" and waiting.output_file_id is None
        server.release()
        assert client.batches.retrieve(batch_id).status == "completed"


def test_faults_become_non_200_lines_and_error_lines_in_the_error_file() -> None:
    with FakeBatchAPI(fault_rate=1.0, faults=["500"]) as server:
        client = _client(server)
        batch = client.batches.retrieve(_run(client, _lines(PROMPTS[:2])))
        errors = _results(client, batch.error_file_id)
        assert batch.output_file_id is None and batch.request_counts.failed == 2
        assert {row["response"]["status_code"] for row in errors.values()} == {500}
        server.faults = ("drop",)
        batch = client.batches.retrieve(_run(client, _lines(PROMPTS[:1], "d")))
        line = _results(client, batch.error_file_id)["d0"]
        assert line["response"] is None and line["error"]["code"] == "server_error"


def test_limits_a_scripted_failure_and_an_expiry() -> None:
    with FakeBatchAPI(max_requests=2, outcomes=["expired", "failed"]) as server:
        client = _client(server)
        expired = client.batches.retrieve(_run(client, _lines(PROMPTS[:2])))
        assert expired.status == "expired"
        assert len(_results(client, expired.output_file_id)) == 1
        late = _results(client, expired.error_file_id)
        assert [row["error"]["code"] for row in late.values()] == ["batch_expired"]
        failed = client.batches.retrieve(_run(client, _lines(PROMPTS[:1], "f")))
        assert failed.status == "failed" and failed.errors and failed.errors.data
        too_many = client.batches.retrieve(_run(client, _lines(PROMPTS, "m")))
        assert too_many.status == "failed" and "above the limits" in str(too_many.errors)
        assert "m0" not in server.custom_ids  # a batch failing validation runs nothing


def test_cancel_ends_a_batch_with_every_request_cancelled() -> None:
    with FakeBatchAPI(delay=None) as server:
        client = _client(server)
        batch_id = _run(client, _lines(PROMPTS[:2]))
        assert client.batches.cancel(batch_id).status == "cancelled"
        batch = client.batches.retrieve(batch_id)
        codes = {row["error"]["code"] for row in _results(client, batch.error_file_id).values()}
        assert codes == {"batch_cancelled"} and batch.output_file_id is None


# --- the command line (issue 25, item 11) ----------------------------------------------------


def test_the_command_line_serves_a_batch_judge_run_end_to_end(demo_db) -> None:
    """As the README shows it: start the fake, point `judge --batch --base-url` at it with
    no key set, wait for the results; every MM-Vet item is judged, none paid twice."""
    process = serve_fake(
        "bench.fake_batch",
        "--delay",
        "0.2",
        "--fault-rate",
        "0.2",
        "--faults",
        "500",
        "--seed",
        "3",
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        judge = subprocess.run(
            [sys.executable, "-m", "lmmreview", "judge", str(demo_db), "--dataset", "mmvet",
             "--runs", "1", "--batch", "--base-url", base_url, "--wait", "--poll-seconds", "0.1"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        summary = stop_fake(process)
    assert judge.returncode == 0, judge.stderr
    assert "Sent 58 requests" in judge.stdout and "Waiting" in judge.stderr
    collected = judge.stdout.split("Collected 1 batch(es): ")[1]
    assert collected.startswith(f"{58 - summary['by_outcome']['500']} judged, ")
    assert summary["batches"] == 1 and summary["custom_ids"] == 58
    assert summary["paid_twice"] == 0 and summary["by_outcome"]["500"] > 0


def test_the_command_line_refuses_a_bad_option_in_one_line() -> None:
    process = serve_fake("bench.fake_batch", "--outcomes", "completed,exploded")
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 2 and stdout == ""
    assert stderr.startswith("error: outcomes must be among") and "Traceback" not in stderr
