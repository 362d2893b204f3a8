"""`lmmreview import hallusionbench-vlmevalkit`: VLMEvalKit's HallusionBench workbooks
(vlmeval/dataset/image_yorn.py, utils/yorn.py @ e8e78f0), written here in their columns, as
answers to the worked example's questions imported from the release's HallusionBench.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, write_json
from test_hallusionbench import VD_ROWS, VS_ROWS, _row
from test_import_vlmevalkit import write_xlsx

from lmmreview.engine.benchmarks.hallusionbench.rules import yes_or_no

HEADER = ["index", "question", "answer", "category", "l2-category", "prediction"]
JUDGED = [*HEADER, "extracted", "score"]


def _questions(folder: Path) -> Path:
    """The release's HallusionBench.json: the worked example's rows, no model_prediction."""
    rows = [_row(*r[:6], verdict=None) for r in VD_ROWS + VS_ROWS]
    for row in rows:
        del row["model_prediction"]
    return write_json(folder / "HallusionBench.json", rows)


def vlmevalkit_files(folder: Path, model: str) -> None:
    """The release's HallusionBench.json and `model`'s auxmatch workbook, as the docs'
    example imports them."""
    _questions(folder)
    _workbook(folder, model=model)


def _workbook(folder: Path, judged: bool = True, model: str = "tiny", **change: Any) -> Path:
    """VLMEvalKit's rows of the worked example: its questions with a figure (the VS one asked
    without is not among its 951), the same answers, and with `judged` auxmatch's extracted
    (the yes/no rule's word, else Unknown) and score; `change` sets cells of the first row."""
    rows = []
    for category, figure, question, visual_input, gt, prediction, _ in VD_ROWS + VS_ROWS:
        if visual_input == "0":
            continue
        l2 = f"{category}_{'illusion' if category == 'VD' else 'chart'}"
        answer = "Yes" if gt == "1" else "No"
        # index: the reader reads fields 4-6 (set, figure, question) only
        row = [f"{l2}_{visual_input}_0_{figure}_{question}", f"Question {question}?", answer,
               category, l2, prediction]  # fmt: skip
        if judged:
            extracted = (yes_or_no(prediction) or "unknown").capitalize()
            row += [extracted, extracted == answer]
        cells = dict(zip(JUDGED if judged else HEADER, row, strict=True))
        rows.append(cells if rows else cells | change)
    header = JUDGED if judged else HEADER
    name = f"{model}_HallusionBench_auxmatch.xlsx" if judged else f"{model}_HallusionBench.xlsx"
    return write_xlsx(folder / name, header, [[row[c] for c in header] for row in rows])


def _import(cli, db: Path, *args: object) -> None:
    result = cli("import", *args)
    assert result.code == 0, result.stderr


def _board(cli, db: Path) -> dict[str, Any]:
    document = json.loads(cli("export", db, "--format", "json").stdout)
    return next(t for t in document["tables"] if t["name"] == "hallusionbench.leaderboard")


def test_the_auxmatch_verdicts_answer_the_official_questions(cli, tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _import(cli, db, "hallusionbench", db, _questions(tmp_path))  # questions only
    _import(cli, db, "hallusionbench-vlmevalkit", db, _workbook(tmp_path))
    info = json.loads(cli("info", db, "--json").stdout)["datasets"][0]
    assert (info["samples"], info["judge"]) == (8, "vlmevalkit-yorn (imported)")
    assert [(m["model"], m["answers"]) for m in info["models"]] == [("tiny", 7)]
    row = _board(cli, db)["rows"][0]
    # right: VD 0_0_0, 0_0_1, 0_0_2, 0_1_0 and VS 0_1_1; wrong: VD 0_1_1 ("No."), 0_1_2
    # ("I cannot tell.": Unknown). The VS pair lacks its no-figure question, VLMEvalKit
    # never asks it: the pair and its easy group stay unscored (VLMEvalKit counts the pair
    # without that question), and the question is left out of aAcc.
    assert row["values"] == pytest.approx(
        {"qacc": 100 / 3, "facc": 200 / 3, "easy": 100.0, "hard": 100 / 3, "aacc": 500 / 7}
    )
    assert (row["unscored"]["qacc"], row["unscored"]["easy"], row["n"]["aacc"]) == (1, 1, 7)
    report = cli("report", db).stdout
    assert "judge vlmevalkit-yorn (imported)" in report


def test_a_prediction_file_brings_answers_the_offline_rule_scores(cli, tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _import(cli, db, "hallusionbench", db, _questions(tmp_path))
    _import(cli, db, "hallusionbench-vlmevalkit", db, _workbook(tmp_path, judged=False))
    assert cli("score", db).code == 0
    row = _board(cli, db)["rows"][0]
    assert row["values"]["aacc"] == pytest.approx(500 / 6)  # "I cannot tell." unscored


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"score": False}, "score False disagrees with extracted 'Yes' and answer 'Yes'"),
        ({"extracted": "Maybe"}, "extracted 'Maybe': expected Yes, No or Unknown"),
        ({"index": "VD_illusion_0_1"}, "no set, figure and question numbers in its fields 4 to 6"),
        ({"l2-category": "illusion"}, "l2-category 'illusion': expected VD_ or VS_"),
    ],
)
def test_bad_rows_name_file_and_line_and_leave_the_database(
    cli, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    db = tmp_path / "h.db"
    _import(cli, db, "hallusionbench", db, _questions(tmp_path))
    before = dump(db)
    workbook = _workbook(tmp_path, **change)
    result = cli("import", "hallusionbench-vlmevalkit", db, workbook)
    assert result.code != 0
    assert str(workbook) in result.stderr and "line 2" in result.stderr
    assert message in result.stderr
    assert dump(db) == before
