"""Regenerate the MM-Vet v2 sample data: ``mmvet-v2/`` next to this script.

``make_sample_data.py`` runs it last (it lends its drawing helpers); alone, run
``python sample_data/make_mmvet_v2_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes: ``mm-vet-v2.json`` in the official layout (id -> question, answer, capability;
each question names its images inline between ``<IMG>`` markers, several of them with two or
three images), ``images/v2_N_M.png`` and ``answers/<model>.json`` for the three made-up demo
models. Every question can be answered from its images.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its palette and drawing helpers
    BLACK,
    BLUE,
    GREEN,
    LIGHT_GREY,
    MODELS,
    OUT_DIR,
    RED,
    Point,
    canvas,
    draw_shape,
    polygon_points,
    regenerate,
    save_png,
    text,
)

FOLDER = OUT_DIR / "mmvet-v2"


def img_circles(count: int) -> Image.Image:
    """`count` green circles in a row."""
    img, draw = canvas(240, 120)
    for i in range(count):
        draw_shape(draw, "circle", 40 + i * 50, 60, 18, GREEN)
    return img


def on_circle(radius: float, hour: float) -> Point:
    """Where the clock's `hour` stands at `radius` from its centre (80, 80)."""
    angle = math.radians(hour * 30 - 90)
    return 80 + radius * math.cos(angle), 80 + radius * math.sin(angle)


def img_clock(hour: int) -> Image.Image:
    """A clock face showing `hour` o'clock (hour hand short, minute hand on 12)."""
    img, draw = canvas(160, 160)
    draw.ellipse((10, 10, 150, 150), outline=BLACK, width=3)
    for mark in range(1, 13):
        text(draw, on_circle(58, mark), str(mark), size=12, anchor="mm")
    draw.line((80, 80, *on_circle(35, hour)), fill=BLACK, width=5)
    draw.line((80, 80, 80, 30), fill=BLACK, width=2)
    return img


def img_sign(word: str) -> Image.Image:
    """A red octagonal sign with `word` on it."""
    img, draw = canvas(160, 160)
    draw.polygon(polygon_points(80, 80, 70, 8, 22.5), fill=RED, outline=BLACK)
    text(draw, (80, 80), word, size=28, fill=(255, 255, 255), anchor="mm")
    return img


def img_square_at(column: int) -> Image.Image:
    """A blue square in one of four columns of a grey track."""
    img, draw = canvas(240, 80)
    draw.rectangle((10, 20, 230, 60), fill=LIGHT_GREY)
    draw_shape(draw, "square", 35 + column * 55, 40, 16, BLUE)
    return img


def img_two_shapes() -> Image.Image:
    """A red triangle beside a blue circle."""
    img, draw = canvas(240, 120)
    draw_shape(draw, "triangle", 70, 60, 35, RED)
    draw_shape(draw, "circle", 170, 60, 35, BLUE)
    return img


def img_number(value: int) -> Image.Image:
    """A card with one big number."""
    img, draw = canvas(120, 120)
    draw.rectangle((8, 8, 112, 112), outline=BLACK, width=3)
    text(draw, (60, 60), str(value), size=48, anchor="mm")
    return img


# id -> (question with its images inline, ground truth, capabilities, the images drawn).
Question = tuple[str, str, list[str], list[Callable[[], Image.Image]]]
QUESTIONS: dict[str, Question] = {
    "v2_0": (
        "Which picture shows more circles, the first or the second?\n"
        "First: <IMG>v2_0_0.png<IMG>\nSecond: <IMG>v2_0_1.png<IMG>",
        "the second<OR>second",
        ["rec", "math"],
        [lambda: img_circles(3), lambda: img_circles(4)],
    ),
    "v2_1": (
        "These clocks show three moments in order: <IMG>v2_1_0.png<IMG><IMG>v2_1_1.png<IMG>"
        "<IMG>v2_1_2.png<IMG> What time will the next clock in the sequence show?",
        "4:00<OR>4 o'clock<OR>four o'clock",
        ["rec", "seq"],
        [lambda: img_clock(1), lambda: img_clock(2), lambda: img_clock(3)],
    ),
    "v2_2": (
        "What word is written on the sign?<IMG>v2_2_0.png<IMG>",
        "STOP",
        ["ocr"],
        [lambda: img_sign("STOP")],
    ),
    "v2_3": (
        "The square moves one step between the pictures:<IMG>v2_3_0.png<IMG>"
        "<IMG>v2_3_1.png<IMG>\nIn which direction is it moving?",
        "right<OR>to the right",
        ["spat", "seq"],
        [lambda: img_square_at(1), lambda: img_square_at(2)],
    ),
    "v2_4": (
        "<IMG>v2_4_0.png<IMG>Name the colours of the two shapes.",
        "red<AND>blue",
        ["rec"],
        [img_two_shapes],
    ),
    "v2_5": (
        "What is the sum of the two numbers?\n<IMG>v2_5_0.png<IMG>\n<IMG>v2_5_1.png<IMG>",
        "12",
        ["ocr", "math"],
        [lambda: img_number(5), lambda: img_number(7)],
    ),
}

# model -> id -> answer (hand-written; demo-gamma skips v2_3).
ANSWERS: dict[str, dict[str, str]] = {
    "demo-alpha": {
        "v2_0": "The second picture shows more circles (4 against 3).",
        "v2_1": "The hour hand moves one hour each time, so the next clock shows 4:00.",
        "v2_2": "STOP",
        "v2_3": "It is moving to the right.",
        "v2_4": "The triangle is red and the circle is blue.",
        "v2_5": "5 + 7 = 12",
    },
    "demo-beta": {
        "v2_0": "The first one.",
        "v2_1": "It will show 4 o'clock.",
        "v2_2": "The sign says STOP.",
        "v2_3": "Left.",
        "v2_4": "Red and green.",
        "v2_5": "The sum is 12.",
    },
    "demo-gamma": {
        "v2_0": "Both show circles.",
        "v2_1": "3:00",
        "v2_2": "",
        "v2_4": "Shapes.",
        "v2_5": "57",
    },
}


def write_json(path: Path, value: object) -> None:
    """Indented UTF-8 JSON, as the official files are."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def build_mmvet_v2(folder: Path) -> None:
    """The question file, its images and the demo models' result files."""
    questions = {}
    for key, (question, answer, capabilities, drawings) in QUESTIONS.items():
        for position, draw in enumerate(drawings):
            save_png(draw(), folder / "images" / f"{key}_{position}.png")
        questions[key] = {"question": question, "answer": answer, "capability": capabilities}
    write_json(folder / "mm-vet-v2.json", questions)
    for model in MODELS:
        write_json(folder / "answers" / f"{model}.json", ANSWERS[model])


def main() -> None:
    """Regenerate ``mmvet-v2/``."""
    regenerate(FOLDER, build_mmvet_v2, "MM-Vet v2")


if __name__ == "__main__":
    main()
