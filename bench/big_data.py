"""The scale input: an MM-Vet-style review database of up to a million answers, written fast.

`write_database(path, samples)` makes what bench/benchmarks_tui.py's generator (`_database`
without images: `load` of an ImportBatch, then `score_offline`, i.e. `lmmreview import` and
`lmmreview score`) makes for the same number of samples: the same tables, rows and ids (only
the `created_at` stamps differ; tests/test_scale.py compares both ways). It goes through the
store's own bulk inserts in one transaction and skips what the import checks and the score
summary cost; the offline rules grade each distinct (gold, answer text) pair once, since the
open-answer rules read nothing else (`engine.offline.open_judgment`). 200,000 samples (1,000,000
answers) take well under a minute instead of several.

`cached_copy` keeps a built database in a cache folder (the benchmarks' $LMMREVIEW_BENCH_CACHE,
the tests' $LMMREVIEW_TEST_CACHE) under a name that holds the generator's and the schema's
version, and hands out copies: whoever opens a copy may write to it.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from itertools import repeat
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.schema import SCHEMA_VERSION
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import QuestionType, Sample

GENERATOR_VERSION = 1  # bump when the generated rows change, so cached files are rebuilt
DATASET, KIND, SOURCE = "bench", "mmvet", "generated"
MODELS = 5
SEED = 5  # the seed of bench/benchmarks_tui.py's generator, whose data this is
GOLDS = 50  # sample i has the gold i mod 50; an answer names up to 49 bars
MILLION_SAMPLES = 1_000_000 // MODELS


def generated_samples(count: int) -> list[Sample]:
    """Samples v1_0, v1_1, ...: one question each, the capability `ocr`, gold i mod 50."""
    return [
        Sample(
            f"v1_{i}",
            f"What is shown in chart {i}?",
            QuestionType.OPEN,
            str(i % GOLDS),
            axes={"capability": ("ocr",)},
        )
        for i in range(count)
    ]


def answer_texts(count: int) -> list[list[str]]:
    """Each model's answer per sample, drawn in the generator's order (sample by sample,
    model by model, two draws each); the 350 distinct texts are shared, not rebuilt."""
    rng = random.Random(SEED)
    phrases = [[f"The chart shows {n} bars. " * times for times in range(8)] for n in range(GOLDS)]
    texts: list[list[str]] = [[] for _ in range(MODELS)]
    for _ in range(count):
        for per_model in texts:
            bars = rng.randrange(GOLDS)
            per_model.append(phrases[bars][rng.randrange(1, 8)])
    return texts


def write_database(path: Path, samples: int) -> Path:
    """Write the generated dataset of `samples` samples x 5 models, scored offline, to a
    new database at `path`, in the order `load` and `score_offline` write it."""
    questions = generated_samples(samples)
    texts = answer_texts(samples)
    with Store.open(path) as store, store.transaction():
        dataset = store.dataset_id(DATASET, KIND, SOURCE)
        ids = store.upsert_samples(dataset, questions)
        sample_ids = [ids[s.key] for s in questions]
        for model, per_model in enumerate(texts):
            model_id = store.model_id(f"model-{model}")
            store.add_answers(model_id, zip(sample_ids, per_model, repeat(SOURCE), strict=False))
        ((_, benchmark),) = store.datasets([DATASET])
        store.add_judgments(_offline_judgments(store, benchmark, questions))
    return path


def _offline_judgments(
    store: Store, benchmark: Benchmark, samples: list[Sample]
) -> Iterator[tuple[int, Judgment]]:
    """(answer id, judgment) of the offline rules for every answer they grade, in answer
    order as `score_offline` adds them; one grading per distinct (golds, text)."""
    by_key = {s.key: s for s in samples}
    graded: dict[tuple[tuple[str, ...], str], Judgment | None] = {}
    for answer_id, _, key, text in store.answer_rows(DATASET):
        sample = by_key[key]
        pair = (tuple(sample.golds), text)
        if pair not in graded:
            graded[pair] = benchmark.offline(sample, text)
        judgment = graded[pair]
        if judgment is not None:
            yield answer_id, judgment


def cache_name(samples: int) -> str:
    """The file name of a cached database: the size and both versions it was built with."""
    return f"review-mmvet-{samples}-samples-g{GENERATOR_VERSION}-s{SCHEMA_VERSION}.db"


def cached_copy(samples: int, target: Path, cache: Path | None) -> Path:
    """A fresh database of `samples` samples at `target`: copied from `cache` (built there
    first if absent), else built."""
    return cached_build(
        cache_name(samples), lambda path: write_database(path, samples), target, cache
    )


def cached_build(
    name: str, build: Callable[[Path], object], target: Path, cache: Path | None
) -> Path:
    """A fresh copy at `target` of the file `build(path)` writes, kept in `cache` under
    `name` (built there first if absent; the finished file appears under its name at
    once); without a cache, built at `target`."""
    if cache is None:
        build(target)
        return target
    cache.mkdir(parents=True, exist_ok=True)
    cached = cache / name
    if not cached.exists():
        # Built beside its final name and renamed: an interrupted build leaves no file
        # that a later run would take for a finished one.
        handle, temporary = tempfile.mkstemp(prefix=".building-", suffix=".db", dir=cache)
        os.close(handle)
        os.unlink(temporary)  # the builder creates its own file
        try:
            build(Path(temporary))
            os.replace(temporary, cached)
        finally:
            Path(temporary).unlink(missing_ok=True)
    shutil.copyfile(cached, target)
    return target


def cache_folder(variable: str) -> Path | None:
    """The cache folder an environment variable names, if it names one."""
    value = os.environ.get(variable, "").strip()
    return Path(value).expanduser() if value else None
