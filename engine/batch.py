"""Judge calls through a Batch API (OpenAI's, or a compatible provider's): the request
lines, the split into files within the provider's limits, the result lines read back as
replies or failures, and a thin client over the `openai` package's files and batches.

A batch line's body is the live judge's request body (`chat_body`) and a result's reply is
read as the live judge reads one (`completion_reply`), so both judge alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeGuard

from lmmreview.engine.defaults import MAX_BYTES, MAX_REQUESTS
from lmmreview.engine.llm import Call, CallFailed, Reply, chat_body, completion_reply, error_message
from lmmreview.engine.secrets import redact

ENDPOINT: Final = "/v1/chat/completions"
COMPLETION_WINDOW: Final = "24h"  # the only window the API offers
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
STATUSES = TERMINAL | {"validating", "in_progress", "finalizing", "cancelling"}
TAG_KEY = "lmmreview_tag"  # the metadata key that names the batch's row in the database
# What a batch or file id may be: it goes into URLs and onto the terminal.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")
# SQLite's INTEGER is 64-bit signed.
_MAX_COUNT = 2**63 - 1

Outcome = Reply | str  # a request's reply, or why it brought none


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one batch may hold: requests, and bytes of its input file."""

    requests: int = MAX_REQUESTS
    bytes: int = MAX_BYTES

    def fits(self, requests: int, size: int) -> bool:
        """Whether a file of `requests` lines and `size` bytes stays within the limits."""
        return requests <= self.requests and size <= self.bytes


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """What the provider says about a batch."""

    id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: str = ""  # why a batch failed as a whole

    @property
    def done(self) -> bool:
        """Whether the batch has ended (its files are final)."""
        return self.status in TERMINAL


def custom_id(batch: int, answer_id: int, run: int, step: int) -> str:
    """The id of one request: the answer, the judge run and the call on its ladder, and the
    database's batch row (so an id sent twice means the same request was paid twice)."""
    return f"answer-{answer_id}-run-{run}-call-{step + 1}-batch-{batch}"


def request_line(request_id: str, call: Call) -> bytes:
    """One line of a batch input file: a chat-completions request with the live body."""
    line = {"custom_id": request_id, "method": "POST", "url": ENDPOINT, "body": chat_body(call)}
    return json.dumps(line, ensure_ascii=False).encode() + b"\n"


