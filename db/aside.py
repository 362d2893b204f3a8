"""A read beside the caller's: on a connection of its own, in a thread of its own.

SQLite lets go of Python's lock while it runs a query, so one long read (a million
judgments) runs on another core while the caller reads something else.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from lmmreview.db.store import Store, StoreError

T = TypeVar("T")
_LOWER = 10  # the read's niceness: its priority below the caller's threads'


class Aside(Generic[T]):
    """`call(store)` running on a second connection to the file at `path`."""

    def __init__(self, path: Path, call: Callable[[Store], T]) -> None:
        self._found: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(path, call), name="lmmreview-aside")
        self._thread.start()

    def _run(self, path: Path, call: Callable[[Store], T]) -> None:
        if sys.platform == "linux":  # a thread's own priority: Linux's threads are tasks
            # Beside a screen starting on two cores, this read takes what the others leave.
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _LOWER)
        try:
            # Closed before the result is taken: an open reader would keep the caller's
            # writes from being checkpointed into the file.
            with Store.open(path, create=False, migrate=False) as store:
                self._found = call(store)
        except (sqlite3.Error, OSError, StoreError, LookupError):
            pass  # not this way (an in-memory file, a lock, a dataset gone): the caller reads
        except BaseException as exc:  # a bug: raised where the result is taken
            self._error = exc

    def take(self) -> T | None:
        """What the call returned, once it has, handed over (a second take gives None: a
        large result is not held here); None if the file could not be read this way (the
        caller reads on its own connection instead)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        found, self._found = self._found, None
        return found
