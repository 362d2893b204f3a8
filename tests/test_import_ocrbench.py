"""OCRBench through the command line: `lmmreview import ocrbench` of a results file in the
official format (OCRBench.json's items with `predict`), `score` with the official rule,
`export --format json` and `report` equal to figures derived by hand. The items are our own
worked example (OCRBench's data is not ours to ship); no per-sample outputs with official
figures are published (docs/benchmarks/ocrbench.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, first_rows, png_bytes

from lmmreview.db import Store
from lmmreview.engine import registry

READ = "what is written in the image?"
LATEX = "Please write out the expression of the formula in the image using LaTeX format."


def item(source: str, number: int, kind: str, answers: object, **more: object) -> dict[str, Any]:
    return {
        "dataset_name": source, "id": number, "image_path": f"{source}/{number}.png",
        "question": more.pop("question", READ), "answers": answers, "type": kind, **more,
    }  # fmt: skip


WORKED = [
    item("IIIT5K", 101, "Regular Text Recognition", "HOTEL", predict='The word is "Hotel".'),
    item("svt", 102, "Regular Text Recognition", "PARKING", predict="PARKIN"),  # 0
    item("ORAND", 103, "Digit String Recognition", "3150", predict="3150"),
    item("WordArt", 104, "Artistic Text Recognition", "dream"),  # no predict: 0
    item("STVQA", 105, "Scene Text-centric VQA", ["stop", "stop sign"],
         question="What does the sign say?", predict="It is a STOP sign."),
    item("docVQA", 106, "Doc-oriented VQA", "$12.50", question="What is the total?",
         predict="12.50"),  # 0: the gold's $ is missing
    item("SROIE", 107, "Key Information Extraction", "ACME TRADING",
         question="What is the company?", predict="acme\ntrading"),  # the newline a space
    item("HME100k", 108, "Handwritten Mathematical Expression Recognition",
         ["x ^ { 2 } + 1\n", "x^2+1\n"], question=LATEX, predict="$x^{2}+1$"),
    item("HME100k", 109, "Handwritten Mathematical Expression Recognition",
         "\\frac { a } { b }", question=LATEX, predict="\\frac{A}{b}"),  # 0: case kept
]  # fmt: skip
# By hand: Regular 1 of 2, Digit 1 of 1, Artistic 0 of 1 -> Text Recognition 2 of 4; Scene
# 1 of 1, Doc 0 of 1, KIE 1 of 1, HME 1 of 2 -> Final Score 5 of 9.
SCORES = {"Text Recognition": 2.0, "Scene Text-centric VQA": 1.0, "Doc-oriented VQA": 0.0,
          "Key Information Extraction": 1.0,
          "Handwritten Mathematical Expression Recognition": 1.0, "Final Score": 5.0}  # fmt: skip
RECOGNITION = {"Regular Text Recognition": 1.0, "Artistic Text Recognition": 0.0,
               "Digit String Recognition": 1.0}  # fmt: skip
DATASETS = {"IIIT5K": 100.0, "svt": 0.0, "WordArt": 0.0, "ORAND": 100.0, "STVQA": 100.0,
            "docVQA": 0.0, "SROIE": 100.0, "HME100k": 50.0}  # fmt: skip


def ocrbench_results(path: Path, items: object = WORKED) -> Path:
    path.write_text(json.dumps(items, indent=4), encoding="utf-8")
    return path


def _imported(cli, tmp_path: Path, *more: str | Path) -> Path:
    db = tmp_path / "ocrbench.db"
    result = cli("import", "ocrbench", db, ocrbench_results(tmp_path / "qwen.json"), *more)
    assert result.code == 0, result.stderr
    return db


def test_import_score_export_and_report_give_the_worked_figures(cli, tmp_path: Path) -> None:
    db = _imported(cli, tmp_path, "--model", "llava")
    assert "9 answers scored by the offline rules" in cli("score", db).stdout
    tables = first_rows(cli, db)
    assert tables["ocrbench.scores"]["model"] == "llava"
    assert tables["ocrbench.scores"]["values"] == pytest.approx(SCORES)
    assert tables["ocrbench.scores"]["n"]["Final Score"] == 9
    assert tables["ocrbench.recognition"]["values"] == pytest.approx(RECOGNITION)
    assert tables["ocrbench.dataset"]["values"] == pytest.approx(DATASETS)
    report = cli("report", db).stdout
    assert "HMER (of 2)" in report and "Final Score (of 9)" in report
    assert (
        "│ llava │              2.0 │               1.0 │              0.0 │        1.0 │" in report
    )
    assert "│ llava │         1.0 │                5.0 │" in report  # HMER, Final Score


def test_a_missing_prediction_is_an_empty_answer_and_warned_of(cli, tmp_path: Path) -> None:
    db = tmp_path / "ocrbench.db"
    result = cli("import", "ocrbench", db, ocrbench_results(tmp_path / "qwen.json"))
    assert result.code == 0, result.stderr
    assert "1 item(s) without a prediction, imported as empty answers" in result.stderr
    assert "WordArt/104" in result.stderr
    assert first_rows(cli, db)["ocrbench.scores"]["model"] == "qwen"  # the file's name


def test_the_images_come_from_the_folder_image_path_names(cli, tmp_path: Path) -> None:
    images = tmp_path / "OCRBench_Images"
    for found in ("IIIT5K/101.png", "HME100k/108.png"):
        (images / found).parent.mkdir(parents=True, exist_ok=True)
        (images / found).write_bytes(png_bytes())
    db = _imported(cli, tmp_path, "--images", images)
    with Store.open(db) as store:
        shown = {s.key for s in store.samples("ocrbench") if store.image_hashes("ocrbench", s.key)}
    assert shown == {"IIIT5K/101", "HME100k/108"}


def test_it_is_listed_among_lmmreviews_own(cli) -> None:
    assert registry.benchmark("ocrbench").title == "OCRBench"
    listed = [b["name"] for b in json.loads(cli("benchmarks", "--json").stdout)["benchmarks"]]
    assert listed.index("mme") < listed.index("ocrbench") < listed.index("generic")


def _changed(index: int, **fields: object) -> list[dict[str, Any]]:
    items = [dict(i) for i in WORKED]
    items[index - 1].update(fields)
    return items


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ({"IIIT5K": []}, "expected a JSON list: the items, each with its predict"),
        ([], "no items: the list is empty"),
        ([*WORKED, 3], "item 10: expected an object: an OCRBench item"),
        (_changed(2, type="Text Recognition"),
         "item 2: type 'Text Recognition': not one of OCRBench's 10 question types"),
        (_changed(3, answers=[]), "item 3: answers []: expected text or a list of text"),
        (_changed(3, answers=" \n"), "item 3: a blank gold: every answer would contain it"),
        (_changed(4, predict=["x"]), "item 4: predict ['x']: expected text"),
        (_changed(5, predict=None), "item 5: predict None: expected text"),
        (_changed(2, id=101, dataset_name="IIIT5K"), "item 2: IIIT5K/101 again (also item 1)"),
        (_changed(6, question=7), "item 6: missing or non-text field 'question'"),
        (_changed(6, id=True), "item 6: id True: expected a number or text"),
    ],
)  # fmt: skip
def test_bad_input_names_file_and_item_and_leaves_the_database(
    cli, tmp_path: Path, items: object, message: str
) -> None:
    db = _imported(cli, tmp_path)
    before = dump(db)
    bad = ocrbench_results(tmp_path / "bad.json", items)
    result = cli("import", "ocrbench", db, bad, "--dataset", "ocrbench-2")
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before
