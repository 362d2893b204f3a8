"""Yes/no questions whose methods fail as $FAULTY says; with $FAULTY unset, they work."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.layouts import columns
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import Sample


def fault() -> str:
    return os.environ.get("FAULTY", "")


class Faulty(Benchmark):
    name = "faulty"
    title = "Faulty"
    importer = Importer(
        "faulty_bench.reader:read",
        "A JSON list of [id, question, answer, prediction].",
        Option("questions", "FILE", "The JSON file.", required=True),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        if fault() == "tables-exit":
            raise SystemExit(0)
        if fault() == "tables-interrupt":
            raise KeyboardInterrupt
        if fault() == "tables-hang":  # until the user's Ctrl-C
            Path(os.environ["FAULTY_MARKER"]).touch()
            threading.Event().wait()
        if fault() == "tables-key":
            raise RuntimeError(f"cannot reach {os.environ['OPENAI_API_KEY']}")
        overall = TableSpec(f"{dataset}.overall", "overall", columns([("overall", "Overall")]))
        column = "elsewhere" if fault() == "tables-lost" else "overall"
        units = {s.key: [Unit(s.key, ((overall.name, column),), (s.key,))] for s in samples}
        return [overall], units

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if fault() == "offline-generator":
            raise GeneratorExit
        score = {"score-2": 2.0, "score-nan": float("nan")}.get(fault())
        if score is not None:
            return rules_judgment(score, "faulty", "out of range")
        choice = "Z" if fault() == "choice-z" else None
        right = answer.strip().lower() == (sample.answer or "").lower()
        return rules_judgment(float(right), "faulty", "equal", choice=choice)


FAULTY = Faulty()
