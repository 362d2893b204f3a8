"""Bootstrap intervals (engine.uncertainty): the real MM-Vet grades' intervals against the
resampling written out here in plain numpy, and `export` / `report` with --ci."""

from __future__ import annotations

import csv
import io
import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, needs_fixture

REAL = FIXTURES / "mmvet-real"
LLAVA = REAL / "llava-v1.5-7b"
JUDGE = ("--judge", "gpt-4 (imported)")


def reference_interval(
    units: list[list[float | None]], resamples: int = 1000, seed: int = 0, zero: bool = False
):
    """The module docstring's bootstrap, written out: each unit's scores per run in whole
    millionths (-1: unscored), its distinct outcomes sorted, a multinomial draw of their
    counts per resample, the mean over runs of each run's percentage (over the units it
    scored, or all drawn when unscored counts as zero: `zero`), the percentiles."""
    codes = np.array([[-1 if s is None else round(s * 1_000_000) for s in u] for u in units])
    outcomes, counts = np.unique(codes, axis=0, return_counts=True)
    n = counts.sum()
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    scored = outcomes >= 0
    sums, units_scored = draws @ np.where(scored, outcomes, 0), draws @ scored
    per_run = 100 * sums / 1_000_000 / (n if zero else units_scored)
    return np.percentile(per_run.mean(axis=1), [2.5, 97.5])


def _grades_db(cli, tmp_path: Path, runs: int) -> Path:
    db = tmp_path / "mmvet.db"
    result = cli("import", "mmvet", db, REAL / "mm-vet.json", "--images", REAL / "images",
                 "--answers", LLAVA / "llava-v1.5-7b.json")  # fmt: skip
    assert result.code == 0, result.stderr
    grades = LLAVA / f"llava-v1.5-7b_gpt-4-grade-{runs}runs.json"
    assert cli("import", "mmvet-grades", db, grades).code == 0
    return db


def _cells(cli, db: Path, *options: str) -> dict[str, dict]:
    """table name -> its one row, from `export --format json --ci`."""
    result = cli("export", db, "--format", "json", "--ci", *JUDGE, *options)
    assert result.code == 0, result.stderr
    return {t["name"]: t["rows"][0] for t in json.loads(result.stdout)["tables"]}


@needs_fixture("mmvet-real/llava-v1.5-7b")
@pytest.mark.parametrize(("runs", "zero"), [(1, False), (3, False), (3, True)])
def test_the_official_grades_intervals_equal_the_resampling_written_out(
    cli, tmp_path: Path, runs: int, zero: bool
) -> None:
    db = _grades_db(cli, tmp_path, runs)
    grades = json.loads((LLAVA / f"llava-v1.5-7b_gpt-4-grade-{runs}runs.json").read_text())
    questions = json.loads((REAL / "mm-vet.json").read_text())
    row = _cells(cli, db, *(["--unscored-as-zero"] if zero else []))["mmvet.capabilities"]
    for column in ("total", "ocr", "math"):
        units = [
            grades[key]["score"]
            for key, q in questions.items()
            if column == "total" or column in q["capability"]
        ]
        low, high = reference_interval(units, zero=zero)
        assert row["ci_low"][column] == pytest.approx(low, abs=1e-9), column
        assert row["ci_high"][column] == pytest.approx(high, abs=1e-9), column
        assert low <= row["values"][column] <= high
        if runs > 1:  # the run spread stays beside the interval
            assert row["std"][column] is not None
    other_seed = reference_interval([grades[k]["score"] for k in questions], seed=7)
    assert tuple(other_seed) != (row["ci_low"]["total"], row["ci_high"]["total"])


