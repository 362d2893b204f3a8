"""A dataset's samples for the tables: in dataset order, grouped into profiles.

A million answers may be to 200,000 samples, yet their tables read only each sample's
question type, split and axes, which few combinations cover (MM-Vet's capability sets: a
few dozen). Samples equal in those share a *profile*, and the tables' layout is built once
per profile, not once per sample. A benchmark whose tables read more of each sample
(MMBench: its circular groups) gives every sample a profile of its own.
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

    @classmethod
    def of(cls, samples: Sequence[Sample], by_profile: bool = True) -> SampleSet:
        """Samples held as they are, grouped by profile (or each on its own)."""
        profiles = [_profile(s) for s in samples] if by_profile else None
        known = np.array([s.answer is not None for s in samples], np.bool_)
        return cls.coded([s.key for s in samples], samples, profiles, known)

    @classmethod
    def coded(
        cls,
        keys: list[str],
        samples: Sequence[Sample],
        profiles: Sequence[Hashable] | None,
        gold_known: Bools,
    ) -> SampleSet:
        """Samples (`keys` and `gold_known` are theirs) whose profiles are given as values
        equal where the samples are alike, one per sample (None: each its own profile)."""
        if profiles is None:
            numbers = np.arange(len(keys), dtype=np.int64)
        else:
            seen: dict[Hashable, int] = {}
            numbers = np.array([seen.setdefault(p, len(seen)) for p in profiles], np.int64)
        _, firsts = np.unique(numbers, return_index=True)
        index = {key: i for i, key in enumerate(keys)}
        return cls(keys, samples, numbers, firsts.astype(np.int64), gold_known, index)

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


def _profile(sample: Sample) -> Hashable:
    """What a benchmark's tables read of a sample that profiles them."""
    return sample.question_type, sample.split, tuple(sample.axes.items())
