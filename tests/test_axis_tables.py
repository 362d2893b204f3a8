"""Tables by a sample's metadata (engine.axis_tables), as MMMU and MathVista lay them out."""

from __future__ import annotations

from lmmreview.engine.axis_tables import axis_cells, axis_tables
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.types import QuestionType, Sample


def _sample(key: str, **axes: tuple[str, ...]) -> Sample:
    return Sample(key, "q", QuestionType.CHOICE, "A", axes=axes)


SAMPLES = [
    _sample("a", skills=("ALG", "GEO"), grade=("college",)),
    _sample("b", skills=("GEO",)),
    _sample("c", skills=("ARI",)),
]


def test_a_table_per_axis_present_columns_by_weighted_count() -> None:
    axes = (("skills", "by skill"), ("grade", "by grade"), ("language", "by language"))
    tables = axis_tables("d", "T", SAMPLES, [1, 1, 5], axes)
    assert [(axis, spec.name, spec.title) for axis, spec in tables] == [
        ("skills", "d.skills", "T: by skill"),
        ("grade", "d.grade", "T: by grade"),
    ]  # no sample has a language: no table
    # "c" stands for five alike samples: ARI counts 5, GEO 2, ALG 1.
    assert [c.key for c in tables[0][1].columns] == ["ARI", "GEO", "ALG"]
    assert axis_cells(tables, SAMPLES[0]) == (
        ("d.skills", "ALG"), ("d.skills", "GEO"), ("d.grade", "college"),
    )  # fmt: skip
    assert axis_cells(tables, SAMPLES[2]) == (("d.skills", "ARI"),)


def test_mmmu_orders_difficulty_from_easy_then_the_rest_by_count() -> None:
    samples = [
        _sample(f"validation_Art_{i}", subject=("Art",), discipline=("Art and Design",),
                difficulty=(difficulty,), subfield=("Painting",))
        for i, difficulty in enumerate(["Hard", "Odd", "Easy", "Odd", "Hard", "Medium"])
    ]  # fmt: skip
    specs, units = MMMU_BENCHMARK.tables("m", samples, [1] * len(samples))
    columns = {spec.name: [c.key for c in spec.columns] for spec in specs}
    assert columns["m.difficulty"] == ["Easy", "Medium", "Hard", "Odd"]
    assert columns["m.subfield"] == ["Painting"]
    assert "m.img_type" not in columns
    (unit,) = units["validation_Art_1"]
    assert unit.cells == (
        ("m.disciplines", "overall"), ("m.subjects", "Art"), ("m.disciplines", "Art and Design"),
        ("m.difficulty", "Odd"), ("m.subfield", "Painting"),
    )  # fmt: skip
