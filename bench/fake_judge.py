"""A fake OpenAI chat-completions server: a scripted LLM judge for tests and benchmarks.

`FakeJudge` runs a real HTTP/1.1 server on 127.0.0.1 (asyncio streams, in a background thread
with its own event loop), so the `openai` client talks to it exactly as it would to the real
API: keep-alive, connection pooling, many requests in flight at once. It answers
``POST /v1/chat/completions`` (and ``POST /chat/completions``) non-streaming, with a
deterministic scripted judge:

* an MM-Vet grading prompt gets the fraction of ground-truth elements found in the prediction,
  rounded to one decimal, plus a small jitter on repeated askings of the same prompt;
* an MMBench extraction prompt gets the letter of the option named in the answer, or "X";
* a LLaVA-Bench review gets each answer's word count (at most 10), the first one more;
* anything else gets "0.5".

It can add latency to every reply and inject faults (429, 500, slow, dropped connection,
empty / garbage / out-of-range replies) at a given rate, chosen by a seeded random generator.
Faults that only a test asks for by name (`EXTRA_FAULTS`): a 429 with only one retry header,
an error or reply that echoes the Authorization header, a malformed `usage`. With
`answer_limit`, requests after that many are held unanswered (the moment to kill a client).

Standard library only. Run it by hand with ``python -m bench.fake_judge --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http
import json
import logging
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.utils import formatdate
from fractions import Fraction
from types import FrameType, TracebackType
from typing import Any, Self, TypeGuard, TypeVar

__all__ = [
    "ALL_FAULTS",
    "EXTRA_FAULTS",
    "GARBAGE_REPLY",
    "FakeJudge",
    "chat_arguments",
    "chat_settings",
    "counters",
    "main",
    "mmbench_letter",
    "mmvet_tenths",
    "scripted_reply",
    "serve",
]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
# Both, because a client's base_url may or may not end in /v1.
CHAT_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})

# The faults drawn by default: what a busy or flaky but honest server does.
ALL_FAULTS: tuple[str, ...] = ("429", "500", "slow", "drop", "empty", "garbage", "out_of_range")
# Faults used only when named: "429_seconds" / "429_date" send only `retry-after`, as seconds
# or as an HTTP-date; "echo_auth" (a 500), "echo_auth_401" (a refusal) and "echo_auth_reply"
# (a 200) put the request's Authorization header in the text; "usage_string",
# "usage_string_counts" and "usage_huge" send a malformed `usage` with a good reply;
# "not_json" is a 200 whose body is not JSON.
EXTRA_FAULTS: tuple[str, ...] = (
    "429_seconds", "429_date", "echo_auth", "echo_auth_401", "echo_auth_reply",
    "usage_string", "usage_string_counts", "usage_huge", "not_json",
)  # fmt: skip
_ECHO_ERRORS = {"echo_auth": 500, "echo_auth_401": 401}  # fault -> HTTP status
_BAD_USAGE: dict[str, object] = {
    "usage_string": "lots",
    "usage_string_counts": {"prompt_tokens": "12", "completion_tokens": "1", "total_tokens": "13"},
    "usage_huge": {"prompt_tokens": 2**64, "completion_tokens": 2**63, "total_tokens": 2**65},
}
GARBAGE_REPLY = "I think this deserves a good grade!"
# What an unrecognised prompt gets: a valid MM-Vet score, so a stray prompt does not crash.
DEFAULT_REPLY = "0.5"

# Markers that identify the two judge prompts (engine/benchmarks/mmvet/rules.py and
# engine/benchmarks/mmbench/rules.py).
MMVET_MARKER = "Compare the ground truth and prediction from AI models"
MMBENCH_MARKER = "You are an AI assistant to help me matching an answer with several options"
# LLaVA-Bench's review (engine/benchmarks/llava_bench/rules.py): each answer between these.
_LLAVA_ANSWER = re.compile(r"\[Assistant ([12])\]\n(.*?)\n\n\[End of Assistant \1\]", re.DOTALL)
# The start of engine.benchmarks.mmvet.rules.RETRY_SUFFIX: it follows the query row on retries.
_MMVET_RETRY_START = "\nPredict the correctness of the answer"
_NO_MATCH = "X"
# Option boundaries in "A. teddy bear B. rabbit C. cat": a letter, a dot, a space.
_OPTION_SPLIT = re.compile(r"(?:^|\s)([A-D])\.\s")
# Trailing sentence punctuation of an option text need not appear in the answer.
_OPTION_TEXT_TAIL = ".,;:!?"

# Limits that keep a broken client from exhausting memory; judge prompts are far smaller.
_LINE_LIMIT = 1 << 20
_MAX_HEADERS = 100
_MAX_BODY = 64 << 20


# --- The scripted judge (pure functions) ------------------------------------------------------


def _mmvet_row(prompt: str) -> tuple[str, str] | None:
    """(ground truth, prediction) of the last table row of an MM-Vet prompt, or None.

    The query row is ``question | truth | prediction | `` (empty last cell). Question and
    prediction may hold newlines, so lines are joined from the end until the row has its cell
    separators. A question containing `` | `` is misread, as it is by the reference judge.
    """
    retry = prompt.rfind(_MMVET_RETRY_START)
    if retry != -1 and "\n" not in prompt[retry + 1 :]:
        prompt = prompt[:retry]
    body = prompt.rstrip()
    if not body.endswith("|"):
        return None
    body = body[:-1].rstrip()
    lines = body.split("\n")
    row = lines.pop()
    while row.count(" | ") < 2 and lines:
        row = lines.pop() + "\n" + row
    cells = row.split(" | ")
    if len(cells) < 3:
        return None
    return cells[1], " | ".join(cells[2:])


def mmvet_tenths(prompt: str) -> int | None:
    """The scripted MM-Vet score of `prompt` in tenths (0..10), or None if it has no query row.

    The score is the fraction of ``<AND>`` elements of the ground truth found in the
    prediction (case-insensitively), where an element with ``<OR>`` alternatives counts as
    found when any alternative is; it is rounded half up to one decimal.
    """
    row = _mmvet_row(prompt)
    if row is None:
        return None
    truth, prediction = row
    prediction = prediction.lower()
    elements = []
    for element in truth.split("<AND>"):
        alternatives = [a.strip().lower() for a in element.split("<OR>")]
        alternatives = [a for a in alternatives if a]
        if alternatives:
            elements.append(alternatives)
    if not elements:
        return 0
    found = sum(any(a in prediction for a in alternatives) for alternatives in elements)
    # Fraction keeps the half-up rounding exact (floats would turn 0.35 into 0.3).
    return int(Fraction(found, len(elements)) * 10 + Fraction(1, 2))


def _jitter(answered_before: int) -> int:
    """The score change, in tenths, for the n-th answer to one prompt: 0, +1, -1, 0, +1, ..."""
    return {0: 0, 1: 1, 2: -1}[answered_before % 3]


def _options(line: str) -> dict[str, str]:
    """``{"A": "teddy bear", ...}`` from an MMBench options line ``A. teddy bear B. rabbit``."""
    parts = _OPTION_SPLIT.split(line)
    # re.split with one group gives [before, letter, text, letter, text, ...].
    return {
        letter: text.strip()
        for letter, text in zip(parts[1::2], parts[2::2], strict=True)
        if text.strip()
    }


def mmbench_letter(prompt: str) -> str:
    """The option letter whose text occurs in the answer of an MMBench extraction prompt.

    Reads the last ``Options: `` line and the last ``Answer: `` (up to ``Your output``), as the
    template's examples come first. When several option texts occur, the longest wins ("teddy
    bear" over "bear"), then the earliest letter. "X" when none occurs.
    """
    options_at = prompt.rfind("\nOptions: ")
    answer_at = prompt.rfind("\nAnswer: ")
    if options_at == -1 or answer_at == -1:
        return _NO_MATCH
    options_line = prompt[options_at + len("\nOptions: ") :].split("\n", 1)[0]
    answer = prompt[answer_at + len("\nAnswer: ") :]
    end = answer.rfind("\nYour output")
    answer = (answer[:end] if end != -1 else answer.split("\n", 1)[0]).lower()
    best: tuple[int, str] | None = None
    for letter, text in _options(options_line).items():
        needle = text.rstrip(_OPTION_TEXT_TAIL).lower() or text.lower()
        if needle in answer and (best is None or len(needle) > best[0]):
            best = (len(needle), letter)
    return best[1] if best else _NO_MATCH


def scripted_reply(prompt: str, answered_before: int = 0) -> str:
    """The judge's reply to `prompt` when no fault is injected.

    `answered_before` is how many scripted replies this exact prompt already got; MM-Vet
    scores move by +0.1 / -0.1 on the 2nd / 3rd reply (and so on, modulo 3), clamped to [0, 1],
    to imitate a real judge's run-to-run variance.
    """
    if MMVET_MARKER in prompt:
        tenths = mmvet_tenths(prompt)
        if tenths is not None:
            tenths = min(10, max(0, tenths + _jitter(answered_before)))
            return f"{tenths // 10}.{tenths % 10}"
    if MMBENCH_MARKER in prompt:
        return mmbench_letter(prompt)
    if (review := llava_review(prompt)) is not None:
        return review
    return DEFAULT_REPLY


def llava_review(prompt: str) -> str | None:
    """A LLaVA-Bench review's scores: each answer's word count (at most 10), the answer
    shown first one more (a scripted order bias, at most 10); None for another prompt."""
    answers = dict(_LLAVA_ANSWER.findall(prompt))
    if set(answers) != {"1", "2"}:
        return None
    first, second = (min(10, len(answers[n].split())) for n in ("1", "2"))
    return f"{min(10, first + 1)} {second}\nThe longer answer has more detail."


def _message_text(content: object) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _echo(headers: dict[str, str]) -> str:
    """An error text that carries the request's Authorization header, as careless proxies do."""
    return f"request rejected upstream (authorization: {headers.get('authorization', '')})"


