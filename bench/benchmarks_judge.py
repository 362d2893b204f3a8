"""Judge throughput: 2,000 calls to an OpenAI-compatible server answering in 100 ms.

Target (DESIGN.md): at concurrency 32 the ceiling is 32 / 0.1 s = 320 calls/s; the runner
must reach 70 % of it (224 calls/s), every result claimed and stored as it lands. The
fake server runs in its own process, so it does not share the runner's interpreter.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.harness import Context, Measurement, benchmark, timed
from lmmreview.db import Store
from lmmreview.db.importers import ImportBatch, load
from lmmreview.db.importers.batch import AnswerRecord
from lmmreview.db.judging import JudgeStore
from lmmreview.engine.llm import OpenAIChat
from lmmreview.engine.runner import Runner, RunnerSettings
from lmmreview.engine.types import QuestionType, Sample

CALLS, CONCURRENCY, LATENCY = 2_000, 32, 0.1
LIMIT = CONCURRENCY / LATENCY


def _database(folder: Path) -> Path:
    """400 open questions answered by 5 models: 2,000 items for one judge run."""
    batch = ImportBatch("bench", "generic", "generated")
    for i in range(CALLS // 5):
        batch.samples.append(Sample(f"q{i}", f"What is {i} + 1?", QuestionType.OPEN, str(i + 1)))
        for m in range(5):
            batch.answers.append(AnswerRecord(f"q{i}", f"model-{m}", f"It is {i + m}.", "gen"))
    db = folder / "judge.db"
    with Store.open(db) as store:
        load(store, batch)
    return db


@contextmanager
def _fake_server() -> Iterator[str]:
    command = [sys.executable, "-m", "bench.fake_judge", "--port", "0", "--latency", str(LATENCY)]
    cwd = Path(__file__).resolve().parent.parent
    server = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True)
    try:
        yield (server.stdout.readline() if server.stdout else "").strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


@benchmark(name=f"judge {CALLS:,} calls, 100 ms server, concurrency {CONCURRENCY}", unit="calls/s",
           target=0.7 * LIMIT, lower_is_better=False)  # fmt: skip
def judge_throughput(ctx: Context) -> Measurement:
    """Requests per second through the runner, claims and storage included."""
    template = ctx.fixture("judge-2000.db", _database)
    db = ctx.scratch / "judge.db"
    shutil.copy(template, db)
    with _fake_server() as base_url, Store.open(db) as store:
        storage = JudgeStore(store, "bench-judge")
        plan = storage.plan(1)
        settings = RunnerSettings("bench-judge", concurrency=CONCURRENCY)

        client = OpenAIChat(api_key="bench", base_url=base_url, timeout=30)  # imports openai

        async def main() -> int:
            try:
                return (await Runner(client, storage, settings).run(plan.chains)).requests
            finally:
                await client.close()

        with timed() as clock:
            requests = asyncio.run(main())
    if requests != CALLS:
        raise AssertionError(f"expected {CALLS} requests, made {requests}")
    rate = requests / clock.seconds
    return Measurement(rate, {"ratio_to_limit": rate / LIMIT, "seconds": clock.seconds})
