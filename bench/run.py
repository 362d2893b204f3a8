"""Run lmmreview's benchmarks, print a table and write the same as JSON.

    python bench/run.py [--quick] [--repeat N] [--only NAME ...] [--out FILE] [--list]

Benchmarks are the `@benchmark` functions of every `bench/benchmarks_*.py` module. A missed
target is reported (MISSED), not failed: the exit code is 0 unless a benchmark raised (1)
or the arguments were wrong (2).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import platform
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from bench.harness import Benchmark, Result

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_OUT = BENCH / "results.json"
MODULE_PREFIX = "benchmarks_"
REPEAT, QUICK_REPEAT = 5, 2


def make_importable() -> None:
    """Put the repository root first on sys.path, so `bench`, `lmmreview` import uninstalled."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def load_benchmark_modules() -> list[str]:
    """Import every bench/benchmarks_*.py module (importing registers its benchmarks)."""
    names = sorted(
        module.name
        for module in pkgutil.iter_modules([str(BENCH)])
        if module.name.startswith(MODULE_PREFIX)
    )
    for name in names:
        importlib.import_module(f"bench.{name}")
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python bench/run.py",
        description="Run lmmreview's benchmarks; print a table and write it as JSON.",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_REPEAT} repetitions instead of {REPEAT}"
    )
    parser.add_argument("--repeat", type=int, metavar="N", help="repetitions per benchmark")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run the benchmarks whose name contains NAME (case-insensitive; repeatable)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="FILE", help="JSON report file"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.repeat is None:
        args.repeat = QUICK_REPEAT if args.quick else REPEAT
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def machine_info() -> dict[str, Any]:
    """What the figures depend on: Python, OS, CPUs, SQLite."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "sqlite": sqlite3.sqlite_version,
    }


def git_info() -> dict[str, Any] | None:
    """The checkout's commit and whether it has uncommitted changes; None outside git."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=True, timeout=10
        )
        return done.stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return None


def number(value: float | None) -> str:
    """A figure with about three significant digits (no exponent for everyday sizes)."""
    if value is None:
        return "-"
    size = abs(value)
    if size >= 100 or (value == int(value) and size < 1e6):
        return f"{value:,.0f}"
    return f"{value:.1f}" if size >= 10 else f"{value:.2f}" if size >= 1 else f"{value:.3g}"


def extra_text(name: str, value: float) -> str:
    """One extra figure for the table; `*_bytes` figures are shown in MiB."""
    if name.endswith("_bytes") and value >= 2**20:
        return f"{name.removesuffix('_bytes') or 'bytes'} {value / 2**20:.1f} MiB"
    return f"{name} {number(value)}"


def target_text(bench: Benchmark) -> str:
    if bench.target is None:
        return "-"
    return ("≤ " if bench.lower_is_better else "≥ ") + number(bench.target)


def render_table(results: Sequence[Result], console: Console) -> None:
    """The results as a rich table: name, median, unit, target, ratio, ok, min, max, extra."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="lmmreview benchmarks", title_justify="left")
    table.add_column("name")
    for column in ("median", "unit", "target", "ratio", "ok", "min", "max"):
        table.add_column(column, justify="left" if column in ("unit", "ok") else "right")
    table.add_column("extra (medians, not targets)")
    styles = {
        "ok": "green",
        "MISSED": "bold red",
        "ERROR": "bold magenta",
        "skipped": "yellow",
        "-": "dim",
    }
    for result in results:
        bench = result.benchmark
        extras = ", ".join(extra_text(n, v) for n, v in result.extra_medians().items())
        table.add_row(
            Text(bench.name),
            number(result.median),
            bench.unit,
            target_text(bench),
            "-" if result.ratio is None else f"{result.ratio:.2f}",
            Text(result.status, style=styles[result.status]),
            number(min(result.values, default=None)),
            number(max(result.values, default=None)),
            Text(extras or result.error or result.skipped or ""),
        )
    console.print(table)


def summary_lines(results: Sequence[Result]) -> list[str]:
    """One line per missed target or error, then a count."""
    lines = []
    for result in results:
        bench = result.benchmark
        if result.status == "MISSED":
            lines.append(
                f"MISSED: {bench.name}: median {number(result.median)} {bench.unit}, "
                f"target {target_text(bench)} {bench.unit} (ratio {result.ratio:.2f})"
            )
        elif result.status == "ERROR":
            lines.append(f"ERROR: {bench.name}: {result.error}")
        elif result.status == "skipped":
            lines.append(f"skipped: {bench.name}: {result.skipped}")
    met = sum(r.status == "ok" for r in results)
    targets = sum(r.benchmark.target is not None and r.skipped is None for r in results)
    lines.append(f"{met} of {targets} targets met")
    return lines


def report(results: Sequence[Result], args: argparse.Namespace) -> dict[str, Any]:
    """The JSON document: when, where, how, and every result."""
    return {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "git": git_info(),
        "settings": {"repeat": args.repeat, "quick": args.quick, "only": args.only},
        "results": [r.to_json() for r in results],
    }


def list_benchmarks(benchmarks: Sequence[Benchmark], console: Console) -> None:
    for bench in benchmarks:
        console.print(
            f"{bench.name}  [{target_text(bench)} {bench.unit}]  {bench.description}", markup=False
        )


def console(*, stderr: bool) -> Console:
    """A rich console (dim for stderr); to a file or a pipe, wide enough not to wrap the table."""
    from rich.console import Console

    width = None if Console(stderr=stderr).is_terminal else 160
    return Console(stderr=stderr, highlight=False, style="dim" if stderr else None, width=width)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    make_importable()
    from bench import harness

    load_benchmark_modules()
    out, err = console(stderr=False), console(stderr=True)
    chosen = harness.select(harness.registered(), args.only)
    if args.list:
        list_benchmarks(chosen, out)
        return 0
    if not chosen:
        err.print(f"no benchmark matches {args.only}; try --list", style="red")
        return 2
    with tempfile.TemporaryDirectory(prefix="lmmreview-bench-") as workdir:
        fixtures = harness.Fixtures(Path(workdir), lambda line: err.print(line, markup=False))
        results = [
            harness.run_benchmark(bench, args.repeat, fixtures, args.quick) for bench in chosen
        ]
    render_table(results, out)
    for line in summary_lines(results):
        out.print(line, style="bold red" if line.startswith(("MISSED", "ERROR")) else None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report(results, args), indent=2) + "\n", encoding="utf-8")
    out.print(f"wrote {args.out}")
    return 1 if any(r.status == "ERROR" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