def test_export_ci_in_every_format_and_the_same_twice(cli, demo_db: Path) -> None:
    args = ("--dataset", "mmbench")
    plain = cli("export", demo_db, "--format", "json", *args).stdout
    assert "ci_low" not in plain  # without --ci nothing changes
    document = json.loads(cli("export", demo_db, "--format", "json", "--ci", *args).stdout)
    overall = document["tables"][0]["rows"][1]
    low, high = overall["ci_low"]["overall"], overall["ci_high"]["overall"]
    assert low <= overall["values"]["overall"] <= high and low < high
    md = cli("export", demo_db, "--format", "md", "--ci", *args).stdout
    assert f"{overall['values']['overall']:.1f} [{low:.1f}, {high:.1f}]" in md
    assert "95 % bootstrap interval" in md
    assert md == cli("export", demo_db, "--format", "md", "--ci", *args).stdout  # seeded
    latex = cli("export", demo_db, "--format", "latex", "--ci", *args).stdout
    assert f"({chr(36)}\\pm{chr(36)}{(high - low) / 2:.1f})" in latex
    lines = list(csv.DictReader(io.StringIO(cli("export", demo_db, "--format", "csv", "--ci",
                                                *args).stdout)))  # fmt: skip
    line = next(r for r in lines if r["model"] == overall["model"] and r["column"] == "overall")
    assert (float(line["ci_low"]), float(line["ci_high"])) == (round(low, 4), round(high, 4))
    report = cli("report", demo_db, "--ci", *args, "--dataset", "mmbench").stdout
    assert f"[{low:.1f}, {high:.1f}]" in report
    refused = cli("export", demo_db, "--format", "mmbench-official", "--ci")
    assert refused.code == 1 and "--ci is for the tables' formats" in refused.stderr


def test_sum_and_formula_columns_are_resampled_in_clusters(demo_db: Path) -> None:
    """MME's sums, OCRBench's Final Score, MMStar's and LLaVA-Bench's formulas: each cell
    with a value has an interval, and a resample at the observed counts gives the value."""
    import numpy as np

    from lmmreview.db import Store
    from lmmreview.db.scoring import dataset_scores
    from lmmreview.engine import uncertainty

    checked = with_interval = 0
    with Store.open(demo_db, create=False) as store:
        for name in ("mme", "ocrbench", "mmstar", "llava-bench"):
            benchmark = dict(store.datasets([name]))[name]
            scores = dataset_scores(store, name, benchmark, store.chosen_judge(name))
            tables = scores.with_intervals(scores.breakdown.tables(), False, 1000, 0)
            units = list(uncertainty._units(scores.breakdown, scores.answers, scores.samples.golds))
            clusters = uncertainty._clusters(scores.breakdown)
            sums = [(t, c) for t in tables for c in t.columns if c.sum_of]
            assert sums, name
            for table, column in sums:
                by_key = {(t.name, c.key): c for t in tables for c in t.columns}
                layout = scores.breakdown.layout
                cell_sets = layout.cell_sets
                parts = [
                    uncertainty._Part(p, uncertainty._kind_of(by_key[p]),
                                      np.array([p in s for s in cell_sets]))
                    for p in column.sum_of
                ]  # fmt: skip
                tallied = uncertainty._cluster_tallies(
                    units, parts, clusters, scores.breakdown.runs
                )
                statistic = uncertainty._SumStatistic(parts, scores.breakdown.runs, False, column)
                rows = {r.label: r for r in table.rows}
                for number, (distinct, counts) in tallied.items():
                    model, split = divmod(number, len(layout.split_names))
                    label = layout.split_row(
                        scores.answers.models[model], layout.split_names[split]
                    )
                    cell = rows[label].cells.get(column.key)
                    if cell is None or cell.value is None:
                        continue  # MMStar's MG without every setting
                    counted = counts @ distinct[:, -len(parts) :] > 0
                    observed = statistic.values(counts[None, :], distinct, counted)[0]
                    assert observed == pytest.approx(cell.value), (name, column.key)
                    values = partial(statistic.values, outcomes=distinct, counted=counted)
                    drawn = uncertainty._each_resample(counts, 1000, 0, values)
                    complete = 1 - np.isnan(drawn).mean() >= uncertainty.COMPLETE_SHARE
                    # and at least two clusters, and two units in each part (MME's pairs)
                    complete &= counts.sum() >= 2 and all(
                        statistic._enough(counts, distinct, i) for i in np.flatnonzero(counted)
                    )
                    assert (cell.interval is not None) == complete, (name, column.key)
                    checked += 1
                    with_interval += complete
        assert checked > 20 and with_interval > 5, (checked, with_interval)


