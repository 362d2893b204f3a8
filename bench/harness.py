"""The benchmark harness: a registry filled by `@benchmark`, and a runner that repeats each one.

A benchmark is one function that takes a `Context` and returns what it measured for one
repetition: a number in the benchmark's unit, or a `Measurement` with extra figures
(recorded, not compared with the target). Setup that must stay outside the measurement
goes through `ctx.fixture(...)` (built once per run, shared by every benchmark) and the
function times only the part that counts, usually with `timed()`:

    @benchmark(name="open 100k answers", unit="s", target=1.0)
    def open_big_db(ctx: Context) -> float:
        db = ctx.fixture("100k.db", build_big_db)
        with timed() as clock:
            open_app(db)
        return clock.seconds
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
Log = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Measurement:
    """One repetition's value (in the benchmark's unit) and extra figures worth recording.

    Extra figures are numbers keyed by name; a name ending in `_bytes` is shown as a size.
    """

    value: float
    extra: dict[str, float] = field(default_factory=dict)


class Skipped(Exception):
    """Raised by a benchmark that cannot run here (e.g. an absent input); the message says
    why. The run reports it as skipped: not measured, and not an error."""


class Fixtures:
    """Inputs built once per run (outside any measurement) and shared by all benchmarks."""

    def __init__(self, root: Path, log: Log) -> None:
        self.root = root
        self.log = log
        self._built: dict[str, Any] = {}

    def get(self, name: str, build: Callable[[Path], T]) -> T:
        """The fixture `name`, built on first use by `build(its own empty folder)`."""
        if name not in self._built:
            parent = self.root / "fixtures"
            parent.mkdir(exist_ok=True)
            folder = Path(tempfile.mkdtemp(prefix=f"{_slug(name)}-", dir=parent))
            self.log(f"building fixture {name!r}")
            start = time.perf_counter()
            self._built[name] = build(folder)
            self.log(f"built fixture {name!r} in {time.perf_counter() - start:.1f} s")
        return self._built[name]


@dataclass(frozen=True, slots=True)
class Context:
    """What a benchmark function receives for one repetition."""

    scratch: Path  # an empty folder for this repetition only, removed afterwards
    repetition: int  # 0-based
    quick: bool  # --quick was given (fewer repetitions); most benchmarks ignore it
    fixtures: Fixtures
    log: Log

    def fixture(self, name: str, build: Callable[[Path], T]) -> T:
        """A shared input, built once per run by `build(folder)`; see `Fixtures.get`."""
        return self.fixtures.get(name, build)


BenchFunction = Callable[[Context], "Measurement | float"]


@dataclass(frozen=True, slots=True)
class Benchmark:
    """A registered benchmark: what it measures and the target it is held to."""

    name: str
    function: BenchFunction
    unit: str
    target: float | None  # None: a figure to report, with no target to meet
    lower_is_better: bool
    description: str
    on_request: bool = False  # run only when `--only` names it alone (e.g. too big for every run)

    def meets(self, value: float) -> bool:
        """Whether `value` meets the target (at or below it, or at or above it)."""
        if self.target is None:
            return True
        return value <= self.target if self.lower_is_better else value >= self.target


_REGISTRY: dict[str, Benchmark] = {}


def benchmark(
    *,
    name: str,
    unit: str,
    target: float | None,
    lower_is_better: bool = True,
    description: str | None = None,
    on_request: bool = False,
) -> Callable[[BenchFunction], BenchFunction]:
    """Register the decorated function as a benchmark (description: its docstring)."""
    if target is not None and target <= 0:
        raise ValueError(f"benchmark {name!r}: the target must be positive, not {target}")

    def register(function: BenchFunction) -> BenchFunction:
        if name in _REGISTRY:
            raise ValueError(f"two benchmarks are named {name!r}")
        text = description or (function.__doc__ or "").strip()
        _REGISTRY[name] = Benchmark(name, function, unit, target, lower_is_better, text, on_request)
        return function

    return register


def registered() -> list[Benchmark]:
    """Every registered benchmark, in registration order."""
    return list(_REGISTRY.values())


def select(benchmarks: Sequence[Benchmark], only: Sequence[str]) -> list[Benchmark]:
    """The benchmarks whose name contains one of `only` (case-insensitive); all if none,
    but those on request. An on-request benchmark is chosen only by a text that no other
    benchmark's name holds."""
    wanted = [text.lower() for text in only]
    everyday = [b.name.lower() for b in benchmarks if not b.on_request]

    def asked(bench: Benchmark) -> bool:
        texts = [text for text in wanted if text in bench.name.lower()]
        if bench.on_request:
            return any(not any(text in name for name in everyday) for text in texts)
        return bool(texts) or not wanted

    return [b for b in benchmarks if asked(b)]


