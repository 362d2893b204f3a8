"""A dataset's samples read as columns of text, each built into a Sample on access.

200,000 Sample objects cost about a second to build and 85 MB to hold; the same fields as
one list of strings per column (read whole: db.joined) cost a fraction of both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable, Iterator, Sequence
from typing import cast, overload

import numpy as np

from lmmreview.db.joined import Ints, in_id_order, read_text_columns
from lmmreview.db.store import SAMPLE_COLUMNS, row_sample
from lmmreview.engine.samples import SampleSet, group_places
from lmmreview.engine.types import Sample

# A sample's fields the tables read (engine.benchmark.Benchmark.tables): not its question,
# hint and options, the longest texts (a third of what 1,000,000 MMMU answers' samples
# held); the screen and its grading keys take them from the answer's details, read whole.
LEFT_OUT: dict[str, str | None] = {"question": "", "hint": None, "options": None}
READ = tuple(name for name in SAMPLE_COLUMNS if name not in LEFT_OUT)
_IDS_PER_QUERY = 10_000


class SampleColumns(Sequence[Sample]):
    """Samples held as one list per column of READ: each built on access, without its
    question, hint and options."""

    def __init__(self, columns: dict[str, list[str | None]]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns["key"])

    @overload
    def __getitem__(self, index: int) -> Sample: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Sample]: ...
    def __getitem__(self, index: int | slice) -> Sample | Sequence[Sample]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        return row_sample(
            tuple(
                self.columns[name][index] if name in self.columns else LEFT_OUT[name]
                for name in SAMPLE_COLUMNS
            )
        )

    def __iter__(self) -> Iterator[Sample]:
        return (self[i] for i in range(len(self)))


def read_samples(
    conn: sqlite3.Connection,
    dataset_id: int,
    by_profile: bool,
    known: list[str] | None = None,
    group_by: tuple[str, str] | None = None,
) -> SampleSet:
    """A dataset's samples in id order (see engine.samples: `by_profile` groups those
    equal in question type, split and axes, and with `group_by` in their groups' rows).
    `known`: keys held already (the answers'), kept as the samples' own if they are
    theirs, not held twice."""
    # One snapshot: the extra fields read after the scan are those of the samples it read.
    conn.execute("SAVEPOINT read_samples")
    try:
        return _read_samples(conn, dataset_id, by_profile, known, group_by)
    finally:
        conn.execute("RELEASE read_samples")


def _read_samples(
    conn: sqlite3.Connection,
    dataset_id: int,
    by_profile: bool,
    known: list[str] | None,
    group_by: tuple[str, str] | None,
) -> SampleSet:
    grouped = group_by if by_profile else None
    # A profile's extra fields are read from the sample standing for it, below; a benchmark
    # that does not profile gets every sample whole but for its question and hint.
    held = (*READ, "options") if not by_profile else tuple(n for n in READ if n != "extra")
    # the group fields as JSON texts, taken out by SQLite: no sample is decoded for them
    fields = [f"extra -> '$.{_field(name)}'" for name in grouped or ()]
    names = (*held, *fields)
    few = [name for name in names if name != "key"]  # most hold few values: each held once
    # `+`: a scan in id order, not a search of the (dataset, key) index and a sort
    texts, *columns = read_text_columns(
        conn, ("id", *names), "FROM samples WHERE +dataset_id = ?", (dataset_id,), few
    )
    ids, columns = in_id_order(texts, columns)
    samples = SampleColumns(dict(zip(held, columns[: len(held)], strict=True)))
    keys = cast(list[str], samples.columns["key"])  # NOT NULL
    if keys == known:  # one list, not two alike
        keys, samples.columns["key"] = known, cast(list[str | None], known)
    profiles: list[Hashable] | None = None
    groups = None
    if by_profile:  # what a profile is (engine.samples)
        read = [samples.columns[name] for name in ("question_type", "split", "axes")]
        if grouped:  # and the order field as it is
            group, order = columns[len(held) :]
            read.append(order)
            absent = (None, "null")  # no field, or JSON's null: a lone question
            values = [None if value in absent else value for value in group]
            groups = group_places(samples.columns["split"], values)
        profiles = list(zip(*read, strict=True))
    gold_known = np.array([gold is not None for gold in samples.columns["answer"]], np.bool_)
    found = SampleSet.coded(keys, samples, profiles, gold_known, groups)
    if by_profile:
        samples.columns["extra"] = _extras(conn, ids, found.firsts)
    return found


def _extras(conn: sqlite3.Connection, ids: Ints, firsts: Ints) -> list[str | None]:
    """The extra fields of the samples at places `firsts` (the rest: None): what the
    tables read of each profile, which its first sample stands for (MMBench's 200,000
    circular rows have a few dozen)."""
    extras: list[str | None] = [None] * len(ids)
    places = firsts.tolist()
    for start in range(0, len(places), _IDS_PER_QUERY):
        part = places[start : start + _IDS_PER_QUERY]
        listed = ",".join(str(int(ids[place])) for place in part)  # integers only
        found = dict(conn.execute(f"SELECT id, extra FROM samples WHERE id IN ({listed})"))
        for place in part:
            extras[place] = found.get(int(ids[place]))
    return extras


def _field(name: str) -> str:
    """An extra field's name, safe in a JSON path in SQL text."""
    if not name.isidentifier():
        raise ValueError(f"a group field must be a name, not {name!r}")
    return name
