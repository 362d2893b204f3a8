"""MME from other tools' files: lmms-eval's --log_samples lines of its task `mme` (the v0.3
and v0.4 layouts) with its own verdicts, and VLMEvalKit's prediction and auxmatch
workbooks. The files are small ones of our own, shaped as those tools write them
(lmms-eval tasks/mme/utils.py @ 75571cf, VLMEvalKit image_yorn.py @ e8e78f0)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, write_lines
from test_import_mme import WORKED
from test_import_vlmevalkit import write_xlsx

# The worked example with one change: OCR's yes question answered "Y", which the official
# rule reads as other (wrong) and lmms-eval's as yes (right).
ROWS = [
    (subtask, image, question, gold, "Y" if (subtask, gold) == ("OCR", "Yes") else response)
    for subtask, lines in WORKED.items()
    for image, question, gold, response in lines
]
# By hand, the official rule: existence 125, OCR acc 1/2 and acc+ 0/1 -> 50, code 50.
OFFICIAL = {"perception": 175.0, "existence": 125.0, "OCR": 50.0}
# lmms-eval's rule: OCR both right -> 200.
LMMS_EVAL = {"perception": 325.0, "existence": 125.0, "OCR": 200.0}


def _lmms_eval_line(number: int, layout: str) -> dict[str, Any]:
    subtask, image, question, gold, response = ROWS[number]
    metric = "mme_cognition_score" if subtask == "code_reasoning" else "mme_perception_score"
    official_right = {"There is a kite.": 0, "**Yes**": 0, "Y": 1}.get(response, 1)
    line: dict[str, Any] = {
        "doc_id": number,
        "target": gold,
        metric: {"question_id": f"{subtask}/{image}", "category": subtask,
                 "score": official_right},
    }  # fmt: skip
    if layout == "v0.3":
        doc = {"question_id": f"{subtask}/{image}", "question": question, "answer": gold,
               "category": subtask}  # fmt: skip
        return line | {"doc": doc, "arguments": {}, "resps": [[response]],
                       "filtered_resps": [response]}  # fmt: skip
    return line | {"input": question, "filtered_resps": response}


def lmms_eval_samples(folder: Path, layout: str = "v0.4") -> Path:
    lines = [_lmms_eval_line(i, layout) for i in range(len(ROWS))]
    return write_lines(folder / "logs" / "llava" / "20250101_120000_samples_mme.jsonl", lines)


def _perception(cli, db: Path, judge: str) -> dict[str, Any]:
    document = json.loads(cli("export", db, "--format", "json", "--judge", judge).stdout)
    (table,) = [t for t in document["tables"] if t["name"] == "mme.perception"]
    return table["rows"][0]


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_lmms_eval_samples_give_both_rules_figures(cli, tmp_path: Path, layout: str) -> None:
    db = tmp_path / "mme.db"
    result = cli("import", "mme-lmms-eval", db, lmms_eval_samples(tmp_path, layout))
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    official = _perception(cli, db, "offline rules")
    assert official["model"] == "llava"  # the folder lmms-eval wrote it into
    assert official["values"] == pytest.approx(OFFICIAL)
    assert _perception(cli, db, "lmms-eval rules")["values"] == pytest.approx(LMMS_EVAL)


def test_the_official_rules_are_shown_before_another_tools_verdicts(cli, tmp_path: Path) -> None:
    """MME's offline rules are its official scoring: they are the default judge, in the
    tables and in the `judges` view that SQL users read, though lmms-eval's came first."""
    db = tmp_path / "mme.db"
    assert cli("import", "mme-lmms-eval", db, lmms_eval_samples(tmp_path)).code == 0
    assert cli("score", db).code == 0
    document = json.loads(cli("export", db, "--format", "json").stdout)
    (table,) = [t for t in document["tables"] if t["name"] == "mme.perception"]
    assert table["rows"][0]["values"] == pytest.approx(OFFICIAL)
    assert document["notes"]["mme"]["other_judges"] == ["lmms-eval rules (imported)"]
    with sqlite3.connect(db) as conn:
        shown = conn.execute("SELECT judge_model FROM judges WHERE shown").fetchall()
    assert shown == [("offline rules",)]


def test_a_lmms_eval_image_without_its_pair_is_refused(cli, tmp_path: Path) -> None:
    db = tmp_path / "mme.db"
    assert cli("import", "mme-lmms-eval", db, lmms_eval_samples(tmp_path)).code == 0
    before = dump(db)
    lines = [_lmms_eval_line(i, "v0.4") for i in range(len(ROWS) - 1)]
    path = write_lines(tmp_path / "x_samples_mme.jsonl", lines)
    result = cli("import", "mme-lmms-eval", db, path, "--dataset", "mme-2")
    assert result.code != 0
    message = "code_reasoning image 'code_reasoning/code.png' has 1 question(s): MME pairs two"
    assert f"{path}: {message}" in result.stderr
    assert dump(db) == before


HEADER = ["index", "question", "answer", "category", "image_path", "prediction"]


def vlmevalkit_workbook(folder: Path, auxmatch: bool) -> Path:
    """{model}_MME.xlsx, or its _auxmatch.xlsx with an extracted label as VLMEvalKit's
    whole-answer rule gives it (yes or no as a word, else Unknown) for these answers."""
    rows: list[list[object]] = []
    for index, (subtask, image, question, gold, response) in enumerate(ROWS):
        rows.append([index, question, gold, subtask, f"images/MME/{subtask}/{image}", response])
        if auxmatch:
            words = response.lower().replace(",", " ").replace(".", " ").split()
            label = "Yes" if "yes" in words else "No" if "no" in words else "Unknown"
            rows[-1].append(label)
    header = [*HEADER, "extracted"] if auxmatch else HEADER
    name = "llava_MME_auxmatch.xlsx" if auxmatch else "llava_MME.xlsx"
    return write_xlsx(folder / name, header, rows)


def test_a_vlmevalkit_prediction_workbook_scores_by_the_official_rule(cli, tmp_path: Path) -> None:
    db = tmp_path / "mme.db"
    result = cli("import", "mme-vlmevalkit", db, vlmevalkit_workbook(tmp_path, False))
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    official = _perception(cli, db, "offline rules")
    assert official["model"] == "llava"
    assert official["values"] == pytest.approx(OFFICIAL)


def test_the_auxmatch_labels_are_vlmevalkits_judgments(cli, tmp_path: Path) -> None:
    db = tmp_path / "mme.db"
    result = cli("import", "mme-vlmevalkit", db, vlmevalkit_workbook(tmp_path, True))
    assert result.code == 0, result.stderr
    # By hand, Unknown is wrong: existence's kite image loses both ("There is a kite." and
    # "none" hold no word yes or no): acc 2/4, acc+ 1/2 -> 100; OCR's "Y" and "nope" both
    # Unknown -> 0.
    values = _perception(cli, db, "vlmevalkit yes/no")["values"]
    assert values == pytest.approx({"perception": 100.0, "existence": 100.0, "OCR": 0.0})


def test_a_vlmevalkit_row_of_another_category_names_file_and_line(cli, tmp_path: Path) -> None:
    path = write_xlsx(
        tmp_path / "llava_MME.xlsx", HEADER, [[0, "Q?", "Yes", "Existence", "a.png", "yes"]]
    )
    result = cli("import", "mme-vlmevalkit", tmp_path / "mme.db", path)
    assert result.code != 0
    assert f"{path}: line 2: category 'Existence': not one of MME's 14 subtasks" in result.stderr
