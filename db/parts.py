"""The functions that read and write benchmarks' files, found by the names the benchmarks
give them (an Importer's `reader` and `demo`, an export format's `writer`).

Every installed package declares its own under the entry-point group `lmmreview.files`,
lmmreview included (its pyproject.toml), so a name needs no import path and the engine
names no module of db/. Each package's names are its own: two plug-ins may use one.
"""

from __future__ import annotations

from typing import Any

from lmmreview.engine.registry import (
    FILES_GROUP,
    OWN,
    StaleInstall,
    declared,
    load_own,
    own_declared,
)


class UndeclaredFunction(LookupError):
    """A package declares no file function of this name."""


def declared_file_function(name: str, origin: str) -> Any:
    """The function the package `origin` (a distribution's name: the benchmark's, see
    registry.origin) declares as `name` under `lmmreview.files`, loaded on first use. A
    name is looked up in its own package only: two plug-ins may use one name."""
    if origin == OWN:
        for entry in own_declared(FILES_GROUP):
            if entry.name == name:
                return load_own(entry)
        raise StaleInstall(f"it declares no {FILES_GROUP} {name}")
    for entry, found in declared(FILES_GROUP):
        if found == origin and entry.name == name:
            return entry.load()
    raise UndeclaredFunction(
        f"{origin} declares no {name!r} under the entry-point group {FILES_GROUP}"
    )
