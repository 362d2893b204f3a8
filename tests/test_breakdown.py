"""Aggregation into the papers' tables, by hand-computed examples and a property test."""

from __future__ import annotations

import statistics
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmmreview.engine.benchmark import Benchmark, Tables, TableSpec, Unit
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.columns import Outcomes
from lmmreview.engine.layouts import Layout, columns, layout_for
from lmmreview.engine.registry import benchmark
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import Outcome, Verdict, effective
from lmmreview.engine.types import QuestionType, Sample


def _open(key: str, caps: tuple[str, ...]) -> Sample:
    return Sample(key, "q", QuestionType.OPEN, "gold", axes={"capability": caps})


def _layout(dataset: str, kind: Benchmark, samples: list[Sample]) -> Layout:
    return layout_for(dataset, kind, SampleSet.of(samples, kind.by_profile, kind.group_by))


MMVET = [_open("v0", ("ocr", "math")), _open("v1", ("rec",)), _open("v2", ("rec", "ocr"))]


class Keyed(Breakdown):
    """A breakdown fed with Outcome objects by (model, key), as these tests write them:
    `load_keyed` turns them into columns, `put` changes one and remembers it."""

    def __init__(self, layout: Layout, runs: int) -> None:
        super().__init__(layout, runs)
        self.outcomes: dict[tuple[str, str], Outcome] = {}

    def load_keyed(self, nested: dict[str, dict[str, Outcome]]) -> None:
        self.outcomes = {(m, k): o for m, per_key in nested.items() for k, o in per_key.items()}
        models = list(nested)
        pairs = list(self.outcomes.items())
        runs = {len(o.micro) for _, o in pairs} or {self.runs}
        width = max(runs)
        micro = [
            [0 if s is None else s for s in o.micro] + [0] * (width - len(o.micro))
            for _, o in pairs
        ]
        scored = [
            [s is not None for s in o.micro] + [False] * (width - len(o.micro)) for _, o in pairs
        ]
        flags = [
            [o.reviewed for _, o in pairs],
            [o.fallback for _, o in pairs],
            [o.offline for _, o in pairs],
        ]
        outcomes = Outcomes(
            np.array(micro, np.int64).reshape(len(pairs), width),
            np.array(scored, np.bool_).reshape(len(pairs), width),
            *(np.array(flag, np.bool_) for flag in flags),
        )
        if len(runs) > 1:
            raise ValueError(f"every outcome must have the tables' {self.runs} runs")
        model = np.array([models.index(m) for (m, _), _ in pairs], np.int64)
        sample = np.array([self.layout.samples.index[k] for (_, k), _ in pairs], np.int64)
        self.load(models, model, sample, outcomes)

    def put(self, model: str, key: str, outcome: Outcome) -> None:
        before = self.outcomes.get((model, key))
        self.set(model, key, before, outcome, lambda m, k: self.outcomes.get((m, k)))
        self.outcomes[(model, key)] = outcome


def _load(breakdown: Keyed, triples: list[tuple[str, str, Outcome]]) -> None:
    """Load (model, key, outcome) triples, last one winning as in a dict."""
    nested: dict[str, dict[str, Outcome]] = {}
    for model, key, outcome in triples:
        nested.setdefault(model, {})[key] = outcome
    breakdown.load_keyed(nested)


def _cells(breakdown: Keyed, table: str, model: str = "m") -> dict:
    (found,) = [t for t in breakdown.tables() if t.name == table]
    (row,) = [r for r in found.rows if r.label == model]
    return row.cells


