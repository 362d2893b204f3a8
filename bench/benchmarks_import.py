"""Import benchmarks: an MMBench-style TSV of 4,400 rows, each with its own ~30 KB image.

Target (DESIGN.md, "What fast means here"): import it in 10 s or less; through the CLI,
from launch, 3 s (issue 26).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.harness import Context, Measurement, benchmark, timed
from bench.mmbench_data import TsvInfo, write_mmbench_tsv
from lmmreview.db.benchmarks.mmbench.files import read_mmbench
from lmmreview.db.importers import load
from lmmreview.db.store import Store

REPO = Path(__file__).resolve().parent.parent
QUESTIONS, COPIES, IMAGE_BYTES = 1100, 4, 30_000
ROWS = QUESTIONS * COPIES


def mmbench_tsv(ctx: Context) -> TsvInfo:
    """The shared input: 1,100 questions x 4 circular copies, one distinct image per row."""
    return ctx.fixture(
        f"mmbench-{ROWS}-rows.tsv",
        lambda folder: write_mmbench_tsv(
            folder / "mmbench_dev_en.tsv", QUESTIONS, COPIES, IMAGE_BYTES
        ),
    )


def database_bytes(db: Path) -> int:
    """Size of a database on disk, with its WAL and shared-memory files if still there."""
    files = (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"))
    return sum(f.stat().st_size for f in files if f.exists())


def check_imported(db: Path, dataset: str) -> None:
    """Fail loudly if the import did not store every row and every image."""
    with Store.open(db, create=False) as store:
        [counts] = [c for c in store.counts() if c.name == dataset]
    if (counts.samples, counts.images) != (ROWS, ROWS):
        raise AssertionError(
            f"expected {ROWS} samples and {ROWS} images, found {counts.samples} and {counts.images}"
        )


def input_figures(tsv: TsvInfo) -> dict[str, float]:
    """Figures about the input, recorded next to each measurement."""
    return {"tsv_bytes": tsv.file_bytes, "image_bytes_mean": round(tsv.image_bytes_mean)}


@benchmark(name=f"import mmbench tsv {ROWS} rows", unit="s", target=10.0)
def import_mmbench(ctx: Context) -> Measurement:
    """read_mmbench + load into a fresh database, as `lmmreview import mmbench DB DATA.tsv`."""
    tsv = mmbench_tsv(ctx)
    db = ctx.scratch / "bench.db"
    with timed() as clock:
        batch = read_mmbench(tsv.path)
        with Store.open(db) as store:
            load(store, batch)
    check_imported(db, tsv.path.stem)
    return Measurement(clock.seconds, {"db_bytes": database_bytes(db), **input_figures(tsv)})


def lmmreview_command() -> list[str]:
    """The installed console script next to this Python, else the same app via `-c`."""
    script = Path(sys.executable).with_name("lmmreview.exe" if os.name == "nt" else "lmmreview")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "lmmreview"]


def repo_first_env() -> dict[str, str]:
    """The environment, with this checkout first on PYTHONPATH (so this tree's code runs)."""
    paths = [str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished subprocess: exit code, wall time, peak memory (None where unknown), stderr."""

    returncode: int
    seconds: float
    peak_rss_bytes: int | None
    stderr: str


def run_measured(command: list[str], cwd: Path, env: dict[str, str]) -> Finished:
    """Run `command` to the end; time it and, on Unix, read its own peak RSS (through
    bench/measured.py, which says why; `env` has this checkout on PYTHONPATH, as
    repo_first_env gives it)."""
    stdout, stderr = cwd / "stdout.txt", cwd / "stderr.txt"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        if not hasattr(os, "wait4"):  # Windows: time only
            with timed() as clock:
                code = subprocess.run(command, stdout=out, stderr=err, cwd=cwd, env=env).returncode
            return Finished(code, clock.seconds, None, stderr.read_text(errors="replace"))
        result = cwd / "measured.json"
        measured = [sys.executable, "-m", "bench.measured", str(result), *command]
        subprocess.run(measured, stdout=out, stderr=err, cwd=cwd, env=env)
    found = json.loads(result.read_text())
    return Finished(
        found["returncode"], found["seconds"], found["peak_rss_bytes"],
        stderr.read_text(errors="replace"),
    )  # fmt: skip


@benchmark(name=f"launch import mmbench tsv {ROWS} rows, cli", unit="s", target=3.0)
def import_mmbench_cli(ctx: Context) -> Measurement:
    """`lmmreview import mmbench DB DATA.tsv` as a subprocess: startup, read, load, exit."""
    tsv = mmbench_tsv(ctx)
    db = ctx.scratch / "bench.db"
    command = [*lmmreview_command(), "import", "mmbench", str(db), str(tsv.path)]
    if ctx.repetition == 0:
        ctx.log("running: " + " ".join(command))
    done = run_measured(command, ctx.scratch, repo_first_env())
    if done.returncode != 0:
        raise RuntimeError(f"exit code {done.returncode}: {done.stderr.strip()[-500:]}")
    check_imported(db, tsv.path.stem)
    extra = {"db_bytes": database_bytes(db), **input_figures(tsv)}
    if done.peak_rss_bytes is not None:
        extra["peak_rss_bytes"] = done.peak_rss_bytes
    return Measurement(done.seconds, extra)
