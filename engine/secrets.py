"""Keep API keys out of anything stored or printed: a server may echo them back."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import quote

REDACTED = "[redacted]"
# A key of one to three characters (a local server's "k") is no secret, and replacing
# every occurrence of it would garble the text; anything longer ("hunter2") is hidden.
MIN_SECRET_LENGTH = 4
# An echoed Authorization header carries the key after "Bearer", whatever key it is, or
# after "Basic" as base64 of "user:key" (told from English by decoding to a colon pair).
_BEARER = re.compile(r"(\bBearer\s+)[^\s\"',;)}\]]+", re.IGNORECASE)
_BASIC = re.compile(r"(\bBasic\s+)([A-Za-z0-9+/]{4,}={0,2})", re.IGNORECASE)


def _hide_basic(match: re.Match[str]) -> str:
    try:
        credentials = base64.b64decode(match.group(2), validate=True)
    except ValueError:  # not base64: "Basic arithmetic"
        return match.group(0)
    return match.group(1) + REDACTED if b":" in credentials else match.group(0)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of each secret (of four characters or more), and any
    `Bearer <token>` or `Basic <credentials>`, replaced by "[redacted]"."""
    text = _BEARER.sub(lambda match: match.group(1) + REDACTED, text)
    text = _BASIC.sub(_hide_basic, text)
    for secret in sorted(set(secrets), key=len, reverse=True):  # a longer one may hold a shorter
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, REDACTED)
    return text


def redact_url(url: str, secrets: Iterable[str | None]) -> str:
    """`url` with each secret (None: no key) hidden, as written or percent-encoded: what
    every base URL passes through before it is shown or stored."""
    given = [secret for secret in secrets if secret]
    return redact(url, [*given, *(quote(secret, safe="") for secret in given)])


# A command line's secrets: the value of an option or argument named like a key, token,
# secret or password (`api_key=...` in lmms-eval's model_args, `--api-key=X`, `"api_key": X`,
# `--hf-token X`), and values shaped like an OpenAI or Hugging Face key wherever they stand.
_SECRET_NAME = re.compile(
    r"(?:[\w.]*[_-])?(?:api[_-]?key|key|token|secret|password|passwd|auth)", re.IGNORECASE
)
_ASSIGNED = re.compile(  # name=value, name: value
    r"(?:^|(?<=[\s,;&?{]))(?:--?)?(?P<name>[\"']?[A-Za-z][\w.-]*[\"']?)\s*[=:]\s*"
    r"(?P<value>[^\s,;&}]+)"
)
_SPACED = re.compile(r"(?:^|(?<=\s))--?(?P<name>[A-Za-z][\w.-]*)\s+(?P<value>(?![-{[])\S+)")
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,})")
_URL_PASSWORD = re.compile(r"(://[^\s/:@]*:)[^\s/@]+(?=@)")  # https://user:PASSWORD@host


def _hide_value(match: re.Match[str]) -> str:
    if not _SECRET_NAME.fullmatch(match.group("name").strip("\"'")):
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + REDACTED


def redact_command(text: str, secrets: Iterable[str] = ()) -> str:
    """A command line (or its options as text) fit to store: the values of options named
    like secrets, key-shaped values and each of `secrets` (the environment's keys, say)
    replaced by "[redacted]", as `redact` also does."""
    text = _SPACED.sub(_hide_value, _ASSIGNED.sub(_hide_value, text))
    text = _URL_PASSWORD.sub(lambda match: match.group(1) + REDACTED, text)
    return redact(_KEY_SHAPES.sub(REDACTED, text), secrets)
