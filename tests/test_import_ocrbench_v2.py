"""OCRBench v2 through the command line: `lmmreview import ocrbench-v2` of a results file
in the official format (OCRBench_v2.json's items with `predict`), `score` with the official
rules of the types lmmreview scores, and `export --format json` equal to figures derived by
hand. The items are our own worked example; no per-sample outputs with official figures
are in the repository's snapshot (docs/benchmarks/ocrbench.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, first_rows

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.benchmarks.ocrbench import v2
from lmmreview.engine.benchmarks.ocrbench.v2 import NEED_EXTRA, OCRBENCH_V2
from lmmreview.tui.detail import not_judged

LONG = "apple pie and orange juice today"
TABLE = "<table><tr><td>ab</td><td>c</td></tr></table>"


def item(number: int, kind: str, answers: list[object], predict: object, **more: object) -> dict:
    return {
        "dataset_name": "demo", "type": kind, "id": number, "image_path": f"{number}.png",
        "question": "What does the image say?", "answers": answers, "predict": predict, **more,
    }  # fmt: skip


WORKED = [
    item(1, "math QA en", ["12"], "The answer is 12."),  # 1
    item(2, "math QA en", ["C"], "(C)", eval="multiple choice"),  # 1
    item(3, "text counting en", [10], "about 12", eval="regression"),  # 1 - 2/10 = 0.8
    item(4, "cognition VQA en", [LONG], "apple pie and orange juice"),  # ANLS 0.8125
    item(5, "diagram QA en", ["valve"], "pump"),  # 0
    item(6, "science QA en", ["NaCl"], "nacl", eval="case sensitive"),  # 0
    item(7, "cognition VQA cn", ["北京"], "北 京"),  # 1: spaces removed
    item(8, "formula recognition en", ["x ^ { 2 }"], "$x^{2}$", eval="x"),  # 1: eval unread
    item(9, "table parsing en", [TABLE], f"```html\n{TABLE}\n```", question="The table in HTML?"),  # 1
    item(10, "text spotting en", ["SALE", "OPEN"], "[[10, 10, 60, 30, 'sale'], [0, 0, 5, 5, 'x']]",
         bbox=[[10, 10, 60, 10, 60, 30, 10, 30], [100, 100, 150, 120]], content=["SALE", "OPEN"]),
    # 1 of 2 words right, 1 of 2 golds found: F 0.5
    item(11, "text grounding en", [10, 10, 60, 60], "[20, 20, 60, 60]"),  # IoU 0.64
    item(12, "VQA with position en", ["apple"], '{"answer": "apple", "bbox": [20, 20, 60, 60]}',
         bbox=[10, 10, 60, 60]),  # 0.5 + 0.5 * 0.64 = 0.82
    item(13, "full-page OCR en", ["open late every day"], "open late every day"),  # SAME_FOUR
    item(14, "text translation cn", ["我爱北京"], ""),  # 0: an empty answer
    item(15, "handwritten answer extraction cn", ["AB"], "A、B"),  # 1: letters
    item(16, "text translation cn", [""], "hello"),  # left out, as get_score.py leaves it
    item(17, "key information extraction en", [{"date": ["2024/9/27"], "total": ["30"]}],
         '{"date": "2024/9/27", "total": "31"}'),  # F1 1/2
    item(18, "key information extraction cn", ["{'名称': '北京'}"], "名称: 北京"),  # 1
    item(19, "document parsing cn", ["# 标题\n正文"], "# 标\n正文"),  # 1: the structure alike
    item(20, "chart parsing en", [{"2019": 12, "2020": 15}], "{'2019': 12, '2020': 16}"),  # 17/18
]  # fmt: skip
SAME_FOUR = (3 + 1 - 0.5 / 64) / 4 * 100  # BLEU, F, 1 - distance all 1; METEOR's penalty
TYPES = {"math QA en": 100.0, "text counting en": 80.0, "cognition VQA en": 81.25,
         "diagram QA en": 0.0, "science QA en": 0.0, "cognition VQA cn": 100.0,
         "formula recognition en": 100.0, "text grounding en": 64.0,
         "VQA with position en": 82.0, "full-page OCR en": SAME_FOUR,
         "text translation cn": 0.0, "handwritten answer extraction cn": 100.0,
         "key information extraction en": 50.0, "key information extraction cn": 100.0,
         "table parsing en": 100.0, "document parsing cn": 100.0,
         "chart parsing en": 1700 / 18, "text spotting en": 50.0}  # fmt: skip
ENGLISH = {"text_recognition": SAME_FOUR, "text_detection": 73.0, "text_spotting": 50.0,
           "relationship_extraction": 50.0, "element_parsing": (100 + 100 + 1700 / 18) / 3,
           "mathematical_calculation": 280 / 3, "visual_text_understanding": 40.625,
           "knowledge_reasoning": 0.0}  # fmt: skip
ENGLISH["overall"] = sum(ENGLISH.values()) / 8  # the mean of the capability means
CHINESE = {
    "cn_relationship_extraction": 100.0,
    "cn_element_parsing": 100.0,
    "cn_visual_text_understanding": 100.0,
    "cn_knowledge_reasoning": 0.0,
    "overall": 75.0,
}  # fmt: skip (no full-page OCR cn: its capability is left out)


def ocrbench_v2_results(path: Path, items: object = WORKED) -> Path:
    path.write_text(json.dumps(items, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _imported(cli, tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "v2.db"
    result = cli("import", "ocrbench-v2", db, ocrbench_v2_results(tmp_path / "internvl.json"))
    assert result.code == 0, result.stderr
    return db, result.stderr


def test_import_score_and_export_give_the_worked_figures(cli, tmp_path: Path) -> None:
    db, said = _imported(cli, tmp_path)
    assert "1 text translation item(s) with an empty gold, left out" in said
    assert "imported unscored" not in said
    assert "19 answers scored by the offline rules" in cli("score", db).stdout
    document = json.loads(cli("export", db, "--format", "json").stdout)
    tables: dict[str, dict[str, Any]] = {t["name"]: t["rows"][0] for t in document["tables"]}
    assert tables["ocrbench-v2.types"]["model"] == "internvl"
    assert tables["ocrbench-v2.types"]["values"] == pytest.approx(TYPES)
    assert tables["ocrbench-v2.english"]["values"] == pytest.approx(ENGLISH)
    assert tables["ocrbench-v2.chinese"]["values"] == pytest.approx(CHINESE)


def test_without_the_extra_its_types_stay_unscored(cli, tmp_path: Path, monkeypatch) -> None:
    for rule in ("text similarity", "handwritten essay"):  # as text.missing() finds it
        monkeypatch.setitem(NEED_EXTRA, rule, lambda: "jieba is not installed: pip install ...")
    db, said = _imported(cli, tmp_path)
    assert (
        "2 item(s) imported unscored: their rules need the extra lmmreview[ocrbench-v2] "
        "(jieba is not installed: pip install ...); install it, then run `lmmreview score` "
        "again" in said
    )  # full-page OCR and translation; handwritten letters need no library
    assert "17 answers scored by the offline rules" in cli("score", db).stdout
    tables = first_rows(cli, db)
    assert tables["ocrbench-v2.types"]["values"]["full-page OCR en"] is None
    assert tables["ocrbench-v2.types"]["values"]["handwritten answer extraction cn"] == 100.0
    with Store.open(db) as store:  # the screen says what is missing, not "a human can"
        review = ReviewStore(store, "t")
        details = [review.detail(a) for a in store.answer_ids("ocrbench-v2").values()]
        said_there = {str(not_judged(d, OCRBENCH_V2)) for d in details if not d.judgments}
    assert said_there == {
        "not judged: the offline rules need what is missing here: jieba is not installed: "
        "pip install ..."
    }


def _changed(index: int, **fields: object) -> list[dict[str, Any]]:
    items = [dict(i) for i in WORKED]
    items[index - 1].update(fields)
    return items


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (_changed(3, eval=None), "item 3: eval None for text counting en: expected exact match or regression"),
        (_changed(1, eval="fuzzy"), "item 1: eval 'fuzzy' for math QA en: expected multiple choice or case sensitive"),
        (_changed(2, answers=["C", "D"]), "item 2: 2 golds: multiple choice has one"),
        (_changed(3, answers=[10.0]), "item 3: gold '10.0': a regression needs a whole count"),
        (_changed(3, answers=["ten"]), "item 3: gold 'ten': a regression needs a whole count"),
        (_changed(5, predict=None), "item 5: predict None: expected text"),
        (_changed(4, type=7), "item 4: missing or non-text field 'type'"),
        (_changed(11, answers=[10, 10, 60]), "item 11: answers [10, 10, 60]: expected a box, four coordinates"),
        (_changed(11, answers=[10, 10, 60, "x"]), "item 11: answers [10, 10, 60, 'x']: expected a box, four coordinates"),
        (_changed(12, bbox=None), "item 12: bbox None: expected a box, four coordinates"),
        (_changed(15, answers=["A", "B"]), "item 15: 2 golds: a letters answer has one"),
        (_changed(17, answers=[{"a": "x"}, {"a": "y"}]), "item 17: answers [{'a': 'x'}, {'a': 'y'}]: expected one gold, a dict"),
        (_changed(17, answers=['{"total": 30}']), """item 17: gold '{"total": 30}': 'total': [30]: expected text or a list of text"""),
        (_changed(18, answers=["北京"]), "item 18: gold '北京': expected a dict or text holding one"),
        (_changed(9, question="The table?"), "item 9: a table question naming neither html nor markdown"),
        (_changed(9, answers=[TABLE, TABLE]), "item 9: 2 golds: a table has one"),
        (_changed(20, answers=["2019: 12"]), "item 20: answers ['2019: 12']: expected a dict first"),
        (_changed(10, type="text spotting cn"), "item 10: type 'text spotting cn': not one of OCRBench v2's 30"),
        (_changed(10, bbox=[[10.5, 10, 60, 30]]), "item 10: bbox [[10.5, 10, 60, 30]]: expected boxes of whole numbers"),
        (_changed(10, content=["SALE", "OP\nEN"]), "item 10: content ['SALE', 'OP\\nEN']: expected texts of one line"),
        ([WORKED[15]], "no item to score: each has an empty gold translation"),
    ],
)  # fmt: skip
def test_bad_input_names_file_and_item_and_leaves_the_database(
    cli, tmp_path: Path, items: object, message: str
) -> None:
    db, _ = _imported(cli, tmp_path)
    before = dump(db)
    bad = ocrbench_v2_results(tmp_path / "bad.json", items)
    result = cli("import", "ocrbench-v2", db, bad, "--dataset", "v2-again")
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before


def test_the_screen_tells_an_unjudged_answer_without_scoring_it(
    cli, tmp_path: Path, monkeypatch
) -> None:
    """Scoring a big table or page takes seconds: the detail pane only asks whether the
    rules apply (Benchmark.offline_applies)."""
    db, _ = _imported(cli, tmp_path)

    def refuse(*_: object) -> float:
        raise AssertionError("the screen scored an answer")

    monkeypatch.setattr(v2, "score", refuse)
    with Store.open(db) as store:
        review = ReviewStore(store, "t")
        details = [review.detail(a) for a in store.answer_ids("ocrbench-v2").values()]
    said = {str(not_judged(d, OCRBENCH_V2)) for d in details}
    assert said == {"not judged yet (lmmreview score, or J to run the LLM judge)"}
