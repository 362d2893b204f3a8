"""A fake OpenAI Batch API beside the fake chat server, for tests and benchmarks.

`FakeBatchAPI` is a `FakeJudge` (bench/fake_judge.py) that also serves the files and
batches routes over real HTTP on 127.0.0.1, so the `openai` client's ``files`` and
``batches`` calls work against it unchanged:

* files: upload (multipart, purpose "batch"), retrieve, download (``/content``), delete;
* batches: create, retrieve, cancel, list (newest first, one page).

Each line of a batch is answered when the batch is created, in file order, by the chat
server's own scripted judge and fault draw (`FakeJudge._admit` and `_reply`): a live run
and a batch run against the same script get the same replies in the same order. A fault
of kind "429" or "500" becomes a line with that status in the error file, and "drop" an
error file line with no response at all (the Batch API's two forms of a failed request);
"garbage", "empty", "out_of_range" are 200 lines with a reply that does not parse. Results
are delivered `delay` seconds after creation (None: when `release` is called). A batch
may be made to fail validation or expire (`outcomes`, taken one per created batch), the
input files are checked against the limits, and `custom_ids` counts every request by its
custom_id, to prove that none is paid twice. With `create_limit`, batches created after
that many are created but their creation is never answered (the moment to kill a client
that has sent a batch but not recorded it).

Two misbehaving providers, for the client's checks: `mangle` serves every batch object
with some fields replaced or removed (`DROP`), and `repeat` gives each answered request a
second result line ("output": another reply, one that does not parse; "error": an error
line as well; "stray": a line that is no JSON and one of an id never sent instead).

Run it by hand with ``python -m bench.fake_batch --help``: it prints its base URL, for
``lmmreview judge DB --batch --base-url URL``, and its counters when stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import email.parser
import email.policy
import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.fake_judge import (
    GARBAGE_REPLY,
    FakeJudge,
    _error,
    _is_number,
    _Request,
    _Response,
    _user_prompt,
    chat_arguments,
    chat_settings,
    counters,
    serve,
)

__all__ = ["BATCH_OUTCOMES", "DROP", "REPEATS", "FakeBatchAPI", "main"]

BATCH_OUTCOMES = ("completed", "failed", "expired")
REPEATS = ("output", "error", "stray")  # where a request's second result line goes
DROP = object()  # a `mangle` value: the field is left out
_ERROR_FILE_FAULTS = frozenset({"drop"})  # faults whose line has no response at all
_CHAT = "/v1/chat/completions"


@dataclass(slots=True)
class _Batch:
    """One batch: its API object, its scripted result lines, and when they are due."""

    info: dict[str, Any]
    output: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    due: float | None = None  # monotonic time the results are delivered; None: on release
    final: str = "completed"  # the status it ends in
    counts: dict[str, int] = field(default_factory=dict)  # its request counts, once it ends


class FakeBatchAPI(FakeJudge):
    """The fake chat server with a Batch API; see the module's docstring."""

    def __init__(
        self,
        *,
        delay: float | None = 0.0,
        outcomes: Sequence[str] = (),
        max_requests: int = 50_000,
        max_bytes: int = 200 * 1000 * 1000,
        create_limit: int | None = None,
        mangle: Mapping[str, Any] | None = None,
        repeat: str | None = None,
        **chat: Any,
    ) -> None:
        """`delay`: seconds from creation to results (None: until `release`). `outcomes`:
        how the first batches end ("completed", "failed" validation, "expired" after half
        their requests), one per batch created; later ones complete. `max_requests`,
        `max_bytes`: the per-file limits (a file above them fails validation).
        `create_limit`: batches created after this many get no answer to their creation.
        `mangle`, `repeat`: see the module's docstring (both may be changed while it runs).
        The other options are the chat server's (faults, seed, latency...)."""
        unknown = [o for o in outcomes if o not in BATCH_OUTCOMES]
        if unknown:
            raise ValueError(f"outcomes must be among {BATCH_OUTCOMES}, not {unknown}")
        if repeat not in (None, *REPEATS):
            raise ValueError(f"repeat must be one of {REPEATS}, not {repeat!r}")
        super().__init__(**chat)
        self.delay = delay
        self.outcomes = list(outcomes)
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.create_limit = create_limit
        self.mangle = dict(mangle or {})
        self.repeat = repeat
        self._files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self._batches: dict[str, _Batch] = {}
        self._custom_ids: Counter[str] = Counter()
        self._numbers = itertools.count(1)

    # --- counters and control ---

    @property
    def custom_ids(self) -> Counter[str]:
        """How often each custom_id was sent in a created batch (a snapshot)."""
        with self._lock:
            return Counter(self._custom_ids)

    @property
    def batch_count(self) -> int:
        """Batches created (those whose creation was held included)."""
        with self._lock:
            return len(self._batches)

    @property
    def files(self) -> int:
        """Files stored now (uploads and result files)."""
        with self._lock:
            return len(self._files)

    def release(self) -> None:
        """Deliver the results of every batch waiting for it (`delay` None)."""
        with self._lock:
            for batch in self._batches.values():
                if batch.due is None:
                    batch.due = time.monotonic()

    # --- routes ---

    async def _respond(self, request: _Request) -> _Response | None:
        path = request.path.removeprefix("/v1")
        parts = [p for p in path.split("/") if p]
        method = request.method
        if parts[:1] == ["files"]:
            return self._files_route(method, parts[1:], request)
        if parts[:1] == ["batches"]:
            return await self._batches_route(method, parts[1:], request)
        return await super()._respond(request)

    def _files_route(self, method: str, rest: list[str], request: _Request) -> _Response:
        if method == "POST" and not rest:
            return self._upload(request)
        with self._lock:
            stored = self._files.get(rest[0]) if rest else None
        if stored is None:
            return _error(404, "No such file (fake batch API).", "invalid_request_error")
        info, data = stored
        if method == "GET" and rest[1:] == ["content"]:
            return _Response(200, data.decode(), {"content-type": "application/octet-stream"})
        if method == "GET" and len(rest) == 1:
            return _Response(200, info)
        if method == "DELETE" and len(rest) == 1:
            with self._lock:
                self._files.pop(rest[0], None)
            return _Response(200, {"id": rest[0], "object": "file", "deleted": True})
        return _error(404, f"no route for {method} files", "invalid_request_error")

    async def _batches_route(
        self, method: str, rest: list[str], request: _Request
    ) -> _Response | None:
        if method == "POST" and not rest:
            return await self._create(request)
        if method == "GET" and not rest:
            with self._lock:
                data = [self._current(b) for b in reversed(self._batches.values())]
            return _Response(200, {"object": "list", "data": data, "has_more": False})
        with self._lock:
            batch = self._batches.get(rest[0]) if rest else None
            if batch is None:
                return _error(404, "No such batch (fake batch API).", "invalid_request_error")
            if method == "POST" and rest[1:] == ["cancel"]:
                self._cancel(batch)
            elif not (method == "GET" and len(rest) == 1):
                return _error(404, f"no route for {method} batches", "invalid_request_error")
            return _Response(200, self._current(batch))

    # --- files ---

    def _upload(self, request: _Request) -> _Response:
        """Store a multipart upload's "file" part."""
        head = f"Content-Type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.body)
        fields: dict[str, bytes] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        if "file" not in fields:
            return _error(400, "'file' is required", "invalid_request_error")
        purpose = fields.get("purpose", b"batch").decode()
        with self._lock:
            return _Response(200, self._new_file(fields["file"], "upload.jsonl", purpose))

    def _new_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        """Store a file; returns its API object (under the lock)."""
        file_id = f"file-fake-{next(self._numbers)}"
        info: dict[str, Any] = {
            "id": file_id, "object": "file", "bytes": len(data),
            "created_at": int(time.time()), "filename": filename, "purpose": purpose,
            "status": "processed",
        }  # fmt: skip
        self._files[file_id] = (info, data)
        return info

    # --- batches ---

    async def _create(self, request: _Request) -> _Response | None:
        """Create a batch and answer its lines now (in file order); deliver them later."""
        try:
            payload = json.loads(request.body)
            file_id = payload["input_file_id"]
        except (ValueError, KeyError, TypeError):
            return _error(400, "'input_file_id' is required", "invalid_request_error")
        with self._lock:
            stored = self._files.get(file_id)
        if stored is None:
            return _error(404, "No such file (fake batch API).", "invalid_request_error")
        number = next(self._numbers)
        info: dict[str, Any] = {
            "id": f"batch_fake{number}", "object": "batch", "endpoint": payload.get("endpoint"),
            "input_file_id": file_id, "completion_window": payload.get("completion_window"),
            "status": "in_progress", "created_at": int(time.time()),
            "metadata": payload.get("metadata"), "output_file_id": None, "error_file_id": None,
            "errors": None, "request_counts": {"total": 0, "completed": 0, "failed": 0},
        }  # fmt: skip
        with self._lock:
            outcome = self.outcomes.pop(0) if self.outcomes else "completed"
            held = self.create_limit is not None and len(self._batches) >= self.create_limit
        batch = _Batch(info)
        problem = self._invalid(stored[1]) or ("scripted failure" if outcome == "failed" else "")
        if problem:
            info["status"] = "failed"
            info["errors"] = {"object": "list", "data": [{"code": "invalid_request",
                              "message": problem, "param": None, "line": None}]}  # fmt: skip
        else:
            await self._answer(batch, stored[1], request.headers, expire=outcome == "expired")
            batch.final = "expired" if outcome == "expired" else "completed"
            batch.due = None if self.delay is None else time.monotonic() + self.delay
        with self._lock:
            self._batches[info["id"]] = batch
        if held:
            await asyncio.Event().wait()  # never set: the client never learns the batch's id
        with self._lock:
            return _Response(200, self._current(batch))

    def _invalid(self, data: bytes) -> str:
        """Why an input file fails validation ("" when it passes)."""
        lines = data.decode().splitlines()
        if len(lines) > self.max_requests or len(data) > self.max_bytes:
            return f"{len(lines)} requests, {len(data)} bytes: above the limits"
        seen: set[str] = set()
        for number, raw in enumerate(lines, 1):
            try:
                line = json.loads(raw)
                request_id, url = line["custom_id"], line["url"]
            except (ValueError, KeyError, TypeError):
                return f"line {number} is not a request"
            if url != _CHAT or request_id in seen:
                return f"line {number}: another endpoint, or a custom_id seen before"
            seen.add(request_id)
        return ""

    async def _answer(
        self, batch: _Batch, data: bytes, headers: dict[str, str], expire: bool
    ) -> None:
        """Script every line's result, as the chat route would answer it; an expiring
        batch runs only the first half of its lines."""
        lines = [json.loads(raw) for raw in data.decode().splitlines()]
        ran = len(lines) // 2 if expire else len(lines)
        for place, line in enumerate(lines):
            request_id = line["custom_id"]
            with self._lock:
                self._custom_ids[request_id] += 1
            if place >= ran:
                error = {"code": "batch_expired", "message": "This request could not be "
                         "executed before the completion window expired."}  # fmt: skip
                batch.errors.append(_line(request_id, None, error))
                continue
            response = await self._scripted(line.get("body") or {}, headers)
            if response is None:
                error = {"code": "server_error", "message": "The request was dropped."}
                batch.errors.append(_line(request_id, None, error))
            elif response.status != 200:
                batch.errors.append(_line(request_id, response, None))
            else:
                batch.output.append(_line(request_id, response, None))
                self._repeated(batch, request_id, line.get("body") or {})
        batch.info["request_counts"] = {"total": len(lines), "completed": 0, "failed": 0}
        batch.counts = {"total": len(lines), "completed": len(batch.output),
                        "failed": len(batch.errors)}  # fmt: skip

    def _repeated(self, batch: _Batch, request_id: str, body: dict[str, Any]) -> None:
        """The second result line of an answered request, as `repeat` asks."""
        if self.repeat == "output":
            prompt = _user_prompt(body.get("messages") or [])
            again = _Response(200, self._completion(prompt, str(body.get("model")), GARBAGE_REPLY))
            batch.output.append(_line(request_id, again, None))
        elif self.repeat == "error":
            error = {"code": "server_error", "message": "The request failed (fake repeat)."}
            batch.errors.append(_line(request_id, None, error))
        elif self.repeat == "stray":  # a line that is no JSON, and one of an id never sent
            error = {"code": "server_error", "message": "Of no request (fake stray)."}
            batch.output += ["{not json", _line(f"{request_id}-never-sent", None, error)]

    async def _scripted(self, body: dict[str, Any], headers: dict[str, str]) -> _Response | None:
        """One line's response by the chat server's script and fault draw."""
        prompt = _user_prompt(body.get("messages") or [])
        temperature = body.get("temperature")
        admitted = self._admit(prompt, float(temperature) if _is_number(temperature) else 1.0)
        if admitted is None:  # `answer_limit` is the chat route's; a batch line still runs
            admitted = (None, 0)
        fault, answered_before = admitted
        try:
            if fault in _ERROR_FILE_FAULTS:
                return None
            model = str(body.get("model", ""))
            return await self._reply(fault, prompt, model, answered_before, headers)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _cancel(self, batch: _Batch) -> None:
        """Cancel a batch whose results are not out yet (under the lock)."""
        if batch.info["status"] != "in_progress":
            return
        ids = [json.loads(line)["custom_id"] for line in batch.output + batch.errors]
        error = {"code": "batch_cancelled", "message": "The batch was cancelled."}
        batch.output, batch.errors = [], [_line(i, None, error) for i in ids]
        batch.info["status"], batch.due = "cancelled", time.monotonic()
        batch.info["request_counts"] = {"total": len(ids), "completed": 0, "failed": len(ids)}
        self._publish(batch)

    def _current(self, batch: _Batch) -> dict[str, Any]:
        """The batch's API object now: its results published once they are due (under
        the lock)."""
        info = batch.info
        due = batch.due
        if info["status"] == "in_progress" and due is not None and time.monotonic() >= due:
            info["status"] = batch.final
            info["request_counts"] = batch.counts
            self._publish(batch)
        shown = dict(info) | self.mangle
        return {name: value for name, value in shown.items() if value is not DROP}

    def _publish(self, batch: _Batch) -> None:
        """Make the batch's output and error files (under the lock)."""
        for lines, key in ((batch.output, "output_file_id"), (batch.errors, "error_file_id")):
            if lines:
                data = "".join(line + "\n" for line in lines).encode()
                batch.info[key] = self._new_file(data, f"{key}.jsonl", "batch_output")["id"]


