"""`lmmreview import llava-bench`: the official dataset folder, a model's answers and the
official reviews (in the official files' formats, with questions and reviews of our own),
the tables they give, the judge run in both orders on the fake server, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, png_bytes, write_lines

QUESTIONS = [
    {"question_id": 0, "image": "001.jpg", "text": "What is on the table?", "category": "conv"},
    {"question_id": 1, "image": "001.jpg", "text": "Which color is it?", "category": "conv"},
    {"question_id": 2, "image": "002.jpg", "text": "Describe the image.", "category": "detail"},
]
REFERENCES = [
    {"question_id": 0, "text": "A red teapot.", "answer_id": "r0"},
    {"question_id": 1, "text": "It is red.", "answer_id": "r1"},
    {"question_id": 2, "text": "A street with two cars at night.", "answer_id": "r2"},
]
CONTEXT = [
    {"id": "c1", "image": "001.jpg", "caption": "A red teapot on a wooden table."},
    {"id": "c2", "image": "002.jpg", "caption": ["A street at night.", "Two cars."]},
]
ANSWERS = [
    {"question_id": 0, "prompt": "", "text": "A teapot.", "answer_id": "a0", "model_id": "m"},
    {"question_id": 1, "prompt": "", "text": "Red.", "answer_id": "a1", "model_id": "m"},
    {"question_id": 2, "prompt": "", "text": "Cars.", "answer_id": "a2", "model_id": "m"},
]
# The worked example: conv (8, 6), (8, 6), detail (6, 6): 75.0, 100.0, overall 81.8
REVIEWS = [
    {"id": 1, "question_id": 0, "answer1_id": "r0", "answer2_id": "a0",
     "category": "llava_bench_conv", "content": "8 6\nAssistant 1 names the color.",
     "tuple": [8.0, 6.0]},
    {"id": 2, "question_id": 1, "answer1_id": "r1", "answer2_id": "a1",
     "category": "llava_bench_conv", "content": "8,6\nBoth right.", "tuple": [8.0, 6.0]},
    {"id": 3, "question_id": 2, "answer1_id": "r2", "answer2_id": "a2",
     "category": "llava_bench_detail", "content": "6 6\nSame.", "tuple": [6.0, 6.0]},
]  # fmt: skip


def llava_bench_files(folder: Path) -> Path:
    """The dataset folder, the answers of model m and their reviews, in `folder`."""
    dataset = folder / "llava-bench-in-the-wild"
    (dataset / "images").mkdir(parents=True)
    for name, color in (("001.jpg", "red"), ("002.jpg", "blue")):
        (dataset / "images" / name).write_bytes(png_bytes(color))
    write_lines(dataset / "questions.jsonl", QUESTIONS)
    write_lines(dataset / "answers_gpt4.jsonl", REFERENCES)
    write_lines(dataset / "context.jsonl", CONTEXT)
    write_lines(folder / "answers_m.jsonl", ANSWERS)
    write_lines(folder / "reviews_m.jsonl", REVIEWS)
    return dataset


def _import(cli, tmp_path: Path, *extra: object) -> Path:
    dataset = llava_bench_files(tmp_path)
    db = tmp_path / "l.db"
    result = cli("import", "llava-bench", db, dataset, "--answers", tmp_path / "answers_m.jsonl",
                 *extra)  # fmt: skip
    assert result.code == 0, result.stderr
    return db


def _tables(cli, db: Path, *judge: str) -> dict[str, dict[str, Any]]:
    document = json.loads(cli("export", db, "--format", "json", *judge).stdout)
    return {t["name"]: t["rows"][0]["values"] for t in document["tables"]}


def test_the_official_reviews_give_the_worked_example(cli, tmp_path: Path) -> None:
    db = _import(cli, tmp_path, "--reviews", tmp_path / "reviews_m.jsonl")
    tables = _tables(cli, db)
    assert tables["llava-bench.relative"] == pytest.approx(
        {"conv": 75.0, "detail": 100.0, "all": 81.8}
    )
    scores = tables["llava-bench.scores"]
    assert scores["model_all"] == pytest.approx(60.0)
    assert scores["reference_conv"] == pytest.approx(80.0)
    # not judged with the model first yet
    assert set(tables["llava-bench.swapped_scores"].values()) == {None}


def test_a_failed_review_is_stored_with_no_score(cli, tmp_path: Path) -> None:
    db = _import(cli, tmp_path)
    reviews = [dict(r) for r in REVIEWS]
    reviews[0] |= {"content": "8, 6\nAssistant 1 ...", "tuple": [-1, -1]}
    write_lines(tmp_path / "failed.jsonl", reviews)
    answers = tmp_path / "answers_m.jsonl"
    result = cli("import", "llava-bench", db, tmp_path / "llava-bench-in-the-wild",
                 "--answers", answers, "--reviews", tmp_path / "failed.jsonl", "--replace")  # fmt: skip
    assert result.code == 0, result.stderr
    # question 0 unscored: conv from question 1 alone, (8, 6); all from (8, 6), (6, 6):
    # 6 / 7 = 85.7 (the official summary counts (-1, -1): 3.667 / 4.333 = 84.6)
    assert _tables(cli, db)["llava-bench.relative"] == pytest.approx(
        {"conv": 75.0, "detail": 100.0, "all": 85.7}
    )


def test_the_judge_asks_both_orders_and_reads_each_back(
    cli, judge_env, fake_judge, tmp_path: Path
) -> None:
    """The fake judge scores each answer by its word count (at most 10), the one shown first
    one more: reference first, (ref + 1, model); model first, (model + 1, ref)."""
    db = _import(cli, tmp_path)
    result = cli("judge", db, "--dataset", "llava-bench", "--runs", "1")
    assert result.code == 0, result.stderr
    assert fake_judge.requests == 6  # 3 questions x 2 orders: one review gives both scores
    tables = _tables(cli, db, "--judge", "gpt-4-0613")
    # reference first: (4, 2), (4, 1), (8, 1); model first, as (reference, model): (3, 3),
    # (3, 2), (7, 2)
    official, swapped = tables["llava-bench.scores"], tables["llava-bench.swapped_scores"]
    assert (official["reference_all"], official["model_all"]) == pytest.approx((160 / 3, 40 / 3))
    assert (swapped["reference_all"], swapped["model_all"]) == pytest.approx((130 / 3, 70 / 3))
    order = tables["llava-bench.order"]
    # 1.333 / 5.333 = 25.0; 2.333 / 4.333 = 53.8
    assert (order["official"], order["swapped"], order["all_effect"]) == pytest.approx(
        (25.0, 53.8, 28.8)
    )


@pytest.mark.parametrize(
    ("file", "row", "change", "message"),
    [
        ("questions", 1, {"category": "chat"}, "category 'chat': expected conv, detail, complex"),
        ("questions", 2, {"question_id": 0}, "question_id 0 again (also line 1)"),
        ("questions", 0, {"image": "009.jpg"}, "image '009.jpg' has no caption"),
        ("answers", 2, {"question_id": 7}, "question_id 7 is not in questions.jsonl"),
        ("reviews", 1, {"category": "llava_bench_detail"}, "the question's is 'llava_bench_conv'"),
        ("reviews", 0, {"tuple": [8]}, "tuple must be two numbers"),
    ],
)
def test_bad_input_names_file_and_line_and_changes_nothing(
    cli, tmp_path: Path, file: str, row: int, change: dict[str, object], message: str
) -> None:
    db = _import(cli, tmp_path)
    before = dump(db)
    rows = {"questions": QUESTIONS, "answers": ANSWERS, "reviews": REVIEWS}[file]
    bad = [dict(r) | (change if i == row else {}) for i, r in enumerate(rows)]
    folder = tmp_path / "bad"
    dataset = llava_bench_files(folder)
    target = {"questions": dataset / "questions.jsonl", "answers": folder / "answers_m.jsonl",
              "reviews": folder / "reviews_m.jsonl"}[file]  # fmt: skip
    write_lines(target, bad)
    result = cli("import", "llava-bench", db, dataset, "--answers", folder / "answers_m.jsonl",
                 "--reviews", folder / "reviews_m.jsonl", "--dataset", "other")  # fmt: skip
    assert result.code != 0
    assert target.name in result.stderr and f"line {row + 1}" in result.stderr
    assert message in result.stderr
    assert dump(db) == before