def test_mmvet_runs_are_averaged_per_run_not_per_sample() -> None:
    breakdown = Keyed(_layout("mmvet", benchmark("mmvet"), MMVET), runs=2)
    _load(
        breakdown,
        [
            ("m", "v0", Outcome.of((1.0, 0.5))),
            ("m", "v1", Outcome.of((0.0, 0.0))),
            ("m", "v2", Outcome.of((0.5, 1.0))),
        ],
    )
    caps = _cells(breakdown, "mmvet.capabilities")
    # OCR: v0 and v2. Run 1: (1.0 + 0.5) / 2 = 75; run 2: (0.5 + 1.0) / 2 = 75.
    assert caps["ocr"].value == pytest.approx(75.0) and caps["ocr"].n == 2
    # Rec: v1 and v2. Runs: 25, 50 -> 37.5.
    assert caps["rec"].value == pytest.approx(37.5)
    assert caps["math"].value == pytest.approx(75.0) and caps["math"].n == 1
    # Total per run: 50, 50 -> mean 50, population std 0; know/gen/spat absent.
    assert caps["total"].value == pytest.approx(50.0) and caps["total"].std == pytest.approx(0.0)
    assert "know" not in caps
    integrations = _cells(breakdown, "mmvet.integrations")
    assert integrations["ocr_math"].value == pytest.approx(75.0)
    assert integrations["rec_ocr"].value == pytest.approx(75.0)
    assert integrations["rec"].value == pytest.approx(0.0)


def test_total_std_is_the_population_std_of_run_totals() -> None:
    breakdown = Keyed(_layout("mmvet", benchmark("mmvet"), MMVET[:2]), runs=3)
    _load(
        breakdown,
        [("m", "v0", Outcome.of((1.0, 0.5, 0.0))), ("m", "v1", Outcome.of((0.0, 0.5, 0.0)))],
    )
    total = _cells(breakdown, "mmvet.capabilities")["total"]
    per_run = [50.0, 50.0, 0.0]
    assert total.value == pytest.approx(statistics.fmean(per_run))
    assert total.std == pytest.approx(statistics.pstdev(per_run))


def test_unscored_answers_are_counted_and_left_out_unless_asked() -> None:
    breakdown = Keyed(_layout("mmvet", benchmark("mmvet"), MMVET), runs=1)
    _load(
        breakdown,
        [
            ("m", "v0", Outcome.of((1.0,))),
            ("m", "v1", Outcome.of((None,))),
            ("m", "v2", Outcome.of((0.5,))),
        ],
    )
    total = _cells(breakdown, "mmvet.capabilities")["total"]
    assert (total.value, total.n, total.unscored) == (pytest.approx(75.0), 3, 1)
    (as_zero,) = [
        t for t in breakdown.tables(unscored_as_zero=True) if t.name == "mmvet.capabilities"
    ]
    assert as_zero.rows[0].cells["total"].value == pytest.approx(50.0)


def _mc(key: str, group: int, rotation: int, category: str, l2: str, split: str = "dev") -> Sample:
    return Sample(
        key, "q", QuestionType.CHOICE, "A", options={"A": "x", "B": "y"}, split=split,
        axes={"category": (category,), "l2_category": (l2,)},
        extra={"circular_group": group, "rotation": rotation},
    )  # fmt: skip


MMBENCH = [
    _mc("1", 1, 0, "image_scene", "coarse_perception"),
    _mc("1000001", 1, 1, "image_scene", "coarse_perception"),
    _mc("1000002", 2, 1, "OCR", "finegrained_perception (instance-level)"),
    _mc("2000002", 2, 2, "OCR", "finegrained_perception (instance-level)"),
    _mc("3000002", 2, 3, "OCR", "finegrained_perception (instance-level)"),
    _mc("2", 2, 0, "OCR", "finegrained_perception (instance-level)"),
]
RIGHT, WRONG, UNKNOWN = Outcome.of((1.0,)), Outcome.of((0.0,)), Outcome.of((None,))