def _line(request_id: str, response: _Response | None, error: dict[str, str] | None) -> str:
    """One line of an output or error file."""
    answer = None
    if response is not None:
        answer = {"status_code": response.status, "request_id": f"req_{request_id}",
                  "body": response.payload}  # fmt: skip
    return json.dumps({"id": f"batch_req_{request_id}", "custom_id": request_id,
                       "response": answer, "error": error})  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the fake Batch API (and the chat route) until Ctrl-C; see `serve`."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.fake_batch",
        description="Serve a fake OpenAI Batch API (files, batches, and the scripted chat "
        "judge) on 127.0.0.1 until Ctrl-C. Each batch is answered line by line by the "
        "scripted judge; the fault options act per line.",
    )
    chat_arguments(parser)
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds from a batch's creation to its results"
    )
    parser.add_argument(
        "--outcomes",
        default="",
        help=f"comma-separated, one per batch created, from {','.join(BATCH_OUTCOMES)} "
        "(later batches complete)",
    )
    parser.add_argument(
        "--repeat", choices=REPEATS, help="give each answered request a second result line"
    )
    args = parser.parse_args(argv)

    def make() -> FakeBatchAPI:
        outcomes = [o.strip() for o in args.outcomes.split(",") if o.strip()]
        return FakeBatchAPI(
            delay=args.delay, outcomes=outcomes, repeat=args.repeat, **chat_settings(args)
        )

    return serve(make, "fake Batch API", _summary)


def _summary(server: FakeBatchAPI) -> dict[str, Any]:
    sent = server.custom_ids
    return counters(server) | {
        "batches": server.batch_count,
        "custom_ids": len(sent),
        "paid_twice": sum(count > 1 for count in sent.values()),
    }


if __name__ == "__main__":
    sys.exit(main())
