"""`lmmreview versus`: the paired difference of two models per cell, and McNemar's exact
test against scipy's binomial test."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, needs_fixture, write_tsv
from scipy.stats import binomtest

from lmmreview.engine.uncertainty import mcnemar

MMMU = FIXTURES / "mmmu"


@pytest.mark.parametrize(
    ("a_only", "b_only"), [(0, 0), (3, 3), (1, 9), (9, 1), (20, 35), (0, 12), (430, 500)]
)
def test_mcnemar_is_the_two_sided_binomial_test(a_only: int, b_only: int) -> None:
    expected = binomtest(a_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
    assert mcnemar(a_only, b_only) == pytest.approx(expected, rel=1e-9)


def _scores(db: Path, model: str, dataset: str | None = None) -> dict[str, float]:
    """sample key -> the offline rules' score of `model`'s answer (in `dataset`, if given)."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT s.key, j.score FROM judgments j JOIN answers a ON a.id = j.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id "
            "JOIN datasets d ON d.id = s.dataset_id "
            "WHERE m.name = ? AND j.judge_kind = 'offline' AND j.score IS NOT NULL "
            "AND d.name = coalesce(?, d.name)",
            (model, dataset),
        )
        return dict(rows.fetchall())


@needs_fixture("mmmu/llava1.5_13b")
def test_versus_on_the_mmmu_fixture(cli, tmp_path: Path) -> None:
    """LLaVA-1.5-13B's real MMMU answers against a copy answering "A" to every choice
    question: McNemar's p and the difference over the pairs, counted here from the
    database."""
    always_a = tmp_path / "always-a"
    shutil.copytree(MMMU / "llava1.5_13b", always_a)
    for path in always_a.glob("*/output.json"):
        rows = json.loads(path.read_text())
        for row in rows:
            if row["question_type"] == "multiple-choice":
                row["response"] = "A"
        path.write_text(json.dumps(rows))
    db = tmp_path / "mmmu.db"
    for folder, model in ((MMMU / "llava1.5_13b", "llava"), (always_a, "always-a")):
        result = cli("import", "mmmu", db, folder, "--answer-dict",
                     MMMU / "answer_dict_val.json", "--model", model)  # fmt: skip
        assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    result = cli("versus", db, "llava", "always-a", "--format", "json", "--judge", "offline rules")
    assert result.code == 0, result.stderr
    (found,) = json.loads(result.stdout)["datasets"]
    overall = next(c for c in found["cells"] if c["column"] == "overall")
    a, b = _scores(db, "llava"), _scores(db, "always-a")
    both = sorted(set(a) & set(b))
    right = np.array([[a[k], b[k]] for k in both]) == 1.0
    a_only, b_only = (
        int(np.sum(right[:, 0] & ~right[:, 1])),
        int(np.sum(~right[:, 0] & right[:, 1])),
    )
    assert overall["n"] == len(both) == 900
    assert overall["p_mcnemar"] == pytest.approx(binomtest(a_only, a_only + b_only).pvalue)
    assert overall["diff"] == pytest.approx(100 * (right[:, 0].mean() - right[:, 1].mean()))
    assert overall["low"] <= overall["diff"] <= overall["high"]
    again = cli("versus", db, "llava", "always-a", "--format", "json", "--judge", "offline rules")
    assert again.stdout == result.stdout  # seeded
    md = cli("versus", db, "llava", "always-a", "--judge", "offline rules").stdout
    assert f"| {overall['diff']:+.1f} | [{overall['low']:.1f}, {overall['high']:.1f}] | 900 |" in md


def test_versus_names_an_unknown_model_or_dataset(cli, demo_db: Path) -> None:
    for args, said in (
        (("demo-alpha", "nobody"), "no model 'nobody' has answers; models: 'demo-alpha', "
         "'demo-beta', 'demo-gamma'"),
        (("demo-alpha", "nobody", "--dataset", "mmbench"), "no model 'nobody' has answers"),
        (("demo-alpha", "demo-beta", "--dataset", "nope"), "no dataset 'nope'"),
    ):  # fmt: skip
        result = cli("versus", demo_db, *args)
        assert result.code == 1 and said in result.stderr, result.stderr


def test_versus_of_circular_groups_counts_groups(cli, demo_db: Path) -> None:
    """MMBench's CircularEval cells pair whole groups; graded scores get no McNemar."""
    result = cli("versus", demo_db, "demo-alpha", "demo-beta", "--format", "json",
                 "--dataset", "mmbench", "--dataset", "mmvet")  # fmt: skip
    datasets = {d["dataset"]: d["cells"] for d in json.loads(result.stdout)["datasets"]}
    document = json.loads(cli("export", demo_db, "--format", "json", "--dataset", "mmbench").stdout)
    groups = document["tables"][0]["rows"][0]["n"]["overall"]
    overall = next(c for c in datasets["mmbench"] if c["column"] == "overall")
    assert overall["n"] == groups and overall["p_mcnemar"] is not None
    assert all(c["p_mcnemar"] is None for c in datasets["mmvet"])  # graded 0 to 1


