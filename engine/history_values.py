"""The checks of a history row's values that another file gives (a merge, an errata
file): text, a reviewer's name, a time as lmmreview writes it, a list of texts. Each says
what is wrong with a value (None: nothing), to follow the value's name in an error."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

CLOCK_SKEW = timedelta(days=1)  # another machine's clock may run ahead, not by more


def text_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return "is not text"
    if not _utf8(value):
        return "is not valid UTF-8 text"
    return None


def name_problem(value: object) -> str | None:
    return text_problem(value) or (None if str(value).strip() else "is empty")


def control_problem(value: object) -> str | None:
    """Text that another program would print as it is (a CSV piped to a terminal) holds
    no control character but a tab or a line break: an escape sequence would run there."""
    for char in str(value):
        if (ord(char) < 32 and char not in "\t\n\r") or 127 <= ord(char) < 160:
            return f"holds the control character U+{ord(char):04X}"
    return None


def time_problem(value: object) -> str | None:
    """A time as lmmreview writes it (UTC, milliseconds): the history is ordered by it."""
    problem = text_problem(value)
    if problem is not None:
        return problem
    try:
        stamp = datetime.fromisoformat(str(value))
    except ValueError:
        stamp = None
    written = stamp is not None and stamp.utcoffset() == timedelta(0)
    if stamp is None or not written or stamp.isoformat(timespec="milliseconds") != value:
        return "is not a time as lmmreview writes it (e.g. 2024-05-01T12:00:00.000+00:00)"
    if stamp > datetime.now(UTC) + CLOCK_SKEW:
        return "is in the future: it would outrank every verdict given after it"
    return None


def texts_of(value: object) -> tuple[str, ...] | None:
    """A list of texts, or one written as JSON text, as a tuple; None: it is neither."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    if not isinstance(value, list):
        return None
    texts = tuple(v for v in value if isinstance(v, str) and _utf8(v))
    return texts if len(texts) == len(value) else None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: bytes that were not UTF-8
        return False
    return True