def test_circular_groups_need_every_rotation_and_vanilla_counts_the_main_row() -> None:
    breakdown = Keyed(_layout("mmb", benchmark("mmbench"), MMBENCH), runs=1)
    _load(breakdown,
        [
            ("m", "1", RIGHT), ("m", "1000001", RIGHT),  # group 1 passes
            ("m", "2", RIGHT), ("m", "1000002", RIGHT),  # group 2 fails on its third rotation
            ("m", "2000002", WRONG), ("m", "3000002", UNKNOWN),
        ]
    )  # fmt: skip
    l2 = _cells(breakdown, "mmb.l2")
    assert (l2["overall"].value, l2["overall"].n) == (pytest.approx(50.0), 2)
    assert l2["overall"].unscored == 0  # a wrong row decides the group, unknown or not
    assert (l2["vanilla"].value, l2["vanilla"].n) == (pytest.approx(100.0), 2)
    assert l2["CP"].value == pytest.approx(100.0) and l2["FP-S"].value == pytest.approx(0.0)
    l3 = _cells(breakdown, "mmb.l3")
    assert l3["OCR"].value == pytest.approx(0.0) and l3["image_scene"].n == 1
    # Fixing the wrong row leaves the group undecided: its last row has no score.
    breakdown.put("m", "2000002", RIGHT)
    overall = _cells(breakdown, "mmb.l2")["overall"]
    assert (overall.value, overall.unscored) == (pytest.approx(100.0), 1)


def test_a_question_without_a_circular_group_is_a_unit_of_its_own() -> None:
    """A lone question (no circular group, as the judge's chains take it) counts once in
    Overall, never inside another group; alike lone questions share a profile."""
    lone = [replace(_mc(key, 0, 0, "OCR", "x"), extra={}) for key in ("7", "8", "9")]
    breakdown = Keyed(_layout("mmb", benchmark("mmbench"), [*MMBENCH, *lone]), runs=1)
    _load(breakdown,
        [
            ("m", "1", RIGHT), ("m", "1000001", RIGHT),  # group 1 passes
            ("m", "2", RIGHT), ("m", "1000002", RIGHT),  # group 2 passes
            ("m", "2000002", RIGHT), ("m", "3000002", RIGHT),
            ("m", "7", WRONG), ("m", "8", RIGHT), ("m", "9", WRONG),
        ]
    )  # fmt: skip
    overall = _cells(breakdown, "mmb.l2")["overall"]
    assert (overall.value, overall.n) == (pytest.approx(60.0), 5)  # 1, 2 and 8 of 5 units


def test_several_splits_give_one_row_each() -> None:
    samples = [_mc("1", 1, 0, "OCR", "x", "dev"), _mc("5", 5, 0, "OCR", "x", "test")]
    breakdown = Keyed(_layout("mmb", benchmark("mmbench"), samples), runs=1)
    _load(breakdown, [("m", "1", RIGHT), ("m", "5", WRONG)])
    (l2,) = [t for t in breakdown.tables() if t.name == "mmb.l2"]
    assert [r.label for r in l2.rows] == ["m (dev)", "m (test)"]


@pytest.mark.parametrize("kind", ["mmbench", "generic"])
def test_the_order_answers_come_in_does_not_change_the_tables(kind: str) -> None:
    """Answers in dataset order and in reverse give the same tables (the columns are
    summed by sample, whatever their order). Splits make separate rows either way."""
    samples = [replace(s, split=("dev", "test")[i % 2]) for i, s in enumerate(DATASETS[kind])]
    layout = _layout("d", benchmark(kind), samples)
    scores = [Outcome.of((i / 7, None if i == 3 else 1.0), reviewed=i % 2 == 0) for i in range(6)]
    in_order = {s.key: scores[i] for i, s in enumerate(samples)}
    assert list(in_order) == layout.samples.keys  # so the other one is out of dataset order
    tables = []
    for answers in (in_order, dict(reversed(in_order.items()))):
        breakdown = Keyed(layout, runs=2)
        breakdown.load_keyed({"m": answers, "n": dict(answers)})
        tables.append(breakdown.tables())
    one_by_one = Keyed(layout, runs=2)
    for model in ("m", "n"):
        for key, outcome in in_order.items():
            one_by_one.put(model, key, outcome)
    assert tables[0] == tables[1] == one_by_one.tables()
    assert {r.label for t in tables[0] for r in t.rows} == {
        "m (dev)",
        "m (test)",
        "n (dev)",
        "n (test)",
    }


