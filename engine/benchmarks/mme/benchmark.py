"""MME: two yes/no questions per image, read by the official rule (no judge); the paper's
Perception and Cognition tables of subtask scores (acc + acc+, summed), and acc and acc+
per subtask, acc+ counting each image's pair once, right when both questions are."""

from __future__ import annotations

from functools import lru_cache

from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.benchmarks import (
    JUDGE_FROM_FILE_NAME,
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mme import rules
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

# The sample's fields: its subtask (an axis); its image, its pair (the subtask and the
# pair's place in the subtask's file) and its place in the pair, 1 or 2 (extra fields).
SUBTASK = "subtask"
IMAGE, PAIR, ORDER = "image", "pair", "order"
# The paper's names of the subtasks, in its order.
TITLES = {
    "existence": "Existence", "count": "Count", "position": "Position", "color": "Color",
    "posters": "Poster", "celebrity": "Celebrity", "scene": "Scene", "landmark": "Landmark",
    "artwork": "Artwork", "OCR": "OCR", "commonsense_reasoning": "Commonsense Reasoning",
    "numerical_calculation": "Numerical Calculation", "text_translation": "Text Translation",
    "code_reasoning": "Code Reasoning",
}  # fmt: skip
SUBTASK_MAXIMUM = 200  # acc + acc+, each at most 100
ACC, ACC_PLUS = "acc", "acc+"


def subtask_of(sample: Sample) -> str:
    return sample.first(SUBTASK) or ""


def _part(subtask: str, measure: str) -> str:
    """The acc or acc+ column of a subtask."""
    return f"{subtask} {measure}"


class _Names:
    """A dataset's table names."""

    def __init__(self, dataset: str) -> None:
        self.totals = {key: f"{dataset}.{key}" for key, _, _ in rules.GROUPS}
        self.subtasks = f"{dataset}.subtasks"

    def score(self, subtask: str) -> tuple[tuple[str, str], ...]:
        """The cells whose sum is a subtask's score: its acc and its acc+."""
        return tuple((self.subtasks, _part(subtask, m)) for m in (ACC, ACC_PLUS))


def _specs(names: _Names, present: list[str]) -> list[TableSpec]:
    """The Perception and Cognition tables (a total, then each subtask's score) and the
    acc / acc+ table, for the subtasks the dataset has, in the paper's order."""
    specs = []
    for key, title, subtasks in rules.GROUPS:
        found = [s for s in subtasks if s in present]
        if not found:
            continue
        total = Column(key, title, tuple(c for s in found for c in names.score(s)))
        scores = [Column(s, TITLES[s], names.score(s)) for s in found]
        heading = (
            f"MME: {title} (subtask score = acc + acc+; at most {SUBTASK_MAXIMUM * len(subtasks)})"
        )
        specs.append(TableSpec(names.totals[key], heading, [total, *scores]))
    parts = [Column(_part(s, m), f"{TITLES[s]} {m}") for s in present for m in (ACC, ACC_PLUS)]
    specs.append(TableSpec(names.subtasks, "MME: acc and acc+ per subtask", parts))
    return specs


@lru_cache(maxsize=8)  # few kinds: (label, right); the Judgment is frozen
def _judged(label: str, right: bool) -> Judgment:
    if label == rules.OTHER:
        reply = "other: no yes or no (the official rule's; wrong, no fallback)"
    else:
        reply = f"reads as {label} (the official rule)"
    return rules_judgment(1.0 if right else 0.0, "yes-no", reply)


class MME(Benchmark):
    name = "mme"
    official_rules = True
    title = "MME"
    group_by = (PAIR, ORDER)  # an image's two questions count once in acc+
    importer = Importer(
        "mme",
        "MME: the official eval_tool's result files.\n\n"
        "A folder of the 14 subtask files (existence.txt ... code_reasoning.txt, as "
        "eval_tool/Your_Results/ has them filled): each line image TAB question TAB gold "
        "TAB the model's one-line response, an image's two lines together.",
        Option("results", "FOLDER", "The folder of the subtask .txt files.", required=True),
        (
            Option("model", "NAME", "Model name (default: the folder's name).", text=True),
            Option(
                "images",
                "FOLDER",
                "MME_Benchmark_release_version/ (each subtask's images in <subtask>/ or "
                "<subtask>/images/).",
            ),
        ),
        demo="mme-demo",
    )

    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mme-lmms-eval",
            "MME: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the task mme: questions (each line's doc, or its "
            "input and target), answers, and lmms-eval's own verdicts (its rule reads a "
            "little differently: docs/benchmarks/mme.md), imported beside the official rule's.",
            Option("samples", "JSONL", "*_samples_mme.jsonl.", required=True),
            (*LMMS_EVAL_OPTIONS, JUDGE_NAME, REPLACE),
            command="mme-lmms-eval",
        ),
        Importer(
            "mme-vlmevalkit",
            "MME: VLMEvalKit prediction or auxmatch workbook.\n\n"
            "A prediction workbook ({model}_MME.xlsx, or .tsv, .json) as questions and "
            "answers; an auxmatch workbook ({model}_MME_auxmatch.xlsx) also holds VLMEvalKit's "
            "extracted Yes / No / Unknown, imported as its judgments.",
            Option("file", "FILE", "Prediction or auxmatch workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_FROM_FILE_NAME, REPLACE),
            command="mme-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        names = _Names(dataset)
        present = [s for s in rules.SUBTASKS if s in {subtask_of(x) for x in samples}]
        units_of: dict[str, list[Unit]] = {}
        pairs: dict[object, list[Sample]] = {}
        for s in samples:
            cells = ((names.subtasks, _part(subtask_of(s), ACC)),)
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
            pairs.setdefault(s.extra.get(PAIR), []).append(s)
        for pair, members in pairs.items():
            members.sort(key=lambda s: int(str(s.extra.get(ORDER))))
            cells = ((names.subtasks, _part(subtask_of(members[0]), ACC_PLUS)),)
            unit = Unit(f"pair:{pair}", cells, tuple(s.key for s in members))
            for s in members:
                units_of[s.key].append(unit)
        return _specs(names, present), units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if sample.answer is None:
            return None
        return _judged(rules.parse(answer), rules.is_right(answer, sample.answer))

    def filter_axes(self, sample: Sample) -> dict[str, list[str]]:
        return super().filter_axes(sample) | {"group": [rules.group_of(subtask_of(sample))]}

    def facts(self, sample: Sample) -> list[str]:
        place = f"question {sample.extra.get(ORDER)} of 2 on {sample.extra.get(IMAGE)}"
        return [*super().facts(sample), rules.group_of(subtask_of(sample)), place]


MME_BENCHMARK = MME()
