"""One chat-completions call to any OpenAI-compatible server, and what its failures mean.

The `openai` package does the HTTP; its own retries are off, because the judge runner
decides when to retry (429 honours retry-after; timeouts, dropped connections and 5xx
back off with jitter; everything counts against a per-item cap).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

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
    """Seconds to wait, from `retry-after-ms` or `retry-after` (seconds), if given."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name)
        try:
            return max(0.0, float(value) * scale) if value is not None else None
        except ValueError:
            continue
    return None


class OpenAIChat:
    """ChatClient over `openai.AsyncOpenAI` (OpenAI, Azure-style gateways, vLLM, Ollama)."""

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float) -> None:
        import openai  # here: it takes a second to import, and only a judge run needs it

        self._openai = openai
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
                body={
                    "model": call.model,
                    "messages": [{"role": role, "content": text} for role, text in call.messages],
                    "temperature": call.temperature,
                    "max_tokens": call.max_tokens,
                },
                cast_to=dict,
            )
        except openai.APITimeoutError:
            raise CallFailed("timed out", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise CallFailed(
                f"connection failed ({exc.__cause__ or exc})", retryable=True
            ) from None
        except (
            openai.AuthenticationError,
            openai.PermissionDeniedError,
            openai.NotFoundError,
        ) as exc:
            raise JudgeUnavailable(
                f"the judge server refused: {exc.status_code} {_message(exc)}"
            ) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            retryable = status in (408, 409, 429) or status >= 500
            after = _retry_after(exc.response.headers) if status == 429 else None
            raise CallFailed(
                f"HTTP {status} {_message(exc)}", retryable=retryable, retry_after=after
            ) from None
        latency = (time.perf_counter() - start) * 1000
        try:
            text = response["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise CallFailed("a reply without choices[0].message", retryable=True) from None
        usage = response.get("usage") or {}
        return Reply(str(text), usage.get("prompt_tokens"), usage.get("completion_tokens"), latency)

    async def close(self) -> None:
        await self._client.close()


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    message = error.get("message") if isinstance(error, dict) else None
    return str(message or exc.message)[:200]
