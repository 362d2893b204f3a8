"""Regenerate the OCRBench sample data: ``ocrbench/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawings); alone, run
``python sample_data/make_ocrbench_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes: ``results/<model>.json``, the official example.py's results file (the items
of OCRBench.json's format, each with the model's ``predict``) for six questions of six
types: a word, a number, a street sign, two receipts and a formula; and ``images/``, the
folder each item's ``image_path`` is relative to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its drawings and helpers
    BLACK,
    BLUE,
    MODELS,
    OUT_DIR,
    canvas,
    img_receipt_cafe,
    img_receipt_grocery,
    img_street_sign,
    regenerate,
    save_png,
    text,
    write_json,
)

FOLDER = OUT_DIR / "ocrbench"
READ = "what is written in the image?"


def img_word() -> Image.Image:
    """The word HARBOUR, cut out of a painted wall."""
    img, d = canvas(320, 120, (235, 225, 200))
    text(d, (160, 60), "HARBOUR", 44, (120, 40, 30), "mm")
    return img


def img_digits() -> Image.Image:
    """The digit string 30417, as on a cheque's amount box."""
    img, d = canvas(300, 100, (250, 250, 240))
    d.rectangle((20, 20, 280, 80), outline=BLACK, width=2)
    text(d, (150, 50), "30417", 40, BLUE, "mm")
    return img


def img_formula() -> Image.Image:
    """The formula x² + 3 = 7, the exponent raised and small."""
    img, d = canvas(320, 120, (250, 250, 245))
    text(d, (70, 70), "x", 44, anchor="ls")
    text(d, (96, 42), "2", 24, anchor="ls")
    text(d, (120, 70), "+ 3 = 7", 44, anchor="ls")
    return img


# (dataset_name, id, image, drawing, question, answers, type) as OCRBench.json has them
ITEMS: list[tuple[str, int, str, Callable[[], Image.Image], str, str | list[str], str]] = [
    ("IIIT5K", 1, "IIIT5K/word.png", img_word, READ, "HARBOUR", "Regular Text Recognition"),
    ("ORAND", 2, "ORAND/digits.png", img_digits, READ, "30417", "Digit String Recognition"),
    ("STVQA", 3, "STVQA/street.png", img_street_sign, "What is the name of the upper street?",
     ["Maple Ave", "Maple Avenue"], "Scene Text-centric VQA"),
    ("docVQA", 4, "docVQA/cafe.png", img_receipt_cafe, "How much does the sandwich cost?",
     "6.00", "Doc-oriented VQA"),
    ("SROIE", 5, "SROIE/grocery.png", img_receipt_grocery, "What is the total amount?",
     "$7.45", "Key Information Extraction"),
    ("HME100k", 6, "HME100k/formula.png", img_formula,
     "Please write out the expression of the formula in the image using LaTeX format.",
     ["x ^ { 2 } + 3 = 7\n", "x^2+3=7\n"], "Handwritten Mathematical Expression Recognition"),
]  # fmt: skip

# per model, each item's predict in order (None: the item has no predict)
ANSWERS: dict[str, tuple[str | None, ...]] = {
    "demo-alpha": (
        'The word is "Harbour".', "30417", "Maple Ave", "6.00", "$7.45", "$x^{2}+3=7$",
    ),
    "demo-beta": (
        "HARBOURS",  # right: the gold is inside (a substring is enough)
        "3041 7",  # wrong: inner spaces kept outside HME100k
        "maple avenue",  # right: the second gold, lowercased
        "It costs $6.00.",
        "The total is 7.45 dollars.",  # wrong: the gold's $ is missing
        "X^{2}+3=7",  # wrong: the handwritten-math rule keeps case
    ),
    "demo-gamma": (
        "HARB0UR",  # a zero for the O
        None,  # no predict: counts 0
        "Oak Street",
        "6",
        "TOTAL $7.45",
        "x ^ 2 + 3 = 7",  # right: spaces removed, the second gold
    ),
}  # fmt: skip


def results(model: str) -> list[dict[str, Any]]:
    """One model's results file: the items with its predicts."""
    found = []
    for (source, number, image, _, question, answers, kind), said in zip(
        ITEMS, ANSWERS[model], strict=True
    ):
        item: dict[str, Any] = {
            "dataset_name": source, "id": number, "image_path": image,
            "question": question, "answers": answers, "type": kind,
        }  # fmt: skip
        if said is not None:
            item["predict"] = said
        found.append(item)
    return found


def build_ocrbench(folder: Path) -> None:
    """The images and each demo model's results file."""
    for _, _, image, draw, *_ in ITEMS:
        save_png(draw(), folder / "images" / image)
    for model in MODELS:
        write_json(folder / "results" / f"{model}.json", results(model))


def main() -> None:
    """Regenerate ``ocrbench/``."""
    regenerate(FOLDER, build_ocrbench, "OCRBench")


if __name__ == "__main__":
    main()
