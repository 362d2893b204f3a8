"""Samples read as columns: exactly the samples the store holds, grouped into profiles."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from lmmreview.db.joined import SEPARATOR, in_id_order, read_text_columns
from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
from lmmreview.engine.benchmarks.mmbench.benchmark import MMBENCH
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.types import QuestionType, Sample

OPEN, CHOICE = QuestionType.OPEN, QuestionType.CHOICE

SAMPLES = [
    Sample("a", "What is 1+1?", OPEN, "2", axes={"capability": ("math",)}),
    Sample("b", "[bold]markup[/bold]\x1b[31m", OPEN, "", axes={"capability": ("math",)}),
    Sample("c", f"a{SEPARATOR}b", CHOICE, None, options={"A": "x", "B": "y"}, split="test"),
    Sample("d", "line\nbreak", OPEN, "\x1e", ("alt", "\x1f"), hint="h", extra={"n": 1}),
    Sample("e", "", OPEN, "3", axes={"capability": ("math",)}),
    Sample("f", "q", CHOICE, "A", options={"A": "x"}, split="test"),
]


def _store(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "s.db")
    other = store.dataset_id("other", "generic")
    store.upsert_samples(other, [Sample("a", "elsewhere", OPEN, "9")])
    store.upsert_samples(store.dataset_id("d", "generic"), SAMPLES)
    return store


def test_the_columns_give_back_every_sample_exactly(tmp_path: Path) -> None:
    """Separators, the NULL marker, markup and escapes in the text; None and "" apart."""
    with _store(tmp_path) as store:
        read = EntryReader(store).samples("d", by_profile=True)
        assert store.samples("d") == SAMPLES
        # as the tables read them: not the question, hint and options
        assert list(read.samples) == [
            replace(s, question="", hint=None, options={}) for s in SAMPLES
        ]
        assert read.keys == ["a", "b", "c", "d", "e", "f"]
        assert read.gold_known.tolist() == [True, True, False, True, True, True]
        assert read.golds(3) == ["\x1e", "alt", "\x1f"]
        assert read.golds(2) == []


def test_alike_samples_share_a_profile_and_the_first_stands_for_it(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        read = EntryReader(store).samples("d", by_profile=True)
        # a, b, e: open, no split, math; c, f: choice, test, no axes; d alone
        assert read.profile.tolist() == [0, 0, 1, 2, 0, 1]
        assert [s.key for s in read.profiles] == ["a", "c", "d"]
        assert read.counts() == [3, 2, 1]
        alone = EntryReader(store).samples("d", by_profile=False)
        assert alone.profile.tolist() == list(range(6))


def test_alike_circular_groups_read_share_profiles_as_built_from_samples(tmp_path: Path) -> None:
    """Profiles from the stored texts (group fields taken out by SQLite) are those of
    SampleSet.of: groups alike in their rows share them, each row by its place."""

    def row(key: str, group: int | None, rotation: int | None, category: str) -> Sample:
        extra = {"circular_group": group, "rotation": rotation}
        return Sample(key, "q", CHOICE, "A", options={"A": "x", "B": "y"}, split="dev",
            axes={"category": (category,)},
            extra={name: value for name, value in extra.items() if value is not None},
        )  # fmt: skip

    rows = [
        row("0", 0, 0, "ocr"), row("1", 1, 0, "ocr"), row("1000000", 0, 1, "ocr"),
        row("1000001", 1, 1, "ocr"), row("2", 2, 0, "ocr"), row("3", 3, 1, "ocr"),
        row("4", 4, 0, "x"), row("5", None, 0, "ocr"), row("6", None, None, "ocr"),
    ]  # fmt: skip
    with Store.open(tmp_path / "s.db") as store:
        store.upsert_samples(store.dataset_id("d", "mmbench"), rows)
        read = EntryReader(store).samples("d", True, None, MMBENCH.group_by)
        built = SampleSet.of(store.samples("d"), True, MMBENCH.group_by)
    # groups 0 and 1 alike: two profiles; 2, 3 and 4 their own; a row without a group is a
    # lone question, a group of its own: "5" is alike group 2's one row, "6" (no rotation) not
    assert read.profile.tolist() == [0, 0, 1, 1, 2, 3, 4, 2, 5]
    assert read.group.tolist() == [0, 1, 0, 1, 2, 3, 4, 5, 6]
    assert [read.keys[i] for i in read.firsts] == ["0", "1000000", "2", "3", "4", "6"]
    for name in ("profile", "group", "firsts"):
        assert np.array_equal(getattr(read, name), getattr(built, name))


def test_a_text_column_with_the_separator_in_it_is_read_by_length(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        rows = "FROM samples WHERE dataset_id = 2"
        questions, answers = read_text_columns(store.conn, ["question", "answer"], rows, ())
        assert questions == [s.question for s in SAMPLES]
        assert answers == [s.answer for s in SAMPLES]
        empty = read_text_columns(store.conn, ["question"], "FROM samples WHERE 0", ())
        assert empty == [[]]
        assert np.array_equal(EntryReader(store).samples("other", True).profile, [0])


def test_rows_come_back_in_id_order_whatever_order_sqlite_gave() -> None:
    columns: list[list[str | None]] = [["b", "c", "a"], ["2", None, "1"]]
    numbers, ordered = in_id_order(["20", "30", "10"], columns)
    assert numbers.tolist() == [10, 20, 30]
    assert ordered == [["a", "b", "c"], ["1", "2", None]]
    assert in_id_order(["1", "2"], [["x", "y"]])[1] == [["x", "y"]]


def test_extra_fields_are_held_for_the_sample_standing_for_each_profile(tmp_path: Path) -> None:
    """The tables read a profile's extra fields from its first sample: the others' are not
    held; without profiles every sample stands for itself and keeps them."""
    alike = [
        Sample(key, "q", OPEN, "1", axes={"t": ("x",)}, extra={"n": n})
        for n, key in enumerate(["p", "q", "r"])
    ]
    with _store(tmp_path) as store:
        store.upsert_samples(store.dataset_id("alike", "generic"), alike)
        profiled = EntryReader(store).samples("alike", by_profile=True)
        alone = EntryReader(store).samples("alike", by_profile=False)
    assert profiled.profile.tolist() == [0, 0, 0]
    assert [s.extra for s in profiled.profiles] == [{"n": 0}]
    assert [s.extra for s in profiled.samples] == [{"n": 0}, {}, {}]
    assert [s.extra for s in alone.samples] == [{"n": 0}, {"n": 1}, {"n": 2}]