def test_versus_of_models_sharing_no_sample_is_an_error(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    """m answered group 7 only, n group 9 only: nothing to pair, said, exit 1."""
    db = tmp_path / "b.db"
    for model, rows in (("m", [[7, "A"], [1000007, "B"]]), ("n", [[9, "C"], [1000009, "B"]])):
        predictions = write_tsv(tmp_path / f"{model}.tsv", ["index", "prediction"], rows)
        assert cli("import", "mmbench", db, mmbench_tsv, "--answers", predictions,
                   "--model", model).code == 0  # fmt: skip
    assert cli("score", db).code == 0
    said = "'m' and 'n' share no sample both scored in 'mmbench'"
    for args in ((), ("--dataset", "mmbench")):
        result = cli("versus", db, "m", "n", *args)
        assert result.code == 1 and said in result.stderr, result.stderr
        assert result.stdout == ""


def test_versus_refuses_one_model_twice_and_too_few_resamples(cli, demo_db: Path) -> None:
    same = cli("versus", demo_db, "demo-alpha", "demo-alpha")
    assert same.code == 1 and "MODEL_A and MODEL_B are the same model" in same.stderr
    few = cli("versus", demo_db, "demo-alpha", "demo-beta", "--resamples", "99")
    assert few.code != 0 and "--resamples" in few.stderr
    enough = cli("versus", demo_db, "demo-alpha", "demo-beta", "--resamples", "100",
                 "--dataset", "mmbench")  # fmt: skip
    assert enough.code == 0, enough.stderr


def test_versus_pairs_the_units_both_scored_and_needs_two(cli, demo_db: Path) -> None:
    """N counts the samples both models scored (all both answered, unscored as zero, as
    the cells count them); a cell of one such unit has no interval."""
    args = ("versus", demo_db, "demo-alpha", "demo-gamma", "--dataset", "mmvet",
            "--judge", "offline rules", "--format", "json")  # fmt: skip
    found = {}
    for zero in ((), ("--unscored-as-zero",)):
        result = cli(*args, *zero)
        assert result.code == 0, result.stderr
        (cells,) = (d["cells"] for d in json.loads(result.stdout)["datasets"])
        found[bool(zero)] = cells
    a, b = (_scores(demo_db, m, "mmvet") for m in ("demo-alpha", "demo-gamma"))
    total = {
        zero: next(c for c in cells if c["column"] == "total") for zero, cells in found.items()
    }
    assert total[False]["n"] == len(set(a) & set(b)) < total[True]["n"]
    assert all((c["low"] is None) == (c["n"] < 2) for c in found[False])
    assert any(c["n"] == 1 for c in found[False])


def test_a_judge_named_without_dataset_takes_the_datasets_that_have_it(cli, demo_db: Path) -> None:
    """Only the demo's hallusionbench has the imported GPT-4 judge: `versus` and `report`
    read it and say which datasets they left out; a judge no dataset has is an error."""
    judge = ("--judge", "gpt-4 (imported)")
    for args in (
        ("versus", demo_db, "demo-alpha", "demo-beta", *judge),
        ("report", demo_db, *judge),
    ):
        result = cli(*args)
        assert result.code == 0, result.stderr
        assert "hallusionbench" in result.stdout and "mmbench" not in result.stdout
        assert "left out, without the judge 'gpt-4 (imported)': generic," in result.stderr
    none = cli("versus", demo_db, "demo-alpha", "demo-beta", "--judge", "nobody")
    assert none.code == 1 and "no judge 'nobody'; judges:" in none.stderr


def test_a_zero_difference_prints_without_a_sign(cli, demo_db: Path) -> None:
    """The Markdown's A - B column: signed as the screen's, and 0.0 (never -0.0) at zero."""
    from lmmreview.engine.export import signed

    assert [signed(v) for v in (8.25, -63.2, -0.0, -0.04, 0.04, 0.0)] == [
        "+8.2", "-63.2", "0.0", "0.0", "0.0", "0.0"
    ]  # fmt: skip
    md = cli("versus", demo_db, "demo-alpha", "demo-beta", "--dataset", "mmbench").stdout
    diffs = [line.split(" | ")[4] for line in md.splitlines() if line.startswith("| MMBench")]
    assert "0.0" in diffs and "-0.0" not in diffs and "+0.0" not in diffs