class Stopwatch:
    """Elapsed wall time of a `timed()` block, in seconds (set when the block ends)."""

    seconds: float = 0.0


@contextmanager
def timed() -> Iterator[Stopwatch]:
    """Time the block with `time.perf_counter`; read `.seconds` after it."""
    clock = Stopwatch()
    start = time.perf_counter()
    try:
        yield clock
    finally:
        clock.seconds = time.perf_counter() - start


@dataclass(slots=True)
class Result:
    """The repetitions of one benchmark, or the error (or reason to skip) that stopped it."""

    benchmark: Benchmark
    values: list[float] = field(default_factory=list)
    extras: list[dict[str, float]] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    @property
    def ratio(self) -> float | None:
        """median / target: below 1 is good for lower-is-better benchmarks."""
        median, target = self.median, self.benchmark.target
        return None if median is None or target is None else median / target

    @property
    def ok(self) -> bool | None:
        """Whether the median meets the target; None when nothing was measured."""
        median = self.median
        return None if median is None or self.error else self.benchmark.meets(median)

    @property
    def status(self) -> str:
        """'ok', 'MISSED', 'ERROR', 'skipped', or '-' for a figure with no target."""
        if self.skipped is not None:
            return "skipped"
        if self.ok is None:
            return "ERROR"
        if self.benchmark.target is None:
            return "-"
        return "ok" if self.ok else "MISSED"

    def extra_medians(self) -> dict[str, float]:
        """The median of each extra figure over the repetitions."""
        names = dict.fromkeys(name for extra in self.extras for name in extra)
        return {
            name: statistics.median(e[name] for e in self.extras if name in e) for name in names
        }

    def to_json(self) -> dict[str, Any]:
        """Plain values for the JSON report."""
        b = self.benchmark
        return {
            "name": b.name,
            "description": b.description,
            "unit": b.unit,
            "target": b.target,
            "lower_is_better": b.lower_is_better,
            "median": self.median,
            "min": min(self.values, default=None),
            "max": max(self.values, default=None),
            "ratio": self.ratio,
            "ok": self.ok,
            "status": self.status,
            "repetitions": len(self.values),
            "values": self.values,
            "extra": {
                name: {"median": median, "values": [e.get(name) for e in self.extras]}
                for name, median in self.extra_medians().items()
            },
            "error": self.error,
            "skipped": self.skipped,
        }


def run_benchmark(bench: Benchmark, repeat: int, fixtures: Fixtures, quick: bool) -> Result:
    """Run `bench` `repeat` times, each in a fresh scratch folder; an exception ends it."""
    result = Result(bench)
    for repetition in range(repeat):
        scratch = Path(tempfile.mkdtemp(prefix="rep-", dir=fixtures.root))
        context = Context(scratch, repetition, quick, fixtures, fixtures.log)
        try:
            measured = bench.function(context)
        except Skipped as reason:
            result.skipped = str(reason)
            break
        except Exception as exc:
            fixtures.log(traceback.format_exc().rstrip())
            result.error = f"{type(exc).__name__}: {exc}"
            break
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if not isinstance(measured, Measurement):
            measured = Measurement(float(measured))
        result.values.append(measured.value)
        result.extras.append(dict(measured.extra))
        fixtures.log(f"{bench.name}: repetition {repetition + 1}/{repeat}: {measured.value:.4g}")
    return result


def _slug(name: str) -> str:
    """A file-name-safe version of a fixture name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "fixture"
