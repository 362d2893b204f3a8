"""The official formats every installed benchmark declares (Benchmark.exports), for
`export --format` and `export --help`. It loads the registry and the benchmarks, as
`import --help` does, and no store: listing the formats reads no file."""

from __future__ import annotations

from lmmreview.engine.benchmark import Benchmark, ExportFormat
from lmmreview.engine.registry import benchmarks, shipped


def official_formats(everyone: bool = True) -> dict[str, tuple[Benchmark, ExportFormat]]:
    """Every installed benchmark's official formats, by --format name, with the benchmark
    that declares each (its datasets, and those of a benchmark derived from it, take the
    format); lmmreview's own only, unless `everyone` (which loads the plug-ins). The
    registry leaves out a plug-in that takes a name already taken."""
    found: dict[str, tuple[Benchmark, ExportFormat]] = {}
    for benchmark in (benchmarks() if everyone else shipped()).values():
        for spec in benchmark.exports:
            found.setdefault(spec.name, (benchmark, spec))
    return found


def official_format(fmt: str) -> tuple[Benchmark, ExportFormat] | None:
    """The official format called `fmt`, if an installed benchmark has one (plug-ins load
    only for a name lmmreview's own formats do not have)."""
    return official_formats(everyone=False).get(fmt) or official_formats().get(fmt)


def format_help_lines() -> list[str]:
    """One line per official format for `export --help`: its name and what it writes."""
    return [f"{name:<18}  {spec.help}" for name, (_, spec) in official_formats().items()]