def test_outcomes_must_have_the_tables_runs() -> None:
    layout = _layout("mmvet", benchmark("mmvet"), MMVET)
    with pytest.raises(ValueError, match="at least one run"):
        Keyed(layout, runs=0)
    with pytest.raises(ValueError, match="2 runs"):
        Keyed(layout, runs=2).load_keyed({"m": {"v0": Outcome.of((1.0,))}})


def test_scores_count_in_whole_millionths_and_sum_exactly() -> None:
    assert Outcome.of((1 / 3, 0.1, None)).micro == (333_333, 100_000, None)
    breakdown = Keyed(_layout("mmvet", benchmark("mmvet"), MMVET), runs=1)
    _load(breakdown, [("m", s.key, Outcome.of((0.1,))) for s in MMVET])
    for _ in range(1000):  # float sums would drift; millionths come back to where they were
        breakdown.put("m", "v1", Outcome.of((0.7,)))
        breakdown.put("m", "v1", Outcome.of((0.1,)))
    assert _cells(breakdown, "mmvet.capabilities")["total"].value == 10.0


def test_effective_score_prefers_the_human_in_every_run() -> None:
    judged = (0.2, 0.4)
    assert effective(judged, None, 3, ["g"], offline=True) == Outcome(
        (200_000, 400_000, None), False, offline=True
    )
    human = effective(judged, Verdict(0.9), 3, ["g"], offline=True)
    assert human == Outcome((900_000,) * 3, True, reviewed=True)
    chosen = effective((), Verdict(None, "B"), 1, ["A"])
    assert chosen.micro == (0,) and chosen.reviewed
    fallback = effective((1.0,), None, 1, ["A"], fallback=True)
    assert fallback.fallback and fallback.micro == (1_000_000,)


# -- delta updates equal a full recompute --------------------------------------------------

