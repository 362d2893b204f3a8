"""Any benchmark in lmmreview's JSONL format: open answers scored like MM-Vet, multiple
choice extracted like MMBench, an overall table and one table per tag."""

from __future__ import annotations

from collections import Counter

from lmmreview.engine.benchmark import (
    Benchmark,
    Cells,
    Importer,
    JudgeWork,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.benchmarks import REPLACE
from lmmreview.engine.benchmarks.mmbench.benchmark import EXTRACTION
from lmmreview.engine.benchmarks.mmvet.benchmark import GRADING
from lmmreview.engine.offline import choice_judgment, open_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import by_count, columns
from lmmreview.engine.types import QuestionType, Sample


class Generic(Benchmark):
    name = "generic"
    title = "JSONL"
    axis_prefix = "tag:"  # free tags are filtered apart from split and question type
    importer = Importer(
        "jsonl",
        "Any benchmark, in lmmreview's JSONL format.\n\n"
        "Sample lines and answer lines; the README documents the fields.",
        Option("file", "FILE", "lmmreview JSONL: sample lines and/or answer lines.", required=True),
        (
            Option(
                "model",
                "NAME",
                "Model name for lines without a 'model' field (default: the file's name "
                "without its extension).",
                text=True,
            ),
        ),
        command="jsonl",
        demo="jsonl-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "inspect",
            "Any benchmark: an Inspect AI .eval log.\n\n"
            "Read through inspect_ai's own API (the extra lmmreview[inspect]): each sample "
            "(each epoch: 'ID epoch N' after the first) with its input text as the "
            "question, its input images, its target "
            "as the gold and its choices as options; output.completion as the model's "
            "answer; every scorer's scores as imported judgments of a judge named after the "
            "scorer (C 1, P 0.5, I and N 0, numbers in [0, 1] as they are; any other value "
            "is kept unscored). `export --format inspect` writes the verdicts back.",
            Option("log", "LOG.eval", "The Inspect AI log (.eval or .json).", required=True),
            (
                Option("model", "NAME", "Model name (default: the log's model).", text=True),
                REPLACE,
            ),
            command="inspect",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        types = Counter(s.question_type.value for s in samples)
        overall = TableSpec(
            f"{dataset}.overall",
            f"{dataset}: overall",
            columns([("overall", "Overall"), *((t, t) for t in sorted(types) if len(types) > 1)]),
        )
        tags: dict[str, Counter[str]] = {}
        for s, count in zip(samples, counts, strict=True):
            for name, values in s.axes.items():
                for value in values:
                    tags.setdefault(name, Counter())[value] += count
        tag_tables = {
            name: TableSpec(
                f"{dataset}.{name}", f"{dataset}: by {name}", columns((v, v) for v in by_count(c))
            )
            for name, c in sorted(tags.items())
        }
        units_of = {}
        for s in samples:
            cells: Cells = ((overall.name, "overall"),)
            if len(types) > 1:
                cells += ((overall.name, s.question_type.value),)
            for name, values in s.axes.items():
                cells += tuple((tag_tables[name].name, v) for v in values)
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return [overall, *tag_tables.values()], units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if sample.question_type is QuestionType.CHOICE:
            return choice_judgment(sample, answer)
        return open_judgment(sample, answer)

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        if sample.question_type is QuestionType.CHOICE:
            return EXTRACTION
        return GRADING if sample.golds else None

    def prompt_variant(self, name: str) -> JudgeWork:
        return GRADING.variant(name)  # open answers are graded as MM-Vet grades them


GENERIC = Generic()
