"""Review screen benchmarks, measured inside the app (see bench/tui_probe.py).

Targets (DESIGN.md): key press to the next sample on screen, 20,000 answers with
images, p50 <= 10 ms and p95 <= 30 ms; opening 100,000 answers to the first
interactive screen <= 1 s; memory with them open <= 300 MB RSS.

At scale (issue 15), each at 1,000,000 answers beside the same figure at 100,000 from the
same run: first screen <= 1 s, tables ready <= 2 s, memory <= 400 MB, key to the next
sample p95 <= 16.7 ms (one frame), `lmmreview export --format md` <= 1 s (issue 26).
"""

from __future__ import annotations

import io
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

from bench.big_data import (
    DATASET,
    KIND,
    SEED,
    SOURCE,
    answer_texts,
    cache_folder,
    cached_copy,
    generated_samples,
)
from bench.harness import Context, Measurement, benchmark
from lmmreview.db import Store
from lmmreview.db.importers import ImportBatch, load
from lmmreview.db.importers.batch import AnswerRecord
from lmmreview.db.importers.read import image_from_bytes
from lmmreview.db.scoring import score_offline

REPO = Path(__file__).resolve().parent.parent
MODELS = 5
PRESSES = 300
MILLION = 1_000_000
SCALES = (100_000, MILLION)  # each scale figure is measured at both, in the same run
CACHE_VARIABLE = "LMMREVIEW_BENCH_CACHE"  # a folder that keeps generated databases across runs


def _png(rng: random.Random) -> bytes:
    """A small chart-like drawing, different for every sample."""
    image = Image.new("RGB", (320, 240), "white")
    draw = ImageDraw.Draw(image)
    for x in range(20, 300, 40):
        draw.rectangle(
            [x, 220 - rng.randrange(20, 200), x + 30, 220],
            fill=tuple(rng.randrange(256) for _ in range(3)),
        )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _database(folder: Path, samples: int, images: bool) -> Path:
    """The generated MM-Vet-style dataset (bench/big_data.py) answered by five models and
    scored by the offline rules, through `load` and `score_offline` (with `images`: one
    chart per sample)."""
    rng = random.Random(SEED)
    batch = ImportBatch(DATASET, KIND, SOURCE)
    batch.samples = generated_samples(samples)
    texts = answer_texts(samples)
    for i, sample in enumerate(batch.samples):
        if images:
            batch.add_image(sample.key, image_from_bytes(_png(rng), SOURCE, sample.key))
        for m, per_model in enumerate(texts):
            batch.answers.append(AnswerRecord(sample.key, f"model-{m}", per_model[i], SOURCE))
    db = folder / "review.db"
    with Store.open(db) as store:
        load(store, batch)
        list(score_offline(store))
    return db


def _probe(db: Path, *args: str) -> dict:
    """Run bench.tui_probe in a fresh process; its JSON, plus `launched_at` (wall clock)."""
    command = [sys.executable, "-m", "bench.tui_probe", str(db), *args]
    launched_at = time.time()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-800:])
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "launched_at": launched_at}


