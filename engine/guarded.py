"""A plug-in's benchmark as lmmreview runs it: the registry wraps each one once, as it
loads, so every call into its code goes through one guard.

What the plug-in's code raises (SystemExit, GeneratorExit, a KeyboardInterrupt the user
did not type) or returns that lmmreview cannot use (a score of 2.0 or NaN, a choice that
is not one of the question's letters, tables whose units count in no column) becomes one
`PluginFailure` naming the plug-in, the method and the reason, before anything is
written; what it prints meanwhile is dropped (`quiet`), and the command line watches
each call besides (`hooks.watch_calls`).
"""

from __future__ import annotations

import io
import math
import re
import signal
import sys
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import fields
from types import FrameType
from typing import Any, TypeVar

from lmmreview.engine import hooks
from lmmreview.engine.benchmark import (
    UNIT_RULES,
    Benchmark,
    ExportFormat,
    Importer,
    JudgeItem,
    JudgeWork,
    NoVariants,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.types import Sample

T = TypeVar("T")
Check = Callable[[Any], str | None]  # what is wrong with a returned value, or None
_REASON_CHARS = 300  # an error message, cut to one readable line
_TEXT_FIELDS = [f.name for f in fields(Judgment) if f.type == "str"]
_ctrl_c = threading.Event()  # the user pressed Ctrl-C (see notice_interrupts)


class PluginFailure(Exception):
    """A plug-in's code failed while lmmreview ran it."""

    def __init__(self, plugin: str, call: str, reason: str, where: tuple[str, ...] = ()) -> None:
        super().__init__(plugin, call, reason, where)
        self.plugin, self.call, self.reason, self.where = plugin, call, reason, where

    def __str__(self) -> str:
        return f"{named(self.plugin, self.call, self.where)} {self.reason}"

    def within(self, dataset: str) -> PluginFailure:
        """The same failure, naming the dataset it happened in."""
        where = (f"dataset {dataset!r}", *self.where)
        return PluginFailure(self.plugin, self.call, self.reason, where)


class _Sink(io.StringIO):
    """Where a plug-in's prints go while it runs: nowhere (and no file to open per call)."""

    def write(self, text: str) -> int:
        return len(text)


_SINK = _Sink()
_STREAMS = ("stdout", "stderr", "__stdout__", "__stderr__")  # typeshed calls the last two Final


@contextmanager
def quiet() -> Iterator[None]:
    """Drop what is printed meanwhile to sys.stdout and sys.stderr, and to sys.__stdout__
    and sys.__stderr__ (the terminal past a redirect); not what is written to a file
    descriptor itself."""
    saved = [getattr(sys, name) for name in _STREAMS]
    for name in _STREAMS:
        setattr(sys, name, _SINK)
    try:
        yield
    finally:
        for name, stream in zip(_STREAMS, saved, strict=True):
            setattr(sys, name, stream)


@contextmanager
def contained(what: str, *, timed: bool = True) -> Iterator[None]:
    """Around a run of plug-in code described by `what`: its prints dropped (`quiet`),
    within the watch the command line set (`hooks.watch_calls`), if any."""
    with hooks.watches[-1](what, timed) if hooks.watches else nullcontext(), quiet():
        yield


def named(plugin: str, call: str, where: tuple[str, ...] = ()) -> str:
    """A plug-in's call as messages name it: plug-in X: tables() (dataset 'd')."""
    return f"plug-in {plugin}: {call}" + (f" ({', '.join(where)})" if where else "")


def reason(exc: BaseException) -> str:
    """The error's type and message, short; a message that cannot be made is left out."""
    try:
        message = " ".join(str(exc).split())
    except BaseException:  # its __str__ is plug-in code too
        message = ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def notice_interrupts() -> None:
    """Note each Ctrl-C (SIGINT), so the guard can tell the user's Ctrl-C, which stops the
    command as usual, from a KeyboardInterrupt the plug-in raises. Only Python's own
    handler is replaced, in the main thread, by one that notes and then calls it."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        signal.signal(signal.SIGINT, _noted)


def _noted(signum: int, frame: FrameType | None) -> None:
    _ctrl_c.set()
    signal.default_int_handler(signum, frame)


def guard(
    plugin: str,
    call: str,
    run: Callable[[], T],
    check: Check | None = None,
    where: tuple[str, ...] = (),
    allowed: tuple[type[Exception], ...] = (),
) -> T:
    """What `run` returns, if `check` finds nothing wrong with it; else, or whatever it
    raises (but `allowed` errors and the user's Ctrl-C), a PluginFailure."""
    try:
        with contained(named(plugin, call, where)):
            result = run()
    except allowed:
        raise
    except KeyboardInterrupt:
        if _ctrl_c.is_set():
            raise
        raise PluginFailure(plugin, call, "raised KeyboardInterrupt", where) from None
    except BaseException as exc:  # its bug, its exit(), its stray GeneratorExit
        raise PluginFailure(plugin, call, f"raised {reason(exc)}", where) from exc
    problem = check(result) if check is not None else None
    if problem is not None:
        raise PluginFailure(plugin, call, problem, where)
    return result


def plugin_call(
    benchmark: Benchmark,
    call: str,
    run: Callable[[], T],
    check: Check | None = None,
    allowed: tuple[type[Exception], ...] = (),
) -> T:
    """`run`, code a benchmark brings besides its methods (its importer's reader), guarded
    when the benchmark is a plug-in's."""
    if not isinstance(benchmark, GuardedBenchmark):
        return run()
    return guard(benchmark.plugin, call, run, check, allowed=allowed)


class GuardedBenchmark(Benchmark):
    """A plug-in's benchmark: its attributes read once, each method call guarded."""

    def __init__(self, inner: Benchmark, plugin: str, importers: dict[str, Importer]) -> None:
        self.inner, self.plugin, self._importers = inner, plugin, dict(importers)
        self.name, self.title = inner.name, inner.title
        self.importer, self.tool_importers = inner.importer, inner.tool_importers
        self.axis_prefix, self.by_profile = inner.axis_prefix, inner.by_profile
        if not (isinstance(self.axis_prefix, str) and isinstance(self.by_profile, bool)):
            raise TypeError("axis_prefix must be text and by_profile True or False")
        self.official_rules = inner.official_rules
        if not isinstance(self.official_rules, bool):
            raise TypeError("official_rules must be True or False")
        self.group_by = inner.group_by
        if self.group_by is not None and not (
            isinstance(self.group_by, tuple)
            and len(self.group_by) == 2
            and all(isinstance(name, str) and name.isidentifier() for name in self.group_by)
        ):
            raise TypeError("group_by must be None or two extra fields' names")
        self.rotations = inner.rotations
        if not isinstance(self.rotations, bool) or (self.rotations and self.group_by is None):
            raise TypeError("rotations must be True or False, and True only with group_by")
        self.exports = inner.exports
        if not (isinstance(self.exports, tuple) and all(_is_export(spec) for spec in self.exports)):
            raise TypeError("exports must be a tuple of ExportFormats")

    def run(self, call: str, run: Callable[[], T], check: Check, *where: str) -> T:
        """`run`, a call into the plug-in named `call`, guarded (see `guard`)."""
        return guard(self.plugin, f"{self.name}.{call}", run, check, where)

    def importers(self) -> dict[str, Importer]:
        return dict(self._importers)  # checked as it loaded (engine.registry)

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        keys = [s.key for s in samples]
        return self.run(
            "tables()",
            lambda: self.inner.tables(dataset, samples, counts),
            lambda found: _tables_problem(found, keys),
            f"dataset {dataset!r}",
        )

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        run = lambda: self.inner.offline(sample, answer)  # noqa: E731
        return self.run("offline()", run, _judgment_or_none(sample.options), _of(sample))

    def rescored(self, sample: Sample, reply: str) -> float | None:
        run = lambda: self.inner.rescored(sample, reply)  # noqa: E731
        return self.run("rescored()", run, _score_problem, _of(sample))

    def draws_at_random(self, sample: Sample, answer: str) -> bool:
        run = lambda: self.inner.draws_at_random(sample, answer)  # noqa: E731
        return self.run("draws_at_random()", run, _instance(bool), _of(sample))

    def offline_applies(self, sample: Sample, answer: str) -> bool:
        run = lambda: self.inner.offline_applies(sample, answer)  # noqa: E731
        return self.run("offline_applies()", run, _instance(bool), _of(sample))

    def offline_lacks(self, sample: Sample) -> str | None:
        run = lambda: self.inner.offline_lacks(sample)  # noqa: E731
        return self.run("offline_lacks()", run, _instance(str, None), _of(sample))

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        run = lambda: self.inner.judge_work(sample)  # noqa: E731
        work = self.run("judge_work()", run, _instance(JudgeWork, None), _of(sample))
        return None if work is None else GuardedWork(work, self.plugin, f"{self.name}.judge_work()")

    def prompt_variant(self, name: str) -> JudgeWork:
        call = f"{self.name}.prompt_variant()"
        run = lambda: self.inner.prompt_variant(name)  # noqa: E731
        try:
            work = guard(self.plugin, call, run, _instance(JudgeWork), allowed=(ValueError,))
        except ValueError as exc:  # its own word on the name: kept, short, and its own
            kind = NoVariants if isinstance(exc, NoVariants) else ValueError
            raise kind(f"plug-in {self.plugin}: {reason(exc).partition(': ')[2]}") from None
        return GuardedWork(work, self.plugin, call)

    def chain(self, sample: Sample) -> tuple[Hashable, int] | None:
        return self.run("chain()", lambda: self.inner.chain(sample), _chain_problem, _of(sample))

    def filter_axes(self, sample: Sample) -> dict[str, list[str]]:
        run = lambda: self.inner.filter_axes(sample)  # noqa: E731
        return self.run("filter_axes()", run, _axes_problem, _of(sample))

    def facts(self, sample: Sample) -> list[str]:
        return self.run("facts()", lambda: self.inner.facts(sample), _texts_problem, _of(sample))

    def question_text(self, sample: Sample) -> str:
        run = lambda: self.inner.question_text(sample)  # noqa: E731
        return self.run("question_text()", run, _instance(str), _of(sample))


class GuardedWork(JudgeWork):
    """A plug-in's judge work: each call guarded, each judgment it makes checked."""

    def __init__(self, inner: JudgeWork, plugin: str, origin: str) -> None:
        self.inner, self.plugin, self.origin = inner, plugin, origin
        self.every_run = self._run("every_run", lambda: inner.every_run, _instance(bool), None)

    def _run(self, call: str, run: Callable[[], T], check: Check, item: JudgeItem | None) -> T:
        where = () if item is None else (f"answer {item.answer_id}",)
        return guard(self.plugin, f"{self.origin}.{call}", run, check, where)

    def prompt_version(self) -> str:
        return self._run("prompt_version()", self.inner.prompt_version, _instance(str), None)

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        return self._run("ladder()", lambda: self.inner.ladder(item, model), _ladder_problem, item)

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        run = lambda: self.inner.interpret(item, call, reply)  # noqa: E731
        return self._run("interpret()", run, _judgment_or_none(item.options), item)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        run = lambda: self.inner.exhausted(item, model, last_reply)  # noqa: E731
        return self._run("exhausted()", run, _judgment(item.options), item)

    def without_llm(self, item: JudgeItem) -> Judgment | None:
        run = lambda: self.inner.without_llm(item)  # noqa: E731
        return self._run("without_llm()", run, _judgment_or_none(item.options), item)

    def ends_chain(self, score: float | None) -> bool:
        run = lambda: self.inner.ends_chain(score)  # noqa: E731
        return self._run("ends_chain()", run, _instance(bool), None)


def unguarded(benchmark: Benchmark) -> Benchmark:
    """The benchmark itself, a plug-in's behind its guard."""
    return benchmark.inner if isinstance(benchmark, GuardedBenchmark) else benchmark


def kind_of(work: JudgeWork) -> type[JudgeWork]:
    """The class of a judge work, a plug-in's behind its guard: a prompt variant replaces
    work of its own kind (db.judging)."""
    return type(work.inner) if isinstance(work, GuardedWork) else type(work)


_FORMAT_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def _is_export(spec: object) -> bool:
    """An ExportFormat with the types `lmmreview export` reads (the dataclass checks none),
    named as a user types it: lower-case letters, digits and hyphens."""
    return (
        isinstance(spec, ExportFormat)
        and all(isinstance(value, str) and value for value in (spec.name, spec.help, spec.writer))
        and isinstance(spec.one_file_allowed, bool)
        and _FORMAT_NAME.fullmatch(spec.name) is not None
    )


def _of(sample: Sample) -> str:
    return f"sample {sample.key!r}"


def judgment_problem(found: object, options: dict[str, str]) -> str | None:
    """What makes a returned judgment one lmmreview cannot store, or None: a score is a
    finite number from 0 to 1 (or None), a choice one of the question's letters."""
    if not isinstance(found, Judgment):
        return f"returned {type(found).__name__}, not a Judgment"
    wrong_score = _score_problem(found.score)
    if wrong_score:
        return wrong_score
    if found.choice is not None and found.choice not in options:
        letters = ", ".join(options) or "none: the question has no options"
        return f"returned the choice {found.choice!r}; the question's letters are {letters}"
    if isinstance(found.run, bool) or not isinstance(found.run, int) or found.run < 0:
        return f"returned the run {found.run!r}; a run is a number from 0"
    if not isinstance(found.status, Status):
        return f"returned the status {found.status!r}; not a Status"
    wrong = [name for name in _TEXT_FIELDS if not isinstance(getattr(found, name), str)]
    return f"returned a judgment whose {wrong[0]} is not text" if wrong else None


def _score_problem(score: object) -> str | None:
    """None, or a finite number from 0 to 1."""
    if score is not None and (
        isinstance(score, bool)
        or not isinstance(score, int | float)
        or not (math.isfinite(score) and 0 <= score <= 1)
    ):
        return f"returned the score {score!r}; a score is a number from 0 to 1"
    return None


def _judgment(options: dict[str, str]) -> Check:
    return lambda found: judgment_problem(found, options)


def _judgment_or_none(options: dict[str, str]) -> Check:
    return lambda found: None if found is None else judgment_problem(found, options)


def _instance(*kinds: type | None) -> Check:
    """A check that the value is one of `kinds` (None for None)."""
    allowed = tuple(type(None) if kind is None else kind for kind in kinds)
    names = " or ".join("None" if kind is None else kind.__name__ for kind in kinds)
    return lambda found: (
        None if isinstance(found, allowed) else f"returned {type(found).__name__}, not {names}"
    )


def _texts_problem(found: object) -> str | None:
    if isinstance(found, list) and all(isinstance(text, str) for text in found):
        return None
    return "did not return a list of text"


def _axes_problem(found: object) -> str | None:
    if isinstance(found, dict) and all(
        isinstance(name, str) and _texts_problem(values) is None for name, values in found.items()
    ):
        return None
    return "did not return a dict of axis names to lists of text"


def _chain_problem(found: object) -> str | None:
    if found is None:
        return None
    if isinstance(found, tuple) and len(found) == 2 and isinstance(found[1], int):
        try:
            hash(found[0])
        except Exception:  # a tuple holding a list: the problem said below
            return "did not return None or (a hashable chain key, a place)"
        return None
    return "did not return None or (a hashable chain key, a place)"


def _ladder_problem(found: object) -> str | None:
    if isinstance(found, list) and found and all(isinstance(call, Call) for call in found):
        return None
    return "did not return a list of Calls"


def _tables_problem(found: object, keys: list[str]) -> str | None:
    """What makes returned tables unusable: not (specs, units), a sample with no units, or
    a unit that counts in a column no table has (its answers would count nowhere), or of
    a rule there is none of."""
    if not (isinstance(found, tuple) and len(found) == 2):
        return f"returned {type(found).__name__}, not (tables, units)"
    specs, units = found
    if not (isinstance(specs, list) and all(isinstance(spec, TableSpec) for spec in specs)):
        return "did not return a list of TableSpecs first"
    if not isinstance(units, dict):
        return "did not return a dict of sample keys to units second"
    cells = {(spec.name, column.key) for spec in specs for column in spec.columns}
    for key in keys:
        listed = units.get(key)
        if not (isinstance(listed, list) and all(isinstance(unit, Unit) for unit in listed)):
            return f"did not return a list of units for sample {key!r}"
        for unit in listed:
            if unit.rule not in UNIT_RULES:
                return f"gives sample {key!r} a unit of rule {unit.rule!r}, not one of {UNIT_RULES}"
            lost = [cell for cell in unit.cells if cell not in cells]
            if lost:
                table, column = lost[0]
                return (
                    f"counts sample {key!r} in column {column!r} of table {table!r}, "
                    "which its tables lack"
                )
    return None
