"""OCRBench v2: a score in [0, 1] per item by the official rule of its type (no judge;
v2_rules.TYPES); the mean score per type, and get_score.py's capability means and overall
scores, in English and in Chinese."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from lmmreview.engine.benchmark import Benchmark, Cells, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.benchmarks import LMMS_EVAL_OPTIONS, MODEL_FROM_FILE_NAME
from lmmreview.engine.benchmarks.ocrbench import v2_kie as kie
from lmmreview.engine.benchmarks.ocrbench import v2_parsing as parsing
from lmmreview.engine.benchmarks.ocrbench import v2_position as position
from lmmreview.engine.benchmarks.ocrbench import v2_rules as rules
from lmmreview.engine.benchmarks.ocrbench import v2_spotting as spotting
from lmmreview.engine.benchmarks.ocrbench import v2_text as text
from lmmreview.engine.benchmarks.ocrbench.benchmark import type_of
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import Column, columns
from lmmreview.engine.types import Sample

EVAL = "eval"  # the sample's `eval` (an extra field), when the item has one
BOX = "bbox"  # a VQA-with-position sample's gold box (an extra field, position.box_text)
OVERALL = "overall"  # the mean of a language's capability means (get_score.py's)
TITLES = {
    "text_recognition": "Text Recognition",
    "text_detection": "Text Detection",
    "text_spotting": "Text Spotting",
    "relationship_extraction": "Relationship Extraction",
    "element_parsing": "Element Parsing",
    "mathematical_calculation": "Mathematical Calculation",
    "visual_text_understanding": "Visual Text Understanding",
    "knowledge_reasoning": "Knowledge Reasoning",
    "cn_text_recognition": "Text Recognition",
    "cn_relationship_extraction": "Relationship Extraction",
    "cn_element_parsing": "Element Parsing",
    "cn_visual_text_understanding": "Visual Text Understanding",
    "cn_knowledge_reasoning": "Knowledge Reasoning",
}
LANGUAGES = (("english", "English", rules.ENGLISH), ("chinese", "Chinese", rules.CHINESE))


def eval_of(sample: Sample) -> str | None:
    method = sample.extra.get(EVAL)
    return method if isinstance(method, str) else None


def _language_table(
    dataset: str, language: tuple[str, str, dict[str, tuple[str, ...]]], found: set[str]
) -> TableSpec:
    """A language's capability means and their mean, the overall score (of those with
    items, as get_score.py averages them); no columns when it has none."""
    key, title, capabilities = language
    name = f"{dataset}.{key}"
    present = [c for c in capabilities if c in found]
    overall = Column(OVERALL, "Overall", tuple((name, c) for c in present), formula=_mean)
    table = [Column(c, TITLES[c]) for c in present] + ([overall] if present else [])
    return TableSpec(name, f"OCRBench v2 {title}: mean score per capability (%)", table)


def _mean(*values: float) -> float:
    return sum(values) / len(values)


def box_of(sample: Sample) -> position.Box:
    return position.read_box(str(sample.extra[BOX]))


# Every rule of an answer and its golds, by name (rules.rule_of); VQA with position also
# reads the sample's gold box.
RULES: dict[str, rules.Rule] = {
    **rules.RULES, "IoU": position.text_grounding, "text similarity": text.page_text,
    "handwritten essay": text.essay, "handwritten letters": text.letters, "key F1": kie.key_f1,
    "HTML table": parsing.html_table, "markdown table": parsing.markdown_table,
    "chart": parsing.chart, "document": parsing.steds, "spotting": spotting.text_spotting,
}  # fmt: skip
WITH_POSITION = "VQA with position"
# The rules that need libraries of the extra lmmreview[ocrbench-v2], with what says what
# of them is missing.
NEED_EXTRA: dict[str, Callable[[], str | None]] = {
    "text similarity": text.missing, "handwritten essay": text.missing,
    **dict.fromkeys(("HTML table", "markdown table", "chart", "document"), parsing.missing),
}  # fmt: skip


def rule_of(sample: Sample) -> str:
    return rules.rule_of(type_of(sample), eval_of(sample), sample.question)


def score(rule: str, sample: Sample, answer: str) -> float:
    """The answer's score by the named rule."""
    if rule == WITH_POSITION:
        return position.vqa_with_position(answer, sample.golds, box_of(sample))
    return RULES[rule](answer, sample.golds)


