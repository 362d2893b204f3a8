"""MMBench's official file: the evaluation server's workbook of every circular row with the
model's raw prediction. Pure values in, rows out."""

from __future__ import annotations

from collections.abc import Sequence

from lmmreview.engine.benchmarks.mmbench.benchmark import CATEGORY, L2_CATEGORY
from lmmreview.engine.types import Sample


def mmbench_header(samples: Sequence[Sample]) -> list[str]:
    """The workbook's columns: as many option letters as the dataset's rows have."""
    letters = sorted({letter for s in samples for letter in s.options})
    return ["index", "question", "hint", *letters, "answer", "prediction", "category",
            "l2-category", "split"]  # fmt: skip


def mmbench_row(header: list[str], sample: Sample, prediction: str) -> list[str | int]:
    """One circular row with the model's raw prediction, in the header's columns."""
    fields: dict[str, str | int | None] = {
        "index": int(sample.key),
        "question": sample.question,
        "hint": sample.hint,
        "answer": sample.answer,
        "prediction": prediction,
        "category": sample.first(CATEGORY),
        "l2-category": sample.first(L2_CATEGORY),
        "split": sample.split,
        **sample.options,
    }
    return [value if (value := fields.get(column)) is not None else "" for column in header]
