"""How each benchmark's samples count in its paper tables.

A layout lists a dataset's tables and, for every sample, the *units* it belongs to: a
unit is what one cell counts once (a sample; for MMBench's CircularEval, a circular
group decided by all its rows; a group decided by another rule, Unit.rule).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import groupby

import numpy as np
import numpy.typing as npt

from lmmreview.engine.benchmark import ALL, MIXED, NONE, Benchmark, Cells, TableSpec, Unit
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import MICRO, Outcome, unit_passes

# Plug-ins build their tables' columns with these: they live in engine.tables, which the
# benchmarks import without numpy (`lmmreview import --help` lists their commands).
from lmmreview.engine.tables import by_count as by_count
from lmmreview.engine.tables import columns as columns

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


def _single(outcomes: list[Outcome]) -> Outcome:
    return outcomes[0]


def _circular(outcomes: list[Outcome]) -> Outcome:
    """A group passes a run only if every row is right; the first wrong row fails it.

    (The full recompute does the same over whole columns: Breakdown._load_groups.)"""
    micro = tuple(map(circular_run, *(o.micro for o in outcomes)))
    _, _, reviewed, fallback, offline = zip(*outcomes, strict=True)
    return circular_outcome(micro, max(reviewed), max(fallback), max(offline))


@lru_cache(maxsize=4096)  # few distinct inputs (0, 1 or None per row) over many groups
def circular_run(*scores: int | None) -> int | None:
    """One run of a circular group, from its rows' scores in that run (CircularEval)."""
    passed = unit_passes([None if s is None else s >= MICRO for s in scores])
    return None if passed is None else MICRO * passed


# How a group is decided in a run, from whether any of its rows is right, any wrong and
# any unknown (Unit.rule): whether it is right, and whether that is decided yet.
Rule = Callable[[Bools, Bools, Bools], tuple[Bools, Bools]]


def _every_right(right: Bools, wrong: Bools, unknown: Bools) -> tuple[Bools, Bools]:
    """CircularEval: a wrong row fails the group, else an unknown one leaves it unknown."""
    return ~wrong, wrong | ~unknown


def _none_right(right: Bools, wrong: Bools, unknown: Bools) -> tuple[Bools, Bools]:
    """Right when no row is: a right row decides it (not), else an unknown one leaves it."""
    return ~right, right | ~unknown


def _mixed(right: Bools, wrong: Bools, unknown: Bools) -> tuple[Bools, Bools]:
    """Right when some rows are right and some wrong; undecided while a row is unknown
    and it is not so yet."""
    mixed = right & wrong
    return mixed, mixed | ~unknown


RULES: dict[str, Rule] = {ALL: _every_right, NONE: _none_right, MIXED: _mixed}  # UNIT_RULES


def decide(rule: str, micro: Ints, scored: Bools, rows: int) -> tuple[Bools, Bools]:
    """Groups by `rule` from their rows' scores (axis `rows`; a row not fully right is
    wrong): whether each is right in each run, and whether that is decided."""
    wrong = scored & (micro < MICRO)
    right = scored & ~wrong
    found = (np.asarray(flag.any(axis=rows)) for flag in (right, wrong, ~scored))
    return RULES[rule](*found)


@lru_cache(maxsize=len(RULES))
def _by_rule(rule: str) -> Callable[[list[Outcome]], Outcome]:
    """One group of `rule`, from its rows' outcomes (the full recompute: decide)."""

    def combine(outcomes: list[Outcome]) -> Outcome:
        micro = np.array([[s or 0 for s in o.micro] for o in outcomes], np.int64)
        scored = np.array([[s is not None for s in o.micro] for o in outcomes], np.bool_)
        right, decided = decide(rule, micro, scored, rows=0)
        runs = tuple(MICRO * bool(r) if d else None for r, d in zip(right, decided, strict=True))
        _, _, reviewed, fallback, offline = zip(*outcomes, strict=True)
        return circular_outcome(runs, max(reviewed), max(fallback), max(offline))

    return combine


@lru_cache(maxsize=4096)  # outcomes are immutable: equal groups can share one
def circular_outcome(
    micro: tuple[int | None, ...], reviewed: bool, fallback: bool, offline: bool
) -> Outcome:
    """A group's outcome: its runs, and a flag where any of its rows has one."""
    return Outcome(micro, None not in micro, reviewed, fallback, offline)


