"""`lmmreview import llava-bench-lmms-eval` and `llava-bench-vlmevalkit`: lmms-eval's
llava_in_the_wild sample lines (both layouts) and VLMEvalKit's LLaVABench prediction and
result workbooks, in their formats with the worked example's questions and reviews of our
own: the same tables as the official reviews give, and bad input refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import dump, write_lines
from test_import_llava_bench import ANSWERS, QUESTIONS, REFERENCES, REVIEWS, _tables
from test_import_vlmevalkit import write_xlsx

CAPTIONS = {
    "001.jpg": "A red teapot on a wooden table.",
    "002.jpg": "A street at night.\nTwo cars.",
}
WORKED = {"conv": 75.0, "detail": 100.0, "all": 81.8}  # the official reviews' figures


def _review(number: int, scores: list[float]) -> dict[str, Any]:
    question, reference, answer = QUESTIONS[number], REFERENCES[number], ANSWERS[number]
    return {
        "question": question["text"], "ans1": reference["text"], "ans2": answer["text"],
        "context": CAPTIONS[str(question["image"])],
        "category": f"llava_bench_{question['category']}", "review": f"{scores[0]} {scores[1]}",
        "scores": scores, "eval_model": "gpt-4-0613", "content": "[Context] ...",
    }  # fmt: skip


def _line(number: int, layout: str, scores: list[float] | None = None) -> dict[str, Any]:
    review = _review(number, scores or list(REVIEWS[number]["tuple"]))
    line: dict[str, Any] = {"doc_id": number, "target": REFERENCES[number]["text"],
                            "gpt_eval_llava_all": review}  # fmt: skip
    for category in ("conv", "detail", "complex"):
        other = f"llava_bench_{category}" != review["category"]
        line[f"gpt_eval_llava_{category}"] = review | ({"scores": [-999, -999]} if other else {})
    said = ANSWERS[number]["text"]
    if layout == "v0.3":
        doc = {"question_id": QUESTIONS[number]["question_id"], "question": review["question"]}
        return line | {"doc": doc, "arguments": {}, "resps": [[said]], "filtered_resps": [said]}
    return line | {"input": review["question"], "filtered_resps": said}


def lmms_eval_samples(folder: Path, layout: str = "v0.4") -> Path:
    lines = [_line(i, layout) for i in range(len(QUESTIONS))]
    name = "20260101_120000_samples_llava_in_the_wild.jsonl"
    return write_lines(folder / "logs" / "llava" / name, lines)


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_lmms_eval_reviews_give_the_worked_example(cli, tmp_path: Path, layout: str) -> None:
    db = tmp_path / "l.db"
    result = cli("import", "llava-bench-lmms-eval", db, lmms_eval_samples(tmp_path, layout))
    assert result.code == 0, result.stderr
    assert _tables(cli, db)["llava-bench.relative"] == pytest.approx(WORKED)


def test_a_failed_lmms_eval_review_is_the_files_judges_and_unscored(cli, tmp_path: Path) -> None:
    lines = [_line(i, "v0.4") for i in range(len(QUESTIONS))]
    failed = _review(0, [-1, -1]) | {"eval_model": "Failed Request", "review": "Failed"}
    lines[0]["gpt_eval_llava_all"] = failed
    db = tmp_path / "l.db"
    path = write_lines(tmp_path / "logs" / "llava" / "x_samples_llava_in_the_wild.jsonl", lines)
    result = cli("import", "llava-bench-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    # question 0 unscored: conv (8, 6) alone; all (8, 6), (6, 6)
    assert _tables(cli, db, "--judge", "gpt-4-0613")["llava-bench.relative"] == pytest.approx(
        {"conv": 75.0, "detail": 100.0, "all": 85.7}
    )


HEADER = ["index", "question", "caption", "gpt4_ans", "category", "prediction"]


def _rows(scores: bool) -> list[list[object]]:
    return [
        [q["question_id"], q["text"], CAPTIONS[str(q["image"])], r["text"], q["category"],
         a["text"], *(v["tuple"] if scores else [])]
        for q, r, a, v in zip(QUESTIONS, REFERENCES, ANSWERS, REVIEWS, strict=True)
    ]  # fmt: skip


def test_vlmevalkit_predictions_then_results(cli, tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    predictions = write_xlsx(tmp_path / "llava_LLaVABench.xlsx", HEADER, _rows(False))
    assert cli("import", "llava-bench-vlmevalkit", db, predictions).code == 0
    name = "llava_LLaVABench_openai_result.xlsx"
    results = write_xlsx(tmp_path / name, [*HEADER, "gpt4_score", "score"], _rows(True))
    result = cli("import", "llava-bench-vlmevalkit", db, results)
    assert result.code == 0, result.stderr
    tables = _tables(cli, db, "--judge", "gpt-4-turbo")
    assert tables["llava-bench.relative"] == pytest.approx(WORKED)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({4: "chat"}, "line 3: category 'chat': expected conv, detail, complex"),
        ({0: 0}, "line 3: index 0 again (also at line 2)"),
        ({7: "nine"}, "line 3: score 'nine' is not a number"),
    ],
)
def test_a_bad_vlmevalkit_row_is_refused_naming_it(
    cli, tmp_path: Path, change: dict[int, object], message: str
) -> None:
    db = tmp_path / "l.db"
    good = write_xlsx(tmp_path / "llava_LLaVABench.xlsx", HEADER, _rows(False))
    assert cli("import", "llava-bench-vlmevalkit", db, good).code == 0
    before = dump(db)
    rows = _rows(True)
    for column, value in change.items():
        rows[1][column] = value
    bad = write_xlsx(tmp_path / "m_LLaVABench_openai_result.xlsx",
                     [*HEADER, "gpt4_score", "score"], rows)  # fmt: skip
    result = cli("import", "llava-bench-vlmevalkit", db, bad)
    assert result.code != 0 and message in result.stderr and bad.name in result.stderr
    assert dump(db) == before


def test_a_bad_lmms_eval_line_is_refused_naming_it(cli, tmp_path: Path) -> None:
    lines = [_line(i, "v0.4") for i in range(len(QUESTIONS))]
    lines[1]["gpt_eval_llava_all"] = lines[1]["gpt_eval_llava_all"] | {"scores": [8]}
    path = write_lines(tmp_path / "x_samples_llava_in_the_wild.jsonl", lines)
    result = cli("import", "llava-bench-lmms-eval", tmp_path / "l.db", path)
    assert result.code != 0
    assert "line 2: gpt_eval_llava_all scores must be two numbers, not [8]" in result.stderr


def llava_bench_tool_files(folder: Path) -> None:
    """The files docs/formats.md's LLaVA-Bench examples of other tools import."""
    lmms_eval_samples(folder)
    name = "llava_LLaVABench_openai_result.xlsx"
    write_xlsx(folder / "vlmevalkit" / name, [*HEADER, "gpt4_score", "score"], _rows(True))
