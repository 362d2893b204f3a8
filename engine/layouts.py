"""How each benchmark's samples count in its paper tables.

A layout lists a dataset's tables and, for every sample, the *units* it belongs to: a
unit is what one cell counts once (a sample; for MMBench's CircularEval, a circular
group decided by all its rows).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby

from lmmreview.engine import mmbench, mmmu, mmvet
from lmmreview.engine.scoring import MICRO, Outcome
from lmmreview.engine.tables import Column
from lmmreview.engine.types import DatasetKind, Sample

Cells = tuple[tuple[str, str], ...]  # (table name, column key) pairs
Positions = dict[tuple[str, int], list[int]]  # (split, cell set id) -> answer indices


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    title: str
    columns: list[Column]
    std_columns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unit:
    key: str
    cells: Cells
    members: tuple[str, ...]  # sample keys that decide it, in order


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
    passed = mmbench.circular_verdict([None if s is None else s >= MICRO for s in scores])
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


def layout_for(dataset: str, kind: DatasetKind, samples: list[Sample]) -> Layout:
    """The layout of a dataset of `kind` holding `samples`."""
    build = {
        DatasetKind.MMVET: _mmvet,
        DatasetKind.MMBENCH: _mmbench,
        DatasetKind.MMMU: _mmmu,
        DatasetKind.GENERIC: _generic,
    }[kind]
    tables, units_of = build(dataset, samples)
    splits = {s.key: s.split or "" for s in samples}
    several = len(set(splits.values())) > 1
    return Layout(dataset, tables, units_of, splits if several else {})


def _columns(pairs: list[tuple[str, str]]) -> list[Column]:
    return [Column(key, title) for key, title in pairs]


def _by_count(values: Counter[str]) -> list[str]:
    return sorted(values, key=lambda v: (-values[v], v))


# -- MM-Vet ----------------------------------------------------------------------------


def _mmvet(dataset: str, samples: list[Sample]) -> tuple[list[TableSpec], dict[str, list[Unit]]]:
    sets = Counter(s.capabilities for s in samples)
    order = mmvet.order_integrations(dict(sets))
    tables = [
        TableSpec(
            f"{dataset}.capabilities",
            "MM-Vet: capabilities",
            _columns([*mmvet.CAPABILITY_TITLES.items(), ("total", "Total")]),
            std_columns=("total",),
        ),
        TableSpec(
            f"{dataset}.integrations",
            "MM-Vet: capability integrations",
            _columns(
                [*(("_".join(c), mmvet.integration_title(c)) for c in order), ("total", "Total")]
            ),
            std_columns=("total",),
        ),
    ]
    units_of = {}
    shared: dict[tuple[str, ...], Cells] = {}  # one tuple per capability set, not per sample
    for s in samples:
        cells = shared.get(s.capabilities)
        if cells is None:
            cells = shared[s.capabilities] = (
                *((tables[0].name, c) for c in s.capabilities),
                (tables[0].name, "total"),
                (tables[1].name, "_".join(s.capabilities)),
                (tables[1].name, "total"),
            )
        units_of[s.key] = [Unit(s.key, cells, (s.key,))]
    return tables, units_of


# -- MMBench ---------------------------------------------------------------------------


_L3_SPELLING = {name.lower(): name for name in mmbench.L3_ABILITIES}


def _l3(sample: Sample) -> str:
    """The paper's spelling of an L-3 ability (public TSVs vary in case: OCR, ocr)."""
    category = sample.category or "unknown"
    return _L3_SPELLING.get(category.lower(), category)


def _mmbench(dataset: str, samples: list[Sample]) -> tuple[list[TableSpec], dict[str, list[Unit]]]:
    l3_present = Counter(_l3(s) for s in samples if s.rotation == 0)
    l3 = [c for c in mmbench.L3_ABILITIES if c in l3_present]
    l3 += [c for c in _by_count(l3_present) if c not in mmbench.L3_ABILITIES]
    l2_table, l3_table = f"{dataset}.l2", f"{dataset}.l3"
    tables = [
        TableSpec(
            l2_table,
            "MMBench: overall and L-2 abilities (CircularEval)",
            _columns(
                [("overall", "Overall"), ("vanilla", "Vanilla")]
                + [(abbr, abbr) for abbr in mmbench.L2_ABBREVIATIONS.values()]
            ),
        ),
        TableSpec(
            l3_table, "MMBench: L-3 abilities (CircularEval)", _columns([(c, c) for c in l3])
        ),
    ]
    groups: dict[tuple[str | None, int], list[Sample]] = {}
    for s in samples:
        groups.setdefault((s.split, s.circular_group or 0), []).append(s)
    units_of: dict[str, list[Unit]] = {s.key: [] for s in samples}
    for (split, group), rows in groups.items():
        rows.sort(key=lambda s: s.rotation or 0)
        main = rows[0]
        l2 = mmbench.L2_ABBREVIATIONS.get(main.l2_category or "", "")
        cells: Cells = ((l2_table, "overall"), (l3_table, _l3(main)))
        if l2:
            cells += ((l2_table, l2),)
        name = f"circular:{split}:{group}" if split else f"circular:{group}"  # unique per split
        circular = Unit(name, cells, tuple(s.key for s in rows))
        for s in rows:
            units_of[s.key].append(circular)
        if main.rotation == 0:
            units_of[main.key].append(
                Unit(f"vanilla:{main.key}", ((l2_table, "vanilla"),), (main.key,))
            )
    return tables, units_of


