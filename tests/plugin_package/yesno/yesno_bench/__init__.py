"""Yes/no questions: one table overall and one by topic; an answer is right when its
first word is the gold's yes or no."""

from __future__ import annotations

import re
from collections import Counter

from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.layouts import by_count, columns
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import Sample

TOPIC = "topic"


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


YESNO = YesNo()
