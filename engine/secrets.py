"""Keep API keys out of anything stored or printed: a server may echo them back."""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
# Shorter strings are no secret worth hiding, and replacing them would garble the text
# (a local server's key may be "k").
MIN_SECRET_LENGTH = 8
# An echoed Authorization header carries the key after "Bearer", whatever key it is.
_BEARER = re.compile(r"(\bBearer\s+)[^\s\"',;)}\]]+", re.IGNORECASE)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of each secret, and any `Bearer <token>`, replaced
    by "[redacted]"."""
    text = _BEARER.sub(lambda match: match.group(1) + REDACTED, text)
    for secret in sorted(set(secrets), key=len, reverse=True):  # a longer one may hold a shorter
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, REDACTED)
    return text