# -- MMMU ------------------------------------------------------------------------------


def _mmmu(dataset: str, samples: list[Sample]) -> tuple[list[TableSpec], dict[str, list[Unit]]]:
    present = {s.discipline for s in samples}
    disciplines = [d for d in mmmu.DISCIPLINES if d in present]
    subjects = [
        subject
        for d in disciplines
        for subject in mmmu.DISCIPLINES[d]
        if any(s.subject == subject for s in samples)
    ]
    subjects += sorted({s.subject or "unknown" for s in samples if s.discipline is None})
    tables = [
        TableSpec(
            f"{dataset}.disciplines",
            "MMMU: overall and disciplines",
            _columns(
                [("overall", "Overall"), *((d, mmmu.DISCIPLINE_TITLES[d]) for d in disciplines)]
            ),
        ),
        TableSpec(
            f"{dataset}.subjects",
            "MMMU: subjects",
            _columns([(s, s.replace("_", " ")) for s in subjects]),
        ),
    ]
    axes = (
        ("difficulty", "MMMU: by difficulty", lambda s: [s.difficulty] if s.difficulty else []),
        ("img_type", "MMMU: by image type", lambda s: _split_list(s.img_type)),
        ("subfield", "MMMU: by subfield", lambda s: [s.subfield] if s.subfield else []),
    )
    extra: list[tuple[TableSpec, Callable[[Sample], list[str]]]] = []
    for axis, title, values_of in axes:
        counts = Counter(v for s in samples for v in values_of(s))
        if counts:
            order = _difficulty_order(counts) if axis == "difficulty" else _by_count(counts)
            spec = TableSpec(f"{dataset}.{axis}", title, _columns([(v, v) for v in order]))
            extra.append((spec, values_of))
    tables += [spec for spec, _ in extra]
    units_of = {}
    for s in samples:
        cells: Cells = ((tables[0].name, "overall"), (tables[1].name, s.subject or "unknown"))
        if s.discipline:
            cells += ((tables[0].name, s.discipline),)
        for spec, values_of in extra:
            cells += tuple((spec.name, v) for v in values_of(s))
        units_of[s.key] = [Unit(s.key, cells, (s.key,))]
    return tables, units_of


def _split_list(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _difficulty_order(counts: Counter[str]) -> list[str]:
    known = [d for d in ("Easy", "Medium", "Hard") if d in counts]
    return known + [d for d in _by_count(counts) if d not in known]


# -- generic ---------------------------------------------------------------------------


def _generic(dataset: str, samples: list[Sample]) -> tuple[list[TableSpec], dict[str, list[Unit]]]:
    types = Counter(s.question_type.value for s in samples)
    overall = TableSpec(
        f"{dataset}.overall",
        f"{dataset}: overall",
        _columns([("overall", "Overall"), *((t, t) for t in sorted(types) if len(types) > 1)]),
    )
    tags: dict[str, Counter[str]] = {}
    for s in samples:
        for name, value in s.tags.items():
            tags.setdefault(name, Counter()).update([value] if isinstance(value, str) else value)
    tag_tables = {
        name: TableSpec(
            f"{dataset}.{name}", f"{dataset}: by {name}", _columns([(v, v) for v in _by_count(c)])
        )
        for name, c in sorted(tags.items())
    }
    units_of = {}
    for s in samples:
        cells: Cells = ((overall.name, "overall"),)
        if len(types) > 1:
            cells += ((overall.name, s.question_type.value),)
        for name, value in s.tags.items():
            values = [value] if isinstance(value, str) else value
            cells += tuple((tag_tables[name].name, v) for v in values)
        units_of[s.key] = [Unit(s.key, cells, (s.key,))]
    return [overall, *tag_tables.values()], units_of
