"""Regenerate the LLaVA-Bench (in-the-wild) sample data: ``llava-bench/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawings); alone, run
``python sample_data/make_llava_bench_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes, in the official files' layouts: the dataset folder ``llava-bench-in-the-wild/``
(``questions.jsonl``: six questions of our own, two per category, on three drawings;
``answers_gpt4.jsonl``, the reference answers; ``context.jsonl``, the drawings' captions;
``images/``), each demo model's answers as LLaVA's ``model_vqa.py`` writes them
(``answers/<model>.jsonl``) and the official reviews of those answers, reference first, as
``eval_gpt_review_bench.py`` writes them (``reviews/<model>.jsonl``), so that the demo shows
the tables without a call. demo-gamma's review of question 3 opens with ``8, 4``, which
the official parse does not read: its tuple is [-1, -1].
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its drawings and helpers
    MODELS,
    OUT_DIR,
    img_beach,
    img_cup_on_table,
    img_house_tree_car,
    regenerate,
    save_png,
)

FOLDER = OUT_DIR / "llava-bench"
DATASET = "llava-bench-in-the-wild"

# image -> drawing, caption (a list of sentences, as some official captions are)
IMAGES: dict[str, tuple[Callable[[], Image.Image], str | list[str]]] = {
    "001.png": (img_cup_on_table, "A white cup stands on top of a brown wooden table."),
    "002.png": (img_beach, ["A sunny beach under a blue sky.",
                            "A red parasol stands in the sand beside the sea."]),
    "003.png": (img_house_tree_car, "From left to right: a house, a green tree and a blue car."),
}  # fmt: skip

# question id -> image, category, question, reference answer
QUESTIONS: dict[int, tuple[str, str, str, str]] = {
    0: ("001.png", "conv", "What is on the table?", "A white cup is on the table."),
    1: ("001.png", "detail", "Describe the image in detail.",
        "A brown wooden table with two legs stands on a plain floor. A single white cup with "
        "a handle sits in the middle of its top, with steam rising from it."),
    2: ("002.png", "complex", "What should a visitor bring to this place on a day like this?",
        "The sun is shining on an open beach, so a visitor should bring sunscreen, a hat and "
        "water; the parasol gives some shade, and swimwear is useful for the sea."),
    3: ("002.png", "conv", "What color is the parasol?", "The parasol is red."),
    4: ("003.png", "detail", "Describe what you see.",
        "A house with a red roof stands on the left, a green tree in the middle and a blue "
        "car on the right, all on green grass under a blue sky."),
    5: ("003.png", "complex", "Who might own the car, and why?",
        "The car is parked next to the house, so it likely belongs to the people who live "
        "there."),
}  # fmt: skip

# per model, per question: the answer, then the review's first line and its tuple
ANSWERS: dict[str, dict[int, tuple[str, str, list[float]]]] = {
    "demo-alpha": {
        0: ("A white cup.", "8 8", [8.0, 8.0]),
        1: ("A wooden table with a steaming white cup on top.", "8 7", [8.0, 7.0]),
        2: ("Sunscreen, a hat and something to drink.", "9 8", [9.0, 8.0]),
        3: ("Red.", "8 8", [8.0, 8.0]),
        4: ("A house, a tree and a blue car under a blue sky.", "7 7", [7.0, 7.0]),
        5: ("Whoever lives in the house, since it is parked right there.", "8 9", [8.0, 9.0]),
    },
    "demo-beta": {
        0: ("There is a cup.", "8 6", [8.0, 6.0]),
        1: ("A table with a cup.", "7 5", [7.0, 5.0]),
        2: ("A towel.", "9 7", [9.0, 7.0]),
        3: ("It is red and white.", "8,7", [8.0, 7.0]),
        4: ("Some buildings and a car.", "7 6", [7.0, 6.0]),
        5: ("A neighbour.", "8 7", [8.0, 7.0]),
    },
    "demo-gamma": {
        0: ("A plate of food.", "8 3", [8.0, 3.0]),
        1: ("A kitchen.", "7 2", [7.0, 2.0]),
        2: ("Winter boots.", "9 4", [9.0, 4.0]),
        3: ("Blue.", "8, 4", [-1.0, -1.0]),  # comma then space: three parts, not read
        4: ("A city street at night.", "7 3", [7.0, 3.0]),
        5: ("Nobody.", "8 2", [8.0, 2.0]),
    },
}

_EXPLANATION = "Assistant 1 answers from the description; Assistant 2 is judged against it."


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def build_dataset(folder: Path) -> None:
    """The dataset folder: questions, reference answers, captions and drawings."""
    for name, (draw, _) in IMAGES.items():
        save_png(draw(), folder / "images" / name)
    questions = [{"question_id": qid, "image": image, "text": text, "category": category}
                 for qid, (image, category, text, _) in QUESTIONS.items()]  # fmt: skip
    references = [{"question_id": qid, "text": reference, "answer_id": f"ref-{qid}",
                   "model_id": "gpt-4-0314", "metadata": {}}
                  for qid, (*_, reference) in QUESTIONS.items()]  # fmt: skip
    captions = [{"id": f"c{n}", "image": name, "caption": caption}
                for n, (name, (_, caption)) in enumerate(IMAGES.items(), start=1)]  # fmt: skip
    _write_lines(folder / "questions.jsonl", questions)
    _write_lines(folder / "answers_gpt4.jsonl", references)
    _write_lines(folder / "context.jsonl", captions)


def build_llava_bench(folder: Path) -> None:
    """The dataset folder, then each model's answers and the official reviews of them."""
    build_dataset(folder / DATASET)
    for model in MODELS:
        answers, reviews = [], []
        for qid, (text, first_line, pair) in ANSWERS[model].items():
            answer_id = f"{model}-{qid}"
            answers.append({"question_id": qid, "prompt": QUESTIONS[qid][2], "text": text,
                            "answer_id": answer_id, "model_id": model, "metadata": {}})  # fmt: skip
            reviews.append({"id": qid + 1, "question_id": qid, "answer1_id": f"ref-{qid}",
                            "answer2_id": answer_id,
                            "category": f"llava_bench_{QUESTIONS[qid][1]}",
                            "content": f"{first_line}\n{_EXPLANATION}", "tuple": pair})  # fmt: skip
        _write_lines(folder / "answers" / f"{model}.jsonl", answers)
        _write_lines(folder / "reviews" / f"{model}.jsonl", reviews)


def main() -> None:
    """Regenerate ``llava-bench/``."""
    regenerate(FOLDER, build_llava_bench, "LLaVA-Bench")


if __name__ == "__main__":
    main()