def _is_number(value: object) -> TypeGuard[int | float]:
    """Whether a JSON value is a number (JSON's true and false are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _user_prompt(messages: list[Any]) -> str:
    """The text of the last message with role "user" ("" when there is none)."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _message_text(message.get("content"))
    return ""


# --- HTTP plumbing -----------------------------------------------------------------------------


class _BadRequest(Exception):
    """The bytes on the wire are not a request we can read; answer 400 and close."""


@dataclass(slots=True)
class _Request:
    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes

    def keep_alive(self) -> bool:
        """Whether the client wants the connection kept open after this request."""
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens


@dataclass(slots=True)
class _Response:
    status: int
    payload: dict[str, Any] | str  # a str is sent as it is (the "not_json" fault)
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self, keep_alive: bool) -> bytes:
        """The response as bytes on the wire, with Content-Length and Connection headers."""
        payload = self.payload
        body = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        headers = {
            "content-type": "application/json",
            "content-length": str(len(body)),
            "connection": "keep-alive" if keep_alive else "close",
            "date": formatdate(usegmt=True),
            **self.headers,
        }
        head = f"HTTP/1.1 {self.status} {http.HTTPStatus(self.status).phrase}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        return head.encode("latin-1") + b"\r\n" + body


def _error(status: int, message: str, kind: str, **headers: str) -> _Response:
    """A JSON error response shaped like the OpenAI API's."""
    payload = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return _Response(status, payload, headers)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A Transfer-Encoding: chunked body (httpx sends Content-Length, but others may not)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readline()
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError as exc:
            raise _BadRequest("bad chunk size") from exc
        if size == 0:
            # Trailers, if any, end with a blank line.
            while (await reader.readline()).strip():
                pass
            return b"".join(chunks)
        total += size
        if total > _MAX_BODY:
            raise _BadRequest("body too large")
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)  # the CRLF after each chunk


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    """The next request on the connection, or None when the client closed it between requests."""
    line = await reader.readline()
    while line in (b"\r\n", b"\n"):  # RFC 9112: ignore empty lines before a request line
        line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest("bad request line")
    method, target, version = parts
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        if line in (b"\r\n", b"\n"):
            break
        if len(headers) >= _MAX_HEADERS:
            raise _BadRequest("too many headers")
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise _BadRequest("bad header line")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    else:
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError as exc:
            raise _BadRequest("bad content-length") from exc
        if not 0 <= length <= _MAX_BODY:
            raise _BadRequest("bad content-length")
        body = await reader.readexactly(length)
    return _Request(method, target.split("?", 1)[0], version, headers, body)