GENERIC = [
    Sample(
        f"g{i}",
        "q",
        QuestionType.OPEN,
        "a",
        axes={"topic": (f"t{i % 3}",), "skills": ("x", "y")[: i % 3]},
    )
    for i in range(6)
]
# sum columns: MME's scores (acc + acc+ of the same answers, a pair a group) and MMStar's
# MG and ML (formulas of the settings' scores)
MME = [
    Sample(
        f"{subtask}/{image}/{order}", "q", QuestionType.OPEN, ("Yes", "No")[order - 1],
        axes={"subtask": (subtask,)},
        extra={"image": image, "pair": f"{subtask}/{image}", "order": order},
    )
    for subtask, image in (("existence", "1.png"), ("existence", "2.png"), ("OCR", "1.png"))
    for order in (1, 2)
]  # fmt: skip
MMSTAR = [
    Sample(
        f"{setting}/{i}", "q", QuestionType.CHOICE, "A",
        axes={"capability": ("math",), "axis": ("geometry",), "setting": (setting,)},
    )
    for setting in ("with-image", "without-image", "llm")
    for i in (1, 2)
]  # fmt: skip
# groups by other rules than CircularEval: HallusionBench's figures with none and with
# some questions right; VD figures 0 and 1 of two questions, VS figure 1 of one (a group of
# one) and the VS question without a figure (in no figure)
HALLUSIONBENCH = [
    Sample(
        f"{category}_{figure}_{question}", "q", QuestionType.OPEN, "fact",
        axes={"category": (category,), "subcategory": ("x",)},
        extra={"set_id": "0", "figure_id": figure, "question_id": question,
               "visual_input": "0" if (category, figure) == ("VS", "0") else "1",
               "gt_answer": question},
    )
    for category, figure, question in (
        ("VD", "0", "0"), ("VD", "0", "1"), ("VD", "1", "0"), ("VD", "1", "1"),
        ("VS", "0", "1"), ("VS", "1", "1"),
    )
]  # fmt: skip
DATASETS = {
    "mmvet": MMVET, "mmbench": MMBENCH, "generic": GENERIC, "mme": MME, "mmstar": MMSTAR,
    "hallusionbench": HALLUSIONBENCH,
}  # fmt: skip
scores = st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0]), st.floats(0, 1))
outcomes = st.builds(
    Outcome.of, st.tuples(scores, scores), st.booleans(), st.booleans(), st.booleans()
)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(list(DATASETS)),
    start=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 5), outcomes), max_size=12
    ),
    overrides=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 5), outcomes), max_size=25
    ),
)
def test_delta_updates_equal_a_full_recompute(kind, start, overrides) -> None:
    samples = DATASETS[kind]
    layout = _layout("d", benchmark(kind), samples)
    key = lambda i: samples[i % len(samples)].key  # noqa: E731
    live = Keyed(layout, runs=2)
    _load(live, [(m, key(i), o) for m, i, o in start])
    final = {(m, key(i)): o for m, i, o in start}
    for model, i, outcome in overrides:
        live.put(model, key(i), outcome)
        final[(model, key(i))] = outcome
    fresh = Keyed(layout, runs=2)
    _load(fresh, [(m, k, o) for (m, k), o in final.items()])
    for unscored_as_zero in (False, True):
        assert live.tables(unscored_as_zero) == fresh.tables(unscored_as_zero)


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(list(DATASETS)),
    first=st.lists(outcomes, min_size=6, max_size=6),
    overrides=st.lists(st.tuples(st.integers(0, 5), outcomes), max_size=12),
)
def test_a_model_answering_everything_in_order_gives_the_same_tables(
    kind, first, overrides
) -> None:
    """The full recompute (circular groups combined over whole columns) against delta
    updates and against the same answers in another order."""
    samples = DATASETS[kind]
    layout = _layout("d", benchmark(kind), samples)
    answers = {s.key: first[i % len(first)] for i, s in enumerate(samples)}
    live = Keyed(layout, runs=2)
    live.load_keyed({"a": dict(answers)})
    for i, outcome in overrides:
        key = samples[i % len(samples)].key
        live.put("a", key, outcome)
        answers[key] = outcome
    one_by_one = Keyed(layout, runs=2)
    for key, outcome in answers.items():
        one_by_one.put("a", key, outcome)
    for ordered in (answers, dict(reversed(answers.items()))):
        fresh = Keyed(layout, runs=2)
        fresh.load_keyed({"a": dict(ordered)})
        assert fresh.tables() == live.tables() == one_by_one.tables()
        assert fresh.row_cells("a", samples[0].key) == live.row_cells("a", samples[0].key)


def test_l3_abilities_match_whatever_their_case() -> None:
    samples = [_mc("1", 1, 0, "ocr", "finegrained_perception (instance-level)")]
    breakdown = Keyed(_layout("mmb", benchmark("mmbench"), samples), runs=1)
    _load(breakdown, [("m", "1", RIGHT)])
    assert set(_cells(breakdown, "mmb.l3")) == {"OCR"}


def _alike(axes: dict[str, tuple[str, ...]], split: str | None, i: int) -> Sample:
    return Sample(f"s{i}", f"question {i}", QuestionType.OPEN, str(i), split=split, axes=axes)


