"""`lmmreview export --format parquet --out DIR`: tidy files read back with pyarrow, pandas,
DuckDB and `datasets`, and checked against the database and `export --format json`."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import defaultdict
from contextlib import closing
from pathlib import Path

import pytest
from conftest import dump

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import Judgment

pq = pytest.importorskip("pyarrow.parquet")


def _llm(run: int, score: float) -> Judgment:
    return Judgment(run=run, score=score, method="llm", kind="llm", judge_model="judge-b")


@pytest.fixture
def reviewed_db(demo_db: Path) -> Path:
    """The demo with an LLM judge of two runs on MM-Vet's answers (some left unjudged),
    and a history of human verdicts: a grade undone, a note, a grade in force."""
    with Store.open(demo_db) as store:
        keys = store.answer_keys("mmvet")
        with store.transaction():
            store.add_judgments(
                (answer, _llm(run, (answer + run) % 3 / 2))
                for answer, _, _ in keys[:-2]
                for run in (0, 1)
            )
        reviews = ReviewStore(store, "ana")
        first, second = keys[0][0], keys[1][0]
        reviews.grade(first, 0.3)
        reviews.undo_last("mmvet")
        reviews.note(first, "looked again")
        reviews.grade(second, 0.0)
        reviews.grade(second, 0.9)
    return demo_db


def _export(cli, db: Path, out: Path, *args: str) -> tuple[list[dict], list[dict]]:
    result = cli("export", db, "--format", "parquet", "--out", out, *args)
    assert result.code == 0, result.stderr
    return (
        pq.read_table(out / "scores.parquet").to_pylist(),
        pq.read_table(out / "verdicts.parquet").to_pylist(),
    )


def _tables(cli, db: Path, judge: str, dataset: str) -> dict[tuple[str, str], dict]:
    """(table, model) -> the row's values, as `export --format json --judge` gives them."""
    result = cli("export", db, "--format", "json", "--judge", judge, "--dataset", dataset)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    return {(t["name"], r["model"]): r["values"] for t in document["tables"] for r in t["rows"]}


def test_the_scores_average_to_the_tables_of_each_judge(cli, reviewed_db, tmp_path) -> None:
    scores, _ = _export(cli, reviewed_db, tmp_path / "out")
    mmvet = [r for r in scores if r["dataset"] == "mmvet"]
    assert {r["judge"] for r in mmvet} == {"offline rules", "judge-b"}
    for judge in ("offline rules", "judge-b"):
        tables = _tables(cli, reviewed_db, judge, "mmvet")
        rows = [r for r in mmvet if r["judge"] == judge]
        # MM-Vet's total and a capability: per run, the mean effective score of the answers
        # scored; the cell is the mean of its runs
        for capability, column in ((None, "total"), ("rec", "rec")):
            per_run: dict[tuple[str, int], list[float]] = defaultdict(list)
            for r in rows:
                if r["effective_score"] is not None and (
                    capability is None or capability in r["axis_capability"]
                ):
                    per_run[r["model"], r["run"]].append(r["effective_score"])
            models = {model for model, _ in per_run}
            assert models
            for model in models:
                means = [100 * sum(v) / len(v) for (m, _), v in per_run.items() if m == model]
                expected = tables["mmvet.capabilities", model][column]
                assert sum(means) / len(means) == pytest.approx(expected)


def test_every_answer_is_there_under_every_judge_and_run(cli, reviewed_db, tmp_path) -> None:
    scores, _ = _export(cli, reviewed_db, tmp_path / "out", "--dataset", "mmvet")
    with Store.open(reviewed_db) as store:
        keys = {a: (model, key) for a, model, key in store.answer_keys("mmvet")}
    runs = {"offline rules": [0], "judge-b": [0, 1]}
    assert sorted((r["answer_id"], r["judge"], r["run"]) for r in scores) == sorted(
        (a, judge, run) for a in keys for judge, found in runs.items() for run in found
    )
    for r in scores:
        assert (r["model"], r["sample"]) == keys[r["answer_id"]]
        assert (r["dataset"], r["benchmark"]) == ("mmvet", "mmvet")
    # the second answer's verdict in force (0.9) is every row's effective score
    second = sorted(keys)[1]
    assert {(r["human_score"], r["effective_score"]) for r in scores
            if r["answer_id"] == second} == {(0.9, 0.9)}  # fmt: skip
    # elsewhere the judge's score decides; unjudged runs are null
    for r in scores:
        if r["human_score"] is None:
            assert r["effective_score"] == r["judge_score"]
    assert any(r["judge_score"] is None for r in scores if r["judge"] == "judge-b")