@dataclass(slots=True)
class Results:
    """What a batch's files say: per custom_id, its first reply, else its first failure (a
    request with a reply is done, whatever else a line says about it); `ignored` keeps,
    per custom_id, what its other lines said."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    ignored: dict[str, list[str]] = field(default_factory=dict)
    unreadable: int = 0  # lines that are no JSON object with a custom_id

    def add(self, request_id: str, outcome: Outcome) -> None:
        kept = self.outcomes.get(request_id)
        if kept is None:
            self.outcomes[request_id] = outcome
            return
        if isinstance(outcome, Reply) and not isinstance(kept, Reply):
            self.outcomes[request_id], outcome = outcome, kept
        said = "another reply" if isinstance(outcome, Reply) else outcome
        self.ignored.setdefault(request_id, []).append(said)


def read_results(texts: Iterable[str], secrets: tuple[str, ...]) -> Results:
    """The outcomes of every readable line of a batch's output and error files, in that
    order (a line that is not a JSON object with a custom_id names no request: counted)."""
    results = Results()
    for text in texts:
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                line = None
            if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
                results.add(line["custom_id"], line_outcome(line, secrets))
            elif raw.strip():
                results.unreadable += 1
    return results


def line_outcome(line: dict[str, object], secrets: tuple[str, ...]) -> Outcome:
    """The reply of a result line, or why there is none: the line's error, a status other
    than 200, or a body without a message (read as the live judge reads one)."""
    error = line.get("error")
    if isinstance(error, dict) and error:
        code = redact(str(error.get("code") or "error"), secrets)[:80]
        message = redact(str(error.get("message") or ""), secrets)[:200]
        return f"{code}: {message}".rstrip(": ")
    response = line.get("response")
    if not isinstance(response, dict):
        return "a result line without a response"
    status, body = response.get("status_code"), response.get("body")
    if status != 200:
        return f"HTTP {status} {error_message(body, secrets)}".rstrip()
    try:
        return completion_reply(body, secrets)
    except CallFailed as exc:
        return exc.reason


class BatchFailed(Exception):
    """The Batch API refused or failed a call (the reason holds no key)."""


class BatchMalformed(BatchFailed):
    """The provider answered with something that is not what the Batch API returns."""


def batch_info(batch: object, secrets: tuple[str, ...]) -> BatchInfo:
    """What a batch object from the provider says, each field checked (the `openai`
    client builds its objects without validating them): a missing or mistyped id,
    status, file id or count raises BatchMalformed naming the field."""
    counts = getattr(batch, "request_counts", None)
    if counts is not None and not hasattr(counts, "completed"):
        raise _malformed("request_counts", counts, secrets)
    return BatchInfo(
        _id(batch, "id", secrets),
        _status(batch, secrets),
        _file_id(batch, "output_file_id", secrets),
        _file_id(batch, "error_file_id", secrets),
        _count(counts, "completed", secrets),
        _count(counts, "failed", secrets),
        redact(_errors(getattr(batch, "errors", None)), secrets)[:300],
    )


def _parsed(raw: Any, secrets: tuple[str, ...]) -> Any:
    """A raw reply of the client, parsed, once no request count of its batch (or of each
    batch of a list's page) is found to be `true`: the client would read it as 1."""
    try:
        data = json.loads(raw.text)
    except ValueError:
        data = None  # not JSON: the parse says so
    listed = data.get("data") if isinstance(data, dict) else None
    for batch in listed if isinstance(listed, list) else [data]:
        counts = batch.get("request_counts") if isinstance(batch, dict) else None
        for name, value in counts.items() if isinstance(counts, dict) else ():
            if isinstance(value, bool):
                raise _malformed(f"request_counts.{name}", value, secrets)
    return raw.parse()


def _malformed(name: str, value: object, secrets: tuple[str, ...]) -> BatchMalformed:
    shown = redact(repr(value), secrets)[:60]
    return BatchMalformed(f"the provider's reply is malformed: {name} is {shown}")


def is_token(value: object) -> bool:
    """Whether a provider's id is a short token (letters, digits, `_`, `-`)."""
    return isinstance(value, str) and _TOKEN.fullmatch(value) is not None


def _id(reply: object, name: str, secrets: tuple[str, ...]) -> str:
    value = getattr(reply, name, None)
    if is_token(value):
        return str(value)
    raise _malformed(name, value, secrets)


def _file_id(batch: object, name: str, secrets: tuple[str, ...]) -> str | None:
    """A result file's id; None while the batch has none."""
    return None if getattr(batch, name, None) is None else _id(batch, name, secrets)


def _status(batch: object, secrets: tuple[str, ...]) -> str:
    value = getattr(batch, "status", None)
    if value in STATUSES:
        return str(value)
    raise _malformed("status", value, secrets)


def _count(counts: object, name: str, secrets: tuple[str, ...]) -> int:
    """A request count; none given (the API may leave them out) is 0."""
    value = getattr(counts, name, None)
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT:
        return value
    raise _malformed(f"request_counts.{name}", value, secrets)


def _errors(errors: object) -> str:
    """Why a batch failed as a whole, as text, whatever shape the provider gave it."""
    data = getattr(errors, "data", None)
    entries = data if isinstance(data, list) else []
    return "; ".join(
        f"{getattr(e, 'code', None) or 'error'}: {getattr(e, 'message', None) or ''}"
        for e in entries
    )


class BatchClient(Protocol):
    def upload(self, data: bytes) -> str: ...

    def create(self, file_id: str, tag: str) -> BatchInfo: ...

    def retrieve(self, batch_id: str) -> BatchInfo: ...

    def find(self, tag: str, since: float) -> BatchInfo | None: ...

    def content(self, file_id: str) -> str: ...

    def delete_file(self, file_id: str) -> None: ...

    def close(self) -> None: ...


class OpenAIBatches:
    """BatchClient over `openai.OpenAI`. Its own retries are off: a retried create could
    start a second batch; a lost one is found again by its tag (`find`)."""

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float) -> None:
        import openai  # here: it takes a second to import, and only a judge run needs it

        self._openai = openai
        self.secrets = (api_key,)
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )

    def upload(self, data: bytes) -> str:
        with self._errors("uploading a batch file"):
            uploaded = self._client.files.create(
                file=("lmmreview-judge.jsonl", data, "application/jsonl"), purpose="batch"
            )
            return _id(uploaded, "id", self.secrets)

    def create(self, file_id: str, tag: str) -> BatchInfo:
        with self._errors("creating a batch"):
            raw = self._client.batches.with_raw_response.create(
                input_file_id=file_id,
                endpoint=ENDPOINT,
                completion_window=COMPLETION_WINDOW,
                metadata={TAG_KEY: tag},
            )
            return batch_info(_parsed(raw, self.secrets), self.secrets)

    def retrieve(self, batch_id: str) -> BatchInfo:
        with self._errors(f"asking about batch {batch_id}"):
            raw = self._client.batches.with_raw_response.retrieve(batch_id)
            return batch_info(_parsed(raw, self.secrets), self.secrets)

    def find(self, tag: str, since: float) -> BatchInfo | None:
        """The batch created with this tag, looking back to `since` (epoch seconds; the
        list is newest first), or None. A listed batch that cannot be read stops the
        search: it might be this one."""
        with self._errors("listing the batches"):
            for batch in _parsed(
                self._client.batches.with_raw_response.list(limit=100), self.secrets
            ):
                metadata = getattr(batch, "metadata", None)
                created_at = getattr(batch, "created_at", None)
                if not isinstance(metadata, dict | None):
                    raise _malformed("metadata", metadata, self.secrets)
                if not _is_time(created_at):
                    raise _malformed("created_at", created_at, self.secrets)
                if (metadata or {}).get(TAG_KEY) == tag:
                    return batch_info(batch, self.secrets)
                if created_at < since:
                    break
        return None

    def content(self, file_id: str) -> str:
        with self._errors(f"downloading file {file_id}"):
            return self._client.files.content(file_id).text

    def delete_file(self, file_id: str) -> None:
        with self._errors(f"deleting file {file_id}"):
            self._client.files.delete(file_id)

    def close(self) -> None:
        self._client.close()

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Turn the client's failures, and replies that cannot be read, into BatchFailed,
        saying what was being done."""
        openai = self._openai
        try:
            yield
        except BatchMalformed as exc:
            raise BatchMalformed(f"{doing}: {exc}") from None
        except openai.APIStatusError as exc:
            message = error_message(exc.body, self.secrets) or redact(exc.message, self.secrets)
            raise BatchFailed(f"{doing}: HTTP {exc.status_code} {message[:200]}") from None
        except openai.APIError as exc:  # no connection, a timeout
            raise BatchFailed(f"{doing}: {redact(str(exc), self.secrets)[:200]}") from None


def _is_time(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
