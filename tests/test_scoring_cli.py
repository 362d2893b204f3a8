"""`lmmreview score`, `report` and `export` end to end, on real files and the demo."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import FIXTURES, dump, needs_fixture

from lmmreview.engine.benchmarks.mmmu.rules import DISCIPLINE_OF, subject_of
from lmmreview.engine.benchmarks.mmvet.rules import offline_grade

ROOT = Path(__file__).resolve().parents[1]


@needs_fixture("mmmu")
def test_mmmu_fixture_scores_as_the_official_code_sample_by_sample(
    cli, mmmu_fixture_db: Path
) -> None:
    db = mmmu_fixture_db
    mmmu = FIXTURES / "mmmu"
    result = cli("score", db)
    assert (
        "900 answers scored by the offline rules (2 by the seeded fallback, marked)"
        in result.stdout
    )
    expected = json.loads((mmmu / "llava1.5_13b.expected.json").read_text())
    fallback_ids = set(expected["random_fallback_ids"])
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT s.key, j.choice, j.raw_reply, j.score, j.status, j.judge_kind "
            "FROM judgments j JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id"
        ).fetchall()
    assert len(rows) == 900
    ours = {
        key: (choice, json.loads(reply), score, status, kind)
        for key, choice, reply, score, status, kind in rows
    }
    assert {k for k, v in ours.items() if v[3] == "fallback"} == fallback_ids
    assert {v[4] for v in ours.values()} == {"offline"}
    for key, official in expected["per_sample"].items():
        if key in fallback_ids:
            continue
        choice, prediction, score, _, _ = ours[key]
        if choice is not None:
            assert choice == official["parsed_pred"], key
        else:
            assert sorted(map(str, prediction)) == sorted(map(str, official["parsed_pred"])), key
        assert score == (1.0 if official["correct"] else 0.0), key
    correct = sum(v[2] for v in ours.values())
    assert abs(correct - expected["overall"]["correct"]) <= len(fallback_ids)
    tables = json.loads(cli("export", db, "--format", "json").stdout)
    (disciplines,) = [t for t in tables["tables"] if t["name"] == "mmmu.disciplines"]
    (row,) = disciplines["rows"]
    for discipline, official in expected["per_discipline"].items():
        slack = sum(DISCIPLINE_OF[subject_of(k)] == discipline for k in fallback_ids)
        ours_correct = round(row["values"][discipline] * row["n"][discipline] / 100)
        assert abs(ours_correct - official["correct"]) <= slack, discipline
        assert row["n"][discipline] == official["num"]


def test_score_is_idempotent_and_labels_offline_results(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert cli("demo", db, "--no-open").code == 0  # the demo scores once already
    before = dump(db)
    again = cli("score", db)
    assert dump(db) == before
    info = json.loads(cli("info", db, "--json").stdout)
    mmvet = next(d for d in info["datasets"] if d["name"] == "mmvet")
    alpha = next(m for m in mmvet["models"] if m["model"] == "demo-alpha")
    # The offline grader leaves answers to long ground truths for a human or an LLM judge.
    golds = json.loads((ROOT / "sample_data" / "mmvet" / "mm-vet.json").read_text())
    long = sum(offline_grade(q["answer"], "x").score is None for q in golds.values())
    assert long >= 2 and (alpha["judged"], alpha["unscored"]) == (20 - long, long)
    # A second run adds nothing and says where the rules' scores stand, as `info` does.
    scored = sum(m["offline"] for m in mmvet["models"])
    left = sum(m["unscored"] for m in mmvet["models"])
    assert again.code == 0 and f"mmvet: {scored} answers scored" in again.stdout
    assert f"; {left} left for a human or an LLM judge\n" in again.stdout
    report = cli("report", db, "--dataset", "mmvet")
    assert "MM-Vet: capabilities" in report.stdout and "judge offline rules" in report.stdout
    # The notes keep every word at the runner's 80 columns (they were once cut there).
    assert "decided by a seeded random fallback." in report.stdout


def test_unscored_as_zero_changes_the_total_and_says_so(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")

    def alpha_total(*flags: str) -> tuple[float, dict]:
        document = json.loads(
            cli("export", db, "--format", "json", "--dataset", "mmvet", *flags).stdout
        )
        table = next(t for t in document["tables"] if t["name"] == "mmvet.capabilities")
        row = next(r for r in table["rows"] if r["model"] == "demo-alpha")
        return row["values"]["total"], document["notes"]["mmvet"]

    left_out, notes = alpha_total()
    as_zero, zero_notes = alpha_total("--unscored-as-zero")
    assert as_zero < left_out
    assert (notes["unscored_as_zero"], zero_notes["unscored_as_zero"]) == (False, True)
    assert zero_notes["unscored"] > 0


def test_report_and_export_refuse_unknown_datasets_and_databases(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    result = cli("export", db, "--dataset", "nope")
    assert result.code == 1 and "no dataset 'nope'" in result.stderr
    missing = cli("report", tmp_path / "missing.db")
    assert missing.code == 1 and "no such database" in missing.stderr
