"""Review screen benchmarks, measured inside the app (see bench/tui_probe.py).

Targets (DESIGN.md): key press to the next sample on screen, 20,000 answers with
images, p50 <= 10 ms and p95 <= 30 ms; opening 100,000 answers to the first
interactive screen <= 1 s; memory with them open <= 300 MB RSS.
"""

from __future__ import annotations

import io
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw

from bench.harness import Context, Measurement, benchmark
from lmmreview.db import Store
from lmmreview.db.importers import ImportBatch, load
from lmmreview.db.importers.batch import AnswerRecord
from lmmreview.db.importers.read import image_from_bytes
from lmmreview.db.scoring import score_offline
from lmmreview.engine.types import QuestionType, Sample

REPO = Path(__file__).resolve().parent.parent
MODELS = 5
PRESSES = 300


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
    """An MM-Vet-style dataset answered by five models and scored by the offline rules."""
    rng = random.Random(5)
    batch = ImportBatch("bench", "mmvet", "generated")
    for i in range(samples):
        key = f"v1_{i}"
        batch.samples.append(
            Sample(
                key,
                f"What is shown in chart {i}?",
                QuestionType.OPEN,
                str(i % 50),
                axes={"capability": ("ocr",)},
            )
        )
        if images:
            batch.add_image(key, image_from_bytes(_png(rng), "generated", key))
        for m in range(MODELS):
            text = f"The chart shows {rng.randrange(50)} bars. " * rng.randrange(1, 8)
            batch.answers.append(AnswerRecord(key, f"model-{m}", text, "generated"))
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
    cache = ctx.fixture(f"key-timings-{ctx.repetition}", lambda _: {})
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
    timings = sorted(_keys(ctx))
    return Measurement(timings[int(0.95 * (len(timings) - 1))], {"max_ms": timings[-1]})


def _open(ctx: Context) -> dict:
    db = ctx.fixture("review-100k.db", lambda folder: _database(folder, 100_000 // MODELS, False))
    cache = ctx.fixture(f"open-{ctx.repetition}", lambda _: {})
    if "result" not in cache:
        cache["result"] = _probe(db, "open")
        if cache["result"]["answers"] != 100_000:
            raise AssertionError(
                f"expected 100,000 answers, the app has {cache['result']['answers']}"
            )
    return cache["result"]


@benchmark(name="open 100,000 answers to the first screen", unit="s", target=1.0)
def open_time(ctx: Context) -> Measurement:
    """From starting the app to the list and first answer on screen (in a fresh process)."""
    result = _open(ctx)
    from_launch = result["shown_at"] - result["launched_at"]  # interpreter and imports too
    return Measurement(result["open_s"], {"from_launch_s": from_launch})


@benchmark(name="memory with 100,000 answers open", unit="MB", target=300)
def open_memory(ctx: Context) -> Measurement:
    """Peak RSS of the process that opened them."""
    return Measurement(_open(ctx)["peak_rss_bytes"] / 1e6)
