"""OCRBench v2 from lmms-eval's --log_samples lines of its task `ocrbench_v2`, built here:
each field names the lmms-eval code that writes it (EvolvingLMMs-Lab/lmms-eval, tags v0.5
8f142bc3 and v0.7.2 cb45ac4d; the tracker's fields as in test_import_lmms_eval_versions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, first_rows, write_lines

from lmmreview.db import Store

# (type, question, ground truth, the reply, lmms-eval's score)
LINES: list[tuple[str, str, object, str, float]] = [
    ("formula recognition en", "Write the formula in LaTeX.", ["x^{2}+1"], "$x^{2} + 1$", 1),
    ("APP agent en", "Which app is open?", ["Settings"], "settings", 1),  # may carry eval
    ("text grounding en", "Where is 'EXIT'?", [10, 20, 30, 40], "[10, 20, 30, 41]", 0.93),
    ("text translation cn", "Translate the text.", [""], "hello", 0.25),  # left out officially
    ("formula recognition cn", "写出公式。", ["a+b"], "nan", 0),
]
GOLDS = {"0": "x^{2}+1", "1": None, "2": None, "3": None, "4": "a+b"}


def line(number: int, version: str) -> dict[str, Any]:
    kind, question, truth, reply, score = LINES[number]
    # tasks/ocrbench_v2/utils.py: ocrbench_v2_process_results' payload, :366-368@v0.5,
    # :371-376@v0.7.2 (there repeated as _en and _cn); ground_truth is doc["answers"] (:96)
    payload = {"question_type": kind, "score": score, "prediction": reply, "ground_truth": truth}
    record: dict[str, Any] = {
        "doc_id": number,  # evaluator.py:581-598@v0.5, :1180-1200@v0.7.2 (example dict)
        "input": question,  # arguments[0]: evaluation_tracker.py:266@v0.5, :265@v0.7.2
        "target": str(truth),  # str(doc_to_target): evaluation_tracker.py:271@v0.5, :284@v0.7.2
        "ocrbench_v2_accuracy": payload,
    }
    if version == "v0.5":
        return record | {"filtered_resps": [reply]}  # evaluation_tracker.py:268@v0.5
    # flattened: evaluation_tracker.py:275-278@v0.7.2
    extra = {"ocrbench_v2_accuracy_en": payload, "ocrbench_v2_accuracy_cn": payload}
    return record | extra | {"filtered_resps": reply}


def samples_file(folder: Path, lines: list[dict[str, Any]]) -> Path:
    path = folder / "logs" / "qwen" / "20260301_120000_samples_ocrbench_v2.jsonl"
    return write_lines(path, lines)


def lmms_eval_v2_samples(folder: Path) -> Path:
    """A v0.7.2 samples file of every line (docs/formats.md's example imports it)."""
    return samples_file(folder, [line(i, "v0.7.2") for i in range(len(LINES))])


@pytest.mark.parametrize("version", ["v0.5", "v0.7.2"])
def test_lines_give_questions_answers_and_scores(cli, tmp_path: Path, version: str) -> None:
    path = samples_file(tmp_path, [line(i, version) for i in range(len(LINES))])
    db = tmp_path / "v2.db"
    result = cli("import", "ocrbench-v2-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    assert "3 question(s) imported without a gold" in result.stderr, result.stderr
    with Store.open(db) as store:
        assert {s.key: s.answer for s in store.samples("ocrbench-v2")} == GOLDS
        assert store.answers("ocrbench-v2", "qwen") == {str(i): r[3] for i, r in enumerate(LINES)}
    assert cli("score", db).code == 0
    lmms_eval = first_rows(cli, db, "--judge", "lmms-eval rules")["ocrbench-v2.types"]["values"]
    assert lmms_eval == {
        "APP agent en": 100.0, "formula recognition en": 100.0, "formula recognition cn": 0.0,
        "text grounding en": 93.0, "text translation cn": 25.0,
    }  # fmt: skip
    # the official rules score the two with a gold (the others stay unscored)
    document = json.loads(cli("export", db, "--format", "json", "--judge", "offline rules").stdout)
    (types,) = [t for t in document["tables"] if t["name"] == "ocrbench-v2.types"]
    values = types["rows"][0]["values"]
    assert values["formula recognition en"] == 100.0 and values["formula recognition cn"] == 0.0


BAD = {
    "type": ({"question_type": "OCR en"}, "question_type 'OCR en': not one of OCRBench v2's 30"),
    "score": ({"score": 1.5}, "ocrbench_v2_accuracy score 1.5 is not a number in [0, 1]"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_line_is_refused_naming_it(cli, tmp_path: Path, case: str) -> None:
    db = tmp_path / "v2.db"
    good = lmms_eval_v2_samples(tmp_path / "good")
    assert cli("import", "ocrbench-v2-lmms-eval", db, good).code == 0
    before = dump(db)
    change, message = BAD[case]
    lines = [line(i, "v0.7.2") for i in range(len(LINES))]
    lines[2]["ocrbench_v2_accuracy"] = lines[2]["ocrbench_v2_accuracy"] | change
    bad = samples_file(tmp_path / "bad", lines)
    result = cli("import", "ocrbench-v2-lmms-eval", db, bad, "--dataset", "other")
    assert result.code != 0
    assert f"{bad}: line 3: {message}" in result.stderr.replace("\n", ""), result.stderr
    assert dump(db) == before