PROFILED = {
    "mmvet": st.sampled_from([("ocr",), ("rec", "know"), ("math", "ocr")]).map(
        lambda caps: {"capability": caps}
    ),
    "generic": st.fixed_dictionaries(
        {"topic": st.sampled_from([("t0",), ("t1",)]), "skills": st.sampled_from([(), ("x",)])}
    ),
    "mmmu": st.sampled_from(["Accounting", "Art", "Math"]).map(
        lambda subject: {"subject": (subject,), "difficulty": ("Easy",)}
    ),
}


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(list(PROFILED)),
    data=st.data(),
    answers=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 9), outcomes)),
    overrides=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 9), outcomes)),
)
def test_samples_sharing_a_profile_count_as_if_each_had_its_own(
    kind, data, answers, overrides
) -> None:
    """A layout built once per profile (engine.samples) gives the tables, the cells of each
    answer and the delta updates of a layout built sample by sample."""
    count = data.draw(st.integers(1, 10))
    samples = [
        _alike(data.draw(PROFILED[kind]), data.draw(st.sampled_from([None, "dev"])), i)
        for i in range(count)
    ]
    _profiles_count_as_samples(kind, samples, answers, overrides)


def _profiles_count_as_samples(
    kind: str,
    samples: list[Sample],
    answers: list[tuple[str, int, Outcome]],
    overrides: list[tuple[str, int, Outcome]],
) -> None:
    """The tables, each answer's cells and the delta updates are the same with profiles
    as sample by sample; answers and overrides name samples by index (any number)."""
    count, kind_ = len(samples), benchmark(kind)
    layouts = [
        layout_for("d", kind_, SampleSet.of(samples, by_profile, kind_.group_by))
        for by_profile in (True, False)
    ]
    assert len(layouts[0].profile_units) <= len(layouts[1].profile_units) == count
    built = []
    for layout in layouts:
        breakdown = Keyed(layout, runs=2)
        _load(breakdown, [(m, samples[i % count].key, o) for m, i, o in answers])
        for model, i, outcome in overrides:
            breakdown.put(model, samples[i % count].key, outcome)
        cells = [breakdown.row_cells(m, s.key) for m in ("a", "b") for s in samples]
        built.append((breakdown.tables(), breakdown.tables(unscored_as_zero=True), cells))
    assert built[0] == built[1]


# An MMBench dataset as the importers give it, and worse: a few shapes of circular group
# (one to four rows, a rotation missing, the main row too; categories in and out of the
# paper's, in either case, some missing), each shape taken by several groups, in any
# order, in splits that reuse group numbers (a number taken twice in a split: one group).
_SHAPE = st.fixed_dictionaries(
    {
        "split": st.sampled_from([None, "dev", "test"]),
        "category": st.sampled_from([None, "ocr", "OCR", "image_scene", "new_skill"]),
        "l2": st.sampled_from([None, "coarse_perception", "logic_reasoning", "new_l2"]),
        "rotations": st.lists(st.sampled_from([0, 1, 2, 3, None]), min_size=1, max_size=4),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    shapes=st.lists(_SHAPE, min_size=1, max_size=3),
    groups=st.lists(st.tuples(st.integers(0, 2), st.sampled_from([*range(12), None])), max_size=10),
    order=st.randoms(use_true_random=False),
    answers=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 60), outcomes)),
    overrides=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 60), outcomes)),
)
def test_alike_circular_groups_count_as_if_each_row_had_its_own_profile(
    shapes, groups, order, answers, overrides
) -> None:
    """MMBench's profiles are alike circular groups (Benchmark.group_by): the first stands
    for the others, whose units the layout repeats."""
    samples = []
    for shape, group in [(shapes[i % len(shapes)], group) for i, group in groups] or [
        (shapes[0], 0)
    ]:
        axes = {
            name: (v,)
            for name, v in (("category", shape["category"]), ("l2_category", shape["l2"]))
            if v
        }
        for rotation in shape["rotations"]:
            extra = {"circular_group": group, "rotation": rotation}
            extra = {name: v for name, v in extra.items() if v is not None}
            key = f"s{len(samples)}"
            samples.append(
                Sample(
                    key, "q", QuestionType.CHOICE, "A", split=shape["split"], axes=axes, extra=extra
                )
            )
    order.shuffle(samples)
    _profiles_count_as_samples("mmbench", samples, answers, overrides)


