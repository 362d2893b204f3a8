"""Python's cyclic garbage collector, paused while a bulk job keeps many objects."""

from __future__ import annotations

import gc
from types import TracebackType


class collector_paused:  # lower case: it reads as the function it was
    """No cyclic collection within the block; afterwards the collector is as it was (a
    block inside another stays paused). Each full pass walks every object kept so far:
    reading or grading a million answers, those passes took a quarter of the time, and
    parsed rows and judgments make no reference cycles for them to find. A class, not a
    generator: parsing pauses it once a line, and a generator's block costs four times as
    much (a second in a million lines)."""

    __slots__ = ("_collecting",)

    def __enter__(self) -> None:
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._collecting:
            gc.enable()
