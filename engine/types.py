"""Plain values shared by every layer: a question's type and a sample."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class QuestionType(StrEnum):
    """Open answers go to a judge or a parser; choice answers to choice extraction."""

    OPEN = "open"
    CHOICE = "choice"


# A sample's breakdown axes: axis name -> its values (a sample may have several, as an
# MM-Vet question has several capabilities), in the benchmark's order.
Axes = dict[str, tuple[str, ...]]
# Benchmark-specific fields that are not breakdown axes (an MMBench circular group and
# rotation); plain JSON values.
Extra = dict[str, str | int | float | bool | None]


@dataclass(frozen=True, slots=True)
class Sample:
    """One benchmark question with its ground truth and its breakdown axes.

    `key` is the benchmark's own id (``v1_0``, an MMBench index, ``validation_Art_1``).
    What a benchmark adds beyond the common fields lives in `axes` and `extra`, read by
    that benchmark's own module.
    """

    key: str
    question: str
    question_type: QuestionType
    answer: str | None = None  # None when the gold is unknown (MMBench test split)
    alt_answers: tuple[str, ...] = ()  # further acceptable golds (MMMU list answers)
    options: dict[str, str] = field(default_factory=dict)  # letter -> text, in order
    hint: str | None = None
    split: str | None = None
    axes: Axes = field(default_factory=dict)
    extra: Extra = field(default_factory=dict)

    @property
    def golds(self) -> list[str]:
        """Every acceptable ground truth, the main one first."""
        return [] if self.answer is None else [self.answer, *self.alt_answers]

    def axis(self, name: str) -> tuple[str, ...]:
        """The values of one axis (none when the sample lacks it)."""
        return self.axes.get(name, ())

    def first(self, name: str) -> str | None:
        """The first value of an axis that holds one value (a subject, a category)."""
        values = self.axes.get(name)
        return values[0] if values else None
