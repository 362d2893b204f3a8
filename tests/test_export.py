"""Export renderers: the papers' shape, ranks, escaping, and pinned snapshots."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import matches_golden, needs_fixture

from engine.export import DASH, Notes, to_csv, to_json, to_latex, to_markdown
from engine.tables import Cell, Column, Row, Table


def _table(values: dict[str, float | None], std: float | None = None) -> Table:
    table = Table(
        "d.t",
        "Some table",
        "d",
        [Column("x", "X"), Column("total", "Total")],
        std_columns=("total",),
    )
    for label, value in values.items():
        cells = {"x": Cell(value, 10, offline=10), "total": Cell(value, 12, std=std)}
        table.rows.append(Row(label, cells))
    return table


NOTES = [Notes("d", "generic", ("gpt-4-0613",), 5, 30, 4, 2, 1)]


def test_best_is_bold_second_underlined_ties_share() -> None:
    md = to_markdown([_table({"a": 50.0, "b": 70.0, "c": 60.0, "d": 70.0})], NOTES)
    lines = {line.split(" | ")[0][2:]: line for line in md.splitlines() if line.startswith("| ")}
    assert "**70.0**" in lines["b"] and "**70.0**" in lines["d"]
    # b and d share first place, so nobody is second.
    assert "<u>" not in md
    md = to_markdown([_table({"a": 50.0, "b": 70.0, "c": 60.0})], NOTES)
    assert "<u>60.0</u>" in md and "**70.0**" in md and "| a | 50.0 |" in md


def test_all_equal_marks_nothing() -> None:
    assert "**" not in to_markdown([_table({"a": 0.0, "b": 0.0, "c": 0.0})], NOTES)


def test_two_rows_mark_only_the_best_and_one_row_nothing() -> None:
    assert "<u>" not in to_markdown([_table({"a": 50.0, "b": 70.0})], NOTES)
    assert "**" not in to_markdown([_table({"a": 50.0})], NOTES)


def test_std_columns_show_mean_plus_minus_std_and_n_row() -> None:
    md = to_markdown([_table({"a": 33.34, "b": None}, std=0.12)], NOTES)
    assert "| a | 33.3 | 33.3±0.1 |" in md  # the only value: nothing to rank against
    assert f"| b | {DASH} | {DASH} |" in md
    assert "| N | 10 | 12 |" in md
    assert "judge gpt-4-0613 (5 runs); 4 of 30 answers human-reviewed; 2 unscored" in md


def test_markdown_escapes_pipes_in_names() -> None:
    md = to_markdown([_table({"my|model": 1.0})], NOTES)
    assert "| my\\|model |" in md


def test_latex_is_booktabs_and_escapes_names() -> None:
    tex = to_latex([_table({"llava_1.5 & co %": 50.0, "b": 40.0, "c": 30.0}, std=1.25)], NOTES)
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "llava\\_1.5 \\& co \\%" in tex
    assert "\\textbf{50.0$\\pm$1.2}" in tex or "\\textbf{50.0$\\pm$1.3}" in tex
    assert "\\underline{40.0}" in tex
    assert "\\begin{tabular}{lrr}" in tex


def test_csv_has_one_line_per_cell_with_every_statistic() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv([_table({"a": 50.0, "b": None})], NOTES))))
    assert len(rows) == 4
    first = rows[0]
    assert (first["model"], first["column"], first["value"], first["n"]) == ("a", "x", "50.0", "10")
    assert rows[2]["value"] == ""  # b has no score: empty, not 0


def test_json_has_the_documented_shape() -> None:
    document = json.loads(to_json([_table({"a": 50.0, "b": None})], NOTES))
    (table,) = document["tables"]
    assert {"name", "dataset", "columns", "rows"} <= set(table)
    assert table["columns"] == ["x", "total"]
    assert table["rows"][0] == {
        "model": "a",
        "values": {"x": 50.0, "total": 50.0},
        "n": {"x": 10, "total": 12},
        "std": {"x": None, "total": None},
        "reviewed": {"x": 0, "total": 0},
        "unscored": {"x": 0, "total": 0},
        "fallback": {"x": 0, "total": 0},
        "offline": {"x": 10, "total": 0},
    }
    assert table["rows"][1]["values"] == {"x": None, "total": None}
    assert document["notes"]["d"]["runs"] == 5


# -- pinned snapshots of real exports ---------------------------------------------------


def test_demo_export_markdown_snapshot(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert cli("demo", db, "--no-open").code == 0
    result = cli("export", db, "--format", "md")
    assert result.code == 0, result.stderr
    matches_golden(result.stdout, "demo_tables.md")


@needs_fixture("mmmu")
def test_mmmu_fixture_export_markdown_snapshot(cli, mmmu_fixture_db: Path) -> None:
    db = mmmu_fixture_db
    assert cli("score", db).code == 0
    result = cli("export", db, "--format", "md")
    matches_golden(result.stdout, "mmmu_llava_tables.md")


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "latex"])
def test_export_to_a_file(cli, tmp_path: Path, fmt: str) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    out = tmp_path / f"tables.{fmt}"
    result = cli("export", db, "--format", fmt, "--out", out)
    assert result.code == 0 and f"wrote {out}" in result.stderr
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "demo-alpha" in text and "mmvet" in text