def test_the_verdicts_keep_their_history(cli, reviewed_db, tmp_path) -> None:
    _, verdicts = _export(cli, reviewed_db, tmp_path / "out")
    with closing(sqlite3.connect(reviewed_db)) as conn:
        stored = conn.execute(
            "SELECT id, answer_id, action, reviewer, created_at, score, choice, previous_score, "
            "previous_choice, note FROM reviews ORDER BY answer_id, id"
        ).fetchall()
    assert [
        (v["review_id"], v["answer_id"], v["action"], v["reviewer"],
         v["created_at"].isoformat(timespec="milliseconds"), v["score"], v["choice"],
         v["previous_score"], v["previous_choice"], v["note"])
        for v in verdicts
    ] == stored  # fmt: skip
    actions = [(v["action"], v["score"], v["in_force"]) for v in verdicts]
    assert actions == [
        ("grade", 0.3, False), ("undo", None, False), ("note", None, False),
        ("grade", 0.0, False), ("grade", 0.9, True),
    ]  # fmt: skip
    assert {v["dataset"] for v in verdicts} == {"mmvet"}


def test_without_pyarrow_the_error_names_the_extra(cli, demo_db, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    result = cli("export", demo_db, "--format", "parquet", "--out", tmp_path / "out")
    assert result.code == 1
    assert "lmmreview[parquet]" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("out", [None, "db"])
def test_no_folder_or_the_database_as_the_folder_writes_nothing(cli, demo_db, out) -> None:
    before = dump(demo_db)
    args = [] if out is None else ["--out", demo_db]
    result = cli("export", demo_db, "--format", "parquet", *args)
    assert result.code == 1
    assert ("--out DIR is needed" if out is None else "not writing") in result.stderr
    assert dump(demo_db) == before


def test_a_commit_while_the_files_are_read_reads_them_again(
    cli, reviewed_db, tmp_path, monkeypatch
) -> None:
    """The two files come from several connections with no shared snapshot: a verdict
    another process saves meanwhile makes the export read both again, so they agree."""
    from lmmreview.db import tidy

    real, calls = tidy.tables, []

    def writing_once(store, datasets=None):
        calls.append(1)
        if len(calls) == 1:  # another process commits while the first read is under way
            with closing(sqlite3.connect(reviewed_db)) as other, other:
                other.execute("CREATE TABLE elsewhere (x)")
        yield from real(store, datasets)

    monkeypatch.setattr(tidy, "tables", writing_once)
    assert cli("export", reviewed_db, "--format", "parquet", "--out", tmp_path / "t").code == 0
    assert len(calls) == 2


# -- read back by pandas, DuckDB and `datasets` (issue 29, acceptance d) ---------------------

# (dataset, judge, table of `export --format json`, its all-answers column, the axis of
# its other columns): MM-Vet's total and capabilities under both judges (the LLM judge's
# cells are the mean of two runs), MMMU's accuracy by discipline and by subject.
CELLS = [
    ("mmvet", "offline rules", "mmvet.capabilities", "total", "capability"),
    ("mmvet", "judge-b", "mmvet.capabilities", "total", "capability"),
    ("mmmu", "offline rules", "mmmu.disciplines", "overall", "discipline"),
    ("mmmu", "offline rules", "mmmu.subjects", None, "subject"),
]
Cells = dict[tuple[str, str], float]  # (model, column) -> the cell's value


@pytest.fixture
def tidy(cli, reviewed_db: Path, tmp_path: Path) -> Path:
    """The reviewed demo, with a human verdict on an MMMU answer too, exported."""
    with Store.open(reviewed_db) as store:
        ReviewStore(store, "ana").grade(store.answer_keys("mmmu")[1][0], 0.0)
    out = tmp_path / "tidy"
    assert cli("export", reviewed_db, "--format", "parquet", "--out", out).code == 0
    return out


def _json_cells(cli, db: Path, dataset: str, judge: str, table: str) -> Cells:
    """Every cell of one table with a value, as `export --format json --judge` gives it."""
    rows = _tables(cli, db, judge, dataset)
    return {
        (model, column): value
        for (name, model), values in rows.items()
        if name == table
        for column, value in values.items()
        if value is not None
    }


def _pandas_cells(tidy: Path, dataset: str, judge: str, total: str | None, axis: str) -> Cells:
    """The same cells from scores.parquet with pandas: per model and run the mean effective
    score of each column's answers, then the mean over runs."""
    pd = pytest.importorskip("pandas")
    scores = pd.read_parquet(tidy / "scores.parquet")
    rows = scores[(scores.dataset == dataset) & (scores.judge == judge)]
    exploded = rows.explode(f"axis_{axis}").rename(columns={f"axis_{axis}": "column"})
    parts = [exploded] + ([rows.assign(column=total)] if total else [])
    runs = pd.concat(parts).groupby(["model", "column", "run"]).effective_score.mean() * 100
    means = runs.groupby(["model", "column"]).mean().dropna()
    return {key: float(value) for key, value in means.items()}


def _duckdb_cells(tidy: Path, dataset: str, judge: str, total: str | None, axis: str) -> Cells:
    """The same cells with DuckDB's SQL over the file."""
    duckdb = pytest.importorskip("duckdb")
    overall = "UNION ALL SELECT model, $total, run, effective_score FROM f" if total else ""
    query = f"""
        WITH f AS (SELECT * FROM read_parquet($file) WHERE dataset = $dataset AND judge = $judge)
        SELECT model, col, avg(run_mean) FROM (
            SELECT model, col, run, 100 * avg(effective_score) AS run_mean FROM (
                SELECT model, unnest(axis_{axis}) AS col, run, effective_score FROM f
                {overall}
            ) GROUP BY ALL
        ) GROUP BY ALL HAVING avg(run_mean) IS NOT NULL
    """
    given = {"file": str(tidy / "scores.parquet"), "dataset": dataset, "judge": judge}
    with duckdb.connect() as conn:
        found = conn.execute(query, given | ({"total": total} if total else {})).fetchall()
    return {(model, column): value for model, column, value in found}


@pytest.mark.parametrize("reader", [_pandas_cells, _duckdb_cells], ids=["pandas", "duckdb"])
@pytest.mark.parametrize(("dataset", "judge", "table", "total", "axis"), CELLS)
def test_pandas_and_duckdb_read_the_tables_numbers(
    cli, reviewed_db, tidy, reader, dataset, judge, table, total, axis
) -> None:
    expected = _json_cells(cli, reviewed_db, dataset, judge, table)
    found = reader(tidy, dataset, judge, total, axis)
    assert len(expected) >= 6
    assert found == pytest.approx(expected)


def _examples() -> list[str]:
    """The Python examples of docs/export.md's section on the Parquet files."""
    page = (Path(__file__).parent.parent / "docs" / "export.md").read_text(encoding="utf-8")
    section = page.split("## Tidy data out")[1].split("\n## ")[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def test_the_docs_examples_run_on_real_exports(cli, reviewed_db, tidy, tmp_path) -> None:
    """Each example runs as written in the folder holding `tidy/` and `many/*/` (exports
    of two benchmarks, whose axis columns differ), and prints the reviewed answers."""
    for module in ("pandas", "duckdb", "datasets"):
        pytest.importorskip(module)
    assert tidy == tmp_path / "tidy"
    for name, dataset in (("one", "mmvet"), ("two", "mmbench")):
        out = tmp_path / "many" / name
        done = cli("export", reviewed_db, "--format", "parquet", "--out", out, "--dataset", dataset)
        assert done.code == 0, done.stderr
    examples = _examples()
    assert [e.split("\n")[0].split()[1] for e in examples] == ["pandas", "duckdb", "datasets"]
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_OFFLINE": "1"}
    printed = []
    for example in examples:
        done = subprocess.run(
            [sys.executable, "-c", example], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        printed.append(done.stdout)
    pandas_said, duckdb_said, datasets_said = printed
    assert "ana    2" in pandas_said.replace("\t", " ")  # verdicts in force per reviewer
    assert "│ mmbench " in duckdb_said and "│ mmvet " in duckdb_said
    assert "mmvet" in datasets_said and "mmmu" in datasets_said
