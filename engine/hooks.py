"""What the program running lmmreview tells the plug-in machinery (engine.registry and
engine.guarded): how to report a plug-in that cannot load, how to vet plug-ins before
they load, what to run each call of plug-in code within. A module that imports no rules,
so the command line sets these at start-up without loading the registry (`--help` must
stay fast).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

# Loads the plug-ins ("module:name" each) elsewhere first, within a time bound (seconds),
# and says which must not load here, by index, and why (the command line's is
# tui.cli.plugin_trial: a process of its own).
Trial = Callable[[list[str], float], dict[int, str]]
# Around each run of plug-in code, given what runs ("plug-in X: tables() (dataset 'd')")
# and whether to say when it is slow (its load has a time bound of its own).
Watch = Callable[[str, bool], AbstractContextManager[object]]

listeners: list[Callable[[str], None]] = []  # told each plug-in problem as it is found
trials: list[Trial] = []
watches: list[Watch] = []


def on_problem(report: Callable[[str], None]) -> None:
    """Have `report` called with each plug-in problem when plug-ins load."""
    listeners.append(report)


def try_first(trial: Trial) -> None:
    """Have `trial` vet the plug-ins before they load in this process."""
    trials.append(trial)


def watch_calls(watch: Watch) -> None:
    """Have every run of plug-in code run within `watch` too (the command line's captures
    what it writes to the terminal itself, and says when a call is slow)."""
    watches.append(watch)
