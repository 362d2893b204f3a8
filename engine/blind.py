"""Blind review, the pure part: models under stable aliases, a seeded order of the list,
and an answer with what would give the judge away taken out.

An alias depends only on the dataset's name and the set of model names given (the
screen gives the file's: a few rows, where a dataset's own take a walk over its answers),
so every session and every reviewer of the same file sees the same one until a model is
imported; the aliases' order follows a hash of the names, not the names. The seeded order
is a hash of each answer's id: the same seed lists the same answers in the same order
whichever of them are read or filtered.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import replace
from string import ascii_uppercase

import numpy as np

from lmmreview.engine.columns import Ints
from lmmreview.engine.review import Entry

_MASK = np.uint64(2**64 - 1)


def letters(index: int) -> str:
    """A, B, ... Z, AA, AB, ...: spreadsheet column letters for index 0, 1, ..."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = ascii_uppercase[rest] + name
    return name


def aliases(dataset: str, models: Iterable[str]) -> dict[str, str]:
    """Each model's alias ("model A", "model B"...), lettered in the order of a hash of the
    dataset's name and the model's, so the letters do not follow the names' order."""

    def rank(name: str) -> bytes:
        return hashlib.sha256(f"{dataset}\0{name}".encode()).digest()

    ranked = sorted(set(models), key=lambda name: (rank(name), name))
    return {name: f"model {letters(i)}" for i, name in enumerate(ranked)}


def shuffled(rows: Ints, ids: Ints, seed: int) -> Ints:
    """`rows` in the order of a seeded hash (SplitMix64's finaliser) of their answers'
    `ids`; ties, which a 64-bit hash makes unlikely, by row."""
    with np.errstate(over="ignore"):  # the hash wraps around by design
        value = ids[rows].astype(np.uint64) ^ np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
        value = (value + np.uint64(0x9E3779B97F4A7C15)) & _MASK
        value = (value ^ (value >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        value = (value ^ (value >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        value ^= value >> np.uint64(31)
    return rows[np.lexsort((rows, value))]


def masked(entry: Entry, alias: str, hidden: bool) -> Entry:
    """`entry` under its model's alias; while `hidden`, also without anything the judge
    said (scores, choice, failures, fallback, offline rules, imported 0.0s) and without the
    verdict in force: another reviewer's is their judgement, and an accept is the judge's
    score."""
    if not hidden:
        return replace(entry, model=alias)
    return replace(
        entry, model=alias, judged=(), judge_choice=None, verdict=None, failed=False,
        fallback=False, offline=False, no_reply=False,
    )  # fmt: skip


def hide_names(text: str, names: dict[str, str]) -> str:
    """`text` with every model name in `names` replaced by its alias, in one pass (an
    alias put in is not searched again), the longest name first where two overlap."""
    found = sorted((name for name in names if name), key=len, reverse=True)
    if not found:
        return text
    pattern = re.compile("|".join(map(re.escape, found)))
    return pattern.sub(lambda match: names[match.group()], text)
