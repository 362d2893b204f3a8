"""Regenerate the MME sample data: ``mme/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawings); alone, run
``python sample_data/make_mme_sample.py``. Deterministic, as that script is: PNGs without
metadata, byte-identical on every run.

What it makes: ``results/<model>/<subtask>.txt``, the official eval_tool's result files
(line: image TAB question TAB gold TAB response; an image's two questions together, the
yes one first) for four perception and two cognition subtasks, one image each; and
``images/<subtask>/<image>``, laid out as MME's release folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its drawings and helpers
    MODELS,
    OUT_DIR,
    img_blackboard,
    img_count_shapes,
    img_price_sign,
    img_shelf,
    img_street_sign,
    img_traffic_light,
    regenerate,
    save_png,
)

FOLDER = OUT_DIR / "mme"
ASK = " Please answer yes or no."

# subtask -> image, drawing, the yes question, the no question
QUESTIONS: dict[str, tuple[str, Callable[[], Image.Image], str, str]] = {
    "existence": ("shelf.png", img_shelf,
                  "Is there a ball in this image?", "Is there a bicycle in this image?"),
    "count": ("shapes.png", img_count_shapes,
              "Are there three circles in this image?", "Are there five circles in this image?"),
    "color": ("light.png", img_traffic_light,
              "Is the lit lamp red?", "Is the lit lamp green?"),
    "OCR": ("street.png", img_street_sign,
            'Does the upper sign read "Maple Ave"?', 'Does the upper sign read "Oak Street"?'),
    "commonsense_reasoning": ("sale.png", img_price_sign,
                              "Is the mug sold at a reduced price?", "Is the sign selling a car?"),
    "numerical_calculation": ("sum.png", img_blackboard,
                              "Is the answer to the sum 42?", "Is the answer to the sum 32?"),
}  # fmt: skip

# per model, per subtask: the answers to the yes question and to the no question
ANSWERS: dict[str, dict[str, tuple[str, str]]] = {
    "demo-alpha": {
        "existence": ("Yes", "No"),
        "count": ("Yes", "No"),
        "color": ("Yes", "No"),
        "OCR": ("Yes", "No"),
        "commonsense_reasoning": ("Yes, the sign says SALE.", "No"),
        "numerical_calculation": ("Yes", "Yes"),  # 27 + 15 misread: its pair fails acc+
    },
    "demo-beta": {
        "existence": ("Yes, a red ball is on the top shelf.", "There is no bicycle."),  # other
        "count": ("No, I count four circles.", "No."),
        "color": ("yes", "no"),
        "OCR": ("**Yes**", "No, it reads Maple Ave."),  # "**Ye": other
        "commonsense_reasoning": ("Yes.", "No, it sells a coffee mug."),
        "numerical_calculation": ("No, 27 + 15 is 32.", "Yes."),
    },
    "demo-gamma": {
        "existence": ("y", "No"),  # one letter: other
        "count": ("No", "Yes"),
        "color": ("Yes", "Yes"),
        "OCR": ("I think yes", "No"),  # the yes comes too late: other
        "commonsense_reasoning": ("No", "No"),
        "numerical_calculation": ("None", "no"),  # "none" reads as no
    },
}


def result_lines(model: str, subtask: str) -> str:
    """A subtask file's two lines for one model."""
    image, _, yes_question, no_question = QUESTIONS[subtask]
    yes_answer, no_answer = ANSWERS[model][subtask]
    return (
        f"{image}\t{yes_question}{ASK}\tYes\t{yes_answer}\n"
        f"{image}\t{no_question}{ASK}\tNo\t{no_answer}\n"
    )


def build_mme(folder: Path) -> None:
    """The images and each demo model's result files."""
    for subtask, (image, draw, _, _) in QUESTIONS.items():
        save_png(draw(), folder / "images" / subtask / image)
    for model in MODELS:
        results = folder / "results" / model
        results.mkdir(parents=True, exist_ok=True)
        for subtask in QUESTIONS:
            lines = result_lines(model, subtask)
            (results / f"{subtask}.txt").write_text(lines, encoding="utf-8")


def main() -> None:
    """Regenerate ``mme/``."""
    regenerate(FOLDER, build_mme, "MME")


if __name__ == "__main__":
    main()
