"""Scoring benchmarks: the breakdown tables at 100,000 answers, and MMMU parsing.

Targets (DESIGN.md, "What fast means here"): a full recompute of every table at 100,000
answers in 150 ms or less; one live update after an override in 5 ms or less. At scale
(issue 15): the same recompute at 1,000,000 answers in 0.5 s or less.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench.harness import Context, Measurement, Skipped, benchmark, timed
from bench.mmbench_data import ABILITIES, CIRCULAR_STRIDE, LETTERS
from lmmreview.engine import mmvet
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.benchmarks.mmbench import MMBENCH
from lmmreview.engine.benchmarks.mmvet import MMVET
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.layouts import layout_for
from lmmreview.engine.mmmu import judge, question_type_of
from lmmreview.engine.scoring import Outcome
from lmmreview.engine.types import QuestionType, Sample

ANSWERS = 100_000
MILLION = 1_000_000
MODELS = 5
RUNS = 5
SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "mmmu"


@dataclass(frozen=True, slots=True)
class Generated:
    """An MM-Vet-style dataset: samples, and every model's outcome per answer."""

    samples: list[Sample]
    outcomes: dict[str, dict[str, Outcome]]  # model -> sample key -> outcome
    answers: list[tuple[str, str]]  # (model, sample key)


