"""The judge against a misbehaving server, over real HTTP on 127.0.0.1: failed replies are not
replayed, retry-after is read in every form, malformed usage is unknown usage, an echoed key
is never stored or printed, and a run killed with SIGKILL pays again for no answered reply."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from conftest import dump, llm_judgments

from bench.fake_batch import FakeBatchAPI
from bench.fake_judge import FakeJudge
from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.engine.benchmarks.mmvet.rules import DEFAULT_JUDGE_MODEL, judge_prompt
from lmmreview.engine.judging import cache_key
from lmmreview.engine.llm import Call, CallFailed, OpenAIChat, _retry_after
from lmmreview.engine.secrets import REDACTED, redact

MMVET_ITEMS = 20 + 20 + 18  # the demo's MM-Vet answers (demo-gamma misses two)
KEY = "sk-test-SECRET-4f9a7c1e"  # what conftest's judge_env exports


def _judgments(db: Path) -> list[tuple[int, int, str, int | None]]:
    """(answer, run, status, prompt tokens) of every LLM judgment, in the order written."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT answer_id, run, status, prompt_tokens FROM judgments "
            "WHERE judge_kind = 'llm' ORDER BY id"
        ).fetchall()


def _cache_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]


def _failure(server: FakeJudge) -> CallFailed:
    """How one chat call through the judge's client, as the runner makes it, fails."""
    call = Call("judge-x", (("user", judge_prompt("Q?", "a", "a")),), 0.0, 3)

    async def main() -> None:
        client = OpenAIChat(api_key="k", base_url=server.base_url, timeout=5)
        try:
            await client.complete(call)
        finally:
            await client.close()

    with pytest.raises(CallFailed) as caught:
        asyncio.run(main())
    return caught.value


# --- 3: only valid results are answered from the cache ------------------------------------------


def test_a_failed_reply_is_not_replayed_and_a_healthy_server_is_asked_again(
    cli, judge_env, fake_judge, demo_db
) -> None:
    fake_judge.fault_rate, fake_judge.faults = 1.0, ("garbage",)
    first = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")
    assert first.code == 0, first.stderr
    assert {status for _, _, status, _ in _judgments(demo_db)} == {"unparseable"}
    paid = fake_judge.requests
    assert paid == MMVET_ITEMS * 6  # the whole retry ladder of every item
    fake_judge.fault_rate = 0.0  # the server is healthy again
    second = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")
    assert second.code == 0, second.stderr
    assert fake_judge.requests == paid + MMVET_ITEMS  # asked again, once per item
    judged = _judgments(demo_db)
    assert [status for _, _, status, _ in judged] == ["unparseable"] * MMVET_ITEMS + [
        "ok"
    ] * MMVET_ITEMS  # one failure row per item, not one more per run
    third = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")
    assert "Nothing to judge" in third.stdout and fake_judge.requests == paid + MMVET_ITEMS


def test_an_item_out_of_attempts_keeps_the_reply_that_did_not_parse(
    cli, judge_env, fake_judge, demo_db
) -> None:
    """A small --max-attempts ends the ladder early: the reviewer still reads what the judge
    said (it was dropped, leaving an empty reply beside "gave up")."""
    fake_judge.fault_rate, fake_judge.faults = 1.0, ("garbage",)
    result = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1", "--max-attempts", "2")
    assert result.code == 0, result.stderr
    with sqlite3.connect(demo_db) as conn:
        rows = conn.execute(
            "SELECT status, error, raw_reply FROM judgments WHERE judge_kind = 'llm'"
        ).fetchall()
    assert len(rows) == MMVET_ITEMS
    assert {(status, error) for status, error, _ in rows} == {("error", "gave up after 2 requests")}
    assert all(reply.strip() for _, _, reply in rows)


# --- 4: retry-after in seconds or as an HTTP-date ----------------------------------------------


def test_a_429_with_only_retry_after_in_seconds_is_honoured() -> None:
    with FakeJudge(fault_rate=1.0, faults=["429_seconds"], retry_after=7) as server:
        failure = _failure(server)
    assert failure.retryable and failure.retry_after == 7.0


