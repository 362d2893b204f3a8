"""MMMU-Pro as a benchmark: MMMU's tables under its own title, its parser as offline rules."""

from __future__ import annotations

import json

from lmmreview.engine import registry
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.benchmarks.mmmu_pro.benchmark import MMMU_PRO
from lmmreview.engine.scoring import Status
from lmmreview.engine.types import QuestionType, Sample

OPTIONS = dict(zip("ABCDEFGHIJ", "abcdefghij", strict=True))


def _sample(
    key: str, difficulty: str, img_types: tuple[str, ...], gold: str | None = "B"
) -> Sample:
    subject = key.split("_", 1)[1].rsplit("_", 1)[0]
    discipline = {"Art": "Art and Design", "Math": "Science", "Physics": "Science"}[subject]
    axes = {"subject": (subject,), "discipline": (discipline,), "difficulty": (difficulty,),
            "img_type": img_types}  # fmt: skip
    return Sample(
        key, "q", QuestionType.CHOICE, gold, options=OPTIONS, split=key.split("_")[0], axes=axes
    )


SAMPLES = [
    _sample("test_Math_1", "Hard", ("Diagrams",)),
    _sample("test_Art_2", "Easy", ("Paintings",)),
    _sample("validation_Physics_3", "Medium", ("Diagrams", "Tables")),
]


def test_it_is_installed_after_mmmu() -> None:
    names = list(registry.OWN_ORDER)
    assert names.index("mmmu-pro") == names.index("mmmu") + 1
    assert registry.benchmark("mmmu-pro").title == "MMMU-Pro"


def test_the_tables_are_mmmus_under_its_title() -> None:
    specs, units = MMMU_PRO.tables("pro", SAMPLES, [1, 1, 1])
    shown = {spec.name: (spec.title, [c.key for c in spec.columns]) for spec in specs}
    assert shown == {
        "pro.disciplines": (
            "MMMU-Pro: overall and disciplines",
            ["overall", "Art and Design", "Science"],
        ),
        "pro.subjects": ("MMMU-Pro: subjects", ["Art", "Math", "Physics"]),
        "pro.difficulty": ("MMMU-Pro: by difficulty", ["Easy", "Medium", "Hard"]),
        "pro.img_type": ("MMMU-Pro: by image type", ["Diagrams", "Paintings", "Tables"]),
    }
    (unit,) = units["validation_Physics_3"]
    assert set(unit.cells) == {
        ("pro.disciplines", "overall"), ("pro.disciplines", "Science"),
        ("pro.subjects", "Physics"), ("pro.difficulty", "Medium"),
        ("pro.img_type", "Diagrams"), ("pro.img_type", "Tables"),
    }  # fmt: skip
    # MMMU's tables, laid out by the same code, keep MMMU's titles and the same cells.
    mmmu_specs, mmmu_units = MMMU_BENCHMARK.tables("pro", SAMPLES, [1, 1, 1])
    assert [s.title.removeprefix("MMMU: ") for s in mmmu_specs] == [
        s.title.removeprefix("MMMU-Pro: ") for s in specs
    ]
    assert mmmu_units == units


def test_offline_rules_are_the_mmmu_pro_parser() -> None:
    sample = SAMPLES[0]
    # MMMU reads the spaced "A" (B is not spaced); MMMU-Pro takes the letter after "Answer:".
    answer = "A is wrong.\nAnswer: **B**"
    assert MMMU_BENCHMARK.verdict(sample, answer).prediction == "A"
    judgment = MMMU_PRO.offline(sample, answer)
    assert judgment is not None
    assert (judgment.score, judgment.choice, judgment.method, judgment.status) == (
        1.0, "B", "answer_line", Status.OK,
    )  # fmt: skip
    assert json.loads(judgment.reply) == "B"
    unsure = MMMU_PRO.offline(sample, "no idea")
    assert unsure is not None and unsure.status == Status.FALLBACK
    unknown = MMMU_PRO.offline(_sample("test_Art_9", "Easy", (), gold=None), "Answer: B")
    assert unknown is not None and unknown.score is None and unknown.choice == "B"
