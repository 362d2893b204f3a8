"""MathVista: the official extraction (its quick rules offline, its LLM extractor as a judge,
or its answers imported from the official output files), normalisation and exact
comparison; accuracy overall, by task and skill as the paper's table shows it, and by every
key the official `calculate_score.py` breaks it down by."""

from __future__ import annotations

import json
from string import ascii_uppercase

from lmmreview.engine.axis_tables import axis_cells, axis_tables
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
from lmmreview.engine.benchmarks import (
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mathvista import rules
from lmmreview.engine.benchmarks.mathvista.extractor import Extraction, scored
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import columns
from lmmreview.engine.types import QuestionType, Sample

# The paper's columns: its tasks, then its mathematical reasoning skills (value, title).
TASKS = {
    "figure question answering": "FQA",
    "geometry problem solving": "GPS",
    "math word problem": "MWP",
    "textbook question answering": "TQA",
    "visual question answering": "VQA",
}
SKILLS = {
    "algebraic reasoning": "ALG",
    "arithmetic reasoning": "ARI",
    "geometry reasoning": "GEO",
    "logical reasoning": "LOG",
    "numeric commonsense": "NUM",
    "scientific reasoning": "SCI",
    "statistical reasoning": "STA",
}
TASK, SKILL = "task", "skills"
# The official breakdown's keys, in its order: (axis, table title after the benchmark's).
BREAKDOWN = (
    ("question_type", "by question type"),
    ("answer_type", "by answer type"),
    ("language", "by language"),
    ("source", "by source"),
    ("category", "by category"),
    (TASK, "by task"),
    ("context", "by context"),
    ("grade", "by grade"),
    (SKILL, "by skill"),
)
# What a sample's `extra` holds beyond the common fields.
ANSWER_TYPE, PRECISION, QUERY, UNIT = "answer_type", "precision", "query", "unit"


class MathVista(Benchmark):
    name = "mathvista"
    title = "MathVista"
    importer = Importer(
        "mathvista",
        "MathVista: the official output files.\n\n"
        "As the official evaluation writes them: a JSON object, pid -> the problem with its "
        "choices, answer, answer type, precision, metadata and query, and the model's "
        "response; an official `extraction` is imported as the official extractor's judgment.",
        Option("outputs", "FILE", "An official output file (output_<model>.json).", required=True),
        (
            Option(
                "model",
                "NAME",
                "Model name (default: the file's name without .json and output_).",
                text=True,
            ),
            Option(
                "images",
                "FOLDER",
                "The folder each problem's `image` field is relative to (the dataset's, "
                "holding images/).",
            ),
            JUDGE_NAME,
            REPLACE,
        ),
        demo="mathvista-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mathvista-lmms-eval",
            "MathVista: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the tasks mathvista_testmini (and its _cot, _solution "
            "and _format variants) and mathvista_test. Answers (the filtered response) and "
            "lmms-eval's extraction of each as an imported judgment, scored by lmmreview's "
            "rules; problems from each line's doc (v0.3). v0.4 lines carry no question: import "
            "the official files first (lmmreview import mathvista DB FILE).",
            Option("samples", "JSONL", "*_samples_mathvista_testmini.jsonl, ...", required=True),
            (*LMMS_EVAL_OPTIONS, JUDGE_NAME, REPLACE),
            command="mathvista-lmms-eval",
        ),
        Importer(
            "mathvista-vlmevalkit",
            "MathVista: VLMEvalKit predictions, judge workbook.\n\n"
            "VLMEvalKit's {model}_MathVista_MINI.xlsx (or .tsv, .json): problems (index, "
            "question, question and answer type, choices, answer, answer_option, task, "
            "skills; no pid) and answers, into the dataset MathVista_MINI unless --dataset. "
            "Its judge workbook {model}_MathVista_MINI_{judge}.xlsx also holds its "
            "extractions (res), imported as that judge's and scored by lmmreview's rules; a "
            "warning names the problems VLMEvalKit's own rule scores otherwise.",
            Option("file", "FILE", "Prediction file or judge workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_NAME, REPLACE),
            command="mathvista-vlmevalkit",
        ),
    )

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        overall = f"{dataset}.overall"
        present = {value for s in samples for value in _paper_values(s)}
        paper = TableSpec(
            overall,
            f"{self.title}: overall, tasks and skills",
            columns(
                [("overall", "ALL")]
                + [(value, short) for value, short in (TASKS | SKILLS).items() if value in present]
            ),
        )
        more = axis_tables(dataset, self.title, samples, counts, BREAKDOWN)
        units_of = {}
        for s in samples:
            cells: Cells = ((overall, "overall"),)
            cells += tuple((overall, value) for value in _paper_values(s))
            cells += axis_cells(more, s)
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return [paper, *(spec for _, spec in more)], units_of

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        """The official quick rules' extraction, scored; None: the LLM extractor's to do."""
        problem = problem_of(sample)
        extracted = rules.quick_extraction(answer, problem)
        if extracted is None:
            return None
        extraction, method = extracted
        score, choice, reply = scored(problem, extraction)
        return rules_judgment(score, method, reply, choice=choice)

    def rescored(self, sample: Sample, reply: str) -> float | None:
        """SCORING §5 against other golds: right when the extraction's normalised
        prediction (multiple choice: the letter of the choice it names) equals one of them.
        The extraction is the stored reply's (the rules' and the imports' JSON), or the
        reply itself (the LLM extractor's)."""
        try:
            found = json.loads(reply)
        except json.JSONDecodeError:
            found = None
        extraction = found.get("extraction") if isinstance(found, dict) else reply.strip()
        if not isinstance(extraction, str):
            return None
        prediction, index = rules.normalise(extraction, problem_of(sample))
        chosen = prediction if index is None else ascii_uppercase[index]  # golds are letters
        return float(chosen in sample.golds)

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        """The LLM extractor, for the answers the quick rules cannot settle."""
        return Extraction(problem_of(sample), query_of(sample))

    def facts(self, sample: Sample) -> list[str]:
        shown = (
            sample.first(TASK), sample.first("context"), sample.first("grade"),
            answer_form(sample), sample.split,
        )  # fmt: skip
        return [v for v in shown if v]


def answer_form(sample: Sample) -> str | None:
    """What a free-form answer must be (its type, a float's decimals, the unit), as the
    rules read it; None for multiple choice, whose choices the screen lists."""
    if sample.question_type is QuestionType.CHOICE:
        return None
    problem = problem_of(sample)
    form = f"{problem.answer_type} answer"
    if problem.answer_type == rules.FLOAT:
        form += f", {problem.precision} decimal{'' if problem.precision == 1 else 's'}"
    unit = sample.extra.get(UNIT)
    return f"{form} (unit: {unit})" if unit else form


def _paper_values(sample: Sample) -> list[str]:
    """The sample's task and skills among the paper's columns."""
    return [v for v in (*sample.axis(TASK), *sample.axis(SKILL)) if v in TASKS or v in SKILLS]


def query_of(sample: Sample) -> str:
    """The query the model was given (as the output file holds it), else the question with
    its choices, as the official queries list them."""
    query = sample.extra.get(QUERY)
    if isinstance(query, str):
        return query
    choices = "".join(f"\n({letter}) {text}" for letter, text in sample.options.items())
    return f"Question: {sample.question}" + (f"\nChoices:{choices}" if choices else "")


def problem_of(sample: Sample) -> rules.Problem:
    """What the rules read of a sample (as db.benchmarks.mathvista.files stores a problem)."""
    choice = sample.question_type is QuestionType.CHOICE
    precision = sample.extra.get(PRECISION)
    answer_type = sample.extra.get(ANSWER_TYPE)
    return rules.Problem(
        rules.MULTI_CHOICE if choice else rules.FREE_FORM,
        answer_type if isinstance(answer_type, str) else rules.TEXT,
        tuple(sample.options.values()),
        precision if isinstance(precision, int) else None,
        sample.options.get(sample.answer) if choice and sample.answer else sample.answer,
    )


MATHVISTA = MathVista()
