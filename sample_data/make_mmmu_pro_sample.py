"""Regenerate the MMMU-Pro sample data: ``mmmu-pro/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawing helpers and some of MMMU's drawings);
alone, run ``python sample_data/make_mmmu_pro_sample.py``. Deterministic, as that script is:
PNGs without metadata, byte-identical on every run.

What it makes: ``outputs/<model>_standard(10 options)_<method>.jsonl``, the official output
files of ``mmmu-pro/infer`` (MMMU-Benchmark/MMMU): one line per question, with its ten
options as a Python list literal, its answer letter, subject, difficulty and image type, and
the model's response (evaluate.py's verdicts not added yet). demo-alpha's answers are
chain-of-thought (cot), demo-beta's and demo-gamma's direct; the questions' images are
``images/<id>_1.png`` (the dataset's image_1; the output files name no image).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its palette, helpers and drawings
    BLUE,
    MODELS,
    ORANGE,
    OUT_DIR,
    bar_chart,
    canvas,
    draw_shape,
    img_binary_tree,
    img_grid_painting,
    img_map,
    img_truth_table,
    img_velocity_time,
    polygon_points,
    regenerate,
    save_png,
    table_image,
    text,
)

FOLDER = OUT_DIR / "mmmu-pro"
SETTING = "standard(10 options)"
METHODS = {"demo-alpha": "cot", "demo-beta": "direct", "demo-gamma": "direct"}


def img_cost_of_goods() -> Image.Image:
    """Inventory figures from which the cost of goods sold is $11,000."""
    return table_image(
        "Inventory, year 1",
        [
            ["Item", "Amount"],
            ["Beginning inventory", "$4,000"],
            ["Purchases", "$10,000"],
            ["Ending inventory", "$3,000"],
        ],
        [220, 120],
        (400, 220),
    )


def img_hexagon() -> Image.Image:
    """A regular hexagon with one corner marked."""
    img, d = canvas(320, 300)
    d.polygon(polygon_points(160, 150, 110, 6, -90), fill=(225, 235, 250), outline=(0, 0, 0))
    draw_shape(d, "circle", 160, 40, 7, ORANGE)
    text(d, (160, 285), "a regular polygon", 16, anchor="mm")
    return img


def img_unemployment() -> Image.Image:
    """Unemployment rates over ten years, highest in 2020."""
    years = [str(year)[2:] for year in range(2014, 2024)]
    values = [6.2, 5.3, 4.9, 4.4, 3.9, 3.7, 8.1, 5.4, 3.6, 3.6]
    return bar_chart("Unemployment rate (%), 2014-2023", years, values, [BLUE], size=(460, 300))


NUMBERS = [str(n) for n in range(1, 11)]

# id -> question, options, answer, drawing, img_type, topic_difficulty; then per model the
# responses.
QUESTIONS: dict[str, tuple[str, list[str], str, Callable[[], Image.Image], str, str]] = {
    "test_Accounting_1": (
        "Using the figures in <image 1>, what is the cost of goods sold for year 1?",
        ["$7,000", "$9,000", "$11,000", "$13,000", "$14,000",
         "$17,000", "$3,000", "$10,000", "$6,000", "$12,000"],
        "C", img_cost_of_goods, "Tables", "Medium",
    ),
    "test_Math_1": (
        "How many sides does the polygon in <image 1> have?",
        ["3", "4", "5", "6", "7", "8", "9", "10", "11", "12"],
        "D", img_hexagon, "Geometric Shapes", "Easy",
    ),
    "test_Economics_1": (
        "In which year was the unemployment rate in <image 1> the highest?",
        [str(year) for year in range(2014, 2024)],
        "G", img_unemployment, "Plots and Charts", "Easy",
    ),
    "test_Physics_1": (
        "What is the acceleration of the cart whose velocity is plotted in <image 1>?",
        ["1.5 m/s^2", "2 m/s^2", "3 m/s^2", "4.5 m/s^2", "6 m/s^2",
         "9 m/s^2", "18 m/s^2", "0.5 m/s^2", "2.5 m/s^2", "0 m/s^2"],
        "D", img_velocity_time, "Plots and Charts", "Medium",
    ),
    "test_Computer_Science_1": (
        "Which value is stored at the root of the binary search tree in <image 1>?",
        NUMBERS,
        "D", img_binary_tree, "Trees and Graphs", "Easy",
    ),
    "test_Geography_1": (
        "According to <image 1>, which town lies north-east of Riverton?",
        ["Ashford", "Bellmoor", "Dunmore", "Eastwick", "Fairview",
         "Glenrock", "Cliffside", "Harrow", "Ivybridge", "Juniper"],
        "G", img_map, "Maps", "Medium",
    ),
    "test_Art_1": (
        "Which art movement is the painting in <image 1> in the style of?",
        ["Impressionism", "Cubism", "Surrealism", "De Stijl", "Baroque",
         "Romanticism", "Pop Art", "Fauvism", "Futurism", "Realism"],
        "D", img_grid_painting, "Paintings", "Hard",
    ),
    "test_Electronics_1": (
        "Which logic gate has the truth table in <image 1>?",
        ["AND", "OR", "NAND", "NOR", "XOR", "XNOR", "NOT", "Buffer", "Latch", "Flip-flop"],
        "E", img_truth_table, "Tables", "Medium",
    ),
}  # fmt: skip

ANSWERS: dict[str, dict[str, str]] = {
    "demo-alpha": {
        "test_Accounting_1": (
            "Cost of goods sold = beginning inventory + purchases - ending inventory "
            "= 4,000 + 10,000 - 3,000 = 11,000.\nAnswer: C"
        ),
        "test_Math_1": "The polygon has six equal sides and six corners.\nAnswer: D",
        "test_Economics_1": "The tallest bar, 8.1, is labelled 20, the year 2020.\nAnswer: G",
        "test_Physics_1": (
            "The velocity rises from 0 to 9 m/s in 2 s, so a = 9 / 2 = 4.5 m/s^2.\nAnswer: (D)"
        ),
        "test_Computer_Science_1": (
            "The root is the top node of the tree, which holds 4.\nAnswer: D"
        ),
        "test_Geography_1": (
            "Cliffside is above and to the right of Riverton, and north is up.\nAnswer: G"
        ),
        "test_Art_1": (
            "Black grid lines and blocks of primary colour are the marks of the Dutch "
            "movement.\nAnswer: D"
        ),
        "test_Electronics_1": (
            "The output is 1 exactly when the inputs differ: an exclusive or.\nAnswer: E"
        ),
    },
    "demo-beta": {
        "test_Accounting_1": "Answer: C",
        "test_Math_1": "Answer: D",
        "test_Economics_1": "Answer: A",
        "test_Physics_1": "Answer: F",
        "test_Computer_Science_1": "D. 4",
        # names two letters: the `Answer:` rule finds none, the letter rule the later
        "test_Geography_1": "Answer: G or B",
        "test_Art_1": "Answer: (D)",
        "test_Electronics_1": "Answer: F",
    },
    "demo-gamma": {
        "test_Accounting_1": "Answer: E",
        "test_Math_1": "(F)",
        "test_Economics_1": "Answer: G",
        "test_Physics_1": "Answer: B",
        # no letter and too short for the option-text rule: a random letter
        "test_Computer_Science_1": "Sorry, no idea.",
        "test_Geography_1": "Answer: A",
        "test_Art_1": "Answer: B",
        "test_Electronics_1": "Answer: E",
    },
}


def output_line(key: str, response: str) -> dict[str, Any]:
    """One line of an official output file, as the inference scripts write it."""
    question, options, answer, _, img_type, difficulty = QUESTIONS[key]
    subject = key.split("_", 1)[1].rsplit("_", 1)[0]
    return {
        "id": key,
        "question": question,
        "options": repr(options),
        "explanation": "?",
        "img_type": repr([img_type]),
        "answer": answer,
        "topic_difficulty": difficulty,
        "subject": subject,
        "response": response,
    }


def build_mmmu_pro(folder: Path) -> None:
    """The images and each demo model's output file."""
    for key, (*_, draw, _, _) in QUESTIONS.items():
        save_png(draw(), folder / "images" / f"{key}_1.png")
    for model in MODELS:
        lines = [output_line(key, ANSWERS[model][key]) for key in QUESTIONS]
        path = folder / "outputs" / f"{model}_{SETTING}_{METHODS[model]}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def main() -> None:
    """Regenerate ``mmmu-pro/``."""
    regenerate(FOLDER, build_mmmu_pro, "MMMU-Pro")


if __name__ == "__main__":
    main()
