"""The functions that read and write benchmarks' files, found by the names the benchmarks
give them (an Importer's `reader` and `demo`, an export format's `writer`).

Every installed package declares its own under the entry-point group `lmmreview.files`,
lmmreview included (its pyproject.toml), so a name needs no import path and the engine
names no module of db/. lmmreview's own names win over a plug-in's.
"""

from __future__ import annotations

from typing import Any

from lmmreview.engine.registry import FILES_GROUP, declared


class UndeclaredFunction(LookupError):
    """No installed package declares a file function of this name."""


def declared_file_function(name: str) -> Any:
    """The function declared as `name` under `lmmreview.files` (loaded on first use)."""
    for entry, _ in declared(FILES_GROUP):
        if entry.name == name:
            return entry.load()
    raise UndeclaredFunction(
        f"no installed package declares {name!r} under the entry-point group {FILES_GROUP}"
    )
