"""Bootstrap intervals (engine.uncertainty): the real MM-Vet grades' intervals against the
resampling written out here in plain numpy, and `export` / `report` with --ci."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, needs_fixture

REAL = FIXTURES / "mmvet-real"
LLAVA = REAL / "llava-v1.5-7b"
JUDGE = ("--judge", "gpt-4 (imported)")


def reference_interval(units: list[list[float | None]], resamples: int = 1000, seed: int = 0):
    """The module docstring's bootstrap, written out: each unit's scores per run in whole
    millionths (-1: unscored), its distinct outcomes sorted, a multinomial draw of their
    counts per resample, the mean over runs of each run's percentage, the percentiles."""
    codes = np.array([[-1 if s is None else round(s * 1_000_000) for s in u] for u in units])
    outcomes, counts = np.unique(codes, axis=0, return_counts=True)
    n = counts.sum()
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    scored = outcomes >= 0
    sums, units_scored = draws @ np.where(scored, outcomes, 0), draws @ scored
    per_run = 100 * sums / 1_000_000 / units_scored
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
@pytest.mark.parametrize("runs", [1, 3])
def test_the_official_grades_intervals_equal_the_resampling_written_out(
    cli, tmp_path: Path, runs: int
) -> None:
    db = _grades_db(cli, tmp_path, runs)
    grades = json.loads((LLAVA / f"llava-v1.5-7b_gpt-4-grade-{runs}runs.json").read_text())
    questions = json.loads((REAL / "mm-vet.json").read_text())
    row = _cells(cli, db)["mmvet.capabilities"]
    for column in ("total", "ocr", "math"):
        units = [
            grades[key]["score"]
            for key, q in questions.items()
            if column == "total" or column in q["capability"]
        ]
        low, high = reference_interval(units)
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

    checked = 0
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
                    assert cell.interval is not None, (name, column.key)
                    checked += 1
        assert checked > 20


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
