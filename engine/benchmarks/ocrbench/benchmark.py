"""OCRBench (v1): open answers matched to their golds by the official rule (no judge); the
official report's counts of right answers per question type, of their totals (the six
recognition types summed as Text Recognition, every type as the Final Score), and its
accuracy per source dataset."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from lmmreview.engine.axis_tables import axis_cells, axis_tables
from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.benchmarks import LMMS_EVAL_OPTIONS, MODEL_FROM_FILE_NAME
from lmmreview.engine.benchmarks.ocrbench import rules
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

# The sample's axes: its question type and its source dataset (which picks the rule); its
# image's path is an extra field.
TYPE, DATASET = "type", "dataset"
IMAGE = "image_path"
# The source datasets in OCRBench.json's order (the per-dataset table's columns).
DATASETS = (
    "IIIT5K", "svt", "IC13_857", "IC15_1811", "svtp", "ct80", "cocotext", "ctw", "totaltext",
    "WordArt", "IAM", "ORAND", "NonSemanticText", "STVQA", "textVQA", "ESTVQA", "ocrVQA",
    "docVQA", "ChartQA", "ChartQA_Human", "infographicVQA", "SROIE", "FUNSD", "POIE",
    rules.HANDWRITTEN_MATH,
)  # fmt: skip
RECOGNITION_TOTAL, FINAL = "Text Recognition", "Final Score"
# The paper's short titles of the two longest types (the rest keep their names).
SHORT = {
    "Key Information Extraction": "KIE",
    "Handwritten Mathematical Expression Recognition": "HMER",
}


def type_of(sample: Sample) -> str:
    return sample.first(TYPE) or ""


def dataset_of(sample: Sample) -> str:
    return sample.first(DATASET) or ""


def _dataset_order(_axis: str, found: Counter[str]) -> list[str]:
    """OCRBench.json's order, then any other dataset (the full test's) by count."""
    known = [name for name in DATASETS if name in found]
    return known + sorted((n for n in found if n not in DATASETS), key=lambda n: (-found[n], n))


def _of(title: str, total: int) -> str:
    return f"{title} (of {total})"


def _specs(dataset: str, totals: Counter[str]) -> tuple[list[TableSpec], dict[str, str]]:
    """The report's tables (counts per type, the recognition types in a table of their own)
    and the table each type's count is in."""
    scores, detail = f"{dataset}.scores", f"{dataset}.recognition"
    table_of = {t: detail if t in rules.RECOGNITION else scores for t in rules.TYPES}
    present = [t for t in rules.TYPES if totals[t]]
    counted = {t: Column(t, _of(SHORT.get(t, t), totals[t]), count=True) for t in present}
    recognition = [t for t in present if t in rules.RECOGNITION]
    columns = []
    if recognition:
        parts = tuple((detail, t) for t in recognition)
        total = sum(totals[t] for t in recognition)
        columns.append(Column(RECOGNITION_TOTAL, _of(RECOGNITION_TOTAL, total), parts))
    columns += [counted[t] for t in present if t not in rules.RECOGNITION]
    every = tuple((table_of[t], t) for t in present)
    columns.append(Column(FINAL, _of(FINAL, sum(totals.values())), every))
    specs = [TableSpec(scores, "OCRBench: right answers per question type", columns)]
    if recognition:
        title = "OCRBench: Text Recognition in detail"
        specs.append(TableSpec(detail, title, [counted[t] for t in recognition]))
    return specs, table_of


@lru_cache(maxsize=8)  # few kinds: (right, rule); the Judgment is frozen
def _judged(right: bool, handwritten_math: bool) -> Judgment:
    rule = "the handwritten-math rule" if handwritten_math else "the general rule"
    found = "a gold occurs in the answer" if right else "no gold occurs in the answer"
    return rules_judgment(1.0 if right else 0.0, "substring", f"{found} ({rule})")


class OCRBench(Benchmark):
    name = "ocrbench"
    official_rules = True
    title = "OCRBench"
    importer = Importer(
        "ocrbench",
        "OCRBench: the official results file.\n\n"
        "The JSON list example.py writes: OCRBench.json's items (dataset_name, id, "
        "image_path, question, answers, type), each with the model's `predict` (an item "
        "without one counts 0, as the official report counts it).",
        Option(
            "results",
            "FILE",
            "The results JSON (OCRBench.json's items with predict).",
            required=True,
        ),
        (
            Option("model", "NAME", "Model name (default: the file's name).", text=True),
            Option("images", "FOLDER", "The folder image_path is relative to (OCRBench_Images/)."),
        ),
        demo="ocrbench-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "ocrbench-lmms-eval",
            "OCRBench: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the task ocrbench: each line's metric "
            "ocrbench_accuracy (question type, prediction, golds, lmms-eval's score, imported "
            "as its judgment beside the official rule's: docs/benchmarks/ocrbench.md).",
            Option("samples", "JSONL", "*_samples_ocrbench.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="ocrbench-lmms-eval",
        ),
        Importer(
            "ocrbench-vlmevalkit",
            "OCRBench: VLMEvalKit prediction workbook.\n\n"
            "{model}_OCRBench.xlsx (or .tsv, .json): index, question, answer (a list), "
            "category (the question type) and prediction; VLMEvalKit writes no verdicts.",
            Option("file", "FILE", "Prediction workbook.", required=True),
            (MODEL_FROM_FILE_NAME,),
            command="ocrbench-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        totals: Counter[str] = Counter()
        for sample, count in zip(samples, counts, strict=True):
            totals[type_of(sample)] += count
        specs, table_of = _specs(dataset, totals)
        datasets = axis_tables(
            dataset, self.title, samples, counts, [(DATASET, "accuracy per dataset")],
            _dataset_order,
        )  # fmt: skip
        units_of = {}
        for s in samples:
            cells = ((table_of[type_of(s)], type_of(s)), *axis_cells(datasets, s))
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return [*specs, *(spec for _, spec in datasets)], units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if sample.answer is None:
            return None
        source = dataset_of(sample)
        right = rules.is_right(answer, sample.golds, source)
        return _judged(right, source == rules.HANDWRITTEN_MATH)

    def facts(self, sample: Sample) -> list[str]:
        rule = "handwritten-math rule" if dataset_of(sample) == rules.HANDWRITTEN_MATH else ""
        return [*super().facts(sample), *([rule] if rule else [])]


OCRBENCH = OCRBench()