def _keys(ctx: Context) -> list[float]:
    """Key-to-screen timings in ms (one probe run per repetition, cached for p95)."""
    db = ctx.fixture(
        "review-20k-images.db", lambda folder: _database(folder, 20_000 // MODELS, True)
    )
    return _pressed(ctx, "20k-images", db)


def _pressed(ctx: Context, label: str, db: Path) -> list[float]:
    """The app's timings in ms of PRESSES presses of j on `db` (one probe run per
    repetition and database, which `label` names, shared by the benchmarks that read them)."""
    cache = ctx.fixture(f"key-timings-{label}-{ctx.repetition}", lambda _: {})
    if "ms" not in cache:
        cache["ms"] = [t * 1000 for t in _probe(db, "keys", str(PRESSES))["timings_s"]]
        if len(cache["ms"]) != PRESSES:
            raise AssertionError(f"{PRESSES} presses, but the app timed {len(cache['ms'])}")
    return cache["ms"]


@benchmark(name="key to next sample, 20,000 answers with images, p50", unit="ms", target=10)
def key_p50(ctx: Context) -> Measurement:
    """Pressing j: from the action to the next answer drawn, timed in the app (300 presses)."""
    return Measurement(statistics.median(_keys(ctx)))


@benchmark(name="key to next sample, 20,000 answers with images, p95", unit="ms", target=30)
def key_p95(ctx: Context) -> Measurement:
    """The 95th percentile of the same presses."""
    return _p95(_keys(ctx))


def _p95(timings_ms: list[float]) -> Measurement:
    """The 95th percentile (no interpolation), with the slowest press as an extra."""
    timings = sorted(timings_ms)
    return Measurement(timings[int(0.95 * (len(timings) - 1))], {"max_ms": timings[-1]})


def _generated(ctx: Context, answers: int) -> Path:
    """The generator's database of `answers` answers without images (bench/big_data.py
    writes the same rows in bulk), built once per run or copied from $LMMREVIEW_BENCH_CACHE."""
    cache = cache_folder(CACHE_VARIABLE)
    return ctx.fixture(
        f"review-{answers}.db",
        lambda folder: cached_copy(answers // MODELS, folder / "review.db", cache),
    )


def _open(ctx: Context, answers: int = 100_000) -> dict:
    db = _generated(ctx, answers)
    cache = ctx.fixture(f"open-{answers}-{ctx.repetition}", lambda _: {})
    if "result" not in cache:
        cache["result"] = _probe(db, "open")
        if cache["result"]["answers"] != answers:
            raise AssertionError(
                f"expected {answers:,} answers, the app has {cache['result']['answers']:,}"
            )
    return cache["result"]


def _first_screen(result: dict) -> Measurement:
    """`open_s` of a probe run, and the same moment counted from the process's launch."""
    from_launch = result["shown_at"] - result["launched_at"]  # interpreter and imports too
    return Measurement(result["open_s"], {"from_launch_s": from_launch})


@benchmark(name="open 100,000 answers to the first screen", unit="s", target=1.0)
def open_time(ctx: Context) -> Measurement:
    """From starting the app to the list and first answer on screen (in a fresh process)."""
    return _first_screen(_open(ctx))


@benchmark(name="memory with 100,000 answers open", unit="MB", target=300)
def open_memory(ctx: Context) -> Measurement:
    """Peak RSS of the process that opened them."""
    return Measurement(_open(ctx)["peak_rss_bytes"] / 1e6)


ScaleFunction = Callable[[Context, int], Measurement]


def _at_scales(
    name: str, unit: str, target: float, scales: tuple[int, ...] = SCALES
) -> Callable[[ScaleFunction], ScaleFunction]:
    """Register `function(ctx, answers)` once per scale, named `name` with its {answers}
    filled in ("1,000,000"): `--only 1,000,000` then picks the million figures alone."""

    def register(function: ScaleFunction) -> ScaleFunction:
        for answers in scales:
            benchmark(
                name=name.format(answers=f"{answers:,}"),
                unit=unit,
                target=target,
                description=(function.__doc__ or "").strip(),
            )(_bound(function, answers))
        return function

    return register


def _bound(function: ScaleFunction, answers: int) -> Callable[[Context], Measurement]:
    """`function` measuring at `answers` answers."""
    return lambda ctx: function(ctx, answers)


@_at_scales("open {answers} answers to the first screen", "s", 1.0, scales=(MILLION,))
def open_time_at_scale(ctx: Context, answers: int) -> Measurement:
    """From starting the app to the first answer on screen, at a million answers."""
    return _first_screen(_open(ctx, answers))


@_at_scales("tables ready with {answers} answers", "s", 2.0)
def tables_time(ctx: Context, answers: int) -> Measurement:
    """From starting the app to the tables computed (the same probe run as the first
    screen's)."""
    result = _open(ctx, answers)
    return Measurement(result["tables_s"], {"open_s": result["open_s"]})


@_at_scales("memory with {answers} answers open", "MB", 400, scales=(MILLION,))
def memory_at_scale(ctx: Context, answers: int) -> Measurement:
    """Peak RSS of the process that opened a million answers, tables included."""
    return Measurement(_open(ctx, answers)["peak_rss_bytes"] / 1e6)


@_at_scales("key to next sample, {answers} answers, p95", "ms", 16.7)
def key_p95_at_scale(ctx: Context, answers: int) -> Measurement:
    """Pressing j on the generated database without images: p95 of 300 presses (one
    frame at 60 Hz); the median as an extra."""
    timings = _pressed(ctx, f"{answers}", _generated(ctx, answers))
    p95 = _p95(timings)
    return Measurement(p95.value, {**p95.extra, "p50_ms": statistics.median(timings)})
