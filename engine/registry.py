"""The benchmarks lmmreview knows: those it ships, and those other installed packages
declare under the entry-point group `lmmreview.benchmarks` (name = "module:object", the
object a `Benchmark` or a subclass of it).

A package that cannot be loaded is left out and reported (`problems`), so one broken
plug-in does not stop lmmreview; a dataset that needs it says so when opened.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points

from lmmreview.engine.benchmark import Benchmark

ENTRY_POINT_GROUP = "lmmreview.benchmarks"

# The benchmarks lmmreview ships: one line each.
BUILTIN = (
    "lmmreview.engine.benchmarks.mmvet:MMVET",
    "lmmreview.engine.benchmarks.mmvet_v2:MMVET_V2",
    "lmmreview.engine.benchmarks.mmbench:MMBENCH",
    "lmmreview.engine.benchmarks.mmmu:MMMU_BENCHMARK",
    "lmmreview.engine.benchmarks.generic:GENERIC",
)


class UnknownBenchmark(LookupError):
    """No installed benchmark has this name."""


@cache
def _found() -> tuple[dict[str, tuple[Benchmark, str]], tuple[str, ...]]:
    """name -> (benchmark, where it comes from), and the plug-ins that could not load."""
    found: dict[str, tuple[Benchmark, str]] = {}
    claimed: dict[str, str] = {}  # benchmark and import command names -> who has them
    problems: list[str] = []
    for reference in BUILTIN:
        benchmark = _as_benchmark(_load(reference))
        found[benchmark.name] = (benchmark, "lmmreview")
        claimed.update(dict.fromkeys(_claims(benchmark), "lmmreview"))
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        origin = entry.dist.name if entry.dist is not None else entry.value
        try:
            benchmark = _as_benchmark(entry.load())
        except (Exception, SystemExit) as exc:  # its bug, or its exit(), must not stop us
            problems.append(f"{entry.name} ({origin}): cannot load {entry.value}: {exc}")
            continue
        taken = sorted(_claims(benchmark) & claimed.keys())
        if taken:
            other = claimed[taken[0]]
            if other != origin:
                problems.append(f"{entry.name} ({origin}): the name {taken[0]!r} is "
                                f"taken by {other}; left out")  # fmt: skip
            continue
        found[benchmark.name] = (benchmark, origin)
        claimed.update(dict.fromkeys(_claims(benchmark), origin))
    return found, tuple(problems)


def _load(reference: str) -> object:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def _claims(benchmark: Benchmark) -> set[str]:
    """The names a benchmark takes: its own, and its import commands' (a plug-in named
    "jsonl" would otherwise replace `lmmreview import jsonl`)."""
    return {benchmark.name, *benchmark.importers()}


def _as_benchmark(value: object) -> Benchmark:
    """The benchmark an entry point names: an instance, or a class made into one."""
    if isinstance(value, type) and issubclass(value, Benchmark):
        value = value()
    if not isinstance(value, Benchmark):
        raise TypeError(f"{value!r} is not a lmmreview Benchmark")
    if not getattr(value, "name", "") or not getattr(value, "title", ""):
        raise TypeError(f"{type(value).__name__} has no name or no title")
    return value


def benchmarks() -> dict[str, Benchmark]:
    """Every installed benchmark, by name: lmmreview's own first."""
    return {name: benchmark for name, (benchmark, _) in _found()[0].items()}


def origin(name: str) -> str:
    """The distribution a benchmark comes from ("lmmreview" for those it ships)."""
    return _found()[0][name][1]


def problems() -> tuple[str, ...]:
    """The plug-ins that were left out, and why."""
    return _found()[1]


def benchmark(name: str) -> Benchmark:
    """The benchmark called `name`; UnknownBenchmark says which are installed."""
    found = _found()[0].get(name)
    if found is None:
        broken = [p for p in problems() if p.startswith(f"{name} (")]
        why = f" ({broken[0]})" if broken else ""
        raise UnknownBenchmark(
            f"no benchmark {name!r} is installed{why}; installed: {', '.join(benchmarks())}"
        )
    return found[0]