def test_a_429_with_retry_after_as_an_http_date_is_honoured() -> None:
    with FakeJudge(fault_rate=1.0, faults=["429_date"], retry_after=30) as server:
        failure = _failure(server)
    # The date has whole seconds: 29 < wait <= 30 when it is read at once; 20 leaves room
    # for a slow machine without accepting "no wait".
    assert failure.retry_after is not None and 20 < failure.retry_after <= 30


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "250", "retry-after": "7"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "7"}, 7.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date gone by: at once
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_in_every_form_and_nonsense_is_ignored(
    headers: dict[str, str], seconds: float | None
) -> None:
    assert _retry_after(headers) == seconds


# --- 5: a malformed usage is unknown usage ------------------------------------------------------


@pytest.mark.parametrize("fault", ["usage_string", "usage_string_counts", "usage_huge"])
def test_a_malformed_usage_counts_as_unknown_and_every_reply_is_kept(
    cli, judge_env, fake_judge, demo_db, fault: str
) -> None:
    fake_judge.fault_rate, fake_judge.faults = 1.0, (fault,)
    result = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")
    assert result.code == 0, result.stderr
    judged = _judgments(demo_db)
    assert len(judged) == MMVET_ITEMS == fake_judge.requests
    assert {(status, tokens) for _, _, status, tokens in judged} == {("ok", None)}
    assert f"{MMVET_ITEMS} judged" in result.stdout and " 0 tokens" in result.stdout


def test_a_reply_that_is_not_json_is_a_failed_request_not_a_crash(
    cli, judge_env, fake_judge, demo_db
) -> None:
    fake_judge.fault_rate, fake_judge.faults = 0.3, ("not_json",)
    result = cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")
    assert result.code == 0, result.stderr
    assert fake_judge.by_outcome["not_json"] > 0
    judged = _judgments(demo_db)  # retried: every item judged once, none lost
    assert len(judged) == len({(a, r) for a, r, _, _ in judged}) == MMVET_ITEMS


# --- 6: the API key is never stored or printed --------------------------------------------------


def test_redact_hides_the_key_and_any_bearer_token() -> None:
    text = f"auth: Bearer {KEY}, again {KEY}; 'Authorization': 'bearer other-token-123'"
    assert redact(text, [KEY]) == (
        f"auth: Bearer {REDACTED}, again {REDACTED}; 'Authorization': 'bearer {REDACTED}'"
    )
    assert redact("look: kk", ["k"]) == "look: kk"  # a one-letter local key is no secret
    assert redact("x-api-key: hunter2", ["hunter2"]) == f"x-api-key: {REDACTED}"  # short, real
    assert redact("Authorization: Basic dXNlcjpodW50ZXIy", []) == f"Authorization: Basic {REDACTED}"
    assert redact("Basic arithmetic, basic dGVzdA==", []) == "Basic arithmetic, basic dGVzdA=="
    assert redact(f"x{KEY}x", [KEY[:10], KEY]) == f"x{REDACTED}x"  # the longer one first


def _no_key_in_files(folder: Path) -> None:
    for path in folder.iterdir():  # the database, its WAL and anything else written
        assert KEY.encode() not in path.read_bytes(), path


def test_a_server_echoing_the_key_in_errors_leaves_it_nowhere(
    cli, judge_env, fake_judge, demo_db
) -> None:
    fake_judge.fault_rate, fake_judge.faults = 1.0, ("echo_auth",)
    results = [cli("judge", demo_db, "--runs", "1", "--max-attempts", "2")]
    results.append(cli("export", demo_db, "--format", "json"))
    with sqlite3.connect(demo_db) as conn:
        errors = [e for (e,) in conn.execute("SELECT error FROM judgments WHERE status = 'error'")]
    assert errors and all(f"Bearer {REDACTED}" in error for error in errors)
    # Fifty failures in a row end the run with the last reason on stderr: redacted too.
    assert results[0].code == 1 and f"Bearer {REDACTED}" in results[0].stderr
    for result in results:
        assert KEY not in result.stdout and KEY not in result.stderr
    _no_key_in_files(demo_db.parent)


