"""Tables by a sample's metadata: one table per axis (MMMU's difficulty, MathVista's skills),
one column per value, a sample counted once under each of its values."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from lmmreview.engine.benchmark import Cells, TableSpec
from lmmreview.engine.tables import by_count, columns
from lmmreview.engine.types import Sample

Order = Callable[[str, Counter[str]], list[str]]  # (axis, samples per value) -> columns


def counted(_axis: str, found: Counter[str]) -> list[str]:
    """The default order of an axis's columns: by count (engine.tables.by_count)."""
    return by_count(found)


def axis_tables(
    dataset: str,
    title: str,
    samples: list[Sample],
    counts: list[int],
    axes: Sequence[tuple[str, str]],
    order: Order = counted,
) -> list[tuple[str, TableSpec]]:
    """A table `{dataset}.{axis}` titled "{title}: {heading}" for each (axis, heading) that
    any sample has, each with the axis it tables; `samples` stand for `counts` alike ones."""
    tables = []
    for axis, heading in axes:
        found: Counter[str] = Counter()
        for sample, count in zip(samples, counts, strict=True):
            for value in sample.axis(axis):
                found[value] += count
        if found:
            spec = TableSpec(
                f"{dataset}.{axis}",
                f"{title}: {heading}",
                columns((v, v) for v in order(axis, found)),
            )
            tables.append((axis, spec))
    return tables


def axis_cells(tables: Iterable[tuple[str, TableSpec]], sample: Sample) -> Cells:
    """The cells a sample counts in, in the tables `axis_tables` made."""
    return tuple((spec.name, value) for axis, spec in tables for value in sample.axis(axis))
