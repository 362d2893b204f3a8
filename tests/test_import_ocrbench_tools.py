"""OCRBench from other tools' files: lmms-eval's --log_samples lines of its task `ocrbench`
(the v0.3 and v0.4 layouts) with its own verdicts, and VLMEvalKit's prediction workbook.
The files are small ones of our own, shaped as those tools write them (lmms-eval
tasks/ocrbench/utils.py @ 75571cf, VLMEvalKit image_vqa.py class OCRBench @ e8e78f0)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import dump, first_rows, write_lines
from test_import_ocrbench import WORKED
from test_import_vlmevalkit import write_xlsx

FULL_WIDTH_HOTEL = "".join(chr(ord(c) + 0xFEE0) for c in "HOTEL")
# The worked example with two changes: the first answer in full-width letters, which the
# official rule does not fold (wrong) and lmms-eval's does (right); the item without a
# prediction answered "".
ROWS = [
    item | {"predict": FULL_WIDTH_HOTEL if index == 0 else item.get("predict", "")}
    for index, item in enumerate(WORKED)
]
# By hand, the official rule: Regular 0 of 2, Digit 1, Artistic 0 -> Text Recognition 1;
# Scene 1, Doc 0, KIE 1, HMER 1 -> Final Score 4. lmms-eval's: Regular 1 -> 2 and 5.
OFFICIAL = {"Text Recognition": 1.0, "Final Score": 4.0}
LMMS_EVAL = {"Text Recognition": 2.0, "Final Score": 5.0}
LMMS_EVAL_RIGHT = [1, 0, 1, 0, 1, 0, 1, 1, 0]  # its verdicts on ROWS


def _lmms_eval_line(number: int, layout: str) -> dict[str, Any]:
    row = ROWS[number]
    score = {"question_type": row["type"], "score": LMMS_EVAL_RIGHT[number],
             "prediction": row["predict"].strip(), "ground_truth": row["answers"]}  # fmt: skip
    line: dict[str, Any] = {"doc_id": number, "target": str(row["answers"])}
    line["ocrbench_accuracy"] = score
    if layout == "v0.3":
        doc = {"dataset": row["dataset_name"], "question": row["question"],
               "answer": row["answers"], "question_type": row["type"]}  # fmt: skip
        return line | {"doc": doc, "arguments": {}, "resps": [[row["predict"]]],
                       "filtered_resps": [row["predict"]]}  # fmt: skip
    return line | {"input": row["question"], "filtered_resps": row["predict"]}


def lmms_eval_samples(folder: Path, layout: str = "v0.4") -> Path:
    lines = [_lmms_eval_line(i, layout) for i in range(len(ROWS))]
    return write_lines(folder / "logs" / "llava" / "20250101_120000_samples_ocrbench.jsonl", lines)


def _scores(cli, db: Path, judge: str) -> dict[str, float]:
    values = first_rows(cli, db, "--judge", judge)["ocrbench.scores"]["values"]
    return {key: values[key] for key in ("Text Recognition", "Final Score")}


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_lmms_eval_samples_give_both_rules_figures(cli, tmp_path: Path, layout: str) -> None:
    db = tmp_path / "ocrbench.db"
    result = cli("import", "ocrbench-lmms-eval", db, lmms_eval_samples(tmp_path, layout))
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    assert first_rows(cli, db, "--judge", "offline rules")["ocrbench.scores"]["model"] == "llava"
    assert _scores(cli, db, "offline rules") == pytest.approx(OFFICIAL)
    assert _scores(cli, db, "lmms-eval rules") == pytest.approx(LMMS_EVAL)
    # v0.4 lines name no dataset: only HMER's (HME100k, whose rule it needs) is known
    datasets = first_rows(cli, db, "--judge", "offline rules")["ocrbench.dataset"]["values"]
    assert datasets["HME100k"] == 50.0
    assert len(datasets) == (8 if layout == "v0.3" else 1)


def test_a_lmms_eval_line_without_the_metric_is_refused(cli, tmp_path: Path) -> None:
    db = tmp_path / "ocrbench.db"
    assert cli("import", "ocrbench-lmms-eval", db, lmms_eval_samples(tmp_path)).code == 0
    before = dump(db)
    lines = [_lmms_eval_line(i, "v0.4") for i in range(3)]
    lines[2]["ocrbench_accuracy"]["score"] = 0.5
    path = write_lines(tmp_path / "x_samples_ocrbench.jsonl", lines)
    result = cli("import", "ocrbench-lmms-eval", db, path, "--dataset", "ocrbench-2")
    assert result.code != 0
    assert f"{path}: line 3: score 0.5: expected 1 or 0" in result.stderr
    assert dump(db) == before


HEADER = ["index", "question", "answer", "category", "prediction"]


def vlmevalkit_workbook(folder: Path) -> Path:
    """{model}_OCRBench.xlsx: the answer a list literal, as VLMEvalKit's TSV holds it."""
    rows: list[list[object]] = [
        [index, row["question"], repr(row["answers"] if isinstance(row["answers"], list)
                                      else [row["answers"]]),
         row["type"], row["predict"]]
        for index, row in enumerate(ROWS)
    ]  # fmt: skip
    return write_xlsx(folder / "llava_OCRBench.xlsx", HEADER, rows)


def test_a_vlmevalkit_workbook_scores_by_the_official_rule(cli, tmp_path: Path) -> None:
    db = tmp_path / "ocrbench.db"
    result = cli("import", "ocrbench-vlmevalkit", db, vlmevalkit_workbook(tmp_path))
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    assert first_rows(cli, db, "--judge", "offline rules")["ocrbench.scores"]["model"] == "llava"
    assert _scores(cli, db, "offline rules") == pytest.approx(OFFICIAL)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ([0, "Q?", "['A']", "OCR", "a"], "line 2: type 'OCR': not one of OCRBench's 10"),
        ([0, "Q?", "['A'", "Doc-oriented VQA", "a"], "line 2: answer \"['A'\": no list literal"),
        ([0, "Q?", "[1]", "Doc-oriented VQA", "a"], "line 2: answers [1]: expected text"),
    ],
)
def test_a_bad_vlmevalkit_row_names_file_and_line(
    cli, tmp_path: Path, row: list[object], message: str
) -> None:
    path = write_xlsx(tmp_path / "llava_OCRBench.xlsx", HEADER, [row])
    result = cli("import", "ocrbench-vlmevalkit", tmp_path / "o.db", path)
    assert result.code != 0
    assert f"{path}: {message}" in result.stderr