class _Tied(Benchmark):
    """Tables that count every profile's first sample in one unit."""

    name, title = "tied", "Tied"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        unit = Unit("all", (("t", "c"),), tuple(s.key for s in samples))
        return [TableSpec("t", "T", columns([("c", "C")]))], {s.key: [unit] for s in samples}


def test_a_unit_tying_samples_of_shared_profiles_outside_a_group_is_refused() -> None:
    samples = [_alike({}, None, 0), _alike({}, None, 1), _alike({}, "dev", 2)]
    assert layout_for("d", _Tied(), SampleSet.of(samples, by_profile=False)).multi_members
    with pytest.raises(ValueError, match="'all' ties samples together: no profiles"):
        layout_for("d", _Tied(), SampleSet.of(samples))


class _Others(Benchmark):
    """Tables that count the other profiles' first samples in a unit of each one's."""

    name, title = "others", "Others"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        cells = (("t", "c"),)
        units = {
            s.key: [Unit(f"not {s.key}", cells, tuple(o.key for o in samples if o is not s))]
            for s in samples
        }
        return [TableSpec("t", "T", columns([("c", "C")]))], units


def test_a_unit_of_a_shared_profile_without_its_first_sample_is_refused() -> None:
    """Its alike samples could not have it at their own places (Layout._alike)."""
    samples = [_alike({}, split, i) for i, split in enumerate([None, None, "x", "y"])]
    with pytest.raises(ValueError, match="'not s0' ties samples together: no profiles"):
        layout_for("d", _Others(), SampleSet.of(samples))


@pytest.mark.parametrize(
    ("rule", "rows", "expected"),
    [
        ("none", (0.0, 0.0), 1.0), ("none", (0.0, 1.0), 0.0), ("none", (1.0, None), 0.0),
        ("none", (0.0, None), None), ("none", (0.0,), 1.0), ("none", (0.5,), 1.0),
        ("mixed", (0.0, 1.0), 1.0), ("mixed", (1.0, 1.0), 0.0), ("mixed", (1.0,), 0.0),
        ("mixed", (1.0, None), None), ("mixed", (0.0, None), None),
        ("all", (1.0, None), None), ("all", (0.0, None), 0.0),
    ],
)  # fmt: skip
def test_a_group_is_decided_by_its_rule_row_by_row_and_over_columns(
    rule: str, rows: tuple[float | None, ...], expected: float | None
) -> None:
    """NONE: right when no row is (a partly right row is not right); MIXED: some right and
    some wrong; unknown while a row is and the rest does not decide it. One group of the
    rows alone (Layout.combine), and the same through a full recompute."""
    keys = tuple(f"k{i}" for i in range(len(rows)))
    unit = Unit("g", (("t", "c"),), keys, rule)
    outcomes = [Outcome.of((score,)) for score in rows]
    assert Layout.combine(unit)(outcomes).micro == Outcome.of((expected,)).micro
    samples = [Sample(key, "q", QuestionType.OPEN, "a") for key in keys]
    breakdown = Keyed(_layout("d", _Grouped(unit), samples), runs=1)
    breakdown.load_keyed({"m": dict(zip(keys, outcomes, strict=True))})
    cell = _cells(breakdown, "d.t")["c"]
    assert cell.value == (None if expected is None else 100 * expected)


class _Grouped(Benchmark):
    """One table, one column, and one unit given: every sample counts only in it."""

    name = "grouped"
    by_profile = False  # the unit ties its samples together

    def __init__(self, unit: Unit) -> None:
        self.unit = unit

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        spec = TableSpec(f"{dataset}.t", "T", columns([("c", "C")]))
        cells = ((spec.name, "c"),)
        unit = replace(self.unit, cells=cells)
        return [spec], {s.key: [unit] for s in samples}
