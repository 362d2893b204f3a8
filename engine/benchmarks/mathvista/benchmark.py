"""MathVista: the official extraction (its quick rules offline; its LLM extractor's answers
imported from the official output files), normalisation and exact comparison; accuracy
overall, by task and skill as the paper's table shows it, and by every key the official
`calculate_score.py` breaks it down by."""

from __future__ import annotations

import json

from lmmreview.engine.axis_tables import axis_cells, axis_tables
from lmmreview.engine.benchmark import (
    Benchmark,
    Cells,
    Importer,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.benchmarks import JUDGE_NAME, REPLACE
from lmmreview.engine.benchmarks.mathvista import rules
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
            JUDGE_NAME,
            REPLACE,
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
        score, choice, reply = scored(sample, problem, extraction)
        return rules_judgment(score, method, reply, choice=choice)

    def facts(self, sample: Sample) -> list[str]:
        shown = (sample.first(TASK), sample.first("context"), sample.first("grade"), sample.split)
        return [v for v in shown if v]


def _paper_values(sample: Sample) -> list[str]:
    """The sample's task and skills among the paper's columns."""
    return [v for v in (*sample.axis(TASK), *sample.axis(SKILL)) if v in TASKS or v in SKILLS]


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


def scored(
    sample: Sample, problem: rules.Problem, extraction: str
) -> tuple[float | None, str | None, str]:
    """An extraction's score (None: no gold), the letter it chose (multiple choice) and a
    reply saying both the extraction and the prediction it stands for."""
    verdict = rules.verdict(extraction, problem)
    score = None if verdict.correct is None else float(verdict.correct)
    letter = None if verdict.choice is None else list(sample.options)[verdict.choice]
    reply = json.dumps(
        {"extraction": extraction, "prediction": verdict.prediction}, ensure_ascii=False
    )
    return score, letter, reply


MATHVISTA = MathVista()
