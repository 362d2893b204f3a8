"""One chat-completions call to any OpenAI-compatible server, and what its failures mean.

The `openai` package does the HTTP; its own retries are off, because the judge runner
decides when to retry (429 honours retry-after; timeouts, dropped connections and 5xx
back off with jitter; everything counts against a per-item cap).
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from lmmreview.engine.secrets import redact

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True, slots=True)
class Call:
    """What one request asks: the messages and the sampling settings."""

    model: str
    messages: tuple[tuple[str, str], ...]  # (role, content)
    temperature: float
    max_tokens: int


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None


def chat_body(call: Call) -> dict[str, object]:
    """The chat-completions request body of a call (live, or one line of a batch)."""
    return {
        "model": call.model,
        "messages": [{"role": role, "content": text} for role, text in call.messages],
        "temperature": call.temperature,
        "max_tokens": call.max_tokens,
    }


class CallFailed(Exception):
    """A request that brought no reply. `retryable` failures may succeed later."""

    def __init__(self, reason: str, *, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        self.retry_after = retry_after


class JudgeUnavailable(Exception):
    """The server refuses every call (bad key, unknown model): stop the whole run."""


class ChatClient(Protocol):
    async def complete(self, call: Call) -> Reply: ...

    async def close(self) -> None: ...


def _retry_after(headers: object) -> float | None:
    """Seconds to wait, from `retry-after-ms`, or `retry-after` in seconds or as an
    HTTP-date (RFC 9110), whichever the server gives; None without a usable one."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    milliseconds = _seconds(get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; an obsolete form may say "-0000"
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _seconds(value: str | None) -> float | None:
    """A header's non-negative number, or None when it is absent or not one."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


# SQLite stores integers in 64 bits; a count beyond that is no count.
_MAX_TOKENS = 2**63 - 1


def _tokens(usage: object, name: str) -> int | None:
    """A token count from a reply's `usage`, or None (unknown) when it is malformed."""
    count = usage.get(name) if isinstance(usage, dict) else None
    if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= _MAX_TOKENS:
        return count
    return None


class OpenAIChat:
    """ChatClient over `openai.AsyncOpenAI` (OpenAI, Azure-style gateways, vLLM, Ollama)."""

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float) -> None:
        import openai  # here: it takes a second to import, and only a judge run needs it

        self._openai = openai
        self._secrets = (api_key,)
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )

    async def complete(self, call: Call) -> Reply:
        openai = self._openai
        start = time.perf_counter()
        try:
            # The plain POST: the typed `chat.completions.create` spends more time turning
            # its arguments and reply into models than a local server takes to answer.
            response = await self._client.post(
                "/chat/completions",
                body=chat_body(call),
                cast_to=dict,
            )
        except json.JSONDecodeError:  # a 200 whose body is not JSON (a proxy's error page)
            raise CallFailed("a reply that is not JSON", retryable=True) from None
        except openai.APITimeoutError:
            raise CallFailed("timed out", retryable=True) from None
        except openai.APIConnectionError as exc:
            reason = self._clean(f"connection failed ({exc.__cause__ or exc})")
            raise CallFailed(reason, retryable=True) from None
        except (
            openai.AuthenticationError,
            openai.PermissionDeniedError,
            openai.NotFoundError,
        ) as exc:
            raise JudgeUnavailable(
                f"the judge server refused: {exc.status_code} {self._message(exc)}"
            ) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            retryable = status in (408, 409, 429) or status >= 500
            after = _retry_after(exc.response.headers) if status == 429 else None
            raise CallFailed(
                f"HTTP {status} {self._message(exc)}", retryable=retryable, retry_after=after
            ) from None
        latency = (time.perf_counter() - start) * 1000
        return completion_reply(response, self._secrets, latency)

    async def close(self) -> None:
        await self._client.close()

    def _clean(self, text: str) -> str:
        """`text` without the API key: a server may echo the Authorization header back,
        and what this returns is stored and printed."""
        return redact(text, self._secrets)

    def _message(self, exc: openai.APIStatusError) -> str:
        """The server's error message, without the key, cut to 200 characters."""
        return error_message(exc.body, self._secrets) or redact(exc.message, self._secrets)[:200]


def completion_reply(
    response: object, secrets: tuple[str, ...], latency: float | None = None
) -> Reply:
    """The reply a chat.completion body carries, its text without the key (a server may
    echo the Authorization header back, and the text is stored and printed); CallFailed
    when the body has no choices[0].message. The live judge and the Batch API read alike."""
    try:
        text = response["choices"][0]["message"]["content"] or ""  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        raise CallFailed("a reply without choices[0].message", retryable=True) from None
    usage = response.get("usage") if isinstance(response, dict) else None
    return Reply(
        redact(str(text), secrets),
        _tokens(usage, "prompt_tokens"),
        _tokens(usage, "completion_tokens"),
        latency,
    )


def error_message(body: object, secrets: tuple[str, ...]) -> str:
    """The message of an API error body (``{"error": {"message": ...}}``), without the key,
    cut to 200 characters (after the redaction, so no part of a key survives the cut); ""
    when the body holds none."""
    body = body if isinstance(body, dict) else {}
    error = body.get("error", body)
    message = error.get("message") if isinstance(error, dict) else None
    return redact(str(message), secrets)[:200] if message else ""
