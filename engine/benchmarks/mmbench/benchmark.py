"""MMBench: multiple choice, choice extraction by an LLM, CircularEval tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from lmmreview.engine.benchmark import (
    Benchmark,
    Cells,
    ExportFormat,
    Importer,
    JudgeItem,
    JudgeWork,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.benchmarks import (
    JUDGE_FROM_FILE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mmbench import rules as mmbench
from lmmreview.engine.judging import llm_judgment, matched
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import choice_judgment
from lmmreview.engine.scoring import Judgment, Status, choice_score
from lmmreview.engine.tables import by_count, columns
from lmmreview.engine.types import Sample

EXTRACT_MAX_TOKENS = 16  # room for "The answer is C." from chatty judges
EXTRACT_TEMPERATURES = (0.0, 0.5, 1.0)  # step 2 is asked up to three times
DEFAULT_EXTRACT_MODEL = "gpt-3.5-turbo-0613"  # the MMBench paper's ChatGPT

CATEGORY, L2_CATEGORY = "category", "l2_category"  # the L-3 and L-2 ability axes
# Extra fields: the circular group of a row, and which rotation of the options it is.
CIRCULAR_GROUP, ROTATION = "circular_group", "rotation"


class Extraction(JudgeWork):
    """Choice extraction (the paper's section 4.2): step 1 needs no LLM; step 2 asks the
    paper's template up to three times; step 3 falls back to a seeded random choice,
    marked as such. Asked once for all runs; a circular group stops at its first wrong row."""

    every_run = False

    def prompt_version(self) -> str:
        return mmbench.EXTRACTION_PROMPT_VERSION

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        prompt = mmbench.extraction_prompt(item.question, item.options, item.prediction)
        return [
            Call(model, (("user", prompt),), temperature, EXTRACT_MAX_TOKENS)
            for temperature in EXTRACT_TEMPERATURES
        ]

    def without_llm(self, item: JudgeItem) -> Judgment | None:
        choice = mmbench.match_choice(item.prediction, item.options)
        if choice is None:
            return None
        return matched(item, choice_score(choice, list(item.golds)), choice, f"choice {choice}")

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        choice = mmbench.parse_extraction_reply(reply.text, item.options)
        if choice is None:
            return None
        return llm_judgment(item, call, reply, choice_score(choice, list(item.golds)), choice)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        choice = mmbench.fallback_choice(item.options, item.seed_key)
        return Judgment(
            run=item.run,
            score=choice_score(choice, list(item.golds)),
            choice=choice,
            status=Status.FALLBACK,
            method="fallback",
            kind="llm",
            judge_model=model,
            prompt_version=self.prompt_version(),
            reply=last_reply,
            error=f"no option in {len(EXTRACT_TEMPERATURES)} replies; seeded random choice",
        )


EXTRACTION = Extraction()


def circular_chain(sample: Sample) -> tuple[Hashable, int] | None:
    """A row's circular group (within its split) and rotation; None for a lone question."""
    group = sample.extra.get(CIRCULAR_GROUP)
    if group is None:
        return None
    return (sample.split, group), int(sample.extra.get(ROTATION) or 0)


_L3_SPELLING = {name.lower(): name for name in mmbench.L3_ABILITIES}


def _l2_key(category: str) -> str:
    """An L-2 ability's column: the paper's abbreviation, or one of its own for a category
    outside the paper's six (kept visible: the import warns of it)."""
    return mmbench.L2_ABBREVIATIONS.get(category) or f"l2:{category}"


def _l3(category: str) -> str:
    """The paper's spelling of an L-3 ability (public TSVs vary in case: OCR, ocr)."""
    return _L3_SPELLING.get(category.lower(), category)


class MMBench(Benchmark):
    name = "mmbench"
    group_by = (CIRCULAR_GROUP, ROTATION)  # a circular group's rows count as one unit
    rotations = True  # its rows are one question, the options rotated
    title = "MMBench"
    importer = Importer(
        "mmbench",
        "MMBench: the TSV, and optionally predictions.\n\n"
        "The MMBench TSV, and one model's predictions with --answers.",
        Option("data", "TSV", "MMBench TSV (base64 images, circular copies).", required=True),
        (
            Option(
                "answers",
                "FILE",
                "Predictions with index, prediction: .tsv, .csv, .xlsx; or LLaVA model_vqa "
                ".jsonl (question_id = index; the model defaults to its model_id).",
            ),
            Option(
                "model",
                "NAME",
                "Model name for --answers (default: the file's name without its extension, "
                "or a .jsonl file's model_id).",
                text=True,
            ),
        ),
        demo="mmbench-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mmbench-vlmevalkit",
            "MMBench: VLMEvalKit predictions, result workbook.\n\n"
            "A prediction workbook ({model}_MMBench_DEV_EN.xlsx, or .tsv, .json; every "
            "circular row) as answers, and as questions when no --questions TSV is given "
            "(rows without a category count in Overall only); a result workbook (hit, log, "
            "g_index) as VLMEvalKit's own circular verdicts, shown beside lmmreview's.",
            Option("file", "FILE", "Prediction or result workbook.", required=True),
            (
                Option("questions", "TSV", "The MMBench TSV (categories and images)."),
                Option(
                    "predictions",
                    "FILE",
                    "With a result workbook: the prediction workbook (every rotation's answer).",
                ),
                MODEL_FROM_FILE_NAME,
                JUDGE_FROM_FILE_NAME,
                REPLACE,
            ),
            command="mmbench-vlmevalkit",
        ),
        Importer(
            "mmbench-lmms-eval",
            "MMBench: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts. Questions (from each line's doc, or the gpt_eval_score "
            "dict that repeats them; circular rows by index) and answers (the filtered "
            "response); lmms-eval records no extracted choice per line, so lmmreview extracts.",
            Option("samples", "JSONL", "*_samples_mmbench_*.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="mmbench-lmms-eval",
        ),
    )

    exports = (
        ExportFormat(
            "mmbench-submission",
            "MMBench submission workbook per model (--out FILE.xlsx or DIR)",
            "mmbench-submission",
            one_file_allowed=True,
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        l3_present, l2_present = Counter[str](), Counter[str]()
        for s, count in zip(samples, counts, strict=True):
            if s.extra.get(ROTATION) == 0 and (c := s.first(CATEGORY)):  # first rows'
                l3_present[_l3(c)] += count
            if c := s.first(L2_CATEGORY):
                l2_present[c] += count
        l3 = [c for c in mmbench.L3_ABILITIES if c in l3_present]
        l3 += [c for c in by_count(l3_present) if c not in mmbench.L3_ABILITIES]
        l2_others = [c for c in by_count(l2_present) if c not in mmbench.L2_ABBREVIATIONS]
        l2_table, l3_table = f"{dataset}.l2", f"{dataset}.l3"
        tables = [
            TableSpec(
                l2_table,
                "MMBench: overall and L-2 abilities (CircularEval)",
                columns(
                    [("overall", "Overall"), ("vanilla", "Vanilla")]
                    + [(abbr, abbr) for abbr in mmbench.L2_ABBREVIATIONS.values()]
                    + [(_l2_key(c), c) for c in l2_others]
                ),
            ),
            TableSpec(
                l3_table, "MMBench: L-3 abilities (CircularEval)", columns([(c, c) for c in l3])
            ),
        ]
        groups: dict[tuple[str | None, object], list[Sample]] = {}
        for s in samples:
            found = s.extra.get(CIRCULAR_GROUP)  # none: a lone question, a unit of its own
            place = (s.split, found if found is not None else f"row {s.key}")
            groups.setdefault(place, []).append(s)
        units_of: dict[str, list[Unit]] = {s.key: [] for s in samples}
        for (split, group), rows in groups.items():
            rows.sort(key=lambda s: int(s.extra.get(ROTATION) or 0))
            main = rows[0]
            cells: Cells = ((l2_table, "overall"),)
            if category := main.first(CATEGORY):  # without one, it counts in Overall only
                cells += ((l3_table, _l3(category)),)
            if l2 := main.first(L2_CATEGORY):
                cells += ((l2_table, _l2_key(l2)),)
            name = f"circular:{split}:{group}" if split else f"circular:{group}"  # unique per split
            circular = Unit(name, cells, tuple(s.key for s in rows))
            for s in rows:
                units_of[s.key].append(circular)
            if main.extra.get(ROTATION) == 0:
                units_of[main.key].append(
                    Unit(f"vanilla:{main.key}", ((l2_table, "vanilla"),), (main.key,))
                )
        return tables, units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        return choice_judgment(sample, answer)

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        return EXTRACTION

    def chain(self, sample: Sample) -> tuple[Hashable, int] | None:
        return circular_chain(sample)

    def order_group(self, sample: Sample) -> Hashable | None:
        """A circular group: one question with its options rotated."""
        found = circular_chain(sample)
        return None if found is None else found[0]


MMBENCH = MMBench()
