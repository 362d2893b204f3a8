"""What a user meets, from pressing Enter (issue 26): `lmmreview open` in a pseudo-terminal,
timed from process launch, on databases the CLI itself built (`import`, then `score`).

Targets: first screen <= 0.6 s on a small database (the demo, a real MM-Vet import) and
<= 1 s at 1,000,000 answers; tables <= 2 s; peak RSS <= 400 MB; `--version` and `--help`
<= 0.2 s; `import` of the 1,000,000-answer JSONL <= 20 s and `score` of it <= 15 s, each
<= 400 MB; `export --format md` of each 1,000,000-answer database <= 1 s. The same
figures with one core kept busy, and the peers' (visidata, the official scorers), are
reported beside them with no target.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager, closing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from bench.benchmarks_import import Finished, lmmreview_command, repo_first_env, run_measured
from bench.big_data import cache_folder, cached_build
from bench.harness import Context, Measurement, Skipped, benchmark, timed
from bench.launch_data import GENERATOR_VERSION, WRITERS, Arguments, write_mmmu_lmms_eval
from bench.terminal import Drawn, busy_core, in_terminal
from lmmreview.db.demo import sample_data
from lmmreview.db.schema import SCHEMA_VERSION
from lmmreview.engine.uncertainty import RESAMPLES, SEED

REPO = Path(__file__).resolve().parent.parent
CACHE_VARIABLE = "LMMREVIEW_BENCH_CACHE"
# For trying the benchmarks out: a smaller size in place of 1,000,000 (the names say it).
SIZE_VARIABLE = "LMMREVIEW_BENCH_LAUNCH_ANSWERS"
ANSWERS = int(os.environ.get(SIZE_VARIABLE) or 1_000_000)
STRETCH = 10_000_000
MODELS = 5
FIXTURES = REPO.parent / "shared" / "fixtures"
MMVET_FIXTURE = FIXTURES / "mmvet-real"
FIRST_SCREEN_SMALL, FIRST_SCREEN_BIG, TABLES, PEAK_MB, EXPORT_MD = 0.6, 1.0, 2.0, 400, 1.0
INTERVALS = 2.0  # seconds: every cell's bootstrap interval, or a versus, at 1,000,000 answers
# What only the detail panel draws, and what only the tables' strip draws once computed.
DETAIL, TABLES_DRAWN = r"Ground truth:", r"judge-human Δ"

if TYPE_CHECKING:
    from lmmreview.db.scoring import DatasetScores

Builder = Callable[[Context, Path], None]


def _cli(ctx: Context, *args: str) -> None:
    """Run `lmmreview ARGS` (this checkout's code) to the end; raise with its stderr if it
    fails."""
    command = [*lmmreview_command(), *args]
    done = subprocess.run(
        command, capture_output=True, text=True, env=repo_first_env(), cwd=ctx.scratch
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])}: exit {done.returncode}: {done.stderr[-500:]}")


def _database(ctx: Context, name: str, build: Builder) -> Path:
    """The database `name`, built once per run by `build(ctx, path)` (or copied from
    $LMMREVIEW_BENCH_CACHE, where it is kept under a name with both versions)."""
    cached = f"launch-{name}-g{GENERATOR_VERSION}-s{SCHEMA_VERSION}.db"
    cache = cache_folder(CACHE_VARIABLE)
    return ctx.fixture(
        f"launch {name}.db",
        lambda folder: cached_build(
            cached, lambda path: build(ctx, path), folder / f"{name}.db", cache
        ),
    )


def input_files(ctx: Context, kind: str, answers: int) -> Arguments:
    """The generated `kind` input of `answers` answers (bench/launch_data.py), written once
    per run: the import commands' arguments."""
    return ctx.fixture(
        f"launch {kind} {answers} input", lambda folder: WRITERS[kind](folder, answers // MODELS)
    )


def _imported(kind: str, answers: int) -> Builder:
    """Import the generated `kind` input, unscored."""

    def build(ctx: Context, db: Path) -> None:
        commands = input_files(ctx, kind, answers)
        for number, (kind_name, *rest) in enumerate(commands, 1):
            ctx.log(f"building {kind}, {answers:,} answers: import {number}/{len(commands)}")
            _cli(ctx, "import", kind_name, str(db), *rest)

    return build


def _scored(name: str, imported: Builder) -> Builder:
    """`imported`'s database (kept as its own cache entry), then `lmmreview score`."""

    def build(ctx: Context, db: Path) -> None:
        shutil.copyfile(_database(ctx, f"{name}-imported", imported), db)
        ctx.log(f"building {name}: score")
        _cli(ctx, "score", str(db))

    return build


def _demo(ctx: Context, db: Path) -> None:
    ctx.log("building the demo database")
    _cli(ctx, "demo", str(db), "--no-open")


def _mmvet_fixture(ctx: Context, db: Path) -> None:
    """The real MM-Vet (mm-vet.json, its images, LLaVA-1.5-7B's answers), scored."""
    if not (MMVET_FIXTURE / "mm-vet.json").is_file():
        raise Skipped(f"the real MM-Vet is not at {MMVET_FIXTURE}")
    ctx.log("building the real MM-Vet import")
    answers = MMVET_FIXTURE / "llava-v1.5-7b" / "llava-v1.5-7b.json"
    questions, images = MMVET_FIXTURE / "mm-vet.json", MMVET_FIXTURE / "images"
    _cli(
        ctx,
        "import",
        "mmvet",
        str(db),
        str(questions),
        "--images",
        str(images),
        "--answers",
        str(answers),
    )
    _cli(ctx, "score", str(db))


def _generated(kind: str, answers: int) -> Builder:
    name = f"{kind}-{answers}"
    return _scored(name, _imported(kind, answers))


def _first_key(db: Path) -> str:
    """The key of the first sample of the dataset the screen opens (the first by name):
    the first list row's."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (key,) = conn.execute(
            "SELECT key FROM samples WHERE dataset_id = "
            "(SELECT id FROM datasets ORDER BY name LIMIT 1) ORDER BY id LIMIT 1"
        ).fetchone()
    return str(key)


def screen_markers(db: Path) -> dict[str, str]:
    """What `lmmreview open DB` draws, by stage: the first list row, the first answer's
    detail, the tables (regular expressions, for bench/terminal.py)."""
    return {
        # A list row: the key's end (the list cuts long keys from the left), spaces, the
        # model; the detail's title has the key and " · ".
        "row": re.escape(_first_key(db)[-8:]) + r" +[^\s·]",
        "detail": DETAIL,
        "tables": TABLES_DRAWN,
    }


def user_env(home: Path) -> dict[str, str]:
    """This checkout's code, run by a user whose home is `home`: no settings but the
    defaults."""
    return {
        **repo_first_env(),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
    }


def _labelled(ctx: Context, label: str, build: Builder) -> Path:
    """The database a figure's label names ("mmmu 1,000,000 answers"); the demo's is named
    by its sample data too, so a cached one is rebuilt when a benchmark joins the demo."""
    name = label.replace(" ", "-").replace(",", "")
    return _database(ctx, f"{name}-{_sample_data_digest()}" if label == "demo" else name, build)


def _sample_data_digest() -> str:
    """A short digest of every file of the sample data the demo is built from."""
    folder = sample_data()
    digest = hashlib.sha256()
    for path in sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:10]


def _open(ctx: Context, label: str, build: Builder, busy: bool = False) -> Drawn:
    """`lmmreview open DB` in a pty, one run per repetition (and busy or not), shared by
    the figures read from it."""
    db = _labelled(ctx, label, build)
    cache = ctx.fixture(f"launch open {label} {busy} {ctx.repetition}", lambda _: {})
    if "drawn" not in cache:
        env = user_env(ctx.scratch / "home")
        spinning: AbstractContextManager[None] = busy_core() if busy else nullcontext()
        with spinning:
            drawn = in_terminal(
                [*lmmreview_command(), "open", str(db)],
                screen_markers(db),
                env=env,
                cwd=ctx.scratch,
            )
        if drawn.returncode != 0:
            raise RuntimeError(f"lmmreview open ended with exit code {drawn.returncode}")
        cache["drawn"] = drawn
    drawn = cache["drawn"]
    assert isinstance(drawn, Drawn)
    return drawn


def _seconds(
    label: str, build: Builder, marker: str, busy: bool = False
) -> Callable[[Context], Measurement]:
    return lambda ctx: Measurement(_open(ctx, label, build, busy).seconds[marker])


def _peak_mb(label: str, build: Builder) -> Callable[[Context], Measurement]:
    return lambda ctx: Measurement(_open(ctx, label, build).peak_rss_bytes / 1e6)


STAGES = (("first row", "row"), ("first answer", "detail"), ("tables", "tables"))


def _register_screen(label: str, build: Builder, first_screen: float) -> None:
    """The four figures of one open, and the first answer and the tables again with a
    core busy."""
    said = f"`lmmreview open` on {label}, in a pty, from launch:"
    targets = {"row": first_screen, "detail": first_screen, "tables": TABLES}
    for what, marker in STAGES:
        benchmark(
            name=f"launch {what}, {label}",
            unit="s",
            target=targets[marker],
            description=f"{said} {what} drawn",
        )(_seconds(label, build, marker))
    benchmark(
        name=f"launch peak memory, {label}",
        unit="MB",
        target=PEAK_MB,
        description=f"{said} peak RSS once the tables are drawn",
    )(_peak_mb(label, build))
    for what, marker in STAGES[1:]:
        benchmark(
            name=f"launch {what}, {label} (one core busy)",
            unit="s",
            target=None,
            description=f"{said} {what} drawn, another process spinning on one core",
        )(_seconds(label, build, marker, busy=True))


def _register_stretch(answers: int) -> None:
    """The stretch figures (no targets), on request only: `--only "launch 10,000,000"`."""
    label, build = f"generic {answers:,} answers", _generated("generic", answers)
    said = f"Stretch: `lmmreview open` on {label}, in a pty, from launch:"
    for what, marker in STAGES:
        benchmark(
            name=f"launch {answers:,} answers, {what}",
            unit="s",
            target=None,
            description=f"{said} {what} drawn",
            on_request=True,
        )(_seconds(label, build, marker))
    benchmark(
        name=f"launch {answers:,} answers, peak memory",
        unit="MB",
        target=None,
        description=f"{said} peak RSS",
        on_request=True,
    )(_peak_mb(label, build))


def _register_export(label: str, build: Builder) -> None:
    """`lmmreview export DB --format md` of one database: its wall time, every model's row
    checked in what it wrote."""

    def seconds(ctx: Context) -> Measurement:
        db, out = _labelled(ctx, label, build), ctx.scratch / "tables.md"
        done = _measured(ctx, [*lmmreview_command(), "export", str(db), "--format", "md",
                               "--out", str(out)])  # fmt: skip
        written = out.read_text(encoding="utf-8")
        missing = [f"model-{m}" for m in range(MODELS) if f"model-{m}" not in written]
        if missing:
            raise AssertionError(f"the exported tables have no row for {', '.join(missing)}")
        return Measurement(done.seconds, _peak(done))

    benchmark(
        name=f"launch export --format md, {label}",
        unit="s",
        target=EXPORT_MD,
        description=f"`lmmreview export DB --format md` of {label} as a subprocess, wall time",
    )(seconds)


def _scores(ctx: Context, label: str, build: Builder) -> DatasetScores:
    """The first dataset of a database's, read once per run as `export` reads them."""
    from lmmreview.db import Store
    from lmmreview.db.scoring import dataset_scores

    def read(_: Path) -> DatasetScores:
        with Store.open(_labelled(ctx, label, build), create=False) as store:
            name, kind = store.datasets(None)[0]
            return dataset_scores(store, name, kind, store.chosen_judge(name))

    return ctx.fixture(f"launch scores {label}", read)


def _register_intervals(label: str, build: Builder) -> None:
    """The bootstrap intervals of every cell (1,000 resamples), and `versus` of the first
    two models, in process on the dataset read beforehand (the screen computes them in a
    worker, off the UI thread)."""

    def every_cell(ctx: Context) -> Measurement:
        scores = _scores(ctx, label, build)
        tables = scores.breakdown.tables()
        with timed() as clock:
            found = scores.with_intervals(tables, False, RESAMPLES, SEED)
        cells = sum(c.interval is not None for t in found for r in t.rows for c in r.cells.values())
        return Measurement(clock.seconds, {"cells": cells})

    def paired(ctx: Context) -> Measurement:
        scores = _scores(ctx, label, build)
        with timed() as clock:
            a, b = scores.answers.models[:2]
            found = scores.versus(a, b, False, RESAMPLES, SEED)
        return Measurement(clock.seconds, {"cells": len(found)})

    said = f"in process, on {label} read beforehand:"
    benchmark(
        name=f"intervals of every cell, {label}",
        unit="s",
        target=INTERVALS,
        description=f"engine.uncertainty's bootstrap of every table cell {said}",
    )(every_cell)
    benchmark(
        name=f"versus of two models, {label}",
        unit="s",
        target=INTERVALS,
        description=f"engine.uncertainty.versus of the first two models {said}",
    )(paired)


_register_screen("demo", _demo, FIRST_SCREEN_SMALL)
_register_screen("mm-vet fixture", _mmvet_fixture, FIRST_SCREEN_SMALL)
for _kind in WRITERS:
    _label, _build = f"{_kind} {ANSWERS:,} answers", _generated(_kind, ANSWERS)
    _register_screen(_label, _build, FIRST_SCREEN_BIG)
    _register_export(_label, _build)
    _register_intervals(_label, _build)
_register_stretch(STRETCH)


def _command_time(*args: str) -> Callable[[Context], Measurement]:
    def measure(ctx: Context) -> Measurement:
        done = _measured(ctx, [*lmmreview_command(), *args])
        return Measurement(done.seconds, _peak(done))

    return measure


def _measured(ctx: Context, command: list[str]) -> Finished:
    done = run_measured(command, ctx.scratch, repo_first_env())
    if done.returncode != 0:
        raise RuntimeError(f"exit code {done.returncode}: {done.stderr.strip()[-500:]}")
    return done


def _peak(done: Finished) -> dict[str, float]:
    return {} if done.peak_rss_bytes is None else {"peak_rss_bytes": done.peak_rss_bytes}


benchmark(
    name="launch --version",
    unit="s",
    target=0.2,
    description="`lmmreview --version` as a subprocess, wall time",
)(_command_time("--version"))
benchmark(
    name="launch --help",
    unit="s",
    target=0.2,
    description="`lmmreview --help` as a subprocess, wall time",
)(_command_time("--help"))

GENERIC = f"generic {ANSWERS:,} answers"
MMMU = f"mmmu {ANSWERS:,} answers"
# The two judges of the MMMU database: lmmreview's rules, and lmms-eval's imported verdicts.
TWO_JUDGES = ("offline rules", "lmms-eval rules (imported)")


def _once(ctx: Context, what: str, command: Callable[[], list[str]]) -> Finished:
    """`command` (made when first asked) run once per repetition, shared by its time and
    memory figures."""
    cache = ctx.fixture(f"launch {what} {ctx.repetition}", lambda _: {})
    if "done" not in cache:
        cache["done"] = _measured(ctx, command())
    done = cache["done"]
    assert isinstance(done, Finished)
    return done


def _import_run(ctx: Context) -> Finished:
    """`lmmreview import jsonl` of the generic input into a new database."""

    def command() -> list[str]:
        [[kind, *rest]] = input_files(ctx, "generic", ANSWERS)
        return [*lmmreview_command(), "import", kind, str(ctx.scratch / "import.db"), *rest]

    return _once(ctx, f"import {GENERIC}", command)


def _score_run(ctx: Context) -> Finished:
    """`lmmreview score` of a copy of the imported generic database."""

    def command() -> list[str]:
        imported = _database(ctx, f"generic-{ANSWERS}-imported", _imported("generic", ANSWERS))
        shutil.copyfile(imported, db := ctx.scratch / "score.db")
        return [*lmmreview_command(), "score", str(db)]

    return _once(ctx, f"score {GENERIC}", command)


def _two_judges(ctx: Context, db: Path) -> None:
    """The scored MMMU database, with lmms-eval's verdicts of the same answers imported."""
    shutil.copyfile(_labelled(ctx, MMMU, _generated("mmmu", ANSWERS)), db)
    logs = ctx.fixture(
        f"launch mmmu lmms-eval {ANSWERS} input",
        lambda folder: write_mmmu_lmms_eval(folder, input_files(ctx, "mmmu", ANSWERS)),
    )
    for number, (kind, *rest) in enumerate(logs, 1):
        ctx.log(f"building {MMMU}, two judges: import {number}/{len(logs)}")
        _cli(ctx, "import", kind, str(db), *rest)


def _two_judges_db(ctx: Context) -> Path:
    return _database(ctx, f"mmmu-{ANSWERS}-two-judges", _two_judges)


def _reconcile_run(ctx: Context) -> Finished:
    """`lmmreview reconcile DB --json --out FILE` on the two judges' MMMU database (the
    answers on which they disagree are too many for a terminal)."""

    def command() -> list[str]:
        out = str(ctx.scratch / "reconcile.json")
        return [*lmmreview_command(), "reconcile", str(_two_judges_db(ctx)), "--json", "--out", out]

    return _once(ctx, f"reconcile {MMMU}", command)


def _flips_run(ctx: Context) -> Finished:
    """`lmmreview judges DB --flips A B --out FILE` between the two judges."""

    def command() -> list[str]:
        out = str(ctx.scratch / "flips.md")
        flips = ["--flips", *TWO_JUDGES, "--out", out]
        return [*lmmreview_command(), "judges", str(_two_judges_db(ctx)), *flips]

    return _once(ctx, f"flips {MMMU}", command)


def _register_command(
    what: str, label: str, run: Callable[[Context], Finished], target: float | None
) -> None:
    """The time and the peak memory of `lmmreview WHAT` on `label`'s input."""
    said = f"`lmmreview {what}` on {label} as a subprocess:"

    def seconds(ctx: Context) -> Measurement:
        done = run(ctx)
        return Measurement(done.seconds, _peak(done))

    def peak(ctx: Context) -> Measurement:
        return Measurement((run(ctx).peak_rss_bytes or 0) / 1e6)

    benchmark(
        name=f"launch {what} {label}", unit="s", target=target, description=f"{said} wall time"
    )(seconds)
    benchmark(
        name=f"launch {what} {label}, peak memory",
        unit="MB",
        target=PEAK_MB if target is not None else None,
        description=f"{said} its peak RSS (wait4)",
    )(peak)


_register_command("import", GENERIC, _import_run, 20.0)
_register_command("score", GENERIC, _score_run, 15.0)
# No targets yet (issue 29 left them unmeasured): figures to hold the next change to.
_register_command("reconcile", f"{MMMU}, two judges", _reconcile_run, None)
_register_command("judges --flips", f"{MMMU}, two judges", _flips_run, None)
