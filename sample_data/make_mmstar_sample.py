"""Regenerate the MMStar sample data: ``mmstar/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawings); alone, run
``python sample_data/make_mmstar_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes: ``MMStar.tsv``, seven four-option questions of our own across the 6 core
capabilities with their images (base64), laid out as VLMEvalKit's MMStar TSV (the options
in ``A`` to ``D``, ``l2-category``); and the answers as VLMEvalKit's .tsv prediction files
(that TSV's columns but the image, and ``prediction``):
``with-image/<model>_MMStar.tsv`` for the three demo models, then demo-alpha's answers
without the image (``without-image/``) and its language model's (``llm/``), so that its
row shows MG and ML.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from lmmreview.sample_data.make_sample_data import (  # its drawings and helpers
    MODELS,
    OUT_DIR,
    img_beach,
    img_circuit,
    img_count_shapes,
    img_cup_on_table,
    img_happy_face,
    img_rainfall,
    img_right_triangle,
    png_bytes,
    regenerate,
    write_tsv,
)

FOLDER = OUT_DIR / "mmstar"
HEADER = ["index", "question", "A", "B", "C", "D", "answer", "category", "l2-category"]

# index -> drawing, question, options A to D, gold, capability, axis
QUESTIONS: dict[str, tuple[Callable[[], Image.Image], str, list[str], str, str, str]] = {
    "1": (img_happy_face, "What emotion does the face show?",
          ["anger", "happiness", "fear", "sadness"], "B",
          "coarse perception", "image emotion"),
    "2": (img_count_shapes, "How many triangles are in the image?",
          ["3", "4", "5", "12"], "C",
          "fine-grained perception", "object counting"),
    "3": (img_cup_on_table, "Where is the cup?",
          ["under the table", "beside the table", "on the table", "in a cupboard"], "C",
          "instance reasoning", "cross-instance relation reasoning"),
    "4": (img_beach, "What would a visitor here most likely need on a sunny day?",
          ["a snow shovel", "sunscreen", "a winter coat", "ice skates"], "B",
          "logical reasoning", "common reasoning"),
    "5": (img_circuit, "What current flows in the circuit?",
          ["0.33 A", "3 A", "8 A", "48 A"], "B",
          "science & technology", "electronics & energy & mechanical eng."),
    "6": (img_right_triangle, "How long is the side marked '?'?",
          ["7", "10", "12", "14"], "B", "math", "geometry"),
    "7": (img_rainfall, "In which month did the most rain fall?",
          ["Jan", "Mar", "May", "Jun"], "A", "math", "statistical reasoning"),
}  # fmt: skip

# per setting, per model: the answers to questions 1 to 7
ANSWERS: dict[str, dict[str, list[str]]] = {
    "with-image": {
        "demo-alpha": ["B", "C", "C", "B", "The answer is (B)", "B", "A"],  # "(": none
        "demo-beta": [
            "B: happiness", "(C) five triangles",
            "Based on the image, C.",  # the first letter: B
            "Option B", "The answer is B.",
            "Answer: B",  # the first letter: A
            "A: Jan",
        ],
        "demo-gamma": ["D", "12", "", "C", "A cat.", "b", "Dunno"],
    },
    "without-image": {"demo-alpha": ["A", "D", "C", "B", "A", "C", "A"]},
    "llm": {"demo-alpha": ["C", "A", "C", "B", "D", "A", "B"]},
}  # fmt: skip


def question_rows() -> list[list[str]]:
    """Each question's row, without its image."""
    return [
        [index, question, *options, gold, capability, axis]
        for index, (_, question, options, gold, capability, axis) in QUESTIONS.items()
    ]


def build_mmstar(folder: Path) -> None:
    """The questions' TSV with its images, and each setting's prediction files."""
    images = [
        base64.b64encode(png_bytes(draw())).decode("ascii") for draw, *_ in QUESTIONS.values()
    ]
    rows = [[*row, image] for row, image in zip(question_rows(), images, strict=True)]
    write_tsv(folder / "MMStar.tsv", [[*HEADER, "image"], *rows])
    for setting, models in ANSWERS.items():
        for model in MODELS:
            if model in models:
                said = [[*row, a] for row, a in zip(question_rows(), models[model], strict=True)]
                write_tsv(
                    folder / setting / f"{model}_MMStar.tsv", [[*HEADER, "prediction"], *said]
                )


def main() -> None:
    """Regenerate ``mmstar/``."""
    regenerate(FOLDER, build_mmstar, "MMStar")


if __name__ == "__main__":
    main()
