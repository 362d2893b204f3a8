"""LLaVA-Bench (in-the-wild): open questions about 24 images, each answer reviewed by a GPT-4
judge beside the reference answer; the relative score (the model's mean over the
reference's) by category and overall, the two means, and the effect of the answers' order.

One review gives two scores, and lmmreview's tables count one score per answer; so each
question is four samples, one per score and order: `<id>` holds the model's score with the
reference shown first (the official order), `<id>/reference` the reference's score in that
same review, and `<id>/swapped` and `<id>/swapped/reference` the two scores of the review
with the model's answer shown first (our addition). A model's answer is its answer to all
four; the two samples of one order are one chain, so their review is asked once.
"""

from __future__ import annotations

from collections.abc import Hashable

from lmmreview.engine.benchmark import (
    Benchmark,
    Cells,
    Importer,
    JudgeItem,
    JudgeWork,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.benchmarks import (
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.llava_bench import rules
from lmmreview.engine.judging import failed, llm_judgment
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

# The sample's axes, and its extra fields: the image's caption and the question's id.
CATEGORY, ORDER, SCORED = "category", "order", "scored"
CAPTION, QUESTION_ID = "caption", "question_id"
ORDERS = OFFICIAL, SWAPPED = "reference first", "model first"  # ORDER's values
SCORES = MODEL, REFERENCE = "model", "reference"  # SCORED's values
ALL = "all"
# The table's columns as docs/LLaVA_Bench.md names them (complex is "Reasoning").
GROUPS = (("conv", "Conversation"), ("detail", "Detail"), ("complex", "Reasoning"),
          (ALL, "Overall"))  # fmt: skip


def sample_key(question_id: str, order: str, scored: str) -> str:
    """The key of a question's sample for one order and one score (see the module)."""
    return "/".join(
        [question_id, *(["swapped"] if order == SWAPPED else []),
         *([REFERENCE] if scored == REFERENCE else [])]
    )  # fmt: skip


class Review(JudgeWork):
    """The official review of one answer beside the reference (eval_gpt_review_bench.py):
    one call, system message and settings as the official; the reference first, or with
    `swapped` the model's answer first. Its judgment is the score of `scored` over 10; its
    choice both scores as the official `tuple` orders them ("reference model")."""

    # Asked once, as the official asks once: the two scores of one review are two items of
    # one chain (plan chains only work asked once), the second read from the cache.
    every_run = False

    def __init__(self, caption: str, swapped: bool, scored: str) -> None:
        self.caption = caption
        self.swapped = swapped
        self.scored = scored

    def prompt_version(self) -> str:
        return rules.PROMPT_VERSION

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        answers = [item.golds[0], item.prediction]
        first, second = reversed(answers) if self.swapped else answers
        text = rules.review_input(self.caption, item.question, first, second)
        messages = (("system", rules.SYSTEM), ("user", text))
        return [Call(model, messages, rules.TEMPERATURE, rules.MAX_TOKENS)]

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        pair = rules.parse_scores(reply.text)
        if pair is None or not rules.storable(pair):
            return None
        reference, model = reversed(pair) if self.swapped else pair
        score = reference if self.scored == REFERENCE else model
        choice = f"{reference:g} {model:g}"
        return llm_judgment(item, call, reply, score / rules.SCALE, choice)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        reason = "the review's first line is not two scores from 0 to 10 (officially -1, -1)"
        return failed(item, model, reason, last_reply, Status.UNPARSEABLE)

    def ends_chain(self, score: float | None) -> bool:
        return False  # the reference's score is read from the same review


class _Names:
    """A dataset's table names."""

    def __init__(self, dataset: str) -> None:
        self.relative = f"{dataset}.relative"
        self.scores = {OFFICIAL: f"{dataset}.scores", SWAPPED: f"{dataset}.swapped_scores"}
        self.order = f"{dataset}.order"

    def part(self, order: str, scored: str, group: str) -> tuple[str, str]:
        return self.scores[order], f"{scored}_{group}"


def _relative(names: _Names, order: str, group: str, key: str, title: str) -> Column:
    parts = (names.part(order, MODEL, group), names.part(order, REFERENCE, group))
    return Column(key, title, parts, formula=rules.relative_of_cells)


def _effect(names: _Names, group: str, title: str) -> Column:
    parts = tuple(names.part(o, s, group) for o in ORDERS for s in SCORES)
    return Column(f"{group}_effect", title, parts, formula=rules.order_effect)


def _specs(names: _Names) -> list[TableSpec]:
    relative = [_relative(names, OFFICIAL, group, group, title) for group, title in GROUPS]
    order = [
        _relative(names, OFFICIAL, ALL, "official", "Overall, reference first"),
        _relative(names, SWAPPED, ALL, "swapped", "Overall, model first"),
        *(_effect(names, group, f"{title} change") for group, title in GROUPS),
    ]
    specs = [TableSpec(names.relative, "LLaVA-Bench (in-the-wild): relative score", relative)]
    for order_shown in ORDERS:
        scores = [
            Column(f"{scored}_{group}", f"{title} {scored}")
            for group, title in GROUPS
            for scored in SCORES
        ]
        title = f"LLaVA-Bench: mean scores x 10, {order_shown}"
        specs.append(TableSpec(names.scores[order_shown], title, scores))
    title = "LLaVA-Bench: the order effect (relative score, model first minus reference first)"
    return [*specs, TableSpec(names.order, title, order)]


def _cells(names: _Names, sample: Sample) -> Cells:
    order, scored = sample.first(ORDER) or OFFICIAL, sample.first(SCORED) or MODEL
    return tuple(names.part(order, scored, g) for g in (sample.first(CATEGORY) or "", ALL))


class LlavaBench(Benchmark):
    name = "llava-bench"
    title = "LLaVA-Bench (in-the-wild)"
    importer = Importer(
        "llava-bench",
        "LLaVA-Bench: official dataset, answers, reviews.\n\n"
        "The dataset folder (questions.jsonl, answers_gpt4.jsonl, context.jsonl, images/); "
        "one model's answers as the official model_vqa.py writes them; and that answers' "
        "official review file (eval_gpt_review_bench.py's), whose tuples are imported as "
        "its judge's scores (gpt-4-0314, the reference shown first). `lmmreview judge` "
        "asks the reviews of both orders.",
        Option("folder", "FOLDER", "The dataset folder.", required=True),
        (
            Option("answers", "JSONL", "One model's answers (question_id, text, model_id)."),
            Option("model", "NAME", "Model name (default: the answers' model_id).", text=True),
            Option("reviews", "JSONL", "The official reviews of those answers."),
            JUDGE_NAME,
            REPLACE,
        ),
        demo="llava-bench-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "llava-bench-lmms-eval",
            "LLaVA-Bench: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the task llava_in_the_wild: each line's "
            "gpt_eval_llava_all review (question, reference, caption, the judge's reply and "
            "scores), imported as its eval_model's reference-first review.",
            Option("samples", "JSONL", "*_samples_llava_in_the_wild.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="llava-bench-lmms-eval",
        ),
        Importer(
            "llava-bench-vlmevalkit",
            "LLaVA-Bench: VLMEvalKit predictions, results.\n\n"
            "VLMEvalKit's {model}_LLaVABench.xlsx (or .tsv, .json): questions, captions, "
            "reference answers and the model's; its {model}_LLaVABench_openai_result.xlsx "
            "also the judge's two scores (gpt4_score, score), imported as a reference-first "
            "review (judge gpt-4-turbo, VLMEvalKit's default, unless --judge names another).",
            Option("file", "FILE", "Prediction file or result workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_NAME, REPLACE),
            command="llava-bench-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        names = _Names(dataset)
        units = {s.key: [Unit(s.key, _cells(names, s), (s.key,))] for s in samples}
        return _specs(names), units

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        caption = str(sample.extra.get(CAPTION) or "")
        swapped = sample.first(ORDER) == SWAPPED
        return Review(caption, swapped, sample.first(SCORED) or MODEL)

    def chain(self, sample: Sample) -> tuple[Hashable, int] | None:
        """The two scores of one review: the model's first, then the reference's, which
        reads the same reply from the cache."""
        place = 1 if sample.first(SCORED) == REFERENCE else 0
        return (sample.extra.get(QUESTION_ID), sample.first(ORDER)), place

    def order_group(self, sample: Sample) -> Hashable | None:
        """The model's score of one question, reviewed with either answer first."""
        return None if sample.first(SCORED) == REFERENCE else sample.extra.get(QUESTION_ID)

    def facts(self, sample: Sample) -> list[str]:
        category = sample.first(CATEGORY) or ""
        whose = (
            "the reference's score" if sample.first(SCORED) == REFERENCE else "the model's score"
        )
        return [dict(GROUPS).get(category, category), sample.first(ORDER) or "", whose]


LLAVA_BENCH = LlavaBench()