def test_a_refusal_echoing_the_key_prints_one_line_without_it(
    cli, judge_env, fake_judge, demo_db
) -> None:
    fake_judge.fault_rate, fake_judge.faults = 1.0, ("echo_auth_401",)
    result = cli("judge", demo_db, "--runs", "1")
    assert result.code == 1
    assert result.stderr.strip().splitlines()[-1] == (  # below the progress bar
        f"error: the judge server refused: 401 request rejected upstream (authorization: "
        f"Bearer {REDACTED})"
    )
    assert KEY not in result.stdout
    _no_key_in_files(demo_db.parent)


def test_a_reply_echoing_the_key_is_stored_without_it(cli, judge_env, fake_judge, demo_db) -> None:
    fake_judge.fault_rate, fake_judge.faults = 1.0, ("echo_auth_reply",)
    results = [cli("judge", demo_db, "--dataset", "mmvet", "--runs", "1")]
    results += [cli("export", demo_db, "--format", fmt) for fmt in ("json", "csv")]
    assert results[0].code == 0, results[0].stderr
    with sqlite3.connect(demo_db) as conn:
        replies = {r for (r,) in conn.execute("SELECT raw_reply FROM judgments")}
        replies |= {r for (r,) in conn.execute("SELECT reply FROM llm_cache")}
    assert f"request rejected upstream (authorization: Bearer {REDACTED})" in replies
    for result in results:
        assert KEY not in result.stdout and KEY not in result.stderr
    _no_key_in_files(demo_db.parent)


# --- 9: kill -9 pays again for no reply the server had answered ---------------------------------


def _judge_process(
    db: Path, server: FakeJudge, concurrency: int, stderr: int = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """`lmmreview judge` in a process of its own, against `server`."""
    command = [sys.executable, "-m", "lmmreview", "judge", str(db),
               "--dataset", "mmvet", "--runs", "1", "--concurrency", str(concurrency)]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.base_url}
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def _killed_mid_ladder(db: Path) -> int:
    """Items with no judgment whose first reply is stored already (their retry was held)."""
    judged = {(answer, run) for answer, run, _, _ in _judgments(db)}
    with Store.open(db, create=False) as store:
        items = [item for chain in JudgeStore(store, DEFAULT_JUDGE_MODEL).plan(1).chains
                 for item in chain if (item.answer_id, item.run) not in judged]  # fmt: skip
        keys = {
            cache_key(item.work.ladder(item, DEFAULT_JUDGE_MODEL)[0], item.run) for item in items
        }
        stored = {key for (key,) in store.conn.execute("SELECT key FROM llm_cache")}
    return len(keys & stored)


def test_kill_nine_mid_ladder_then_resume_pays_again_for_no_answered_reply(demo_db) -> None:
    concurrency, limit = 8, 30
    # Garbage replies put items mid-ladder; after `limit` answers the server holds every
    # request, so at the kill each worker waits on a request the server never answered.
    with FakeJudge(fault_rate=0.7, faults=["garbage"], seed=3, answer_limit=limit) as first:
        process = _judge_process(demo_db, first, concurrency)
        deadline = time.monotonic() + 120  # a hang guard, not a speed check
        while first.held < concurrency and time.monotonic() < deadline:
            assert process.poll() is None, "the run ended before it could be killed"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        answered = first.calls
    assert sum(answered.values()) == limit and first.held == concurrency
    # Every reply the server answered is on disk, unparseable ones included ...
    assert _cache_rows(demo_db) == len(answered)
    assert _killed_mid_ladder(demo_db) > 0  # the case this is about
    with FakeJudge() as second:
        resumed = _judge_process(demo_db, second, concurrency, subprocess.PIPE)
        _, stderr = resumed.communicate(timeout=300)
        asked_again = second.calls
    assert resumed.returncode == 0, stderr
    # ... so the resumed run asks none of them again: nothing answered is paid twice.
    assert set(answered) & set(asked_again) == set()
    judged = _judgments(demo_db)
    assert len(judged) == len({(a, r) for a, r, _, _ in judged}) == MMVET_ITEMS


