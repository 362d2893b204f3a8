"""MM-Vet: open answers graded by an LLM judge, tables by capability and integration."""

from __future__ import annotations

from collections import Counter

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
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mmvet import rules as mmvet
from lmmreview.engine.judging import failed, llm_judgment
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import open_judgment
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.tables import columns
from lmmreview.engine.types import Sample

CAPABILITY = "capability"  # the axis holding a sample's capabilities, in the paper's order


def ground_truth(golds: tuple[str, ...]) -> str:
    """The ground truth as MM-Vet writes it: several acceptable answers joined by <OR>."""
    return "<OR>".join(golds)


class Grading(JudgeWork):
    """The MM-Vet judge: a 0.0-1.0 correctness score, asked again on the retry ladder
    while the reply is unparseable; never a silent 0 when no reply parses."""

    retry_suffix: str = mmvet.RETRY_SUFFIX  # appended to the prompt on the retry ladder

    def __init__(self, shots: tuple[int, ...] | None = None) -> None:
        """The reference prompt, or (MM-Vet Table 8) a variant keeping only the few-shot
        rows numbered in `shots`, recorded under a prompt version of its own."""
        self.shots = shots

    @classmethod
    def variant(cls, name: str) -> Grading:
        """The grading of a named prompt variant (``shots=1,2,5``); ValueError if unknown."""
        return cls(mmvet.shots_variant(name))

    def prompt(self, question: str, gold: str, prediction: str) -> str:
        if self.shots is None:
            return mmvet.judge_prompt(question, gold, prediction)
        template = mmvet.variant_template(self.shots)
        return mmvet.judge_prompt(question, gold, prediction, template)

    def prompt_version(self) -> str:
        return mmvet.PROMPT_VERSION if self.shots is None else mmvet.variant_version(self.shots)

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        plain = self.prompt(item.question, ground_truth(item.golds), item.prediction)
        retry = plain + self.retry_suffix
        max_tokens = int(mmvet.JUDGE_SETTINGS["max_tokens"])
        return [
            Call(model, (("user", retry if use_retry else plain),), temperature, max_tokens)
            for use_retry, temperature in mmvet.retry_ladder()
        ]

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        score = mmvet.parse_score(reply.text)
        return None if score is None else llm_judgment(item, call, reply, score)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        reason = f"no valid score after {mmvet.MAX_JUDGE_CALLS} calls"
        return failed(item, model, reason, last_reply, Status.UNPARSEABLE)


GRADING = Grading()


