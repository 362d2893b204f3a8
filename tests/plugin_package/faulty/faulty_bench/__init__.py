"""Yes/no questions whose methods fail as $FAULTY says; with $FAULTY unset, they work."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from lmmreview.engine.benchmark import (
    Benchmark,
    ExportFormat,
    Importer,
    JudgeItem,
    JudgeWork,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.layouts import columns
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.types import Sample


def fault() -> str:
    return os.environ.get("FAULTY", "")


class Faulty(Benchmark):
    name = "faulty"
    title = "Faulty"
    importer = Importer(
        "faulty",
        "A JSON list of [id, question, answer, prediction].",
        Option("questions", "FILE", "The JSON file.", required=True),
        demo="faulty-ghost-demo" if fault() == "demo-undeclared" else "",
    )
    exports = (
        ExportFormat(
            "csv" if fault() == "format-csv" else "faulty-sheet",
            "Faulty: one text file per dataset",
            "faulty-ghost" if fault() == "writer-undeclared" else "faulty-sheet",
        ),
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
        rule = "most" if fault() == "tables-rule" else "all"
        units = {s.key: [Unit(s.key, ((overall.name, column),), (s.key,), rule)] for s in samples}
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

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        return Work() if fault().startswith("judge-") else None


class Work(JudgeWork):
    """Asks the judge the question; its prompt or its reading of the reply fails."""

    def prompt_version(self) -> str:
        return "faulty-1"

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        if fault() == "judge-ladder-exit":
            raise SystemExit(0)
        return [Call(model, (("user", item.question),), 0.0, 16)]

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        return Judgment(run=item.run, score=5.0, method="llm", kind="llm", judge_model=call.model)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        return Judgment(
            run=item.run, score=None, status=Status.ERROR, kind="llm", judge_model=model
        )


FAULTY = Faulty()
