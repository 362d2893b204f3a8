"""HallusionBench: yes/no questions on figures, judged by the official GPT judge; the paper's
table (qAcc, fAcc, easy and hard aAcc, aAcc) and the official script's per-question,
per-pair and per-figure tables, whose groups count once, right when all their questions are;
and its diagnostics from the verdicts alone: the consistency test and the yes/no bias."""

from __future__ import annotations

from lmmreview.engine.benchmark import (
    MIXED,
    NONE,
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
from lmmreview.engine.benchmarks.hallusionbench import rules
from lmmreview.engine.benchmarks.hallusionbench.rules import (
    CATEGORY,
    SUBCATEGORY,
    VISUAL_DEPENDENT,
    VISUAL_INPUT,
    VISUAL_SUPPLEMENT,
)
from lmmreview.engine.judging import failed, llm_judgment
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.tables import Column, columns
from lmmreview.engine.types import Sample

# The official call sets no temperature (the API's default, 1) and no token limit: one
# word decides the verdict, but a judge that explains may say "incorrect" late.
JUDGE_TEMPERATURE = 1.0
JUDGE_MAX_TOKENS = 256
CATEGORIES = (VISUAL_DEPENDENT, VISUAL_SUPPLEMENT)
LEVELS = (("easy", "Easy"), ("hard", "Hard"))
# The paper's table (and the README's leaderboard), in its order.
BOARD = (("qacc", "qAcc"), ("facc", "fAcc"), ("easy", "Easy aAcc"), ("hard", "Hard aAcc"),
         ("aacc", "aAcc"))  # fmt: skip
FIGURE_SHOWN = {"0": "no figure", "1": "original figure", "2": "edited figure"}
GOLDS = ("yes", "no")
# The consistency test's figures beside the correct ones (fAcc's): by the rule of a group
# of the figure's questions (Unit.rule), those with none right and those with some.
CONSISTENCY = ((NONE, "wrong"), (MIXED, "inconsistent"))


def verdict_score(verdict: str, no_figure: bool) -> float:
    """A verdict as a score: 1.0 when it counts as correct (rules.is_correct)."""
    return 1.0 if rules.is_correct(verdict, no_figure) else 0.0


class OfficialJudge(JudgeWork):
    """The official judge (utils.py `evaluate_by_chatgpt`): one call; every reply reads as
    a verdict. A call that fails is stored as a failure, never as "uncertain" (which would
    count as right without a figure)."""

    def __init__(self, no_figure: bool) -> None:
        self.no_figure = no_figure  # uncertain counts as right (rules.without_figure)

    def prompt_version(self) -> str:
        return rules.PROMPT_VERSION

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        prompt = rules.judge_prompt(item.question, item.golds[0], item.prediction)
        return [Call(model, (("user", prompt),), JUDGE_TEMPERATURE, JUDGE_MAX_TOKENS)]

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        score = verdict_score(rules.parse_verdict(reply.text), self.no_figure)
        return llm_judgment(item, call, reply, score)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        return failed(item, model, "no reply to read", last_reply, Status.UNPARSEABLE)


WITH_FIGURE, WITHOUT_FIGURE = OfficialJudge(no_figure=False), OfficialJudge(no_figure=True)


class _Names:
    """A dataset's table names."""

    def __init__(self, dataset: str) -> None:
        self.board = f"{dataset}.leaderboard"
        self.questions = f"{dataset}.questions"
        self.pairs = f"{dataset}.pairs"
        self.figures = f"{dataset}.figures"
        self.subcategories = f"{dataset}.subcategories"
        self.bias = f"{dataset}.bias"
        self.consistency = f"{dataset}.consistency"


def _category(sample: Sample) -> str:
    return (sample.first(CATEGORY) or "").lower()


def _subcategory(sample: Sample) -> str:
    """A subcategory's column: category_subcategory (both categories have an `ocr`)."""
    return f"{sample.first(CATEGORY)}_{sample.first(SUBCATEGORY)}"


def _specs(names: _Names, samples: list[Sample]) -> list[TableSpec]:
    by_category = [(c.lower(), c) for c in CATEGORIES] + [("overall", "Overall")]
    pairs = []  # per category: easy, hard and all pairs (the official script's layout)
    for key, title in by_category:
        prefix = "" if key == "overall" else f"{key}_"
        pairs += [(f"{prefix}{level}", f"{title} {level_title}") for level, level_title in LEVELS]
        pairs.append((key, f"{title} Total"))
    subcategories = dict.fromkeys(_subcategory(s) for s in samples)
    return [
        TableSpec(names.board, "HallusionBench: the paper's table", columns(BOARD)),
        TableSpec(names.questions, "HallusionBench: per question (aAcc)", columns(by_category)),
        TableSpec(names.pairs, "HallusionBench: per question pair (qAcc)", columns(pairs)),
        TableSpec(names.figures, "HallusionBench: per figure (fAcc)", columns(by_category)),
        TableSpec(
            names.subcategories,
            "HallusionBench: per question, by subcategory (aAcc)",
            columns((key, key.replace("_", " ")) for key in sorted(subcategories, key=_vd_first)),
        ),
        TableSpec(
            names.consistency,
            "HallusionBench: consistency test (figures with all, some or none right)",
            [
                Column("correct", "Correct"),
                Column("inconsistent", "Inconsistent", best="lower"),
                Column("wrong", "Wrong", best="lower"),
            ],
        ),
        TableSpec(
            names.bias,
            "HallusionBench: yes/no bias (the official script's; Pct Diff in points)",
            _bias(names),
        ),
    ]


def _bias(names: _Names) -> list[Column]:
    """Each gold's accuracy and number of questions, then the official Pct Diff and FP
    Ratio from those (formulas: rules.pct_diff, rules.fp_ratio). Neither bias figure is
    better high or low, nor is a number of questions."""
    accuracy = [Column(f"{gold}_acc", f"Acc, gold {gold}") for gold in GOLDS]
    questions = [Column(gold, f"Questions, gold {gold}", tally=True, best="") for gold in GOLDS]
    parts = tuple((names.bias, c.key) for c in accuracy + questions)
    return [
        *accuracy,
        *questions,
        Column("pct_diff", "Pct Diff", parts, formula=rules.pct_diff, best=""),
        Column("fp_ratio", "FP Ratio", parts, formula=rules.fp_ratio, best=""),
    ]


def _vd_first(column: str) -> bool:
    """Sorts VD's subcategories before VS's, each in the dataset's order (a stable sort)."""
    return not column.startswith(f"{VISUAL_DEPENDENT}_")


def _groups(samples: list[Sample]) -> dict[tuple[str, str], list[Sample]]:
    """The groups the tables count once, by (kind, key): each question pair, its easy and
    its hard questions, and each figure; members in dataset order."""
    groups: dict[tuple[str, str], list[Sample]] = {}
    for s in samples:
        pair = rules.pair_key(s)
        groups.setdefault(("pair", pair), []).append(s)
        groups.setdefault(("hard" if rules.is_hard(s) else "easy", pair), []).append(s)
        if (figure := rules.figure_key(s)) is not None:
            groups.setdefault(("figure", figure), []).append(s)
    return groups


def _group_cells(names: _Names, kind: str, category: str) -> Cells:
    if kind == "pair":
        return ((names.board, "qacc"), (names.pairs, category), (names.pairs, "overall"))
    if kind == "figure":
        return (
            (names.board, "facc"),
            (names.figures, category),
            (names.figures, "overall"),
            (names.consistency, "correct"),
        )
    return ((names.board, kind), (names.pairs, f"{category}_{kind}"), (names.pairs, kind))


def _question_cells(names: _Names, sample: Sample) -> Cells:
    gold = rules.gold_word(sample)
    bias = ((names.bias, f"{gold}_acc"), (names.bias, gold)) if gold else ()
    return (
        (names.board, "aacc"),
        (names.questions, _category(sample)),
        (names.questions, "overall"),
        (names.subcategories, _subcategory(sample)),
        *bias,
    )


class HallusionBench(Benchmark):
    name = "hallusionbench"
    title = "HallusionBench"
    by_profile = False  # a question counts in its pair's and its figure's groups
    importer = Importer(
        "hallusionbench",
        "HallusionBench: the official result files.\n\n"
        "HallusionBench.json's rows with the model's `model_prediction` (the official "
        "HallusionBench_result.json), one model per file; or the official judge's output "
        "(hallusion_output_vd_*.json and _vs_*.json, one import each), whose "
        "gpt4v_output_gpt_check verdicts are imported as the official judge's, scored "
        "without a call.",
        Option(
            "results",
            "FILE",
            "A result file, or one of the judge's two (import each).",
            required=True,
        ),
        (
            Option(
                "model",
                "NAME",
                "Model name (default: the file's name without .json, and without the "
                "judge's hallusion_output_vd_ or _vs_).",
                text=True,
            ),
            Option(
                "images",
                "FOLDER",
                "The official figures' folder (hallusion_bench/, where each row's "
                "filename ./VD/<subcategory>/<set>_<figure>.png lies).",
            ),
            JUDGE_NAME,
            REPLACE,
        ),
        demo="hallusionbench-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "hallusionbench-lmms-eval",
            "HallusionBench: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the task hallusion_bench_image: questions (from each "
            "line's doc, or the aAcc dict that repeats the row) and answers. lmms-eval's "
            "judge verdicts are in its gpt_response/hallusion_output_v[ds]_model.json: import "
            "those with `lmmreview import hallusionbench`.",
            Option("samples", "JSONL", "*_samples_hallusion_bench_image.jsonl.", required=True),
            LMMS_EVAL_OPTIONS,
            command="hallusionbench-lmms-eval",
        ),
        Importer(
            "hallusionbench-vlmevalkit",
            "HallusionBench: VLMEvalKit predictions, auxmatch.\n\n"
            "VLMEvalKit's {model}_HallusionBench.xlsx (or .tsv, .json) as answers to the "
            "questions imported before from the official files (its 951 questions with a "
            "figure, found by l2-category and the set, figure and question fields of index); "
            "its {model}_HallusionBench_auxmatch.xlsx also as imported judgments of "
            "vlmevalkit-yorn (score: extracted equals answer).",
            Option("file", "FILE", "Prediction file or auxmatch workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_NAME, REPLACE),
            command="hallusionbench-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        names = _Names(dataset)
        units_of = {s.key: [Unit(s.key, _question_cells(names, s), (s.key,))] for s in samples}
        for (kind, key), members in _groups(samples).items():
            cells = _group_cells(names, kind, _category(members[0]))
            keys = tuple(s.key for s in members)
            units = [Unit(f"{kind}:{key}", cells, keys)]
            if kind == "figure":  # the consistency test's other two kinds of figure
                units += [
                    Unit(f"{rule}:{key}", ((names.consistency, column),), keys, rule)
                    for rule, column in CONSISTENCY
                ]
            for s in members:
                units_of[s.key].extend(units)
        return _specs(names, samples), units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        verdict = rules.offline_verdict(sample, answer)
        if verdict is None:
            return None
        return rules_judgment(
            verdict_score(verdict, rules.without_figure(sample)),
            "yes-no",
            f"the answer says {rules.yes_or_no(answer)} (VLMEvalKit's yes/no rule, not the "
            f"official judge)",
        )

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        return WITHOUT_FIGURE if rules.without_figure(sample) else WITH_FIGURE

    def filter_axes(self, sample: Sample) -> dict[str, list[str]]:
        return super().filter_axes(sample) | {"figure": [_figure_shown(sample)]}

    def facts(self, sample: Sample) -> list[str]:
        gold = rules.gold_word(sample) or "no"
        return [*super().facts(sample), _figure_shown(sample), f"gold: {gold}"]


def _figure_shown(sample: Sample) -> str:
    """What the model was shown: no figure, the original one or an edited one."""
    return FIGURE_SHOWN.get(str(sample.extra.get(VISUAL_INPUT)), "figure unknown")


HALLUSIONBENCH = HallusionBench()