def test_many_distinct_outcomes_draw_units_by_index() -> None:
    """Past MANY_OUTCOMES distinct outcomes (step 3b), each resample draws n units by
    index from the same generator, in batches; written out here."""
    from collections import Counter

    from lmmreview.engine import uncertainty

    rng = np.random.default_rng(5)
    units = [tuple(int(s) * 1000 for s in rng.integers(0, 1001, size=2)) for _ in range(3000)]
    tally = Counter(units)
    assert len(tally) > uncertainty.MANY_OUTCOMES
    found = uncertainty._interval(tally, uncertainty._Kind(False, False), 300, 0)
    outcomes = np.array(sorted(tally))
    counts = np.array([tally[tuple(o)] for o in outcomes.tolist()])
    n, kinds = counts.sum(), len(counts)
    outcome_of = np.repeat(np.arange(kinds), counts)
    draws, generator = [], np.random.default_rng(0)
    batch = uncertainty.DRAWN_AT_ONCE // n
    for start in range(0, 300, batch):
        picked = outcome_of[generator.integers(0, n, size=(min(batch, 300 - start), n))]
        draws += [np.bincount(row, minlength=kinds) for row in picked]
    per_run = 100 * (np.array(draws) @ outcomes) / 1_000_000 / n
    assert found == pytest.approx(tuple(np.percentile(per_run.mean(axis=1), [2.5, 97.5])))


def _unscored_units(runs: int) -> list[list[float | None]]:
    """Graded scores in several runs, some runs unscored."""
    rng = np.random.default_rng(3)
    return [
        [None if rng.random() < 0.2 else float(rng.integers(0, 11)) / 10 for _ in range(runs)]
        for _ in range(200)
    ]


def test_unscored_as_zero_in_several_runs_is_the_mean_of_the_runs() -> None:
    """Each run's percentage over every drawn unit, averaged over the runs (not summed)."""
    from collections import Counter

    from lmmreview.engine import uncertainty

    one = np.array([[10]])
    assert uncertainty._statistic(one, np.array([[10**6, 10**6]]), uncertainty._Kind(False, True))[
        0
    ] == pytest.approx(100.0)
    units = _unscored_units(3)
    tally = Counter(tuple(-1 if s is None else round(s * 1_000_000) for s in u) for u in units)
    for zero in (False, True):
        found = uncertainty._interval(tally, uncertainty._Kind(False, zero), 1000, 0)
        assert found == pytest.approx(tuple(reference_interval(units, zero=zero)))
        runs = [[s for s in u if s is not None] for u in zip(*units, strict=True)]
        value = np.mean([100 * sum(r) / (len(units) if zero else len(r)) for r in runs])
        assert found is not None and found[0] <= value <= found[1]


def test_versus_with_unscored_as_zero_in_several_runs() -> None:
    """The paired difference equals the written-out paired bootstrap, and lies in it."""
    from collections import Counter

    from lmmreview.engine import uncertainty

    a, b = _unscored_units(2), _unscored_units(2)[::-1]
    codes = np.array(
        [
            [-1 if s is None else round(s * 1_000_000) for s in (*x, *y)]
            for x, y in zip(a, b, strict=True)
        ]
    )
    tally = Counter(tuple(row) for row in codes.tolist())
    found = uncertainty._difference(
        "t", "c", "", tally, uncertainty._Kind(False, True), False, 1000, 0
    )
    outcomes, counts = np.unique(codes, axis=0, return_counts=True)
    n = counts.sum()
    draws = np.random.default_rng(0).multinomial(n, counts / n, size=1000)
    per_run = 100 * (draws @ np.maximum(outcomes, 0)) / 1_000_000 / n
    diffs = per_run[:, :2].mean(axis=1) - per_run[:, 2:].mean(axis=1)
    assert (found.low, found.high) == pytest.approx(tuple(np.percentile(diffs, [2.5, 97.5])))
    observed = 100 * np.maximum(codes, 0).sum(axis=0) / 1_000_000 / n
    assert found.a == pytest.approx(observed[:2].mean())
    assert found.diff == pytest.approx(observed[:2].mean() - observed[2:].mean())
    assert found.low is not None and found.high is not None
    assert found.low <= found.diff <= found.high