@dataclass(slots=True)
class Layout:
    """One dataset's tables and the units each of its samples counts in, kept per profile
    (engine.samples): the units of a sample standing for others are single-sample units,
    which every sample of its profile has alike, or the units of its group, which every
    group alike has at the same places."""

    dataset: str
    tables: list[TableSpec]
    samples: SampleSet
    profile_units: list[list[Unit]]  # per profile: the units of the sample standing for it
    profile_splits: list[str]  # per profile: its split ("" unless the dataset has several)
    # Derived once, for the full recompute over columns: an id per distinct set of cells;
    # per sample, its split's number and the cell sets of its one-sample units (-1 pads);
    # the multi-row units (groups: `grouped`) by size and rule, and per size the sample of
    # each row of each unit (one array per rotation), with each unit's split and cell set.
    cell_sets: list[Cells] = field(default_factory=list)
    split_names: list[str] = field(default_factory=list)
    split_of: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    single_sets: Ints = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    multi_members: list[Ints] = field(default_factory=list)  # per size: (rows, units)
    multi_split: list[Ints] = field(default_factory=list)  # per size: each unit's split
    multi_set: list[Ints] = field(default_factory=list)  # per size: each unit's cell set
    multi_rule: list[str] = field(default_factory=list)  # per size: its units' Unit.rule
    # ("per size": per size and rule)
    titles: dict[str, str] = field(default_factory=dict)  # "table/column" -> column title
    # the samples by profile, then group, and where each profile's samples begin there;
    # per sample, its place among its profile's (its group's among the groups alike)
    by_group: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    starts: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    place: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    _ids: dict[Cells, int] = field(default_factory=dict)
    # per multi-row unit: its size's (and rule's) number in multi_members and its first
    # group's column
    _multi_at: dict[str, tuple[int, int]] = field(default_factory=dict)
    # per profile: the sum columns (Column.sum_of) its sample counts in once, see `_summed`
    _profile_sums: list[Cells] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.titles = {
            f"{spec.name}/{c.key}": c.title for spec in self.tables for c in spec.columns
        }
        samples = self.samples
        names = {split: i for i, split in enumerate(sorted({"", *self.profile_splits}))}
        self.split_names = list(names)
        profile_split = np.array([names[split] for split in self.profile_splits], np.int64)
        self.split_of = profile_split[samples.profile]
        self.by_group = np.lexsort((samples.group, samples.profile))
        sizes = np.bincount(samples.profile, minlength=len(samples.firsts))
        self.starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        self.place = np.empty(len(samples), np.int64)
        self.place[self.by_group] = np.arange(len(samples)) - np.repeat(self.starts[:-1], sizes)
        multi: dict[str, Unit] = {}
        singles = []
        for profile, units in enumerate(self.profile_units):
            sums = self._summed(units)
            self._profile_sums.append(sums)
            ones = [u.cells for u in units if not self.grouped(u)]
            # a one-sample unit adds what the sum columns count: its cells take them too,
            # which costs no pass over the answers of its own
            ones = [ones[0] + sums, *ones[1:]] if ones else [sums] if sums else []
            singles.append([self.cell_set(cells) for cells in ones])
            first = samples.keys[samples.firsts[profile]]
            for unit in units:
                if not self.grouped(unit):
                    continue
                if sizes[profile] > 1 and first not in unit.members:  # see `_alike`
                    raise ValueError(f"{unit.key!r} ties samples together: no profiles")
                if multi.setdefault(unit.key, unit) != unit:
                    raise ValueError(f"two multi-row units are named {unit.key!r}")
        width = max(map(len, singles), default=0)
        by_profile = np.array(
            [sets + [-1] * (width - len(sets)) for sets in singles], np.int64
        ).reshape(len(singles), width)
        self.single_sets = by_profile[samples.profile]
        kind = lambda u: (len(u.members), u.rule)  # noqa: E731
        by_size = sorted(multi.values(), key=kind)  # stable
        for size, ((_, rule), same_size) in enumerate(groupby(by_size, key=kind)):
            units = list(same_size)
            self.multi_rule.append(rule)
            members = [self._rows_of(unit) for unit in units]  # each (rows, alike groups)
            counts = [rows.shape[1] for rows in members]
            firsts = np.cumsum([0, *counts[:-1]]).tolist()
            self._multi_at |= {u.key: (size, at) for u, at in zip(units, firsts, strict=True)}
            self.multi_members.append(np.concatenate(members, axis=1))
            # a group's rows share a split
            self.multi_split.append(self.split_of[self.multi_members[-1][0]])
            sets = [self.cell_set(unit.cells) for unit in units]
            self.multi_set.append(np.repeat(sets, counts).astype(np.int64))

    def _summed(self, units: list[Unit]) -> Cells:
        """The sum columns a sample of these units counts in: those with a part any of them
        counts in. A sum column's counts are its answers' (each once: MME's subtask score
        reads an answer in acc and again in acc+), while its value is its parts'."""
        counted = {cell for unit in units for cell in unit.cells}
        return tuple(
            (spec.name, column.key)
            for spec in self.tables
            for column in spec.columns
            if not counted.isdisjoint(column.sum_of)
        )

    def _rows_of(self, unit: Unit) -> Ints:
        """A multi-row unit's rows in every group alike to its own: (rows, groups), each
        group's rows at its members' places."""
        samples = self.samples
        first = [samples.index[key] for key in unit.members]
        alike = [self._of_profile(int(p)) for p in samples.profile[first]]
        shared = any(len(rows) > 1 for rows in alike)
        if shared and len(set(samples.group[first].tolist())) > 1:
            raise ValueError(f"{unit.key!r} ties samples together: no profiles")
        return np.array(alike, np.int64).reshape(len(first), -1)

    def _of_profile(self, profile: int) -> Ints:
        """A profile's samples, by group."""
        return self.by_group[self.starts[profile] : self.starts[profile + 1]]

    def cell_set(self, cells: Cells) -> int:
        """The id of a set of cells, given on first sight."""
        number = self._ids.get(cells)
        if number is None:
            number = self._ids[cells] = len(self.cell_sets)
            self.cell_sets.append(cells)
        return number

    def units(self, key: str) -> list[Unit]:
        """The units sample `key` counts in."""
        samples = self.samples
        profile = int(samples.profile[samples.index[key]])
        units = self.profile_units[profile]
        if samples.keys[samples.firsts[profile]] == key:
            return units
        return [self._alike(unit, samples.index[key]) for unit in units]

    def sum_units(self, key: str) -> list[Unit]:
        """Sample `key` as the one-sample unit of the sum columns it counts in (none if it
        counts in none): what their counts count, beside `units`."""
        sums = self._profile_sums[int(self.samples.profile[self.samples.index[key]])]
        return [Unit(key, sums, (key,))] if sums else []

    def _alike(self, unit: Unit, sample: int) -> Unit:
        """The unit of sample `sample` like `unit`, its profile's first sample's."""
        key = self.samples.keys[sample]
        if not self.grouped(unit):
            return replace(unit, key=key, members=(key,))
        size, first = self._multi_at[unit.key]
        rows = self.multi_members[size][:, first + self.place[sample]]
        members = tuple(self.samples.keys[i] for i in rows.tolist())
        return replace(unit, key=f"{unit.key}@{members[0]}", members=members)

    def in_cell(self, table: str, column: str) -> Bools:
        """Per sample: whether one of its units counts in the cell (or, for a sum column,
        whether it is one of the answers its counts count)."""
        cell = (table, column)
        found = [
            cell in sums or any(cell in u.cells for u in units)
            for units, sums in zip(self.profile_units, self._profile_sums, strict=True)
        ]
        return np.array(found, np.bool_)[self.samples.profile]

    def row(self, model: str, key: str) -> str:
        """The table row an answer counts in: its model, and its split if there are several."""
        return self.split_row(model, self.split_names[self.split_of[self.samples.index[key]]])

    @staticmethod
    def split_row(model: str, split: str) -> str:
        return f"{model} ({split})" if split else model

    @staticmethod
    def grouped(unit: Unit) -> bool:
        """Whether a unit is a group, decided by its rule: one of several samples, or of
        one under another rule than ALL (right when that sample is wrong, for NONE)."""
        return len(unit.members) > 1 or unit.rule != ALL

    @staticmethod
    def combine(unit: Unit) -> Callable[[list[Outcome]], Outcome]:
        if not Layout.grouped(unit):
            return _single
        return _circular if unit.rule == ALL else _by_rule(unit.rule)


def layout_for(dataset: str, benchmark: Benchmark, samples: SampleSet) -> Layout:
    """The layout of a dataset of `benchmark` holding `samples`."""
    profiles = samples.profiles
    tables, units_of = benchmark.tables(dataset, profiles, samples.counts())
    splits = [s.split or "" for s in profiles]
    several = len(set(splits)) > 1
    units = [units_of[s.key] for s in profiles]
    return Layout(dataset, tables, samples, units, splits if several else [""] * len(splits))
