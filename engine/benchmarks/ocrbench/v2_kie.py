"""OCRBench v2's key information extraction and mapping, restated from `eval.py` and
`TEDS_metric.py` (`convert_str_to_dict`, `generate_combinations`, `compute_f1_score`;
Yuliang-Liu/MultimodalOCR @ 7776efc).

The gold is a dict of keys, each with a list of acceptable values (None among them: the
key may be absent); every combination of one value per key is a gold answer, and the
answer scores the best F1 over them: the mean, over the keys of either, of 1 where
both hold the key with equal values (lowercased, stripped, no spaces or newlines), 0
where they differ or one lacks it; a key absent from the answer whose gold value is None
is not counted. No combination (a key with no value) scores 0.

Reading an answer as a dict (also for VQA with position):
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
from collections.abc import Iterable
from itertools import product
from typing import Any

from lmmreview.engine.benchmarks.ocrbench.v2_rules import spaceless

Fields = dict[str, list[str | None]]  # a gold: each key's acceptable values

_FENCE = re.compile(r"```(?:python|json)?\n(.*?)\n```", re.DOTALL | re.IGNORECASE)
# A key of word characters and spaces and a value up to a newline, comma, quote or brace,
# each maybe quoted; the official pattern's groups. The key is possessive (++): the same
# pairs, without the backtracking that took a minute on a long run of spaces.
_PAIR = re.compile(r"""["']?([\w\s]++)["']?\s*[:=]\s*["']?([^\n,"'{}]+)["']?""")
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


def key_f1(answer: str, golds: Iterable[str]) -> float:
    """The answer read as a dict, its best F1 over the gold's combinations (the gold is
    the item's single one, stored by fields_text)."""
    said = parse_dict(answer)
    fields: Fields = json.loads(next(iter(golds)))
    keys = list(fields)
    combinations = (dict(zip(keys, values, strict=True)) for values in product(*fields.values()))
    return max((f1(said, gold) for gold in combinations), default=0.0)


def f1(said: dict[str, str], gold: dict[str, str | None]) -> float:
    """The mean over the keys of either of 1 where the values agree, else 0; a key the
    answer lacks and the gold gives as None is not counted."""
    scores = []
    for key in said.keys() | gold.keys():
        answer, wanted = said.get(key), gold.get(key)
        if answer is None and wanted is None:
            continue
        same = answer is not None and wanted is not None and spaceless(answer) == spaceless(wanted)
        scores.append(1.0 if same else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def fields_text(fields: Fields) -> str:
    """A gold as stored: JSON."""
    return json.dumps(fields, ensure_ascii=False)


def english_fields(gold: object) -> Fields:
    """An English KIE or mapping gold as generate_combinations reads it: a dict, whose
    text values count by their characters (each a value of its own, as itertools.product
    reads text), or text holding one (JSON, else a Python literal, maybe quoted twice;
    its values that are no list are one value). ValueError says why it is none."""
    if isinstance(gold, dict):
        return _fields({k: list(v) if isinstance(v, str) else v for k, v in gold.items()})
    if not isinstance(gold, str):
        raise ValueError("expected a dict or text holding one")
    written = gold.strip('"')
    try:
        data = json.loads(written)
    except ValueError:
        data = _literal(written)
        if isinstance(data, str):  # a literal of a literal
            data = _literal(data)
    return _wrapped(data)


def chinese_fields(gold: object) -> Fields:
    """A Chinese KIE gold: text holding a Python dict literal (its values that are no list
    are one value). ValueError says why it is none."""
    return _wrapped(_literal(gold) if isinstance(gold, str) else None)


def _wrapped(data: object) -> Fields:
    if not isinstance(data, dict):
        raise ValueError("expected a dict or text holding one")
    return _fields({k: v if isinstance(v, list) else [v] for k, v in data.items()})


def _fields(data: dict[Any, Any]) -> Fields:
    """The dict, checked: text keys, lists of text or None (eval.py fails on others)."""
    for key, values in data.items():
        if not isinstance(key, str):
            raise ValueError(f"key {key!r}: expected text")
        if not isinstance(values, list) or any(
            v is not None and not isinstance(v, str) for v in values
        ):
            raise ValueError(f"{key!r}: {values!r}: expected text or a list of text")
    return data
