"""OCRBench v2's reading of an answer as a dict of texts, restated from
`convert_str_to_dict` in `OCRBench_v2/eval_scripts/TEDS_metric.py` (Yuliang-Liu/
MultimodalOCR @ 7776efc), used by VQA with position and key information extraction.

The answer's first code fence (```, ```json or ```python, any case, on lines of their
own) or else the whole answer, stripped, is read as JSON, else as a Python literal, else
by `key: value` (or `key = value`) pairs; a JSON value or literal that is no dict, or a
dict with a key that is no text, reads as an empty dict. Keys and values (any JSON or
literal value, as Python's str() writes it: `['a']`, `None`, `1.0`) are stripped.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:python|json)?\n(.*?)\n```", re.DOTALL | re.IGNORECASE)
# A key of word characters and spaces and a value up to a newline, comma, quote or brace,
# each maybe quoted; the official pattern's groups.
_PAIR = re.compile(r"""["']?([\w\s]+)["']?\s*[:=]\s*["']?([^\n,"'{}]+)["']?""")
_UNREAD = object()  # a text that is no Python literal


def parse_dict(text: str) -> dict[str, str]:
    """The answer as the official convert_str_to_dict reads it."""
    fenced = _FENCE.search(text)
    content = fenced.group(1) if fenced else text.strip()
    data: Any
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):  # no JSON (too deep a nesting fails officially)
        data = _literal(content)
        if data is _UNREAD:
            data = {key.strip(): value.strip() for key, value in _PAIR.findall(content)}
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        return {}
    return {key.strip(): str(value).strip() for key, value in data.items()}


def _literal(content: str) -> Any:
    """The content as a Python literal; _UNREAD where it is none. (A literal Python cannot
    build, as a dict keyed by a list, fails the official script; it is read as none.)"""
    try:
        return ast.literal_eval(content)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNREAD
