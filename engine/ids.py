"""Finding sample ids by any part of one, for the review screen's jump (`:`)."""

from __future__ import annotations

from collections.abc import Sequence


def ids_holding(ids: Sequence[str], part: str) -> list[str]:
    """The ids `part` names, in their order: itself alone when it is one (an exact match
    wins over partial ones: `v1_1` is not also `v1_10`), else every id holding it."""
    if part in ids:
        return [part]
    return [found for found in ids if part in found]
