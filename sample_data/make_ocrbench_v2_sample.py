"""Regenerate the OCRBench v2 sample data: ``ocrbench-v2/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawings); alone, run
``python sample_data/make_ocrbench_v2_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes: ``results/<model>.json``, the file the official eval.py reads (the items of
OCRBench_v2.json's format, each with the model's ``predict``) for six questions of six
types: a price, a word count, a box around a word, a receipt's key fields, a table in
HTML and a word asked in Chinese; and ``images/``, the folder each item's ``image_path``
is relative to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from lmmreview.sample_data.make_ocrbench_sample import img_word
from lmmreview.sample_data.make_sample_data import (  # its drawings and helpers
    BLACK,
    MODELS,
    OUT_DIR,
    WHITE,
    canvas,
    img_receipt_cafe,
    img_receipt_grocery,
    regenerate,
    save_png,
    text,
    write_json,
)

FOLDER = OUT_DIR / "ocrbench-v2"
TABLE = (
    "<table><tr><td>Fruit</td><td>Price</td></tr><tr><td>Apple</td><td>1.20</td></tr>"
    "<tr><td>Pear</td><td>0.90</td></tr></table>"
)


def img_open_sign() -> Image.Image:
    """A shop sign of three words: OPEN 24 HOURS."""
    img, d = canvas(360, 120, (200, 30, 40))
    text(d, (180, 60), "OPEN 24 HOURS", 36, WHITE, "mm")
    return img


def img_exit() -> Image.Image:
    """EXIT on a green panel at (120, 60)-(280, 140) of 400 x 200: the box [300, 300, 700,
    700] in thousandths."""
    img, d = canvas(400, 200, (230, 230, 230))
    d.rectangle((120, 60, 280, 140), fill=(20, 140, 60))
    text(d, (200, 100), "EXIT", 40, WHITE, "mm")
    return img


def img_table() -> Image.Image:
    """A table of two fruits and their prices, with its header row."""
    img, d = canvas(300, 150, WHITE)
    for row, cells in enumerate((("Fruit", "Price"), ("Apple", "1.20"), ("Pear", "0.90"))):
        for column, cell in enumerate(cells):
            box = (20 + 130 * column, 15 + 40 * row, 150 + 130 * column, 55 + 40 * row)
            d.rectangle(box, outline=BLACK, width=2)
            text(d, (box[0] + 65, box[1] + 20), cell, 20, anchor="mm")
    return img


# (dataset_name, id, image, drawing, question, answers, type, more fields) as
# OCRBench_v2.json has them
Item = tuple[str, int, str, Callable[[], Image.Image], str, list[Any], str, dict[str, str]]
ITEMS: list[Item] = [
    ("demo_vqa", 1, "cafe.png", img_receipt_cafe, "How much does the sandwich cost?",
     ["6.00"], "cognition VQA en", {}),
    ("demo_counting", 2, "sign.png", img_open_sign, "How many words are written on the sign?",
     [3], "text counting en", {"eval": "regression"}),
    ("demo_grounding", 3, "exit.png", img_exit,
     "Where is the word EXIT? Give its bounding box as [x1, y1, x2, y2], scaled to 0-1000.",
     [300, 300, 700, 700], "text grounding en", {}),
    ("demo_kie", 4, "grocery.png", img_receipt_grocery,
     'Give the store and the total of the receipt as JSON, with the keys "company" and '
     '"total".', [{"company": ["FRESH MART"], "total": ["$7.45"]}],
     "key information extraction en", {}),
    ("demo_table", 5, "table.png", img_table, "Convert the table in the image to HTML.",
     [TABLE], "table parsing en", {}),
    ("demo_cn", 6, "harbour.png", img_word, "图中写的单词是什么", ["HARBOUR"],
     "cognition VQA cn", {}),
]  # fmt: skip

# per model, each item's predict in order
ANSWERS: dict[str, tuple[str, ...]] = {
    "demo-alpha": (
        "The sandwich costs $6.00.",
        "3",
        "[300, 300, 700, 700]",
        '```json\n{"company": "Fresh Mart", "total": "$7.45"}\n```',
        f"```html\n{TABLE}\n```",
        "HARBOUR",
    ),
    "demo-beta": (
        "It is six dollars.",  # 0: the gold 6.00 is not in it
        "There are 4 words.",  # 1 - 1/3: near enough to count
        "The word EXIT is at (280, 250, 720, 700).",  # IoU 0.81
        "company: FRESH MART\ntotal: 7.45",  # 0.5: the total lacks its $
        "| Fruit | Price |\n|---|---|\n| Apple | 1.20 |\n| Pear | 0.90 |",  # 0: no HTML
        "harbour",  # 1: Chinese VQA lowercases too
    ),
    "demo-gamma": (
        "",
        "3 or 4",  # 1: the first number counts
        "EXIT",  # 0: no box
        "I cannot read the receipt.",  # 0: no dict
        "<table><tr><td>Fruit</td><td>Price</td></tr><tr><td>Apple</td><td>1.2</td></tr></table>",
        "港口",
    ),
}  # fmt: skip


def results(model: str) -> list[dict[str, Any]]:
    """One model's results file: the items with its predicts."""
    found = []
    for (source, number, image, _, question, answers, kind, more), said in zip(
        ITEMS, ANSWERS[model], strict=True
    ):
        found.append({
            "dataset_name": source, "type": kind, "id": number, "image_path": image,
            "question": question, "answers": answers, **more, "predict": said,
        })  # fmt: skip
    return found


def build_ocrbench_v2(folder: Path) -> None:
    """The images and each demo model's results file."""
    for _, _, image, draw, *_ in ITEMS:
        save_png(draw(), folder / "images" / image)
    for model in MODELS:
        write_json(folder / "results" / f"{model}.json", results(model))


def main() -> None:
    """Regenerate ``ocrbench-v2/``."""
    regenerate(FOLDER, build_ocrbench_v2, "OCRBench v2")


if __name__ == "__main__":
    main()
