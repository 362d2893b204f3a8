"""MathVista's LLM extractor as a judge of its own: the answer in a response, found as the
official `evaluation/extract_answer.py` finds it (SCORING.md section 5).

The official quick rules first (no call); otherwise a few-shot prompt of the official
shape (an instruction, five worked examples, one per answer kind, then the problem's query
and the response, ending in "Extracted answer: "), in lmmreview's own words and examples.
The model's reply, stripped, is the extraction; it is normalised and compared by the rules.
"""

from __future__ import annotations

import hashlib
import json
from string import ascii_uppercase

from lmmreview.engine.benchmark import JudgeItem, JudgeWork
from lmmreview.engine.benchmarks.mathvista import rules
from lmmreview.engine.judging import failed, llm_judgment, matched
from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.scoring import Judgment, Status

# The official extractor asks at temperature 0 with room for 1,024 tokens, again while the
# reply is empty; the retries here differ in temperature, so that each is a new call.
TEMPERATURES = (0.0, 0.5, 1.0)
MAX_TOKENS = 1024

INSTRUCTION = (
    "Each example below gives a question and a model's response to it. Find the model's final "
    'answer in the response and write it after "Extracted answer:", in the form the hint asks '
    "for."
)
# Hints in the manner of MathVista's queries (lmmreview's wording), one per answer kind.
_INTEGER_HINT = "Hint: The answer is a whole number; give it at the end."
_FLOAT_HINT = "Hint: The answer is a decimal number rounded to {} place{}; give it at the end."
_LIST_HINT = "Hint: The answer is a Python list, such as [3, 4]; give it at the end."
_CHOICE_HINT = "Hint: Choose one of the options and give its letter at the end."
# (query, response, extraction): one example per answer kind, in the official order.
EXAMPLES = (
    (
        f"{_INTEGER_HINT}\nQuestion: How many birds are sitting on the fence?",
        "Counting from left to right, there are 9 birds on the fence.",
        "9",
    ),
    (
        f"{_FLOAT_HINT.format('one decimal', '')}\n"
        "Question: What is the height of the tallest bar?",
        "The tallest bar ends a little below the 4 gridline, at about 3.8.",
        "3.8",
    ),
    (
        f"{_FLOAT_HINT.format('two decimal', 's')}\n"
        "Question: How much do two erasers cost? (Unit: $)",
        "One eraser costs $0.72, so two erasers cost $1.44 in all.",
        "1.44",
    ),
    (
        f"{_LIST_HINT}\nQuestion: In which two years were the sales lowest?",
        "The line is at its lowest in 2011 and again in 2015.",
        "[2011, 2015]",
    ),
    (
        f"{_CHOICE_HINT}\nQuestion: Which shape has the most sides?\n"
        "Choices:\n(A) triangle\n(B) square\n(C) hexagon\n(D) pentagon",
        "A hexagon has six sides, more than any other shape listed, so the answer is (C).",
        "C",
    ),
)
SHOTS = "\n\n".join(
    f"{query}\n\nModel response: {response}\n\nExtracted answer: {extraction}"
    for query, response, extraction in EXAMPLES
)


def extraction_prompt(query: str, response: str) -> str:
    """The prompt for one response: the instruction, the examples, then the query and the
    response as the official prompt puts them (the response unlabelled)."""
    return f"{INSTRUCTION}\n\n{SHOTS}\n\n{query}\n\n{response}\n\nExtracted answer: "


PROMPT_VERSION: str = hashlib.sha256(extraction_prompt("", "").encode()).hexdigest()[:12]


def scored(problem: rules.Problem, extraction: str) -> tuple[float | None, str | None, str]:
    """An extraction's score (None: no gold), the letter it chose (multiple choice: the
    choices are lettered A, B, ... in order) and a reply saying both the extraction and the
    prediction it stands for."""
    verdict = rules.verdict(extraction, problem)
    score = None if verdict.correct is None else float(verdict.correct)
    letter = None if verdict.choice is None else ascii_uppercase[verdict.choice]
    reply = json.dumps(
        {"extraction": extraction, "prediction": verdict.prediction}, ensure_ascii=False
    )
    return score, letter, reply


class Extraction(JudgeWork):
    """The extractor for the answers to one problem: the quick rules settle what they can
    with no call; the model's first non-blank reply is the extraction; no such reply after
    every call leaves the answer unscored (the official extractor would ask forever)."""

    every_run = False  # one extraction per answer, as the official run makes

    def __init__(self, problem: rules.Problem, query: str) -> None:
        self.problem = problem
        self.query = query

    def prompt_version(self) -> str:
        return PROMPT_VERSION

    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        prompt = extraction_prompt(self.query, item.prediction)
        return [Call(model, (("user", prompt),), t, MAX_TOKENS) for t in TEMPERATURES]

    def without_llm(self, item: JudgeItem) -> Judgment | None:
        """The official quick rules (not the optional quoted one, which the official run
        leaves to the LLM by default)."""
        extracted = rules.quick_extraction(item.prediction, self.problem, quoted=False)
        if extracted is None:
            return None
        return matched(item, *scored(self.problem, extracted[0]))

    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        extraction = reply.text.strip()
        if not extraction:
            return None
        score, choice, _ = scored(self.problem, extraction)
        return llm_judgment(item, call, reply, score, choice)

    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        reason = f"no extraction in {len(TEMPERATURES)} replies"
        return failed(item, model, reason, last_reply, Status.UNPARSEABLE)

    def ends_chain(self, score: float | None) -> bool:
        return False  # each answer stands alone