def _generate(_: Path, count: int = ANSWERS) -> Generated:
    """count / 5 samples (20,000 by default) with MM-Vet capability sets, 5 models, 5 judge
    runs per answer."""
    rng = random.Random(7)
    sets = [caps for caps in mmvet.INTEGRATION_ORDER]
    samples = [
        Sample(f"v{i}", "q", QuestionType.OPEN, "a", axes={"capability": rng.choice(sets)})
        for i in range(count // MODELS)
    ]
    grades = [i / 10 for i in range(11)]
    outcomes: dict[str, dict[str, Outcome]] = {}
    for m in range(MODELS):
        for s in samples:
            runs = tuple(rng.choice(grades) if rng.random() > 0.01 else None for _ in range(RUNS))
            outcome = Outcome.of(runs, reviewed=rng.random() < 0.05)
            outcomes.setdefault(f"model-{m}", {})[s.key] = outcome
    answers = [(model, key) for model, per_key in outcomes.items() for key in per_key]
    return Generated(samples, outcomes, answers)


def _copy(outcomes: dict[str, dict[str, Outcome]]) -> dict[str, dict[str, Outcome]]:
    return {model: dict(per_key) for model, per_key in outcomes.items()}


def _dataset(ctx: Context) -> Generated:
    return ctx.fixture(f"mmvet-{ANSWERS}-answers", _generate)


def _recompute(data: Generated, benchmark: Benchmark, runs: int) -> Measurement:
    """Every table of `data` from its outcomes: aggregation plus table building."""
    layout = layout_for("bench", benchmark, data.samples)
    outcomes = _copy(data.outcomes)  # load takes its dictionaries over
    with timed() as clock:
        breakdown = Breakdown(layout, runs)
        breakdown.load(outcomes)
        tables = breakdown.tables()
    if len(tables[0].rows) != len(data.outcomes):
        raise AssertionError(f"{len(tables[0].rows)} rows for {len(data.outcomes)} models")
    return Measurement(clock.seconds * 1000)


@benchmark(name=f"recompute all tables, {ANSWERS:,} answers x {RUNS} runs", unit="ms", target=150)
def full_recompute(ctx: Context) -> Measurement:
    """Every MM-Vet table from 100,000 answer outcomes: aggregation plus table building."""
    return _recompute(_dataset(ctx), MMVET, RUNS)


@benchmark(name=f"recompute all tables, {MILLION:,} answers x {RUNS} runs", unit="ms", target=500)
def full_recompute_million(ctx: Context) -> Measurement:
    """The same recompute from 1,000,000 answer outcomes (200,000 samples, drawn alike)."""
    data = ctx.fixture(f"mmvet-{MILLION}-answers", partial(_generate, count=MILLION))
    return _recompute(data, MMVET, RUNS)


MMB_QUESTIONS, MMB_MODELS = 1_100, 23  # 4,400 rows with their circular copies


def _generate_mmbench(_: Path) -> Generated:
    """MMBench-style: 1,100 questions x 4 circular rows, answered by 23 models, one run;
    70 % right, 1 % unscored, 5 % reviewed, the L-2/L-3 abilities drawn at random."""
    rng = random.Random(11)
    abilities = [(l2, l3) for l2, l3s in ABILITIES.items() for l3 in l3s]
    samples = []
    for q in range(MMB_QUESTIONS):
        l2, l3 = rng.choice(abilities)
        samples += [
            Sample(str(q + k * CIRCULAR_STRIDE), "q", QuestionType.CHOICE, "A",
                   options=dict(zip(LETTERS, "wxyz", strict=True)),
                   axes={"category": (l3,), "l2_category": (l2,)},
                   extra={"circular_group": q, "rotation": k})
            for k in range(4)
        ]  # fmt: skip
    outcomes = {
        f"model-{m}": {
            s.key: Outcome.of(
                (float(rng.random() < 0.7) if rng.random() > 0.01 else None,),
                reviewed=rng.random() < 0.05,
            )
            for s in samples
        }
        for m in range(MMB_MODELS)
    }
    answers = [(model, key) for model, per_key in outcomes.items() for key in per_key]
    return Generated(samples, outcomes, answers)


@benchmark(
    name=f"recompute all tables, MMBench {4 * MMB_QUESTIONS * MMB_MODELS:,} answers", unit="ms",
    target=150,
)  # fmt: skip
def mmbench_recompute(ctx: Context) -> Measurement:
    """Every MMBench table (CircularEval groups of 4 rows, Vanilla, L-2, L-3) at 101,200
    answers: 23 models on a 4,400-row dev set, one run."""
    data = ctx.fixture("mmbench-101200-answers", _generate_mmbench)
    return _recompute(data, MMBENCH, 1)


@benchmark(name=f"live update after one override, {ANSWERS:,} answers", unit="ms", target=5)
def delta_update(ctx: Context) -> Measurement:
    """One override applied, then the cells of that answer read back (median of 500).

    The full read of every table afterwards is recorded once, as an extra figure."""
    data = _dataset(ctx)
    breakdown = Breakdown(layout_for("mmvet", MMVET, data.samples), RUNS)
    breakdown.load(_copy(data.outcomes))
    rng = random.Random(ctx.repetition)
    times = []
    for _ in range(500):
        model, key = rng.choice(data.answers)
        start = time.perf_counter()
        breakdown.set(model, key, Outcome.of((rng.choice([0.0, 0.5, 1.0]),) * RUNS, reviewed=True))
        breakdown.row_cells(model, key)
        times.append(time.perf_counter() - start)
    update_only = statistics.median(times) * 1000
    start = time.perf_counter()
    breakdown.tables()
    return Measurement(update_only, {"all_tables_read_ms": (time.perf_counter() - start) * 1000})


@benchmark(name="mmmu parse + verdict, 900 fixture answers, per answer", unit="us", target=None)
def mmmu_parse(ctx: Context) -> Measurement:
    """The official example outputs of LLaVA-1.5-13B (skipped when ../shared is absent)."""
    cases = ctx.fixture("mmmu-fixture-samples", _mmmu_cases)
    with timed() as clock:
        for sample, response in cases:
            judge(sample, response)
    return Measurement(clock.seconds / len(cases) * 1e6, {"answers": len(cases)})


def _mmmu_cases(_: Path) -> list[tuple[Sample, str]]:
    if not SHARED.is_dir():
        raise Skipped(f"the MMMU fixture is absent ({SHARED})")
    golds = json.loads((SHARED / "answer_dict_val.json").read_text())
    cases = []
    for path in sorted((SHARED / "llava1.5_13b").glob("*/output.json")):
        for record in json.loads(path.read_text()):
            gold = golds[record["id"]]["ground_truth"]
            golds_list = gold if isinstance(gold, list) else [gold]
            index2ans = record.get("index2ans") or {}
            options = {c: index2ans.get(c, "") for c in record.get("all_choices") or []}
            sample = Sample(
                record["id"], "", question_type_of(record["question_type"]), golds_list[0],
                tuple(golds_list[1:]), options,
            )  # fmt: skip
            cases.append((sample, record["response"]))
    return cases
