"""A dataset's samples read as columns of text, each built into a Sample on access.

200,000 Sample objects cost about a second to build and 85 MB to hold; the same fields as
one list of strings per column (read whole: db.joined) cost a fraction of both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import cast, overload

import numpy as np

from lmmreview.db.joined import read_text_columns
from lmmreview.db.store import SAMPLE_COLUMNS, row_sample
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.types import Sample


class SampleColumns(Sequence[Sample]):
    """Samples held as one list per stored column (SAMPLE_COLUMNS, as stored)."""

    def __init__(self, columns: list[list[str | None]]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    @overload
    def __getitem__(self, index: int) -> Sample: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Sample]: ...
    def __getitem__(self, index: int | slice) -> Sample | Sequence[Sample]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        return row_sample(tuple(column[index] for column in self.columns))

    def __iter__(self) -> Iterator[Sample]:
        return (self[i] for i in range(len(self)))

    def column(self, name: str) -> list[str | None]:
        return self.columns[SAMPLE_COLUMNS.index(name)]


def in_id_order(ids: list[str | None], columns: list[list[str | None]]) -> list[list[str | None]]:
    """The columns with their rows by id (a scan gives them so; SQLite promises no order)."""
    numbers = np.array(list(map(int, cast(list[str], ids))), np.int64)
    if np.all(numbers[1:] > numbers[:-1]):
        return columns
    order = np.argsort(numbers, kind="stable").tolist()
    return [[column[i] for i in order] for column in columns]


def read_samples(conn: sqlite3.Connection, dataset_id: int, by_profile: bool) -> SampleSet:
    """A dataset's samples in id order (see engine.samples: `by_profile` groups those
    equal in question type, split and axes)."""
    # `+`: a scan in id order, not a search of the (dataset, key) index and a sort
    ids, *columns = read_text_columns(
        conn, ("id", *SAMPLE_COLUMNS), "FROM samples WHERE +dataset_id = ?", (dataset_id,)
    )
    samples = SampleColumns(in_id_order(ids, columns))
    keys = cast(list[str], samples.column("key"))  # NOT NULL
    read = ("question_type", "split", "axes")  # what a profile is (engine.samples)
    for name in read:  # few distinct values, each held once
        column, once = samples.column(name), dict[str | None, str | None]()
        column[:] = [once.setdefault(value, value) for value in column]
    profiles = None
    if by_profile:
        profiles = list(zip(*(samples.column(name) for name in read), strict=True))
    known = np.array([gold is not None for gold in samples.column("answer")], np.bool_)
    return SampleSet.coded(keys, samples, profiles, known)
