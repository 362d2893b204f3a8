"""The fake judge server: scripted replies, faults, concurrency and lifecycle, over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest
from conftest import serve_fake, stop_fake
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion

from bench.fake_judge import (
    ALL_FAULTS,
    GARBAGE_REPLY,
    MMBENCH_MARKER,
    MMVET_MARKER,
    FakeJudge,
    mmbench_letter,
    scripted_reply,
)
from lmmreview.engine.benchmarks.mmbench.rules import extraction_prompt
from lmmreview.engine.benchmarks.mmvet.rules import judge_prompt, parse_score, retry_prompt

# A hand-built MM-Vet prompt: the marker sentence, then the query row with an empty last cell.
MMVET_PROMPT = (
    f"{MMVET_MARKER}, to give a correctness score.\n\nWhat is x? | -1 <AND> -5 | x = -1 | "
)
SHAPES = {"A": "circle", "B": "square", "C": "star"}

Factory = Callable[..., FakeJudge]


@pytest.fixture
def judge() -> Iterator[Factory]:
    """Start fake judges with the given options; every one is stopped after the test."""
    started: list[FakeJudge] = []

    def make(**options: Any) -> FakeJudge:
        server = FakeJudge(**options)
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def client_for(server: FakeJudge, timeout: float = 5.0) -> openai.OpenAI:
    """An OpenAI client for `server` that never retries, so each call is one request."""
    return openai.OpenAI(
        base_url=server.base_url, api_key="test-key", max_retries=0, timeout=timeout
    )


def ask(client: openai.OpenAI, prompt: str, model: str = "gpt-4-0613") -> ChatCompletion:
    return client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}]
    )


def reply(client: openai.OpenAI, prompt: str) -> str | None:
    return ask(client, prompt).choices[0].message.content


def raw_request(
    server: FakeJudge, method: str, path: str, body: bytes | None = None
) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) of one request sent with http.client, outside the openai client."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def chat_body(prompt: str = "hello") -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}]}).encode()


# --- The scripted judge ------------------------------------------------------------------------


def test_mmvet_score_is_the_fraction_of_ground_truth_elements(judge: Factory) -> None:
    client = client_for(judge())
    assert reply(client, MMVET_PROMPT) == "0.5"
    # The project's own prompt builder, with its seven few-shot rows before the query row.
    assert reply(client, judge_prompt("What is x?", "-1 <AND> -5", "x = -1 or x = -5")) == "1.0"
    assert reply(client, judge_prompt("What is x?", "-1 <AND> -5", "x = 3")) == "0.0"


def test_repeated_askings_of_one_prompt_jitter_the_score(judge: Factory) -> None:
    client = client_for(judge())
    assert [reply(client, MMVET_PROMPT) for _ in range(4)] == ["0.5", "0.6", "0.4", "0.5"]
    # Jitter is per exact prompt: another prompt starts afresh, and scores stay within [0, 1].
    full = judge_prompt("Price?", "$4 <OR> 4 dollars", "It costs 4 DOLLARS")
    assert [reply(client, full) for _ in range(3)] == ["1.0", "1.0", "0.9"]
    none = judge_prompt("Price?", "$4", "free")
    assert [reply(client, none) for _ in range(3)] == ["0.0", "0.1", "0.0"]


@pytest.mark.parametrize(
    ("truth", "prediction", "expected"),
    [
        ("-1 <AND> -5", "x = -5 or 5", "0.5"),
        ("a <AND> b <AND> c", "A and C", "0.7"),  # 2/3 rounds to 0.7
        ("a <AND> b <AND> c <AND> d", "only a", "0.3"),  # 1/4 rounds half up
        ("$4 <OR> 4 dollars", "four dollars", "0.0"),
        ("$4<OR>4 dollars", "It is $4.", "1.0"),  # the prompt builder pads <OR> with spaces
        ("green", "It is green.\nDefinitely | green.", "1.0"),  # newlines and bars in it
    ],
)
def test_mmvet_scoring_rules(truth: str, prediction: str, expected: str) -> None:
    assert scripted_reply(judge_prompt("Q?", truth, prediction)) == expected
    # The retry prompt (with its trailing instruction) is scored the same way.
    assert scripted_reply(retry_prompt("Q?", truth, prediction)) == expected


@settings(max_examples=200, deadline=None)
@given(
    truth=st.lists(st.text(min_size=1).filter(lambda t: "|" not in t), min_size=1, max_size=4),
    prediction=st.text(),
    asked=st.integers(min_value=0, max_value=10),
)
def test_mmvet_replies_are_always_valid_scores(
    truth: list[str], prediction: str, asked: int
) -> None:
    text = scripted_reply(judge_prompt("Q?", " <AND> ".join(truth), prediction), asked)
    score = parse_score(text)
    assert score is not None
    assert text == f"{score:.1f}"


def test_extraction_prompt_gets_the_named_option_or_x(judge: Factory) -> None:
    client = client_for(judge())
    assert reply(client, extraction_prompt("Which shape?", SHAPES, "It is a Star.")) == "C"
    assert reply(client, extraction_prompt("Which shape?", SHAPES, "a triangle")) == "X"
    # The template's own examples ("teddy bear", "Spider") must not be read as the query.
    assert (
        reply(client, extraction_prompt("Which?", {"A": "rabbit", "B": "dog"}, "a teddy bear"))
        == "X"
    )


def test_extraction_prefers_the_longest_matching_option() -> None:
    options = {"A": "bear", "B": "teddy bear", "C": "cat"}
    assert mmbench_letter(extraction_prompt("What?", options, "A teddy bear.")) == "B"
    assert mmbench_letter(extraction_prompt("What?", options, "a\nmultiline cat answer")) == "C"
    assert mmbench_letter(f"{MMBENCH_MARKER} but no options") == "X"


def test_other_prompts_get_a_default_and_the_completion_is_well_formed(judge: Factory) -> None:
    client = client_for(judge())
    first = ask(client, "Tell me a joke.", model="my-judge")
    second = ask(client, "x" * 40)
    assert first.choices[0].message.content == "0.5"
    assert first.choices[0].message.role == "assistant"
    assert first.choices[0].finish_reason == "stop"
    assert first.model == "my-judge"
    assert first.object == "chat.completion"
    assert first.id.startswith("chatcmpl-fake-")
    assert first.id != second.id
    assert first.created > 0
    assert second.usage is not None
    assert (second.usage.prompt_tokens, second.usage.completion_tokens) == (10, 1)
    assert second.usage.total_tokens == 11


def test_last_user_message_is_the_prompt_and_text_parts_count(judge: Factory) -> None:
    server = judge()
    client = client_for(server)
    messages: Any = [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "ignored"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": MMVET_PROMPT}]},
    ]
    completion = client.chat.completions.create(model="m", messages=messages)
    assert completion.choices[0].message.content == "0.5"
    assert server.prompts == {MMVET_PROMPT: 1}


def test_base_url_without_v1_works_too(judge: Factory) -> None:
    server = judge()
    client = openai.OpenAI(
        base_url=server.base_url.removesuffix("/v1"), api_key="k", max_retries=0, timeout=5
    )
    assert reply(client, MMVET_PROMPT) == "0.5"
    assert server.requests == 1


def test_no_api_key_header_is_needed(judge: Factory) -> None:
    status, payload = raw_request(judge(), "POST", "/v1/chat/completions", chat_body())
    assert status == 200
    assert payload["choices"][0]["message"]["content"] == "0.5"


# --- Faults ------------------------------------------------------------------------------------


def test_429_is_a_rate_limit_error_with_retry_after_headers(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["429"], retry_after=0.25)
    with pytest.raises(openai.RateLimitError) as caught:
        ask(client_for(server), MMVET_PROMPT)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "0.25"
    assert caught.value.response.headers["retry-after-ms"] == "250"
    assert caught.value.response.json()["error"]["type"] == "rate_limit_error"
    assert server.by_outcome == {"429": 1}


@pytest.mark.parametrize("fault", ["429_seconds", "429_date"])
def test_429_with_only_one_retry_header_in_seconds_or_as_a_date(judge: Factory, fault: str) -> None:
    server = judge(fault_rate=1.0, faults=[fault], retry_after=7)
    with pytest.raises(openai.RateLimitError) as caught:
        ask(client_for(server), MMVET_PROMPT)
    headers = caught.value.response.headers
    assert "retry-after-ms" not in headers
    if fault == "429_seconds":
        assert headers["retry-after"] == "7"
    else:
        when = email.utils.parsedate_to_datetime(headers["retry-after"])
        assert headers["retry-after"].endswith(" GMT") and when.tzinfo is not None


@pytest.mark.parametrize(("fault", "status"), [("echo_auth", 500), ("echo_auth_401", 401)])
def test_echo_faults_put_the_authorization_header_in_the_error(
    judge: Factory, fault: str, status: int
) -> None:
    server = judge(fault_rate=1.0, faults=[fault])
    with pytest.raises(openai.APIStatusError) as caught:
        ask(client_for(server), MMVET_PROMPT)
    assert caught.value.status_code == status
    assert "authorization: Bearer test-key" in caught.value.response.json()["error"]["message"]


def test_echo_reply_fault_puts_the_authorization_header_in_the_reply(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["echo_auth_reply"])
    assert "authorization: Bearer test-key" in (reply(client_for(server), MMVET_PROMPT) or "")


@pytest.mark.parametrize(
    ("fault", "usage"),
    [
        ("usage_string", "lots"),
        ("usage_string_counts", {"prompt_tokens": "12", "completion_tokens": "1",
                                 "total_tokens": "13"}),
        ("usage_huge", {"prompt_tokens": 2**64, "completion_tokens": 2**63,
                        "total_tokens": 2**65}),
    ],
)  # fmt: skip
def test_usage_faults_send_a_good_reply_with_a_malformed_usage(
    judge: Factory, fault: str, usage: object
) -> None:
    status, payload = raw_request(
        judge(fault_rate=1.0, faults=[fault]), "POST", "/v1/chat/completions",
        chat_body(MMVET_PROMPT),
    )  # fmt: skip
    assert status == 200
    assert payload["choices"][0]["message"]["content"] == "0.5"
    assert payload["usage"] == usage


def test_not_json_fault_is_a_200_with_a_body_that_is_not_json(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["not_json"])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("POST", "/v1/chat/completions", body=chat_body())
        response = conn.getresponse()
        assert response.status == 200
        with pytest.raises(json.JSONDecodeError):
            json.loads(response.read())
    finally:
        conn.close()


def test_answer_limit_holds_later_requests_unanswered_and_uncounted(judge: Factory) -> None:
    server = judge(answer_limit=2)
    client = client_for(server, timeout=0.3)
    assert reply(client, MMVET_PROMPT) == "0.5"
    messages: Any = [{"role": "user", "content": MMVET_PROMPT}]
    client.chat.completions.create(model="m", messages=messages, temperature=0)
    with pytest.raises(openai.APITimeoutError):
        ask(client, "held")
    # Calls are told apart by temperature (1.0 when the client sends none, as OpenAI's default).
    assert server.calls == {(MMVET_PROMPT, 1.0): 1, (MMVET_PROMPT, 0.0): 1}
    assert server.held == 1 and server.prompts == {MMVET_PROMPT: 2}


def test_500_is_an_internal_server_error(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["500"])
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client_for(server), MMVET_PROMPT)
    assert caught.value.status_code == 500


def test_slow_reply_exceeds_the_client_timeout(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["slow"])
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(client_for(server, timeout=0.2), MMVET_PROMPT)
    assert time.monotonic() - started < 2.0
    assert server.by_outcome == {"slow": 1}


def test_slow_reply_arrives_after_slow_seconds(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["slow"], slow_seconds=0.3)
    started = time.monotonic()
    assert reply(client_for(server), MMVET_PROMPT) == "0.5"
    assert time.monotonic() - started >= 0.3


def test_drop_closes_the_connection_without_a_response(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["drop"])
    with pytest.raises(openai.APIConnectionError) as caught:
        ask(client_for(server), MMVET_PROMPT)
    assert not isinstance(caught.value, openai.APITimeoutError)
    assert server.by_outcome == {"drop": 1}


@pytest.mark.parametrize(
    ("fault", "prompt", "expected"),
    [
        ("empty", MMVET_PROMPT, ""),
        ("garbage", MMVET_PROMPT, GARBAGE_REPLY),
        ("out_of_range", MMVET_PROMPT, "1.5"),
        ("out_of_range", extraction_prompt("Which shape?", SHAPES, "a star"), "Q"),
    ],
)
def test_bad_content_faults_are_200_replies(
    judge: Factory, fault: str, prompt: str, expected: str
) -> None:
    server = judge(fault_rate=1.0, faults=[fault])
    assert reply(client_for(server), prompt) == expected
    assert server.by_outcome == {fault: 1}


def test_fault_sequence_is_deterministic_for_a_seed(judge: Factory) -> None:
    def outcomes(server: FakeJudge) -> list[str]:
        client = client_for(server, timeout=0.2)
        seen = []
        for _ in range(30):
            before = server.by_outcome
            with contextlib.suppress(openai.APIError):  # errors are outcomes here
                ask(client, "hello")
            (kind,) = (server.by_outcome - before).keys()
            seen.append(kind)
        return seen

    options = {"fault_rate": 0.5, "faults": ["429", "500", "empty"], "seed": 7}
    first = outcomes(judge(**options))
    assert first == outcomes(judge(**options))
    assert set(first) == {"ok", "429", "500", "empty"}
    assert first != outcomes(judge(**{**options, "seed": 8}))


def test_faulted_askings_do_not_shift_the_jitter(judge: Factory) -> None:
    server = judge(fault_rate=1.0, faults=["500"])
    client = client_for(server)
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            ask(client, MMVET_PROMPT)
    server.fault_rate = 0.0
    # Two askings failed, but this is the first scripted reply, so it has no jitter.
    assert reply(client, MMVET_PROMPT) == "0.5"
    assert server.prompts == {MMVET_PROMPT: 3}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="faults"):
        FakeJudge(faults=["timeout"])
    with pytest.raises(ValueError, match="faults"):
        FakeJudge(faults=[])
    with pytest.raises(ValueError, match="fault_rate"):
        FakeJudge(fault_rate=1.5)
    assert len(ALL_FAULTS) == 7


# --- Concurrency and counters ------------------------------------------------------------------


def test_concurrent_requests_overlap(judge: Factory) -> None:
    server = judge(latency=0.2)

    async def burst() -> list[str | None]:
        client = openai.AsyncOpenAI(
            base_url=server.base_url, api_key="test-key", max_retries=0, timeout=10
        )
        async with client:
            completions = await asyncio.gather(
                *(
                    client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": f"prompt {i}"}]
                    )
                    for i in range(40)
                )
            )
        return [c.choices[0].message.content for c in completions]

    started = time.monotonic()
    replies = asyncio.run(burst())
    elapsed = time.monotonic() - started
    assert replies == ["0.5"] * 40
    assert elapsed >= 0.2
    assert elapsed < 4.0  # 40 sequential replies would take 8 s
    assert server.max_in_flight >= 20  # they really were handled at the same time
    assert server.requests == 40


def test_counters_count_and_reset(judge: Factory) -> None:
    server = judge()
    client = client_for(server)
    other = extraction_prompt("Which shape?", SHAPES, "a square")
    for prompt in (MMVET_PROMPT, MMVET_PROMPT, other):
        ask(client, prompt)
    assert server.requests == 3
    assert server.by_outcome == {"ok": 3}
    assert server.prompts == {MMVET_PROMPT: 2, other: 1}
    assert server.connections == 1  # the client kept its connection alive
    server.reset_counters()
    assert (server.requests, server.by_outcome, server.prompts) == (0, {}, {})
    assert reply(client, MMVET_PROMPT) == "0.5"  # the jitter history was reset too


def test_counters_are_consistent_across_threads(judge: Factory) -> None:
    server = judge()
    client = client_for(server)

    def work() -> None:
        for _ in range(10):
            ask(client, MMVET_PROMPT)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert server.requests == 40
    assert server.prompts[MMVET_PROMPT] == 40
    assert server.by_outcome["ok"] == 40


# --- HTTP details ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/models"), ("POST", "/v1/completions"), ("GET", "/v1/chat/completions")],
)
def test_unknown_routes_are_404_json(judge: Factory, method: str, path: str) -> None:
    server = judge()
    status, payload = raw_request(server, method, path, b"{}" if method == "POST" else None)
    assert status == 404
    assert "message" in payload["error"]
    assert server.requests == 0


def test_bad_json_is_400(judge: Factory) -> None:
    server = judge(fault_rate=1.0)  # no fault is drawn for an unreadable request
    status, payload = raw_request(server, "POST", "/v1/chat/completions", b"{not json")
    assert status == 400
    assert payload["error"]["type"] == "invalid_request_error"
    status, _ = raw_request(server, "POST", "/v1/chat/completions", b'{"model": "m"}')
    assert status == 400
    assert server.requests == 2
    assert server.by_outcome == {"bad_request": 2}
    with pytest.raises(openai.BadRequestError):
        client_for(server).chat.completions.create(model="m", messages=[])


def test_keep_alive_and_connection_close(judge: Factory) -> None:
    server = judge()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    for _ in range(3):
        conn.request("POST", "/v1/chat/completions", body=chat_body())
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("connection") == "keep-alive"
        response.read()
    conn.request("POST", "/chat/completions", body=chat_body(), headers={"Connection": "close"})
    response = conn.getresponse()
    assert response.getheader("connection") == "close"
    response.read()
    conn.close()
    assert server.connections == 1
    assert server.requests == 4


def test_connection_close_closes_the_socket(judge: Factory) -> None:
    server = judge()
    body = chat_body()
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):  # ends only when the server closes the socket
            received += chunk
    head, _, payload = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert json.loads(payload)["choices"][0]["message"]["content"] == "0.5"


def test_malformed_request_line_is_400(judge: Factory) -> None:
    server = judge()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        received = sock.recv(65536)
    assert received.startswith(b"HTTP/1.1 400 ")


def test_chunked_request_body_is_read(judge: Factory) -> None:
    server = judge()
    body = chat_body(MMVET_PROMPT)
    chunks = b"".join(
        f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:10], body[10:])
    )
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert (
        json.loads(received.partition(b"\r\n\r\n")[2])["choices"][0]["message"]["content"] == "0.5"
    )


# --- Lifecycle ---------------------------------------------------------------------------------


def port_is_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_context_manager_serves_then_closes_the_port() -> None:
    with FakeJudge() as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert reply(client_for(server), MMVET_PROMPT) == "0.5"
        assert port_is_open(server.port)
    assert not port_is_open(server.port)
    server.stop()  # a second stop does nothing


def test_stop_cuts_short_pending_slow_replies() -> None:
    server = FakeJudge(fault_rate=1.0, faults=["slow"], slow_seconds=30)
    server.start()
    errors: list[Exception] = []

    def call() -> None:
        try:
            ask(client_for(server, timeout=60), MMVET_PROMPT)
        except Exception as exc:
            errors.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    deadline = time.monotonic() + 5
    while server.requests == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 2.0
    caller.join(timeout=5)
    assert [type(e) for e in errors] == [openai.APIConnectionError]
    assert not port_is_open(server.port)


def test_start_twice_is_refused_and_restart_after_stop_works() -> None:
    server = FakeJudge()
    server.start()
    try:
        with pytest.raises(RuntimeError):
            server.start()
    finally:
        server.stop()
    with pytest.raises(RuntimeError):
        FakeJudge().base_url  # noqa: B018 - the property raises before start
    server.start()
    try:
        assert reply(client_for(server), MMVET_PROMPT) == "0.5"
    finally:
        server.stop()


def test_command_line_serves_until_interrupted() -> None:
    process = serve_fake("bench.fake_judge", "--fault-rate", "0")
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=5)
        assert reply(client, MMVET_PROMPT) == "0.5"
    finally:
        summary = stop_fake(process)
    assert summary["requests"] == 1
    assert summary["by_outcome"] == {"ok": 1}
