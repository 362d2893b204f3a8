"""A dataset's samples for the tables: in dataset order, grouped into profiles.

A million answers may be to 200,000 samples, yet their tables read only each sample's
question type, split and axes, which few combinations cover (MM-Vet's capability sets: a
few dozen). Samples equal in those share a *profile*, and the tables' layout is built once
per profile, not once per sample. Where the tables count groups of samples together
(MMBench: circular groups, by Benchmark.group_by), a profile is also alike in the rows of
the sample's group and in its place among them: the first group standing for alike groups
is built once, and the layout repeats its units for each of them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lmmreview.engine.types import Sample

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class SampleSet:
    """Samples by index (the answers' `sample` column), and the profile of each."""

    keys: list[str]
    # As the tables read them: read from the store, built on access, without question
    # and hint (db.sample_columns).
    samples: Sequence[Sample]
    profile: Ints  # per sample: its profile's number
    firsts: Ints  # per profile: its first sample, which stands for all
    gold_known: Bools  # per sample: it has a gold (a test split's has none)
    index: dict[str, int]  # sample key -> its index
    group: Ints  # per sample: its group's number (a sample in none: its own)

    @classmethod
    def of(
        cls,
        samples: Sequence[Sample],
        by_profile: bool = True,
        group_by: tuple[str, str] | None = None,
    ) -> SampleSet:
        """Samples held as they are, grouped by profile (or each on its own); `group_by`:
        the extra fields of a sample's group and its order there (Benchmark.group_by)."""
        profiles = [_profile(s, group_by) for s in samples] if by_profile else None
        groups = None
        if by_profile and group_by:
            values = [s.extra.get(group_by[0]) for s in samples]
            groups = group_places([s.split for s in samples], values)
        known = np.array([s.answer is not None for s in samples], np.bool_)
        return cls.coded([s.key for s in samples], samples, profiles, known, groups)

    @classmethod
    def coded(
        cls,
        keys: list[str],
        samples: Sequence[Sample],
        profiles: Sequence[Hashable] | None,
        gold_known: Bools,
        groups: Sequence[Hashable] | None = None,
    ) -> SampleSet:
        """Samples (`keys` and `gold_known` are theirs) whose profiles are given as values
        equal where the samples are alike, one per sample (None: each its own profile),
        and, where the tables count groups together, the group of each (equal values: one
        group; see _in_groups)."""
        alone = np.arange(len(keys), dtype=np.int64)
        if profiles is None:
            numbers, group = alone, alone
        elif groups is None:
            numbers, group = _numbered(profiles), alone
        else:
            numbers, group = _in_groups(profiles, groups)
        # the first of each profile in group order: alike groups stand for theirs whole
        by_group = np.lexsort((alone, group))
        _, firsts = np.unique(numbers[by_group], return_index=True)
        index = {key: i for i, key in enumerate(keys)}
        return cls(keys, samples, numbers, by_group[firsts], gold_known, index, group)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def profiles(self) -> list[Sample]:
        """One sample per profile: the first one having it."""
        return [self.samples[int(i)] for i in self.firsts]

    def counts(self) -> list[int]:
        """How many samples each profile stands for."""
        counted: Ints = np.bincount(self.profile, minlength=len(self.firsts))
        return [int(n) for n in counted]

    def has_all(self, keys: list[str]) -> bool:
        """Whether every sample of `keys` is one of these."""
        return keys == self.keys or all(key in self.index for key in keys)

    def golds(self, index: int) -> list[str]:
        return self.samples[index].golds

    def golds_for(self, key: str) -> list[str]:
        return self.golds(self.index[key])


def group_places(splits: Sequence[str | None], values: Sequence[object]) -> list[Hashable]:
    """Each sample's group as the tables count groups: its split and its group field's
    value; a sample without one (a lone question) is a group of its own."""
    return [
        (split, value) if value is not None else ("alone", i)
        for i, (split, value) in enumerate(zip(splits, values, strict=True))
    ]


def _in_groups(profiles: Sequence[Hashable], groups: Sequence[Hashable]) -> tuple[Ints, Ints]:
    """Per sample: its profile's number, alike in the profiles of its group's rows and in
    its place among them, in dataset order (the tables order a group's rows stably, by
    their profiles); and its group's number, by first appearance."""
    group, kind = _numbered(groups), _numbered(profiles)
    count = len(group)
    rows = np.argsort(group, kind="stable")
    by_group = group[rows]
    starts = np.flatnonzero(np.r_[True, by_group[1:] != by_group[:-1]])
    ends = np.r_[starts[1:], count]
    place = np.arange(count) - np.repeat(starts, ends - starts)
    kinds = kind[rows].tolist()
    # per group (in number order, as sorted): the profiles of its rows in order
    signature = _numbered(
        [tuple(kinds[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    )
    numbers = np.empty(count, np.int64)
    numbers[rows] = np.unique(signature[by_group] * count + place, return_inverse=True)[1]
    return numbers, group


def _numbered(values: Sequence[Hashable]) -> Ints:
    """A number per value, equal where the values are, by first appearance."""
    seen: dict[Hashable, int] = {}
    return np.array([seen.setdefault(v, len(seen)) for v in values], np.int64)


def _profile(sample: Sample, group_by: tuple[str, str] | None) -> Hashable:
    """What a benchmark's tables read of a sample that profiles them (with its order field
    as it is, where they count groups)."""
    order = sample.extra.get(group_by[1]) if group_by else None
    return sample.question_type, sample.split, tuple(sample.axes.items()), order
