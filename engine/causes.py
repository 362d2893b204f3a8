"""Why a model got an answer wrong: the error causes a reviewer gives, as MMMU §5 does.

A taxonomy maps a short id to a title. The cause table is MMMU's Figure 5 per model:
for each cause, how many of the model's answers with a cause have it, and which share.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lmmreview.engine.tables import Cell, Column, Row, Table

# MMMU §5's seven causes of GPT-4V's errors, in the paper's order (largest share first).
MMMU_CAUSES: dict[str, str] = {
    "perceptual": "Perceptual error",
    "knowledge": "Lack of knowledge",
    "reasoning": "Reasoning error",
    "textual": "Textual understanding",
    "rejection": "Rejection to answer",
    "annotation": "Annotation error",
    "extraction": "Answer extraction error",
}

TABLE_NAME = "causes"
TOTAL = "total"


@dataclass(frozen=True, slots=True)
class CauseChange:
    """One row of an answer's cause history: what it became (None: cleared), from what."""

    id: int
    cause: str | None
    previous: str | None
    action: str  # set | undo
    reviewer: str
    created_at: str


def cause_title(cause: str | None, taxonomy: Mapping[str, str]) -> str:
    """A cause as the screen names it: its title, or its id when the taxonomy lacks it."""
    if cause is None:
        return "none"
    return taxonomy.get(cause, cause)


def cause_table(
    dataset: str, tagged: Iterable[tuple[str, str]], taxonomy: Mapping[str, str]
) -> Table:
    """The cause distribution of (model, cause) pairs, one per answer with a cause: per
    model, each cause's share (%) of its answers with a cause, n the count; the taxonomy's
    causes in its order, then any other cause found (an older taxonomy's), by id."""
    counts: dict[str, Counter[str]] = {}
    for model, cause in tagged:
        counts.setdefault(model, Counter())[cause] += 1
    found = {cause for counter in counts.values() for cause in counter}
    keys = [c for c in taxonomy if c in found] + sorted(found - taxonomy.keys())
    columns = [Column(key, cause_title(key, taxonomy)) for key in keys]
    columns.append(Column(TOTAL, "Answers with a cause"))
    table = Table(TABLE_NAME, "Error causes (% of the answers with a cause)", dataset, columns)
    for model in sorted(counts):
        counter = counts[model]
        total = sum(counter.values())
        cells = {key: Cell(100.0 * counter[key] / total, counter[key]) for key in keys}
        cells[TOTAL] = Cell(100.0, total)
        table.rows.append(Row(model, cells))
    return table