class MMVet(Benchmark):
    name = "mmvet"
    title = "MM-Vet"
    capability_titles: dict[str, str] = mmvet.CAPABILITY_TITLES
    integration_order: tuple[tuple[str, ...], ...] = mmvet.INTEGRATION_ORDER
    grading: JudgeWork = GRADING
    importer = Importer(
        "mmvet",
        "MM-Vet: question JSON, images, result JSONs.\n\n"
        "The official question JSON, its images folder, and one or more result JSONs.",
        Option("questions", "QUESTIONS", "MM-Vet question JSON (id -> fields).", required=True),
        (
            Option("images", "FOLDER", "Folder of the images named by 'imagename'."),
            Option(
                "answers",
                "FILE",
                "Result JSON (id -> answer), or LLaVA model_vqa .jsonl (question_id n is "
                "v1_n); repeatable.",
                many=True,
            ),
            Option(
                "model",
                "NAME",
                "Model name per --answers, in order (default: the file's name without its "
                "extension, or a .jsonl file's model_id).",
                many=True,
                text=True,
            ),
        ),
        demo="mmvet-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mmvet-grades",
            "MM-Vet: the official grader's grade JSON.\n\n"
            "The grader's *-grade-Nruns.json (id -> model, content, score per run) for "
            "answers already imported: run j becomes judge run j, labelled imported. A run "
            "whose content is not a score in [0, 1] (the grader's give-up) is imported as "
            "failed, never as 0. --check compares the tables with the grader's CSVs.",
            Option("grades", "GRADES", "The grader's *-grade-Nruns.json.", required=True),
            (
                Option(
                    "model",
                    "NAME",
                    "The model whose answers were graded (default: from the file name, "
                    "MODEL_JUDGE-grade-Nruns.json).",
                    text=True,
                ),
                Option(
                    "check",
                    "CSV",
                    "The grader's cap-score or cap-int-score CSV: report every cell where "
                    "the tables differ at the file's rounding; repeatable.",
                    many=True,
                ),
                JUDGE_NAME,
                REPLACE,
            ),
            command="mmvet-grades",
        ),
        Importer(
            "mmvet-vlmevalkit",
            "MM-Vet: VLMEvalKit predictions or judge workbook.\n\n"
            "VLMEvalKit's {model}_MMVet.xlsx (or .tsv, .json) as answers, and as questions "
            "when no --questions TSV is given; its judge workbook {model}_MMVet_{judge}.xlsx "
            "(score and log columns) also as imported judgments ('All 5 retries failed.' is "
            "failed, not 0).",
            Option("file", "FILE", "Prediction file or judge workbook.", required=True),
            (
                Option("questions", "TSV", "VLMEvalKit's MMVet.tsv (questions and images)."),
                MODEL_FROM_FILE_NAME,
                JUDGE_FROM_FILE_NAME,
                REPLACE,
            ),
            command="mmvet-vlmevalkit",
        ),
        Importer(
            "mmvet-lmms-eval",
            "MM-Vet: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts. Questions (from each line's doc, or the "
            "gpt_eval_score dict that repeats them), answers (the filtered response) and "
            "lmms-eval's GPT grades as imported judgments; a grade of 0.0 with no judge reply "
            "(how lmms-eval stores an API failure) counts as 0 and is flagged for review.",
            Option("samples", "JSONL", "*_samples_mmvet.jsonl.", required=True),
            (*LMMS_EVAL_OPTIONS, JUDGE_NAME, REPLACE),
            command="mmvet-lmms-eval",
        ),
    )

    exports = (
        ExportFormat(
            "mmvet-csv",
            "MM-Vet grader's cap-score and cap-int-score CSVs (--out DIR)",
            "mmvet-csv",
        ),
        ExportFormat(
            "mmvet-grades", "MM-Vet grader's grade JSON per model (--out DIR)", "mmvet-grades-json"
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        capabilities = tuple(self.capability_titles)
        sets: Counter[tuple[str, ...]] = Counter()
        for s, count in zip(samples, counts, strict=True):
            sets[s.axis(CAPABILITY)] += count
        order = mmvet.order_integrations(
            dict(sets),
            self.integration_order,
            capabilities,
        )
        by_capability, by_integration = f"{dataset}.capabilities", f"{dataset}.integrations"
        tables = [
            TableSpec(
                by_capability,
                f"{self.title}: capabilities",
                columns([*self.capability_titles.items(), ("total", "Total")]),
                std_columns=("total",),
            ),
            TableSpec(
                by_integration,
                f"{self.title}: capability integrations",
                columns([*map(self._integration_column, order), ("total", "Total")]),
                std_columns=("total",),
            ),
        ]
        units_of = {}
        for s in samples:
            caps = s.axis(CAPABILITY)
            cells: Cells = (
                *((by_capability, c) for c in caps),
                (by_capability, "total"),
                (by_integration, "_".join(caps)),
                (by_integration, "total"),
            )
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return tables, units_of

    def _integration_column(self, capabilities: tuple[str, ...]) -> tuple[str, str]:
        """(key, title) of an integration column: ``rec_know`` and ``Rec+Know``."""
        return "_".join(capabilities), mmvet.integration_title(capabilities, self.capability_titles)

    def prompt_variant(self, name: str) -> JudgeWork:
        return Grading.variant(name)

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        return open_judgment(sample, answer)

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        return self.grading if sample.golds else None

    def filter_axes(self, sample: Sample) -> dict[str, list[str]]:
        values = super().filter_axes(sample)
        if sample.axis(CAPABILITY):
            values["integration"] = ["_".join(sample.axis(CAPABILITY))]
        return values


MMVET = MMVet()
