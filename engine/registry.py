"""The benchmarks lmmreview knows, all declared under the entry-point group
`lmmreview.benchmarks` (name = "module:object", the object a `Benchmark` or a subclass of
it): lmmreview's own in its pyproject.toml, exactly as another installed package declares
its plug-ins. The functions that read and write a benchmark's files are declared beside
them, under `lmmreview.files` (db.parts finds them by name).

Plug-ins load only when something asks for a benchmark lmmreview does not ship, or for
every benchmark: `--version`, `report` on MM-Vet and the like never run a plug-in's code.
A plug-in that cannot be loaded (it raises, exits, prints, or hangs) is left out and
reported (`problems`, and the `hooks.on_problem` callback), so one broken plug-in does not
stop lmmreview; a dataset that needs it says so when opened. One that loads is wrapped once
(engine.guarded), so that its failures as it runs end in one line naming it.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import TYPE_CHECKING, Any

from lmmreview.engine import hooks
from lmmreview.engine.benchmark import Benchmark, Importer, Option
from lmmreview.engine.guarded import GuardedBenchmark, contained, notice_interrupts, reason

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "lmmreview.benchmarks"
FILES_GROUP = "lmmreview.files"  # the functions that read and write benchmarks' files
LOAD_SECONDS = 5.0  # a plug-in that takes longer to load is left out
OWN = "lmmreview"  # the distribution whose entry points are the benchmarks it ships
# How lmmreview's own are listed, and the demo built (installers sort entry points by name).
OWN_ORDER = (
    "mmvet",
    "mmvet-v2",
    "mmbench",
    "mmmu",
    "mmmu-pro",
    "mathvista",
    "hallusionbench",
    "mme",
    "ocrbench",
    "ocrbench-v2",
    "mmstar",
    "llava-bench",
    "generic",
)


class UnknownBenchmark(LookupError):
    """No installed benchmark has this name."""


class _Failed(Exception):
    """A plug-in that could not load; the message says why."""


@cache
def declared(group: str) -> tuple[tuple[EntryPoint, str], ...]:
    """Every installed package's entry points of `group`, each with its distribution's
    name (lmmreview's own alone: `own_declared`)."""
    # here, not on top: importlib.metadata costs a launch 20 ms, and --version needs none
    from importlib.metadata import entry_points

    return tuple(
        (e, e.dist.name if e.dist is not None else e.value) for e in entry_points(group=group)
    )


class StaleInstall(RuntimeError):
    """lmmreview's installed metadata does not match its code (an editable install made
    before its entry points changed): the fix is to install it again."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"lmmreview's installed metadata is older than its code ({what}): install it "
            "again (pip install -e . in a source checkout, else pip install --upgrade lmmreview)"
        )


def load_own(entry: EntryPoint) -> Any:
    """What one of lmmreview's own entry points names; StaleInstall where the code has it
    no more."""
    try:
        return entry.load()
    except (ImportError, AttributeError) as exc:
        raise StaleInstall(f"{entry.group} {entry.name} = {entry.value}: {exc}") from exc


@cache
def own_declared(group: str) -> tuple[EntryPoint, ...]:
    """lmmreview's own entry points of `group`: its metadata read alone, a few times
    quicker than every installed package's (`declared`), on the way to the first screen."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return tuple(distribution(OWN).entry_points.select(group=group))
    except PackageNotFoundError:
        raise StaleInstall("it is not installed") from None


@cache
def shipped() -> dict[str, Benchmark]:
    """The benchmarks lmmreview ships, by name: no plug-in is loaded."""
    own = list(own_declared(ENTRY_POINT_GROUP))
    own.sort(key=lambda entry: (*OWN_ORDER, entry.name).index(entry.name))
    if not own:
        raise StaleInstall(f"it declares no {ENTRY_POINT_GROUP}")
    loaded = (_as_benchmark(load_own(entry)) for entry in own)
    return {benchmark.name: benchmark for benchmark in loaded}


@cache
def _plugins() -> tuple[dict[str, tuple[Benchmark, str]], tuple[str, ...]]:
    """name -> (plug-in benchmark, its distribution), and the plug-ins that could not load."""
    from lmmreview.engine.export import RENDERERS  # the tables' own formats

    found: dict[str, tuple[Benchmark, str]] = {}
    claimed = {name: OWN for b in shipped().values() for name in _claims(b)}
    claimed |= {f"export {name}": OWN for name in RENDERERS}
    problems: list[str] = []
    notice_interrupts()
    entries = [(entry, origin) for entry, origin in declared(ENTRY_POINT_GROUP) if origin != OWN]
    left_out: dict[int, str] = {}
    for trial in hooks.trials:
        left_out |= trial([entry.value for entry, _ in entries], LOAD_SECONDS)
    for index, (entry, origin) in enumerate(entries):
        try:
            if index in left_out:
                raise _Failed(left_out[index])
            benchmark, claims = _contained(entry, origin)
        except _Failed as exc:
            problems.append(f"{entry.name} ({origin}): cannot load {entry.value}: {exc}")
            continue
        taken = sorted(claims & claimed.keys())
        if taken:
            other = claimed[taken[0]]
            if other != origin:
                problems.append(f"{entry.name} ({origin}): the name {taken[0]!r} is "
                                f"taken by {other}; left out")  # fmt: skip
            continue
        found[benchmark.name] = (benchmark, origin)
        claimed.update(dict.fromkeys(claims, origin))
    for problem in problems:
        for report in hooks.listeners:
            report(problem)
    return found, tuple(problems)


def _contained(entry: EntryPoint, origin: str) -> tuple[Benchmark, set[str]]:
    """The entry point's benchmark, guarded as `origin`'s (engine.guarded), and the names
    it claims, its code run in a thread of its own. What it prints while it loads is
    dropped, what it writes to the terminal itself captured on the command line
    (`contained`).
    Whatever it raises (KeyboardInterrupt, SystemExit and GeneratorExit included) or
    taking over LOAD_SECONDS becomes `_Failed`; the user's Ctrl-C still reaches this, the
    main thread, and stops the command."""
    outcome: list[tuple[Benchmark, set[str]] | str] = []

    def load() -> None:
        try:
            benchmark = _as_benchmark(entry.load())
            importers = _importers(benchmark)
            guarded = GuardedBenchmark(benchmark, origin, importers)
            outcome.append((guarded, _claims(guarded)))
        except BaseException as exc:  # its bug, its exit(), its stray interrupt
            outcome.append(reason(exc))

    worker = threading.Thread(target=load, name=f"plug-in {entry.name}", daemon=True)
    with contained(f"{entry.name} ({origin}): loading {entry.value}", timed=False):
        worker.start()
        worker.join(LOAD_SECONDS)  # a daemon thread still hanging is left behind
    if not outcome:
        raise _Failed(f"took more than {LOAD_SECONDS:g} s to load; left out")
    if isinstance(outcome[0], str):
        raise _Failed(outcome[0])
    return outcome[0]


def _claims(benchmark: Benchmark) -> set[str]:
    """The names a benchmark takes: its own, its import commands' (a plug-in named "jsonl"
    would otherwise replace `lmmreview import jsonl`) and its export formats' (the table
    formats' names are lmmreview's: engine.export.RENDERERS)."""
    formats = {f"export {spec.name}" for spec in benchmark.exports}
    return {benchmark.name, *_importers(benchmark), *formats}


def _importers(benchmark: Benchmark) -> dict[str, Importer]:
    """The benchmark's import commands, checked."""
    importers = benchmark.importers()
    if not isinstance(importers, dict) or not all(
        isinstance(name, str) and name and _is_importer(importer)
        for name, importer in importers.items()
    ):
        raise TypeError("importers() must map command names to Importers")
    return importers


def _is_importer(value: object) -> bool:
    """An Importer with the types its `lmmreview import` command is made from (the
    dataclass checks none)."""
    return (
        isinstance(value, Importer)
        and isinstance(value.help, str)
        and all(isinstance(o, Option) for o in (value.argument, *value.options))
    )


def _as_benchmark(value: object) -> Benchmark:
    """The benchmark an entry point names: an instance, or a class made into one."""
    if isinstance(value, type) and issubclass(value, Benchmark):
        value = value()
    if not isinstance(value, Benchmark):
        raise TypeError(f"{value!r} is not a lmmreview Benchmark")
    name, title = getattr(value, "name", ""), getattr(value, "title", "")
    if not (isinstance(name, str) and name and isinstance(title, str) and title):
        raise TypeError(f"{type(value).__name__} has no name or no title")
    return value


def plugins() -> dict[str, Benchmark]:
    """The installed plug-ins' benchmarks, by name (this loads them)."""
    return {name: benchmark for name, (benchmark, _) in _plugins()[0].items()}


def plugins_loaded() -> bool:
    """Whether this process ran the installed plug-ins' code (it loaded them)."""
    return _plugins.cache_info().currsize > 0


def benchmarks() -> dict[str, Benchmark]:
    """Every installed benchmark, by name: lmmreview's own first."""
    return shipped() | plugins()


def origin(name: str) -> str:
    """The distribution a benchmark comes from ("lmmreview" for those it ships)."""
    return OWN if name in shipped() else _plugins()[0][name][1]


def problems() -> tuple[str, ...]:
    """The plug-ins that were left out, and why."""
    return _plugins()[1]


def benchmark(name: str) -> Benchmark:
    """The benchmark called `name`; UnknownBenchmark says which are installed. Plug-ins
    load only for a name lmmreview does not ship."""
    found = shipped()[name] if name in shipped() else plugins().get(name)
    if found is None:
        broken = [p for p in problems() if p.startswith(f"{name} (")]
        why = f" ({broken[0]})" if broken else ""
        raise UnknownBenchmark(
            f"no benchmark {name!r} is installed{why}; installed: {', '.join(benchmarks())}"
        )
    return found


def official_rules(name: str) -> bool:
    """Whether benchmark `name`'s offline rules are its official scoring (Benchmark.
    official_rules); False for a benchmark that is not installed."""
    try:
        return benchmark(name).official_rules
    except UnknownBenchmark:
        return False