@lru_cache(maxsize=64)  # scores repeat (0, 1, 0.5) rule by rule; the Judgment is frozen
def _judged(score: float, rule: str) -> Judgment:
    return rules_judgment(score, rule, f"{score:.4g} by the official {rule} rule")


class OCRBenchV2(Benchmark):
    name = "ocrbench-v2"
    official_rules = True
    title = "OCRBench v2"
    importer = Importer(
        "ocrbench-v2",
        "OCRBench v2: the official results file.\n\n"
        "The JSON list eval.py reads: OCRBench_v2.json's items (dataset_name, type, id, "
        "image_path, question, answers and, where the type has them, eval, bbox, content), "
        "each with the model's `predict`, scored by the official rule of each of the 30 "
        "types (the text-similarity and parsing ones need the extra lmmreview[ocrbench-v2]: "
        "docs/benchmarks/ocrbench.md).",
        Option("results", "FILE", "The results JSON (items with predict).", required=True),
        (
            Option("model", "NAME", "Model name (default: the file's name).", text=True),
            Option("images", "FOLDER", "The folder image_path is relative to."),
        ),
        demo="ocrbench-v2-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "ocrbench-v2-lmms-eval",
            "OCRBench v2: lmms-eval --log_samples JSONL.\n\n"
            "The lines of the task ocrbench_v2 (v0.5 to v0.7): each line's metric "
            "ocrbench_v2_accuracy (question type, prediction, golds, lmms-eval's score, "
            "imported as its judgment), keyed by doc_id (docs/benchmarks/ocrbench.md).",
            Option("samples", "JSONL", "*_samples_ocrbench_v2.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="ocrbench-v2-lmms-eval",
        ),
        Importer(
            "ocrbench-v2-vlmevalkit",
            "OCRBench v2: VLMEvalKit prediction workbook.\n\n"
            "{model}_OCRBench_v2.xlsx (or _MINI; .tsv, .json): index, category (the type), "
            "question, answer (a list), eval, bbox, content and prediction, into the dataset "
            "of the file's name unless --dataset, keyed by index; VLMEvalKit writes no "
            "verdicts, the official rules score the answers.",
            Option("file", "FILE", "Prediction workbook.", required=True),
            (MODEL_FROM_FILE_NAME,),
            command="ocrbench-v2-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        present = {type_of(s) for s in samples}
        types = TableSpec(
            f"{dataset}.types",
            "OCRBench v2: mean score per type (%)",
            columns((t, t) for t in rules.TYPES if t in present),
        )
        found = {rules.CAPABILITY_OF[t] for t in present}
        specs = [types, *(_language_table(dataset, language, found) for language in LANGUAGES)]
        table_of = {c: spec.name for spec in specs[1:] for c in (col.key for col in spec.columns)}
        units_of = {}
        for s in samples:
            capability = rules.CAPABILITY_OF[type_of(s)]
            cells: Cells = ((types.name, type_of(s)), (table_of[capability], capability))
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return [spec for spec in specs if spec.columns], units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if not self.offline_applies(sample, answer):
            return None  # no gold, or the extra is not installed (the import says so)
        rule = rule_of(sample)
        return _judged(score(rule, sample, answer), rule)

    def offline_applies(self, sample: Sample, answer: str) -> bool:
        return sample.answer is not None and not self.offline_lacks(sample)

    def offline_lacks(self, sample: Sample) -> str | None:
        missing = NEED_EXTRA.get(rule_of(sample))
        return missing() if missing else None

    def facts(self, sample: Sample) -> list[str]:
        method = eval_of(sample)
        return [*super().facts(sample), *([method] if method else [])]


OCRBENCH_V2 = OCRBenchV2()