def test_many_outcomes_with_many_units_each_keep_the_multinomial() -> None:
    """Past MANY_OUTCOMES distinct outcomes but INDEX_RATIO units or more per outcome, the
    multinomial (step 3) is the cheaper draw and the one made."""
    from collections import Counter

    from lmmreview.engine import uncertainty

    rng = np.random.default_rng(9)
    units = [[float(s) / 1000] for s in rng.integers(0, 1001, size=12_000)]
    tally = Counter((round(u[0] * 1_000_000),) for u in units)
    assert len(tally) > uncertainty.MANY_OUTCOMES
    assert sum(tally.values()) >= uncertainty.INDEX_RATIO * len(tally)
    found = uncertainty._interval(tally, uncertainty._Kind(False, False), 300, 0)
    assert found == pytest.approx(tuple(reference_interval(units, resamples=300)))


def test_ci_columns_follow_the_flag_not_the_data(cli, mmbench_tsv: Path, tmp_path: Path) -> None:
    """Answers never scored: no cell has an interval, yet --ci gives the CSV columns (empty)
    and the JSON fields (null); without --ci neither."""
    from conftest import write_tsv

    db = tmp_path / "b.db"
    predictions = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [[7, "A"]])
    assert cli("import", "mmbench", db, mmbench_tsv, "--answers", predictions).code == 0
    lines = list(csv.DictReader(io.StringIO(cli("export", db, "--format", "csv", "--ci").stdout)))
    assert lines and all(line["ci_low"] == line["ci_high"] == "" for line in lines)
    document = json.loads(cli("export", db, "--format", "json", "--ci").stdout)
    rows = [row for table in document["tables"] for row in table["rows"]]
    assert rows and all(set(row["ci_low"].values()) == {None} for row in rows)
    plain = cli("export", db, "--format", "csv").stdout
    assert plain and "ci_low" not in plain


def test_a_sum_cell_missing_a_part_in_many_resamples_has_no_interval() -> None:
    """Twenty clusters, two of them alone in the second part: about an eighth of the
    resamples miss both, so no interval (not a ±0 from the few alike ones); with the second
    part in half the clusters, an interval."""
    from lmmreview.engine import uncertainty
    from lmmreview.engine.tables import Column

    column = Column("sum", "Sum", sum_of=(("t", "a"), ("t", "b")))
    parts = [uncertainty._Part(cell, "", np.array([True])) for cell in column.sum_of]
    statistic = uncertainty._SumStatistic(parts, 1, False, column)
    # per cluster: part a (sum, scored), part b (sum, scored), then units in a and in b
    a_only, b_only = [1_000_000, 1, 0, 0, 1, 0], [0, 0, 1_000_000, 1, 0, 1]
    for a_clusters, b_clusters, has in ((18, 2, False), (10, 10, True)):
        outcomes = np.array([a_only, b_only], np.int64)
        counts = np.array([a_clusters, b_clusters], np.int64)
        found = statistic.interval(outcomes, counts, 1000, 0)
        assert (found is not None) == has


def test_a_cell_of_fewer_than_two_scored_units_has_no_interval() -> None:
    """One scored unit among 150 (unscored left out) resamples to itself: no interval, not
    [100.0, 100.0]; two do, and so do all 150 counted as zero. In several runs, each run
    that counts a unit needs two."""
    from collections import Counter

    from lmmreview.engine import uncertainty

    def found(tally: dict[tuple[int, ...], int], zero: bool) -> tuple[float, float] | None:
        return uncertainty._interval(Counter(tally), uncertainty._Kind(False, zero), 1000, 0)

    assert found({(10**6,): 1, (-1,): 149}, False) is None
    assert found({(10**6,): 1, (-1,): 149}, True) is not None
    assert found({(10**6,): 1, (0,): 1, (-1,): 148}, False) is not None
    assert found({(10**6, 10**6): 1, (0, -1): 1}, False) is None  # run 2: one unit
    assert found({(10**6, -1): 1, (0, -1): 1}, False) is not None  # run 2 counts none


def test_export_gives_no_interval_to_cells_of_one_unit(cli, demo_db: Path) -> None:
    """The demo's MME subtasks (one image pair each: one acc+ unit) and MMBench's
    one-group abilities have values but no interval."""
    for dataset, table, column in (("mme", "perception", "existence"), ("mmbench", "", "RR")):
        document = json.loads(
            cli("export", demo_db, "--format", "json", "--ci", "--dataset", dataset).stdout
        )
        rows = [r for t in document["tables"] if table in t["name"] for r in t["rows"]]
        cells = [(r["values"][column], r["ci_low"][column]) for r in rows if column in r["values"]]
        assert cells and all(v is not None and low is None for v, low in cells), cells
