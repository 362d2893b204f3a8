"""Yes/no questions: one table overall and one by topic; an answer is right when its
first word is the gold's yes or no (offline), or as an LLM judge grades it, with its
reference prompt or the "strict" variant. Its own official format, yesno-sheet, is one
CSV per dataset (yesno_bench.sheet)."""

from __future__ import annotations

import re
from collections import Counter

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
from lmmreview.engine.judging import failed, llm_judgment
from lmmreview.engine.layouts import by_count, columns
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.types import Sample

TOPIC = "topic"
STRICT = "Strictly: "  # what the strict variant's prompt starts with


class Agreement(JudgeWork):
    """An LLM grades whether the answer agrees with the gold, from 0 to 1."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict

    def prompt_version(self) -> str:
        return "yesno-1+strict" if self.strict else "yesno-1"  # a variant after "+"

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        prompt = (
            f"{STRICT if self.strict else ''}does the answer {item.prediction!r} to the "
            f"question {item.question!r} agree with {item.golds[0]!r}? Reply with a number "
            "from 0 to 1."
        )
        return [Call(model, (("user", prompt),), 0.0, 8)]

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        try:
            score = float(reply.text.strip())
        except ValueError:
            return None
        return llm_judgment(item, call, reply, score) if 0.0 <= score <= 1.0 else None

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        return failed(item, model, "no number from 0 to 1", last_reply, Status.UNPARSEABLE)


AGREEMENT = Agreement()


class YesNo(Benchmark):
    name = "yesno"
    title = "Yes/No"
    importer = Importer(
        "yesno",
        "Yes/no questions: a CSV of id, question, answer, topic.\n\n"
        "Answers, if any, are a CSV of id, prediction.",
        Option(
            "questions", "FILE", "CSV with the columns id, question, answer, topic.", required=True
        ),
        (
            Option("answers", "FILE", "CSV with the columns id, prediction."),
            Option("model", "NAME", "The model that gave --answers.", text=True),
        ),
    )
    exports = (
        ExportFormat(
            "yesno-sheet", "Yes/No: one CSV of id, model and score per dataset", "yesno-sheet"
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        overall = TableSpec(
            f"{dataset}.overall", f"{dataset}: overall", columns([("overall", "Overall")])
        )
        topics: Counter[str] = Counter()
        for s, count in zip(samples, counts, strict=True):  # each stands for `count` alike
            topics[s.first(TOPIC) or ""] += count
        by_topic = TableSpec(
            f"{dataset}.topics", f"{dataset}: by topic", columns((t, t) for t in by_count(topics))
        )
        units_of = {
            s.key: [
                Unit(
                    s.key,
                    ((overall.name, "overall"), (by_topic.name, s.first(TOPIC) or "")),
                    (s.key,),
                )
            ]
            for s in samples
        }
        return [overall, by_topic], units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        words = re.findall(r"[a-z]+", answer.lower())
        said = words[0] if words and words[0] in ("yes", "no") else None
        if sample.answer is None or said is None:
            return None
        return rules_judgment(float(said == sample.answer), "yesno", f"first word {said}")

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        return AGREEMENT

    def prompt_variant(self, name: str) -> JudgeWork:
        if name != "strict":
            raise ValueError(f"Yes/No has no prompt variant {name!r}: it has strict")
        return Agreement(strict=True)


YESNO = YesNo()