# --- issue 25, item 8d: runs are bounded, on the command line and in the settings file ---------


def _judge_bounded(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`lmmreview judge DB ARGS` with 1 GB of memory and a minute at most: an unbounded
    plan fails the test instead of the machine."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    command = [sys.executable, "-m", "lmmreview", "judge", str(db), *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=limit)  # fmt: skip


@pytest.mark.parametrize("batch", [(), ("--batch",)])
def test_runs_above_the_maximum_are_refused_before_anything_is_planned(
    demo_db, batch: tuple[str, ...]
) -> None:
    result = _judge_bounded(demo_db, "--runs", "100000000000", "--dry-run", *batch)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == (
        "error: lmmreview judge: Invalid value for '--runs': Input should be less than or "
        "equal to 100 (-h for help)\n"
    )


def test_runs_above_the_maximum_in_the_settings_file_are_refused(demo_db, config_home) -> None:
    """The settings file is held to the flag's bound, where the judge reads it."""
    settings = config_home / "lmmreview" / "config.toml"
    settings.parent.mkdir()
    settings.write_text("[judge]\nruns = 100000000000\n")
    for flags in ((), ("--runs", "100")):
        result = _judge_bounded(demo_db, "--dry-run", *flags)
        assert result.returncode == 1, result.stderr
        assert result.stderr == (
            f"error: {settings}: judge.runs: expected a whole number from 1 to 100\n"
        )
    settings.write_text("[judge]\nruns = 100\n")
    assert _judge_bounded(demo_db, "--dry-run").returncode == 0


@pytest.mark.parametrize("seconds", ["inf", "nan", "1e300", "3601"])
def test_a_timeout_beyond_an_hour_or_not_finite_is_refused_by_the_flag_and_the_settings(
    cli, demo_db: Path, config_home: Path, seconds: str
) -> None:
    """H5: `--timeout inf` (or judge.timeout = 1e300) waited for ever on a stalled server."""
    before = dump(demo_db)
    result = cli("judge", demo_db, "--timeout", seconds, "--dry-run")
    assert result.code != 0, result.stdout
    assert "--timeout" in result.stderr and "3600" in result.stderr
    settings = config_home / "lmmreview" / "config.toml"
    settings.parent.mkdir()
    settings.write_text(f"[judge]\ntimeout = {seconds}\n")  # TOML has inf and nan
    result = cli("judge", demo_db, "--dry-run")
    assert result.code == 1, result.stdout
    assert result.stderr == f"error: {settings}: judge.timeout: expected seconds from 0.1 to 3600\n"
    assert dump(demo_db) == before


@pytest.mark.parametrize("name", ["PATH", "HOME", "sk-SECRET-given-as-a-name"])
def test_a_key_variable_that_holds_no_key_is_refused_and_not_echoed(
    cli, demo_db: Path, name: str
) -> None:
    """`--api-key-env PATH` would send PATH's value to the server as the key."""
    result = cli("judge", demo_db, "--api-key-env", name, "--dry-run")
    assert result.code != 0 and "--api-key-env" in result.stderr, result.stdout
    assert "not PATH, HOME and the like" in result.stderr and "SECRET" not in result.stderr


@pytest.mark.parametrize("where", ["flag", "environment", "settings file"])
def test_a_key_given_inside_the_base_url_is_refused_and_never_shown_or_stored(
    demo_db: Path, config_home: Path, where: str
) -> None:
    """`http://user:KEY@host` would carry the key into the collect hint, `config` and the
    batches table: such a URL is refused, without echoing it, wherever it is given."""
    url = "http://u:sk-SECRET-1234@127.0.0.1:9/v1"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    flags: tuple[str, ...] = ()
    if where == "flag":
        flags = ("--base-url", url)
    elif where == "environment":
        env["OPENAI_BASE_URL"] = url
    else:
        path = config_home / "lmmreview" / "config.toml"
        path.parent.mkdir()
        path.write_text(f'[judge]\nbase_url = "{url}"\n')
    before = demo_db.read_bytes()
    for command in (["judge", str(demo_db), "--runs", "1", "--batch", *flags], ["config"]):
        if command == ["config"] and where == "flag":
            continue
        result = subprocess.run([sys.executable, "-m", "lmmreview", *command], env=env,
                                capture_output=True, text=True, timeout=60)  # fmt: skip
        assert result.returncode != 0, (command, result.stdout)
        assert "user name or password" in result.stderr, result.stderr
        assert "SECRET" not in result.stdout + result.stderr
    assert demo_db.read_bytes() == before


URL_KEY = "sk-SECRET-5678/+x"  # with characters a URL percent-encodes
KEYED_URLS = {  # the key outside userinfo, as the third attacker placed it (K2); HOST: host:port
    "query": f"http://HOST/v1?api-key={URL_KEY}",
    "path": f"http://HOST/{URL_KEY}/v1",
    "encoded path": f"http://HOST/{quote(URL_KEY, safe='')}/v1",
    "fragment": f"http://HOST/v1#{URL_KEY}",
    "encoded userinfo": f"http://u%3A{quote(URL_KEY, safe='')}%40HOST/v1",
}


@pytest.fixture(scope="module")
def batch_host() -> Iterator[str]:
    """A live fake Batch API (a URL it accepts would send and store): its host:port."""
    with FakeBatchAPI(delay=None) as server:
        yield f"127.0.0.1:{server.port}"


@pytest.mark.parametrize("where", ["flag", "environment", "settings file"])
@pytest.mark.parametrize("url", KEYED_URLS.values(), ids=KEYED_URLS.keys())
def test_a_key_anywhere_in_the_base_url_is_refused_and_never_shown_or_stored(
    cli, demo_db: Path, config_home: Path, monkeypatch, batch_host: str, where: str, url: str
) -> None:
    """K2: the key in the query, the path, a fragment, or percent-encoded userinfo was
    printed by `config`, and with `#KEY` by the collect hint and stored with the batch."""
    url = url.replace("HOST", batch_host)
    monkeypatch.setenv("OPENAI_API_KEY", URL_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    flags: tuple[str, ...] = ()
    if where == "flag":
        flags = ("--base-url", url)
    elif where == "environment":
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    else:
        path = config_home / "lmmreview" / "config.toml"
        path.parent.mkdir()
        path.write_text(f"[judge]\nbase_url = {json.dumps(url)}\n")
    before = dump(demo_db)
    for command in (["judge", demo_db, "--runs", "1", "--batch", *flags], ["config"]):
        result = cli(*command)
        if command == ["config"] and where == "flag":
            assert result.code == 0  # no URL given to it
        else:
            assert result.code != 0 and "error" in result.stderr.lower(), result.stderr
        shown = result.stdout + result.stderr
        assert "SECRET" not in unquote(shown), shown
    assert dump(demo_db) == before


def test_a_base_url_stored_with_the_key_is_shown_without_it(
    cli, demo_db: Path, monkeypatch
) -> None:
    """Every printed or stored base URL goes through one redaction: a batch in flight
    recorded (by an older version) with the key in its URL is hinted without the key."""
    monkeypatch.setenv("OPENAI_API_KEY", URL_KEY)
    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute(
            "INSERT INTO judge_batches (tag, judge_model, base_url, owner, status, batch_id, "
            "created_at) VALUES ('t', 'gpt-4-0613', ?, 'o@1', 'in_progress', 'batch_1', "
            "'2026-11-27T13:00:00')",
            (KEYED_URLS["encoded path"].replace("/v1", "/v1?k=" + URL_KEY),),
        )
    result = cli("judge", demo_db, "--runs", "1", "--batch", "--dry-run")
    assert result.code == 0, result.stderr
    assert "--batch --collect --base-url" in result.stdout
    assert "SECRET" not in unquote(result.stdout + result.stderr), result.stdout


def test_a_poll_interval_beyond_a_day_is_refused_as_a_usage_error(cli, demo_db: Path) -> None:
    """`--poll-seconds 1e12` ended in "failed unexpectedly (OverflowError ...)"."""
    result = cli("judge", demo_db, "--batch", "--wait", "--poll-seconds", "1e12")
    assert result.code != 0
    assert "--poll-seconds" in result.stderr and "86400" in result.stderr
    assert "Traceback" not in result.stderr and "unexpectedly" not in result.stderr


@pytest.mark.parametrize("how", ["replaced", "deleted"])
def test_a_judge_run_whose_file_is_replaced_or_deleted_stops_and_leaves_the_new_file_intact(
    demo_db: Path, tmp_path: Path, how: str
) -> None:
    """`lmmreview judge` went on writing to a file another program had replaced (its WAL,
    found by name, then damaged the new file) or deleted, and said "judged", exit 0."""
    newer = tmp_path / "newer.db"
    shutil.copyfile(demo_db, newer)
    with closing(sqlite3.connect(newer)) as conn, conn:
        conn.execute("CREATE TABLE other_tool (x)")  # another program's own file now
    before = dump(newer)
    change = (lambda: os.replace(newer, demo_db)) if how == "replaced" else demo_db.unlink
    code, stderr = _judge_changed_midway(demo_db, 1, change)
    assert code == 1, stderr
    assert f"{demo_db}: the file was {how}" in stderr, stderr
    if how == "replaced":
        with closing(sqlite3.connect(demo_db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert dump(demo_db) == before


def test_a_judge_run_whose_file_is_emptied_stops_and_keeps_its_judgments_in_a_copy(
    demo_db: Path, tmp_path: Path
) -> None:
    """`: > a.db` during `lmmreview judge` keeps the inode, so the device-and-inode check
    missed it: the run went on, its WAL (pages of the old content) stayed beside the empty
    file for the next opener, and the judgments paid for were lost. (`cp other.db a.db`
    while the WAL holds frames cannot be told from another connection's checkpoint: see
    db/watch.py.)"""
    content, paid = b"", set()

    def empty() -> None:
        paid.update(llm_judgments(demo_db))
        demo_db.write_bytes(content)  # the same inode, written over

    code, stderr = _judge_changed_midway(demo_db, 2, empty)
    assert code == 1, stderr
    assert demo_db.read_bytes() == content, stderr  # before anything opens it again
    wal = demo_db.with_name(demo_db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # nothing left to move into it
    [copy] = tmp_path.glob("demo.rescued-*.db")
    kept = llm_judgments(copy)
    assert paid and paid <= kept
    [line] = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert line == (
        f"error: {demo_db}: the file was rewritten in place by another program while this "
        f"run had it open, so nothing more is written to it; the {len(kept)} judgments it "
        f"received are saved, with their answers, in {copy} (see them: lmmreview info {copy})"
    )
    assert "Traceback" not in stderr and "malformed" not in stderr


def _judge_changed_midway(db: Path, judged: int, change: Callable[[], object]) -> tuple[int, str]:
    """`lmmreview judge DB` against a slow fake judge; once `judged` judgments are stored,
    `change()` the file under it. The exit code and stderr."""
    with FakeJudge(latency=0.2) as server:
        env = {**os.environ, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.base_url}
        process = subprocess.Popen(
            [sys.executable, "-m", "lmmreview", "judge", str(db), "--dataset", "mmvet",
             "--runs", "3", "--concurrency", "2"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60  # a hang guard
            while _llm_judged(db) < judged and time.monotonic() < deadline:
                time.sleep(0.05)
            change()
            _, stderr = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
    return process.returncode, stderr


def _llm_judged(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM judgments WHERE judge_kind = 'llm'")
                   .fetchone()[0])  # fmt: skip


@pytest.mark.parametrize(("flag", "value"), [("--per-batch", "50001"), ("--batch-mb", "201")])
def test_batch_limits_above_the_providers_are_refused(
    cli, demo_db: Path, flag: str, value: str
) -> None:
    """The provider refuses a batch beyond 50,000 requests or 200 MB: say so at once."""
    result = cli("judge", demo_db, "--batch", flag, value, "--dry-run")
    assert result.code != 0 and flag in result.stderr and "Traceback" not in result.stderr