# --- The server --------------------------------------------------------------------------------


class FakeJudge:
    """A scripted OpenAI-compatible judge served over HTTP on 127.0.0.1.

    Use as ``with FakeJudge(latency=0.1) as server: OpenAI(base_url=server.base_url, ...)``,
    or call `start` and `stop`. Counters (`requests`, `by_outcome`, `prompts`, ...) may be read
    from any thread; the Counter properties return snapshots. The settings (`latency`,
    `fault_rate`, `faults`, `slow_seconds`, `retry_after`) are plain attributes: changing one
    while the server runs affects the requests that arrive afterwards.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        faults: Sequence[str] = ALL_FAULTS,
        seed: int = 0,
        slow_seconds: float = 5.0,
        retry_after: float = 0.05,
        port: int = 0,
        answer_limit: int | None = None,
    ) -> None:
        """Configure the server; nothing listens until `start`.

        `latency`: seconds every chat reply waits (concurrent replies wait together).
        `fault_rate`: the probability that a chat request gets a fault, of a kind drawn
        uniformly from `faults` with ``random.Random(seed)`` in arrival order.
        `slow_seconds`: the extra wait of a "slow" fault. `retry_after`: the seconds a 429
        asks the client to wait. `port`: 0 picks a free port. `answer_limit`: chat requests
        after this many are held, unanswered and uncounted, until the server stops.
        """
        known = ALL_FAULTS + EXTRA_FAULTS
        if not faults or any(kind not in known for kind in faults):
            raise ValueError(f"faults must be a non-empty subset of {known}, not {faults!r}")
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be in [0, 1], not {fault_rate}")
        if latency < 0 or slow_seconds < 0 or retry_after < 0:
            raise ValueError("latency, slow_seconds and retry_after must not be negative")
        self.latency = latency
        self.fault_rate = fault_rate
        self.faults: tuple[str, ...] = tuple(faults)
        self.seed = seed
        self.slow_seconds = slow_seconds
        self.retry_after = retry_after
        self.answer_limit = answer_limit
        self._wanted_port = port
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        # Counters are written on the server thread and read from others.
        self._lock = threading.Lock()
        self._reset_state()

    def _reset_state(self) -> None:
        """Zero every counter, forget the asking history and re-seed the fault generator."""
        with self._lock:
            self._requests = 0
            self._by_outcome: Counter[str] = Counter()
            self._prompts: Counter[str] = Counter()
            self._calls: Counter[tuple[str, float]] = Counter()
            self._held = 0
            # Scripted ("ok") replies per prompt, which drive the MM-Vet jitter.
            self._answered: Counter[str] = Counter()
            self._connections = 0
            self._in_flight = 0
            self._max_in_flight = 0
            self._next_id = 0
            self._rng = random.Random(self.seed)

    # --- lifecycle ---

    def start(self) -> str:
        """Start listening and serving in a background thread; returns `base_url`."""
        if self._thread is not None:
            raise RuntimeError("the fake judge is already running")
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="fake-judge", daemon=True)
        thread.start()
        try:
            self._port = asyncio.run_coroutine_threadsafe(self._open(), loop).result(timeout=10)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        self._loop, self._thread = loop, thread
        return self.base_url

    def stop(self) -> None:
        """Close the listener and every connection (cutting short slow replies); idempotent."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._close(), loop).result(timeout=10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            self._loop = self._thread = self._server = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port listened on (known once started)."""
        if self._port is None:
            raise RuntimeError("the fake judge has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    async def _open(self) -> int:
        """Bind the listener (on the server thread) and return its port."""
        self._server = await asyncio.start_server(
            self._serve_connection, HOST, self._wanted_port, limit=_LINE_LIMIT
        )
        return self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        """Stop accepting, then cancel every connection handler (on the server thread)."""
        if self._server is not None:
            self._server.close()
        # The loop is ours alone, so every other task is a connection handler.
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    # --- counters ---

    @property
    def requests(self) -> int:
        """HTTP requests received on the chat route (bad ones included)."""
        with self._lock:
            return self._requests

    @property
    def by_outcome(self) -> Counter[str]:
        """Chat requests by outcome: "ok", each fault kind, "bad_request" (a snapshot)."""
        with self._lock:
            return Counter(self._by_outcome)

    @property
    def prompts(self) -> Counter[str]:
        """How often each exact user message was asked, faulted askings included (a snapshot)."""
        with self._lock:
            return Counter(self._prompts)

    @property
    def calls(self) -> Counter[tuple[str, float]]:
        """How often each (user message, temperature) was answered or faulted (a snapshot);
        a request held by `answer_limit` is not counted."""
        with self._lock:
            return Counter(self._calls)

    @property
    def held(self) -> int:
        """Chat requests being held unanswered by `answer_limit`."""
        with self._lock:
            return self._held

    @property
    def connections(self) -> int:
        """TCP connections accepted: far fewer than `requests` when keep-alive works."""
        with self._lock:
            return self._connections

    @property
    def max_in_flight(self) -> int:
        """The most chat requests being handled at one time (shows a client's concurrency)."""
        with self._lock:
            return self._max_in_flight

    def reset_counters(self) -> None:
        """Zero the counters and make the server behave as if fresh.

        The jitter history and the fault generator are reset too, so a benchmark repetition
        after a reset sees the same replies and faults as the first one (given arrival order).
        """
        self._reset_state()

    # --- serving ---

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Serve requests on one connection until the client or a reply closes it."""
        with self._lock:
            self._connections += 1
        try:
            while True:
                try:
                    request = await _read_request(reader)
                except (_BadRequest, ValueError) as exc:  # ValueError: line over the limit
                    response = _error(400, str(exc), "invalid_request_error")
                    writer.write(response.encode(keep_alive=False))
                    await writer.drain()
                    return
                if request is None:
                    return
                reply = await self._respond(request)
                if reply is None:  # the "drop" fault: no reply at all
                    return
                keep_alive = request.keep_alive()
                writer.write(reply.encode(keep_alive))
                await writer.drain()
                if not keep_alive:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away mid-request or mid-reply: nothing to answer
        except asyncio.CancelledError:
            # `stop` cancels handlers. Ending normally rather than cancelled matters: Python
            # 3.11's StreamReaderProtocol calls task.exception() on a finished handler, which
            # raises (and logs a traceback) for a cancelled one. This is the task's top level.
            pass
        except Exception:
            # A bug here must not pass silently as a client-side fault in someone's test.
            log.exception("fake judge: unexpected error while serving a connection")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _respond(self, request: _Request) -> _Response | None:
        """Route one request; None means close the connection without replying."""
        if request.method == "POST" and request.path in CHAT_PATHS:
            return await self._chat(request)
        return _error(404, f"no route for {request.method} {request.path}", "invalid_request_error")

    def _admit(self, prompt: str, temperature: float) -> tuple[str | None, int] | None:
        """Count a valid chat request; returns (fault kind or None, scripted replies before),
        or None when `answer_limit` says to hold it."""
        with self._lock:
            if self.answer_limit is not None and sum(self._calls.values()) >= self.answer_limit:
                self._held += 1
                return None
            self._calls[(prompt, temperature)] += 1
            self._prompts[prompt] += 1
            fault = None
            # Drawn under the lock in arrival order, so a seed gives one fault sequence.
            if self.fault_rate and self._rng.random() < self.fault_rate:
                fault = self._rng.choice(self.faults)
            answered_before = self._answered[prompt]
            if fault is None:
                self._answered[prompt] += 1
            self._by_outcome[fault or "ok"] += 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return fault, answered_before

    async def _chat(self, request: _Request) -> _Response | None:
        """A chat completion: scripted reply, after the latency, unless a fault is drawn."""
        with self._lock:
            self._requests += 1
        try:
            payload = json.loads(request.body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return self._bad_request(f"body is not valid JSON: {exc}")
        if not isinstance(payload, dict):
            return self._bad_request("body must be a JSON object")
        messages = payload.get("messages")
        model = payload.get("model")
        if not isinstance(messages, list) or not messages or not isinstance(model, str):
            return self._bad_request("'model' (string) and 'messages' (non-empty list) required")
        prompt = _user_prompt(messages)
        temperature = payload.get("temperature")
        admitted = self._admit(prompt, float(temperature) if _is_number(temperature) else 1.0)
        if admitted is None:
            await asyncio.Event().wait()  # never set: held until `stop` cancels it
            return None
        fault, answered_before = admitted
        try:
            await asyncio.sleep(self.latency)
            return await self._reply(fault, prompt, model, answered_before, request.headers)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _bad_request(self, message: str) -> _Response:
        """Count and build a 400 for an unreadable chat request (no fault is drawn for it)."""
        with self._lock:
            self._by_outcome["bad_request"] += 1
        return _error(400, message, "invalid_request_error")

    async def _reply(
        self,
        fault: str | None,
        prompt: str,
        model: str,
        answered_before: int,
        headers: dict[str, str],
    ) -> _Response | None:
        """The response for a chat request that already waited its latency."""
        if fault is not None and fault.startswith("429"):
            return _error(429, "Rate limit reached (fake judge).", "rate_limit_error",
                          **self._retry_headers(fault))  # fmt: skip
        if fault in _ECHO_ERRORS:
            return _error(_ECHO_ERRORS[fault], _echo(headers), "server_error")
        if fault == "500":
            return _error(500, "The server had an error (fake judge).", "server_error")
        if fault == "drop":
            return None
        if fault == "not_json":
            return _Response(200, "<html>Bad gateway</html>")
        if fault == "slow":
            await asyncio.sleep(self.slow_seconds)
        if fault == "empty":
            text = ""
        elif fault == "garbage":
            text = GARBAGE_REPLY
        elif fault == "out_of_range":
            text = "Q" if MMBENCH_MARKER in prompt else "1.5"
        elif fault == "echo_auth_reply":
            text = _echo(headers)
        else:
            text = scripted_reply(prompt, answered_before)
        completion = self._completion(prompt, model, text)
        if fault in _BAD_USAGE:
            completion["usage"] = _BAD_USAGE[fault]
        return _Response(200, completion)

    def _retry_headers(self, fault: str) -> dict[str, str]:
        """The retry headers of a 429 fault: both, or only `retry-after` in one form."""
        seconds = {"retry-after": f"{self.retry_after:g}"}
        if fault == "429_seconds":
            return seconds
        if fault == "429_date":
            return {"retry-after": formatdate(time.time() + self.retry_after, usegmt=True)}
        return {**seconds, "retry-after-ms": f"{self.retry_after * 1000:g}"}

    def _completion(self, prompt: str, model: str, text: str) -> dict[str, Any]:
        """A chat.completion object carrying `text` as the assistant's message."""
        with self._lock:
            self._next_id += 1
            number = self._next_id
        prompt_tokens = len(prompt) // 4
        completion_tokens = len(text) // 4 or 1
        return {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


# --- Command line ------------------------------------------------------------------------------

Served = TypeVar("Served", bound=FakeJudge)  # the server a command line serves


def chat_arguments(parser: argparse.ArgumentParser) -> None:
    """The chat server's command-line options (this one's and the fake Batch API's)."""
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="0..1")
    parser.add_argument(
        "--faults",
        default=",".join(ALL_FAULTS),
        help=f"comma-separated kinds (default: {','.join(ALL_FAULTS)}; "
        f"only when named: {','.join(EXTRA_FAULTS)})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow-seconds", type=float, default=5.0)
    parser.add_argument("--retry-after", type=float, default=0.05)


def chat_settings(args: argparse.Namespace) -> dict[str, Any]:
    """`FakeJudge`'s keyword arguments from the options of `chat_arguments`."""
    return {
        "latency": args.latency,
        "fault_rate": args.fault_rate,
        "faults": [kind.strip() for kind in args.faults.split(",") if kind.strip()],
        "seed": args.seed,
        "slow_seconds": args.slow_seconds,
        "retry_after": args.retry_after,
        "port": args.port,
    }


def counters(server: FakeJudge) -> dict[str, Any]:
    """The chat server's counters, as the command line prints them on exit."""
    prompts = server.prompts
    return {
        "requests": server.requests,
        "by_outcome": dict(server.by_outcome),
        "connections": server.connections,
        "max_in_flight": server.max_in_flight,
        "distinct_prompts": len(prompts),
        "most_asked": max(prompts.values(), default=0),
    }


def serve(
    make: Callable[[], Served], name: str, summary: Callable[[Served], dict[str, Any]]
) -> int:
    """Serve until Ctrl-C or SIGTERM; print the base URL first and `summary` on exit.

    The base URL is stdout's first line, alone, so a parent process can read it; the summary
    is printed as one JSON line when the server stops. A bad setting (`make` raises
    ValueError) is one line on stderr and exit code 2.
    """
    try:
        server = make()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        done.set()  # a parent's terminate() ends the server as cleanly as Ctrl-C

    signal.signal(signal.SIGTERM, on_sigterm)
    print(server.start(), flush=True)
    print(f"{name} serving; Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        while not done.wait(0.5):  # a timeout keeps Ctrl-C responsive
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    print(json.dumps(summary(server)), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a scripted judge (see `serve`)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.fake_judge",
        description="Serve a scripted OpenAI-compatible judge on 127.0.0.1 until Ctrl-C.",
    )
    chat_arguments(parser)
    args = parser.parse_args(argv)
    return serve(lambda: FakeJudge(**chat_settings(args)), "fake judge", counters)


if __name__ == "__main__":
    sys.exit(main())
