"""Each plug-in loaded first in a Python process of its own, before lmmreview loads it in
its own process (engine.registry). A thread and a time bound contain most of what a
plug-in does as it loads, but not a module that ends the process (os._exit) or that
holds the interpreter in a C loop (sum(range(10**10)) never lets the bound's thread run):
those the trial finds, and the registry leaves them out. It costs one Python start and a
second import of the plug-ins (about 0.1 s), only for commands that load plug-ins; a
plug-in that behaves differently the second time is not contained by it.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

# The trial: load each "module:name" given, saying "+ i" before the i-th and "- i" after
# on the file descriptor given first (what a plug-in prints goes nowhere).
_CHILD = """
import importlib, os, sys
report = os.fdopen(int(sys.argv[1]), "w", buffering=1)
for index, reference in enumerate(sys.argv[2:]):
    report.write(f"+ {index}\\n")
    module, _, name = reference.partition(":")
    try:
        getattr(importlib.import_module(module), name)
    except BaseException:  # the registry's own load says why
        pass
    report.write(f"- {index}\\n")
os._exit(0)
"""


def trial(references: list[str], seconds: float) -> dict[int, str]:
    """Why the plug-ins at these indexes of `references` must not be loaded here: those
    that ended the trial's process, or took over `seconds` to load."""
    problems: dict[int, str] = {}
    start = 0
    while start < len(references):
        stuck = _run(references[start:], seconds)
        if stuck is None:
            break
        index, why = stuck
        problems[start + index] = why
        start += index + 1  # try the others again without it
    return problems


def _run(references: list[str], seconds: float) -> tuple[int, str] | None:
    """One trial process: the first plug-in that ended it or took too long, and why."""
    read, write = os.pipe()
    env = os.environ | {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(write), *references],
            pass_fds=(write,),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    finally:
        os.close(write)
    try:
        return _watch(read, seconds)
    finally:  # done, stuck, or the user's Ctrl-C
        child.kill()
        child.wait()
        os.close(read)


def _watch(read: int, seconds: float) -> tuple[int, str] | None:
    """Follow the trial's reports until it ends, or a plug-in takes over `seconds`."""
    loading: int | None = None
    deadline = time.monotonic() + seconds  # to start, then for each plug-in
    pending = b""
    while True:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:  # a plug-in took too long (or Python itself: no trial then)
            stuck = f"took more than {seconds:g} s to load; left out"
            return None if loading is None else (loading, stuck)
        chunk = os.read(read, 4096)
        if not chunk:  # the process ended
            if loading is None:
                return None
            return loading, "ended the process as it loaded; left out"
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            sign, _, index = line.decode().partition(" ")
            loading = int(index) if sign == "+" else None
            deadline = time.monotonic() + seconds
