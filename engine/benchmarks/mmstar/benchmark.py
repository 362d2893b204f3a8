"""MMStar: 1,500 four-option questions read by the official strict rule (no judge); the
paper's tables: the final score and the 6 core capabilities, each capability's 3 axes,
and, when the model's answers without the image and its language model's are imported,
S_v, S_wv, S_t, the multi-modal gain and the multi-modal leakage."""

from __future__ import annotations

from functools import lru_cache

from lmmreview.engine.benchmark import Benchmark, Cells, Importer, Option, Tables, TableSpec, Unit
from lmmreview.engine.benchmarks import LMMS_EVAL_OPTIONS, MODEL_FROM_FILE_NAME
from lmmreview.engine.benchmarks.mmstar import rules
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

# The sample's axes: its capability, its axis (the l2 category) and the setting its
# answers were given in (a question asked without the image is a sample of its own).
CAPABILITY, AXIS, SETTING = "capability", "axis", "setting"
FINAL = "final"
# The settings table's columns: each setting's final score, as the paper names it.
SCORES = {rules.WITH_IMAGE: "S_v", rules.WITHOUT_IMAGE: "S_wv", rules.LLM: "S_t"}
GAIN, LEAKAGE = "MG", "ML"
SETTING_OPTION = Option(
    "setting",
    "NAME",
    "The answers' setting: with-image (default), without-image (the same model, no image: "
    "the official run.py --gen-mode to) or llm (the model's language model alone); the "
    "latter two under the model's name, so its row shows S_wv, S_t, MG and ML.",
    text=True,
)


def setting_of(sample: Sample) -> str:
    return sample.first(SETTING) or rules.WITH_IMAGE


class _Names:
    """A dataset's table names."""

    def __init__(self, dataset: str) -> None:
        self.final = f"{dataset}.capabilities"
        self.axes = {c: f"{dataset}.{abbr}" for c, abbr, _ in rules.CAPABILITIES}
        self.settings = f"{dataset}.settings"


def _specs(names: _Names, capabilities: list[str], settings: bool) -> list[TableSpec]:
    """The final score and capabilities table, one table per capability of its axes (those
    the dataset has), and the settings table when answers of another setting are there."""
    abbreviation = {c: abbr for c, abbr, _ in rules.CAPABILITIES}
    final = [Column(c, abbreviation[c]) for c in capabilities] + [Column(FINAL, "Avg")]
    specs = [
        TableSpec(names.final, "MMStar: the 6 core capabilities and Avg (with the image)", final)
    ]
    for capability, abbr, axes in rules.CAPABILITIES:
        if capability in capabilities:
            found = [Column(capability, abbr), *(Column(a, a) for a in axes)]
            specs.append(TableSpec(names.axes[capability], f"MMStar: {capability} ({abbr})", found))
    if settings:
        specs.append(
            TableSpec(names.settings, "MMStar: multi-modal gain and leakage", _gains(names))
        )
    return specs


def _gains(names: _Names) -> list[Column]:
    """S_v, S_wv, S_t, then MG = S_v - S_wv and ML = max(0, S_wv - S_t). The exports mark
    the best S_v and MG and the least ML; S_wv and S_t are neither better high nor low."""
    v, wv, t = ((names.settings, SCORES[s]) for s in rules.SETTINGS)
    return [
        *(
            Column(s, s, best="higher" if s == SCORES[rules.WITH_IMAGE] else "")
            for s in SCORES.values()
        ),
        Column(GAIN, GAIN, (v, wv), formula=rules.gain),
        Column(LEAKAGE, LEAKAGE, (wv, t), formula=rules.leakage, best="lower"),
    ]


def _cells(names: _Names, sample: Sample, settings: bool) -> Cells:
    """Where a sample counts: with the image, in Avg, its capability and axis (and S_v);
    in another setting, only in that setting's score."""
    setting = setting_of(sample)
    scored: Cells = ((names.settings, SCORES[setting]),) if settings else ()
    capability = sample.first(CAPABILITY)
    if setting != rules.WITH_IMAGE or capability is None:
        return scored
    axes = names.axes[capability]
    counted = ((names.final, FINAL), (names.final, capability), (axes, capability))
    return counted + tuple((axes, a) for a in sample.axis(AXIS)) + scored


@lru_cache(maxsize=16)  # few kinds: (letter read, right); the Judgment is frozen
def _judged(letter: str | None, right: bool) -> Judgment:
    if letter is None:
        reply = "no option letter where the official rule looks (wrong, no fallback)"
    else:
        reply = f"reads as {letter} (the official rule)"
    return rules_judgment(1.0 if right else 0.0, "strict", reply, choice=letter)


class MMStar(Benchmark):
    name = "mmstar"
    official_rules = True
    title = "MMStar"
    importer = Importer(
        "mmstar",
        "MMStar: official or VLMEvalKit predictions.\n\n"
        "One model's answers in one setting: index, question, answer (A-D), category, "
        "l2_category (or l2-category), prediction, as eval/submits/ has them "
        "({model}_MMStar.xlsx; VLMEvalKit's .xlsx, .tsv or .json alike, with A-D). "
        "VLMEvalKit's result workbook ({model}_MMStar_{judge}_result.xlsx) also holds its "
        "verdicts (hit), imported as its judge's.",
        Option("file", "FILE", "The prediction or result workbook.", required=True),
        (
            MODEL_FROM_FILE_NAME,
            SETTING_OPTION,
            Option(
                "questions",
                "TSV",
                "MMStar.tsv, the dataset's TSV: the images (base64, by index) of the "
                "questions asked with the image.",
            ),
        ),
        demo="mmstar-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mmstar-lmms-eval",
            "MMStar: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the task mmstar: questions (each line's doc, or its "
            "input and target), answers, and lmms-eval's own verdicts (its letter extraction "
            "is more lenient since 2026: docs/benchmarks/mmstar.md), imported beside the "
            "official rule's.",
            Option("samples", "JSONL", "*_samples_mmstar.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="mmstar-lmms-eval",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        names = _Names(dataset)
        found = {s.first(CAPABILITY) for s in samples if setting_of(s) == rules.WITH_IMAGE}
        capabilities = [c for c, _, _ in rules.CAPABILITIES if c in found]
        settings = any(setting_of(s) != rules.WITH_IMAGE for s in samples)
        units = {s.key: [Unit(s.key, _cells(names, s, settings), (s.key,))] for s in samples}
        return _specs(names, capabilities, settings), units

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        if sample.answer is None:
            return None
        return _judged(rules.choice(answer), rules.is_right(answer, sample.answer))


MMSTAR = MMStar()
