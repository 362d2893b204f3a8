"""Plain values shared by every layer: a dataset's kind, a question's type, a sample."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class DatasetKind(StrEnum):
    """Which benchmark's rules score a dataset."""

    MMVET = "mmvet"
    MMBENCH = "mmbench"
    MMMU = "mmmu"
    GENERIC = "generic"


class QuestionType(StrEnum):
    """Open answers go to a judge or a parser; choice answers to choice extraction."""

    OPEN = "open"
    CHOICE = "choice"


Tags = dict[str, str | list[str]]


@dataclass(frozen=True, slots=True)
class Sample:
    """One benchmark question with its ground truth and every breakdown axis.

    `key` is the benchmark's own id (``v1_0``, an MMBench index, ``validation_Art_1``).
    Axes that a benchmark does not have stay ``None``.
    """

    key: str
    question: str
    question_type: QuestionType
    answer: str | None = None  # None when the gold is unknown (MMBench test split)
    alt_answers: tuple[str, ...] = ()  # further acceptable golds (MMMU list answers)
    options: dict[str, str] = field(default_factory=dict)  # letter -> text, in order
    hint: str | None = None
    split: str | None = None
    capabilities: tuple[str, ...] = ()  # MM-Vet, canonical order
    category: str | None = None  # MMBench L-3 ability
    l2_category: str | None = None  # MMBench L-2 ability
    circular_group: int | None = None
    rotation: int | None = None
    subject: str | None = None  # MMMU
    discipline: str | None = None
    subfield: str | None = None
    difficulty: str | None = None
    img_type: str | None = None
    tags: Tags = field(default_factory=dict)  # free breakdown tags (generic datasets)

    @property
    def golds(self) -> list[str]:
        """Every acceptable ground truth, the main one first."""
        return [] if self.answer is None else [self.answer, *self.alt_answers]
