"""OCRBench (v1)'s matching rules, restated from the official scoring at the end of
`OCRBench/example.py` (Yuliang-Liu/MultimodalOCR @ f5cbec6).

No judge: an answer is right when one of the item's golds, normalised, occurs in the
normalised answer. The general rule lowercases, strips the ends and turns newlines into
spaces; the handwritten-math rule (items of the dataset HME100k) strips the ends, turns
newlines into spaces and then removes every space, keeping case. A substring is enough,
so "CENTRES" passes for the gold "CENTRE". The official report counts right answers per
question type; an item without a prediction counts 0.
"""

from __future__ import annotations

from collections.abc import Iterable

HANDWRITTEN_MATH = "HME100k"  # the dataset whose items the handwritten-math rule reads

# The question types, in the official report's order: the six recognition ones (summed as
# Text Recognition), then the rest.
RECOGNITION = (
    "Regular Text Recognition", "Irregular Text Recognition", "Artistic Text Recognition",
    "Handwriting Recognition", "Digit String Recognition", "Non-Semantic Text Recognition",
)  # fmt: skip
OTHERS = (
    "Scene Text-centric VQA", "Doc-oriented VQA", "Key Information Extraction",
    "Handwritten Mathematical Expression Recognition",
)  # fmt: skip
TYPES = RECOGNITION + OTHERS


def general(text: str) -> str:
    """The general rule's form of a gold or an answer: lowercased, ends stripped, newlines
    as spaces (inner spaces kept; other characters, full-width ones too, as they are)."""
    return text.lower().strip().replace("\n", " ")


def handwritten_math(text: str) -> str:
    """The handwritten-math rule's form: ends stripped, no spaces at all, case kept (a
    newline becomes a space first, so it goes too; a tab stays)."""
    return text.strip().replace("\n", " ").replace(" ", "")


def is_right(answer: str, golds: Iterable[str], dataset: str) -> bool:
    """Whether a gold, normalised by the item's rule, occurs in the normalised answer; any
    of an item's golds will do."""
    normal = handwritten_math if dataset == HANDWRITTEN_MATH else general
    said = normal(answer)
    return any(normal(gold) in said for gold in golds)
