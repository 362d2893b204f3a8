"""`lmmreview import ocrbench-v2-vlmevalkit`: VLMEvalKit's OCRBench v2 prediction file,
written here in the columns OCRBench_v2.evaluate reads (open-compass/VLMEvalKit @ e8e78f0,
vlmeval/dataset/image_vqa.py 3950-3973): `prediction`, `answer` (a Python list literal),
`category` (the type), `question`, `eval`, `bbox` and `content` (literals, or "without
eval" / "without bbox" / "without content"), and `index` (the TSV's, inference.py
244-283). Its rows are the official worked example's items (test_import_ocrbench_v2), so
the figures must be the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump
from test_import_ocrbench_v2 import CHINESE, ENGLISH, TYPES, WORKED
from test_import_vlmevalkit import write_xlsx

HEADER = ["index", "question", "answer", "category", "eval", "bbox", "content", "prediction"]


def _row(item: dict[str, Any]) -> list[object]:
    """An official item as a row of VLMEvalKit's TSV with the model's prediction."""
    more = [repr(item[k]) if k in item else f"without {k}" for k in ("bbox", "content")]
    method = item.get("eval", "without eval")
    return [item["id"], item["question"], repr(item["answers"]), item["type"], method, *more,
            item["predict"]]  # fmt: skip


def workbook(folder: Path, model: str = "internvl", items: list[dict] = WORKED) -> Path:
    rows = [_row(item) for item in items]
    return write_xlsx(folder / f"{model}_OCRBench_v2.xlsx", HEADER, rows)


def test_the_prediction_file_gives_the_official_results_figures(cli, tmp_path: Path) -> None:
    db = tmp_path / "v2.db"
    result = cli("import", "ocrbench-v2-vlmevalkit", db, workbook(tmp_path))
    assert result.code == 0, result.stderr
    assert "1 text translation row(s) with an empty gold, left out" in result.stderr
    assert "19 answers scored by the offline rules" in cli("score", db).stdout
    document = json.loads(cli("export", db, "--format", "json").stdout)
    tables: dict[str, dict[str, Any]] = {t["name"]: t["rows"][0] for t in document["tables"]}
    assert tables["OCRBench_v2.types"]["model"] == "internvl"
    assert tables["OCRBench_v2.types"]["values"] == pytest.approx(TYPES)
    assert tables["OCRBench_v2.english"]["values"] == pytest.approx(ENGLISH)
    assert tables["OCRBench_v2.chinese"]["values"] == pytest.approx(CHINESE)


def _changed(row: int, **cells: object) -> list[list[object]]:
    rows = [_row(item) for item in WORKED]
    for column, value in cells.items():
        rows[row - 1][HEADER.index(column)] = value
    return rows


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_changed(2, category="poetry"), "line 3: category 'poetry': not one of OCRBench v2's 30"),
        (_changed(1, answer="['12'"), "line 2: answer \"['12'\" is no Python literal"),
        (_changed(3, eval="without eval"),
         "line 4: eval None for text counting en: expected exact match or regression"),
        (_changed(12, bbox="without bbox"),
         "line 13: bbox None: expected a box, four coordinates"),
        (_changed(4, index=3), "line 5: duplicate index 3 (also at line 4)"),
    ],
)  # fmt: skip
def test_bad_rows_name_the_file_and_line_and_change_nothing(
    cli, tmp_path: Path, rows: list[list[object]], message: str
) -> None:
    db = tmp_path / "v2.db"
    assert cli("import", "ocrbench-v2-vlmevalkit", db, workbook(tmp_path)).code == 0
    before = dump(db)
    bad = write_xlsx(tmp_path / "other_OCRBench_v2.xlsx", HEADER, rows)
    result = cli("import", "ocrbench-v2-vlmevalkit", db, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before


def test_a_file_without_bbox_and_content_is_refused(cli, tmp_path: Path) -> None:
    """OCRBench_v2.evaluate reads both in every row (image_vqa.py 3955-3956)."""
    kept = [n for n, column in enumerate(HEADER) if column not in ("bbox", "content")]
    header = [HEADER[n] for n in kept]
    rows = [[_row(item)[n] for n in kept] for item in WORKED]
    bad = write_xlsx(tmp_path / "internvl_OCRBench_v2.xlsx", header, rows)
    result = cli("import", "ocrbench-v2-vlmevalkit", tmp_path / "v2.db", bad)
    assert result.code != 0
    assert f"{bad}: missing column 'bbox'" in result.stderr
    assert not (tmp_path / "v2.db").exists()
