"""How each benchmark's samples count in its paper tables.

A layout lists a dataset's tables and, for every sample, the *units* it belongs to: a
unit is what one cell counts once (a sample; for MMBench's CircularEval, a circular
group decided by all its rows).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby

from lmmreview.engine.benchmark import Benchmark, Cells, TableSpec, Unit
from lmmreview.engine.mmbench import circular_verdict
from lmmreview.engine.scoring import MICRO, Outcome
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

Positions = dict[tuple[str, int], list[int]]  # (split, cell set id) -> answer indices


def _single(outcomes: list[Outcome]) -> Outcome:
    return outcomes[0]


def _circular(outcomes: list[Outcome]) -> Outcome:
    """A group passes a run only if every row is right; the first wrong row fails it.

    (The full recompute does the same over whole columns: breakdown._circular_in_order.)"""
    micro = tuple(map(circular_run, *(o.micro for o in outcomes)))
    _, _, reviewed, fallback, offline = zip(*outcomes, strict=True)
    return circular_outcome(micro, max(reviewed), max(fallback), max(offline))


@lru_cache(maxsize=4096)  # few distinct inputs (0, 1 or None per row) over many groups
def circular_run(*scores: int | None) -> int | None:
    """One run of a circular group, from its rows' scores in that run (CircularEval)."""
    passed = circular_verdict([None if s is None else s >= MICRO for s in scores])
    return None if passed is None else MICRO * passed


@lru_cache(maxsize=4096)  # outcomes are immutable: equal groups can share one
def circular_outcome(
    micro: tuple[int | None, ...], reviewed: bool, fallback: bool, offline: bool
) -> Outcome:
    """A group's outcome: its runs, and a flag where any of its rows has one."""
    return Outcome(micro, None not in micro, reviewed, fallback, offline)


@dataclass(slots=True)
class Layout:
    """One dataset's tables and the units each of its samples counts in."""

    dataset: str
    tables: list[TableSpec]
    units_of: dict[str, list[Unit]]  # sample key -> its units
    splits: dict[str, str]  # sample key -> split, only when a dataset has several
    # Derived once, for the full recompute: an id per distinct set of cells, the ids of
    # each sample's one-sample units, and where each cell set's one-sample units sit when
    # a model answered every sample in dataset order.
    cell_sets: list[Cells] = field(default_factory=list)
    single: dict[str, list[int]] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    order_positions: Positions = field(default_factory=dict)
    # The multi-row units (circular groups), by size then dataset order; the split and
    # cell set of each, by index; and, per size, where each row of each unit sits in
    # `order` (one list per rotation), so a model answering in order combines in C.
    multi: list[Unit] = field(default_factory=list)
    multi_keys: list[str] = field(default_factory=list)  # unique in a dataset
    multi_splits: list[str] = field(default_factory=list)
    multi_cells: list[int] = field(default_factory=list)
    multi_positions: Positions = field(default_factory=dict)  # (split, cell set) -> indices
    multi_slots: list[list[list[int]]] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # "table/column" -> column title
    _ids: dict[Cells, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.titles = {
            f"{spec.name}/{c.key}": c.title for spec in self.tables for c in spec.columns
        }
        multi: dict[str, Unit] = {}
        for key, units in self.units_of.items():
            self.single[key] = [self.cell_set(u.cells) for u in units if len(u.members) == 1]
            for unit in units:
                if len(unit.members) > 1 and multi.setdefault(unit.key, unit) != unit:
                    raise ValueError(f"two multi-row units are named {unit.key!r}")
        self.order = tuple(self.units_of)
        self.order_positions = self.positions_of(self.order)
        self.multi = sorted(multi.values(), key=lambda u: len(u.members))  # stable
        index = {key: i for i, key in enumerate(self.order)}
        for i, unit in enumerate(self.multi):
            split = self.splits.get(unit.members[0], "")  # a group's rows share a split
            cell_set = self.cell_set(unit.cells)
            self.multi_keys.append(unit.key)
            self.multi_splits.append(split)
            self.multi_cells.append(cell_set)
            self.multi_positions.setdefault((split, cell_set), []).append(i)
        for size, same_size in groupby(self.multi, key=lambda u: len(u.members)):
            units = list(same_size)
            self.multi_slots.append([[index[u.members[j]] for u in units] for j in range(size)])

    def cell_set(self, cells: Cells) -> int:
        """The id of a set of cells, given on first sight."""
        number = self._ids.get(cells)
        if number is None:
            number = self._ids[cells] = len(self.cell_sets)
            self.cell_sets.append(cells)
        return number

    def positions_of(self, order: tuple[str, ...]) -> Positions:
        """Where each (split, cell set)'s one-sample units sit among answers to `order`, a
        model's sample keys in its answers' order (`order_positions` for `self.order`)."""
        positions: Positions = {}
        for i, key in enumerate(order):
            split = self.splits.get(key, "")
            for cell_set in self.single[key]:
                positions.setdefault((split, cell_set), []).append(i)
        return positions

    def row(self, model: str, key: str) -> str:
        """The table row an answer counts in: its model, and its split if there are several."""
        return self.split_row(model, self.splits.get(key, ""))

    @staticmethod
    def split_row(model: str, split: str) -> str:
        return f"{model} ({split})" if split else model

    @staticmethod
    def combine(unit: Unit) -> Callable[[list[Outcome]], Outcome]:
        return _single if len(unit.members) == 1 else _circular


def layout_for(dataset: str, benchmark: Benchmark, samples: list[Sample]) -> Layout:
    """The layout of a dataset of `benchmark` holding `samples`."""
    tables, units_of = benchmark.tables(dataset, samples)
    splits = {s.key: s.split or "" for s in samples}
    several = len(set(splits.values())) > 1
    return Layout(dataset, tables, units_of, splits if several else {})


def columns(pairs: Iterable[tuple[str, str]]) -> list[Column]:
    """Table columns from (key, title) pairs."""
    return [Column(key, title) for key, title in pairs]


def by_count(values: Counter[str]) -> list[str]:
    """Values by descending count, ties by name: the order of columns no paper fixes."""
    return sorted(values, key=lambda v: (-values[v], v))
