"""LLaVA-Bench (in-the-wild)'s rules, restated from the official `eval_gpt_review_bench.py`,
`summarize_gpt_review.py` and `table/rule.json` (haotian-liu/LLaVA @ ce1aa08): the review's
input and its judge settings, how a review's first line reads as two scores, and the
relative score a summary reports.

A review rates two answers to a question about an image the judge knows only from its
caption: Assistant 1 is the reference answer (text-only GPT-4's), Assistant 2 the model's,
each 1 to 10. The reported figure is the model's mean over the reference's mean, in percent.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

CATEGORIES = ("conv", "detail", "complex")  # the questions' `category`
CATEGORY_PREFIX = "llava_bench_"  # the reviews' `category` is the question's with this
SCALE = 10.0  # the prompt's scale is 1 to 10

# The judge's settings (eval_gpt_review_bench.py `get_eval`).
JUDGE_MODEL = "gpt-4-0314"
SYSTEM = "You are a helpful and precise assistant for checking the quality of the answer."
TEMPERATURE = 0.2
MAX_TOKENS = 1024

# The review prompt, word for word (rule.json "llava_bench_conv", the same for detail and
# complex; LLaVA is Apache-2.0, copyright Haotian Liu): the judge's input is the measurement.
_ROLE = "Assistant"
_PROMPT = (
    "We would like to request your feedback on the performance of two AI assistants in "
    "response to the user question displayed above. The user asks the question on observing "
    "an image. For your reference, the visual content in the image is represented with a few "
    "sentences describing the image. \nPlease rate the helpfulness, relevance, accuracy, level "
    "of details of their responses. Each assistant receives an overall score on a scale of 1 "
    "to 10, where a higher score indicates better overall performance.\nPlease first output a "
    "single line containing only two values indicating the scores for Assistant 1 and 2, "
    "respectively. The two scores are separated by a space.\nIn the subsequent line, please "
    "provide a comprehensive explanation of your evaluation, avoiding any potential bias and "
    "ensuring that the order in which the responses were presented does not affect your "
    "judgment."
)
# Recorded with each judgment so a score can be traced to the exact prompt text.
PROMPT_VERSION: str = hashlib.sha256((SYSTEM + _PROMPT).encode()).hexdigest()[:12]


def context(caption: str | list[str]) -> str:
    """The image's caption as the review shows it: a list's sentences one a line."""
    return caption if isinstance(caption, str) else "\n".join(caption)


def review_input(context_text: str, question: str, first: str, second: str) -> str:
    """The review's user message: the caption, the question, then the two answers as
    Assistant 1 and 2 (officially the reference first), then the prompt."""
    return (
        f"[Context]\n{context_text}\n\n[Question]\n{question}\n\n"
        f"[{_ROLE} 1]\n{first}\n\n[End of {_ROLE} 1]\n\n"
        f"[{_ROLE} 2]\n{second}\n\n[End of {_ROLE} 2]\n\n"
        f"[System]\n{_PROMPT}\n\n"
    )


def parse_scores(review: str) -> tuple[float, float] | None:
    """Assistant 1's and 2's scores from the review's first line: commas become spaces and
    the line splits on each single space; exactly two parts, both numbers, read. Else
    None, which the official code records as (-1, -1): "8, 9" and "8 9 " have three parts."""
    parts = review.split("\n")[0].replace(",", " ").split(" ")
    if len(parts) != 2:
        return None
    try:
        return float(parts[0]), float(parts[1])
    except ValueError:
        return None


def storable(pair: tuple[float, float] | None) -> bool:
    """Whether both scores lie on the 0 to 10 scale, so each can be stored as a score in
    [0, 1] (s / 10). The official summary averages whatever numbers the line has."""
    return pair is not None and all(0.0 <= s <= SCALE for s in pair)


def means(pairs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The reference's and the model's mean scores, each rounded to 3 decimals, as the
    summary rounds them before it divides; failed pairs count as (-1, -1)."""
    return (
        round(sum(p[0] for p in pairs) / len(pairs), 3),
        round(sum(p[1] for p in pairs) / len(pairs), 3),
    )


def relative(reference_mean: float, model_mean: float) -> float:
    """The relative score: the model's mean over the reference's, in percent, 1 decimal;
    NaN when every reference score is 0 (the official summary stops on the division): the
    table shows no value then."""
    if reference_mean == 0:
        return math.nan
    return round(model_mean / reference_mean * 100, 1)


def relative_of_cells(model_cell: float, reference_cell: float) -> float:
    """The relative score from two table cells, which hold a mean score x 10 (a score s
    counts as s / 10, in percent): the means are rounded to 3 decimals first."""
    return relative(round(reference_cell / 10, 3), round(model_cell / 10, 3))


def order_effect(
    model: float, reference: float, swapped_model: float, swapped_reference: float
) -> float:
    """How far the relative score moves when the model's answer is shown first: the
    swapped order's relative score minus the official order's (cells as above)."""
    swapped = relative_of_cells(swapped_model, swapped_reference)
    return round(swapped - relative_of_cells(model, reference), 1)
