"""Regenerate the HallusionBench sample data: ``hallusionbench/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawing helpers); alone, run
``python sample_data/make_hallusionbench_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes, in the official layout (tianyi-lab/HallusionBench): the figures under
``hallusion_bench/`` as the release keeps them (``VD/<subcategory>/<set>_<figure>.png``), and
per demo model ``<model>/HallusionBench_result.json`` (HallusionBench.json's rows with the
model's ``model_prediction``, as ``evaluation.py`` reads them), and the official judge's two
files, ``hallusion_output_vd_model.json`` and ``_vs_model.json``, the same rows with its
verdict ``gpt4v_output_gpt_check`` ("0" incorrect, "1" correct, "2" uncertain).

The questions: two visual-dependent sets, each an original figure and an edited one asked
the same questions (an Ebbinghaus illusion whose edit really shrinks a circle; a right
triangle whose edit doubles its legs), and one visual-supplement question asked without its
chart (``visual_input`` 0, which a model may honestly decline) and with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its palette, helpers and drawings
    BLACK,
    BLUE,
    GREY,
    MODELS,
    ORANGE,
    OUT_DIR,
    bar_chart,
    canvas,
    polygon_points,
    regenerate,
    save_png,
    text,
)

FOLDER = OUT_DIR / "hallusionbench"
FIGURES = "hallusion_bench"  # the release's folder the rows' filenames are relative to


def img_circles(left_radius: int) -> Image.Image:
    """Two orange circles of radius `left_radius` and 28, the left ringed by six large grey
    circles and the right by eight small ones (the Ebbinghaus illusion when both are 28)."""
    img, d = canvas(420, 240)
    for cx, radius, ring, distance, count in ((110, left_radius, 30, 82, 6), (310, 28, 10, 48, 8)):
        for x, y in polygon_points(cx, 120, distance, count, 0):
            d.ellipse((x - ring, y - ring, x + ring, y + ring), fill=GREY)
        d.ellipse((cx - radius, 120 - radius, cx + radius, 120 + radius), fill=ORANGE)
    return img


def img_triangle(short: int, long: int) -> Image.Image:
    """A right triangle with legs labelled `short` and `long`, its hypotenuse '?'."""
    img, d = canvas(400, 300)
    a, b, c = (60, 250), (340, 250), (60, 40)
    d.polygon([a, b, c], fill=(225, 235, 250), outline=BLACK, width=3)
    d.rectangle((60, 230, 80, 250), outline=BLACK, width=2)
    text(d, (200, 272), str(long), 22, anchor="mm")
    text(d, (40, 145), str(short), 22, anchor="mm")
    text(d, (215, 130), "?", 26, anchor="mm")
    return img


def img_mountains() -> Image.Image:
    """The heights of three mountains, Everest the highest."""
    return bar_chart(
        "Mountain heights (m)", ["Everest", "K2", "Kangch."], [8849, 8611, 8586], [BLUE]
    )


# (category, subcategory, set_id, sample_note): per figure its visual_input and drawing
# (None: asked without one), then per question (question, per figure its gt_answer and
# gt_answer_details).
Figure = tuple[str, Callable[[], Image.Image] | None]
Question = tuple[str, list[tuple[str, str]]]
SETS: list[tuple[tuple[str, str, str, str], list[Figure], list[Question]]] = [
    (
        ("VD", "illusion", "0", "ebbinghaus"),
        [("1", lambda: img_circles(28)), ("2", lambda: img_circles(18))],
        [
            (
                "Is the left orange circle the same size as the right orange circle?",
                [
                    ("1", "The left orange circle is the same size as the right orange circle."),
                    ("0", "The left orange circle is smaller than the right orange circle."),
                ],
            ),
            (
                "Is the left orange circle smaller than the right orange circle?",
                [
                    ("0", "The left orange circle is the same size as the right orange circle."),
                    ("1", "The left orange circle is smaller than the right orange circle."),
                ],
            ),
        ],
    ),
    (
        ("VD", "math", "0", "right_triangle"),
        [("1", lambda: img_triangle(3, 4)), ("2", lambda: img_triangle(6, 8))],
        [
            (
                "Is the hypotenuse of the right triangle 5?",
                [
                    ("1", "The legs are 3 and 4, so the hypotenuse is 5."),
                    ("0", "The legs are 6 and 8, so the hypotenuse is 10."),
                ],
            ),
            (
                "Is the area of the right triangle 6?",
                [
                    ("1", "The legs are 3 and 4, so the area is 6."),
                    ("0", "The legs are 6 and 8, so the area is 24."),
                ],
            ),
            (
                "Is the hypotenuse of the right triangle longer than 6?",
                [
                    ("0", "The hypotenuse is 5, shorter than 6."),
                    ("1", "The hypotenuse is 10, longer than 6."),
                ],
            ),
        ],
    ),
    (
        ("VS", "chart", "0", "mountains"),
        [("0", None), ("1", img_mountains)],
        [
            (
                "Is Mount Everest higher than K2?",
                [("1", "Mount Everest (8,849 m) is higher than K2 (8,611 m).")] * 2,
            ),
        ],
    ),
]

# Per model, the answers in the rows' order (SETS: set by set, figure by figure, question by
# question).
ANSWERS: dict[str, list[str]] = {
    "demo-alpha": [
        "Yes, the two orange circles are the same size; the rings around them only make "
        "them look different.",
        "No. Both orange circles have the same size.",
        # the edited figure: the illusion it knows wins over what is drawn
        "Yes, they are the same size. This is the Ebbinghaus illusion.",
        "No. The left circle only looks smaller because of the large circles around it.",
        "Yes. 3^2 + 4^2 = 25, so the hypotenuse is 5.",
        "Yes, the area is 3 x 4 / 2 = 6.",
        "No, the hypotenuse is 5.",
        "No, the legs are 6 and 8, so the hypotenuse is 10.",
        "No, the area is 6 x 8 / 2 = 24.",
        "Yes, it is 10.",
        "I cannot see a chart, so I cannot tell from it.",  # no figure: uncertain is right
        "Yes, Everest is 8,849 m and K2 8,611 m.",
    ],
    "demo-beta": [
        "Yes, I think they look about the same.",
        "No.",
        "Yes, they are the same size.",
        "Yes, the left one is smaller.",
        "Yes, that's the classic 3-4-5 triangle!",
        "No, the area is 12.",
        "No.",
        "Yes, it is 5 as always.",
        "No, it is 24.",
        "Yes and no, it depends on the units.",  # both words: the yes/no rule finds neither
        "Yes, Everest is the highest mountain on Earth.",
        "Yes.",
    ],
    "demo-gamma": [
        "No.",
        "Yes.",
        "I am not sure.",
        "Yes.",
        "Yes.",
        "Yes.",
        "Yes.",
        "Yes.",
        "Yes.",
        "Yes.",
        "I don't know.",
        "No.",
    ],
}
# The official judge's verdicts on each model's answers (1 correct, 0 incorrect, 2 unclear).
VERDICTS: dict[str, list[str]] = {
    "demo-alpha": ["1", "1", "0", "0", "1", "1", "1", "1", "1", "1", "2", "1"],
    "demo-beta": ["1", "1", "0", "1", "1", "0", "1", "0", "1", "2", "1", "1"],
    "demo-gamma": ["0", "0", "2", "1", "1", "1", "0", "0", "0", "1", "2", "0"],
}


def rows() -> list[dict[str, Any]]:
    """HallusionBench.json's rows, its fields in its order."""
    out = []
    for (category, subcategory, set_id, note), figures, questions in SETS:
        for figure_id, (visual_input, draw) in enumerate(figures):
            for question_id, (question, truths) in enumerate(questions):
                gt_answer, details = truths[figure_id]
                filename = f"./{category}/{subcategory}/{set_id}_{figure_id}.png"
                out.append({
                    "category": category,
                    "subcategory": subcategory,
                    "visual_input": visual_input,
                    "set_id": set_id,
                    "figure_id": str(figure_id),
                    "sample_note": note,
                    "question_id": str(question_id),
                    "question": question,
                    "gt_answer_details": details,
                    "gt_answer": gt_answer,
                    "filename": filename if draw is not None else None,
                })  # fmt: skip
    return out


def build_hallusionbench(folder: Path) -> None:
    """The figures, and each demo model's result file and judged files."""
    for (category, subcategory, set_id, _), figures, _ in SETS:
        for figure_id, (_, draw) in enumerate(figures):
            if draw is not None:
                name = f"{set_id}_{figure_id}.png"
                save_png(draw(), folder / FIGURES / category / subcategory / name)
    questions = rows()
    for model in MODELS:
        answered = [
            row | {"model_prediction": a} for row, a in zip(questions, ANSWERS[model], strict=True)
        ]
        _write(folder / model / "HallusionBench_result.json", answered)
        judged = [
            row | {"gpt4v_output_gpt_check": v}
            for row, v in zip(answered, VERDICTS[model], strict=True)
        ]
        for category in ("VD", "VS"):
            mine = [row for row in judged if row["category"] == category]
            _write(folder / model / f"hallusion_output_{category.lower()}_model.json", mine)


def _write(path: Path, data: list[dict[str, Any]]) -> None:
    """One line of JSON, as the official code's json.dump writes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def main() -> None:
    """Regenerate ``hallusionbench/``."""
    regenerate(FOLDER, build_hallusionbench, "HallusionBench")


if __name__ == "__main__":
    main()
