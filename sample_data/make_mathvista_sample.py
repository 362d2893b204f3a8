"""Regenerate the MathVista sample data: ``mathvista/`` next to this script.

``make_sample_data.py`` runs it (it lends its drawing helpers); alone, run
``python sample_data/make_mathvista_sample.py``. Deterministic, as that script is: PNGs
without metadata, byte-identical on every run.

What it makes: ``output_<model>.json``, the official output files of MathVista's
``evaluation/generate_response.py`` (lupantech/MathVista): one JSON object, pid -> the
testmini-style problem (question, choices, unit, precision, answer, question and answer
type, metadata, the query the model was given) with the model's ``response``, as the
official evaluation leaves it: with each problem's ``extraction``, ``prediction`` and
``true_false``. The problems' images are
``images/<pid>.png``, named by each problem's ``image`` field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from PIL import Image

from lmmreview.engine.benchmarks.mathvista import rules
from lmmreview.sample_data.make_sample_data import (  # its palette, helpers and drawings
    BLUE,
    GREY,
    MODELS,
    ORANGE,
    OUT_DIR,
    RED,
    bar_chart,
    canvas,
    draw_shape,
    img_right_triangle,
    make_axes,
    regenerate,
    save_png,
    table_image,
    text,
)

FOLDER = OUT_DIR / "mathvista"


def img_angles() -> Image.Image:
    """A triangle with two of its angles given, the third asked."""
    img, d = canvas(360, 260)
    a, b, c = (40, 220), (320, 220), (130, 50)
    d.polygon([a, b, c], fill=(225, 235, 250), outline=(0, 0, 0), width=3)
    text(d, (70, 205), "50°", 16, anchor="mm")
    text(d, (285, 205), "70°", 16, anchor="mm")
    text(d, (130, 80), "?", 22, RED, "mm")
    text(d, (130, 38), "C", 16, anchor="mm")
    return img


def img_club_members() -> Image.Image:
    """Members of four school clubs; chess has the most, 8."""
    return bar_chart("Club members", ["Art", "Chess", "Music", "Drama"], [5, 8, 6, 3], [BLUE])


def img_stationery_prices() -> Image.Image:
    """A price list: two notebooks and a pen cost $3.75."""
    rows = [["Item", "Price"], ["notebook", "$1.25"], ["pen", "$1.25"], ["ruler", "$0.90"]]
    return table_image("Stationery prices", rows, [200, 120], (360, 200))


def img_sales_line() -> Image.Image:
    """Yearly sales, equal (at 40) in 2019 and 2021."""
    img, d = canvas(420, 300)
    years = [2018, 2019, 2020, 2021, 2022]
    values = [30, 40, 55, 40, 60]
    to_px = make_axes(
        d, (60, 40, 390, 240), (2017.5, 2022.5), (0, 70),
        [(y, str(y)) for y in years], [(v, str(v)) for v in range(0, 71, 10)],
        "Year", "Sales (units)",
    )  # fmt: skip
    points = [to_px(year, value) for year, value in zip(years, values, strict=True)]
    d.line(points, fill=ORANGE, width=3)
    for x, y in points:
        d.ellipse((x - 4, y - 4, x + 4, y + 4), fill=ORANGE)
    return img


def img_cubes_and_spheres() -> Image.Image:
    """Two red cubes and three blue spheres."""
    img, d = canvas(400, 240, (235, 235, 235))
    for x in (70, 170):
        draw_shape(d, "square", x, 160, 28, RED)
    for x in (250, 310, 360):
        draw_shape(d, "circle", x, 110, 22, BLUE)
    return img


def img_food_chain() -> Image.Image:
    """A food chain: grass, rabbit, fox, with arrows of what is eaten by what."""
    img, d = canvas(460, 160)
    names = ["grass", "rabbit", "fox"]
    for i, name in enumerate(names):
        x = 70 + i * 160
        d.rectangle((x - 55, 55, x + 55, 105), outline=(0, 0, 0), width=2)
        text(d, (x, 80), name, 18, anchor="mm")
        if i:
            d.line((x - 105, 80, x - 60, 80), fill=GREY, width=3)
            d.polygon([(x - 60, 80), (x - 70, 74), (x - 70, 86)], fill=GREY)
    return img


def img_number_pattern() -> Image.Image:
    """A row of numbers, each 2 more than the last, one missing: 10."""
    img, d = canvas(420, 120)
    for i, value in enumerate(["4", "6", "8", "?", "12"]):
        x = 50 + i * 80
        d.rectangle((x - 30, 30, x + 30, 90), outline=(0, 0, 0), width=2)
        text(d, (x, 60), value, 24, RED if value == "?" else (0, 0, 0), "mm")
    return img


class Problem(NamedTuple):
    """One testmini-style problem: what the official output file holds of it."""

    question: str
    choices: list[str] | None
    answer: str
    answer_type: str
    precision: int | None
    unit: str | None
    metadata: dict[str, Any]
    draw: Callable[[], Image.Image]


def metadata(
    source: str, category: str, task: str, context: str, grade: str, skills: list[str]
) -> dict[str, Any]:
    """A problem's metadata after its split, language and image size."""
    return {
        "source": source, "category": category, "task": task, "context": context,
        "grade": grade, "skills": skills,
    }  # fmt: skip


MATH, GENERAL = "math-targeted-vqa", "general-vqa"
PROBLEMS: dict[str, Problem] = {
    "1": Problem(
        "As shown in the figure, two angles of the triangle are 50° and 70°. What is angle C?",
        ["50°", "60°", "70°", "80°"], "60°", rules.TEXT, None, None,
        metadata("GeoQA+", MATH, "geometry problem solving", "geometry diagram",
                 "high school", ["geometry reasoning", "algebraic reasoning"]),
        img_angles,
    ),
    "2": Problem(
        "How many members does the largest club have?",
        None, "8", rules.INTEGER, None, None,
        metadata("ChartQA", GENERAL, "figure question answering", "bar chart",
                 "daily life", ["statistical reasoning"]),
        img_club_members,
    ),
    "3": Problem(
        "How much money does Mia need to buy two notebooks and a pen?",
        None, "3.75", rules.FLOAT, 2, "$",
        metadata("TabMWP", MATH, "math word problem", "table",
                 "elementary school", ["arithmetic reasoning", "statistical reasoning"]),
        img_stationery_prices,
    ),
    "4": Problem(
        "In which two years were the sales the same? Give the earlier year first.",
        None, "[2019, 2021]", rules.LIST, None, None,
        metadata("FigureQA", MATH, "figure question answering", "line plot",
                 "high school", ["statistical reasoning"]),
        img_sales_line,
    ),
    "5": Problem(
        "Is the number of red cubes greater than the number of blue spheres?",
        ["Yes", "No"], "No", rules.TEXT, None, None,
        metadata("Super-CLEVR", GENERAL, "visual question answering", "synthetic scene",
                 "elementary school", ["arithmetic reasoning"]),
        img_cubes_and_spheres,
    ),
    "6": Problem(
        "Which of these organisms in the food chain is a consumer that eats plants?",
        ["grass", "rabbit", "fox", "sun"], "rabbit", rules.TEXT, None, None,
        metadata("AI2D", GENERAL, "textbook question answering", "scientific figure",
                 "high school", ["scientific reasoning"]),
        img_food_chain,
    ),
    "7": Problem(
        "Which number is missing?",
        None, "10", rules.INTEGER, None, None,
        metadata("IQTest", MATH, "figure question answering", "puzzle test",
                 "elementary school", ["logical reasoning", "arithmetic reasoning"]),
        img_number_pattern,
    ),
    "8": Problem(
        "What is the length of the hypotenuse of the right triangle?",
        None, "10.0", rules.FLOAT, 1, None,
        metadata("Geometry3K", MATH, "geometry problem solving", "geometry diagram",
                 "high school", ["geometry reasoning", "algebraic reasoning"]),
        img_right_triangle,
    ),
}  # fmt: skip

# demo-alpha's responses, each with the extraction the official extractor made of it.
ALPHA: dict[str, tuple[str, str]] = {
    "1": ("The angles of a triangle add up to 180°, so C = 180° - 50° - 70° = 60°.\n"
          "The answer is B.", "B"),
    "2": ("The tallest bar is Chess, which reaches 8 on the scale. So the largest club "
          "has 8 members.", "8"),
    "3": ("Two notebooks cost 2 × $1.25 = $2.50 and the pen $1.25, so she needs "
          "$2.50 + $1.25 = $3.75.", "3.75"),
    "4": ("The line is at 40 in 2019 and at about 40 in 2020 as well. "
          "Answer: [2019, 2020]", "[2019, 2020]"),  # wrong
    "5": ("There are 2 red cubes and 3 blue spheres, and 2 is less than 3, so the answer "
          "is (B) No.", "B"),
    "6": ("Grass is a producer; the rabbit eats grass, so it is the plant-eating consumer. "
          "Answer: (B)", "B"),
    "7": ("Each number is 2 more than the one before it: 4, 6, 8, then 10, then 12. "
          "The missing number is 10.", "10"),
    "8": ("By the Pythagorean theorem, the hypotenuse is sqrt(6^2 + 8^2) = sqrt(100) = 10, "
          "that is 10.0 to one decimal place.", "10.0"),
}  # fmt: skip
# The other models' responses: some the official quick rules settle (the whole response is a
# number of the answer type, or a choice's text), the rest the LLM extractor reads
# (EXTRACTED).
RESPONSES: dict[str, dict[str, str]] = {
    "demo-beta": {
        "1": "60°",  # a choice's text: the quick rules
        "2": "8",  # an integer: the quick rules
        "3": "3.5",  # a float: the quick rules (wrong)
        "4": "2019 and 2021",  # the extractor writes the list
        "5": "Yes",  # a choice's text (wrong)
        "6": "(B) rabbit",  # not a choice's text as it is: the extractor
        "7": "10",
        "8": "The hypotenuse is 10.",  # the extractor
    },
    "demo-gamma": {
        "1": "(D)",  # a letter alone is no choice's text: the extractor
        "2": "There are 6 members in the largest club.",
        "3": "3.75",
        "4": "[2018, 2020]",  # a list: left to the extractor (no quick rule for lists)
        "5": "No",
        "6": 'The answer is "fox".',  # the quoted rule (off in the official run)
        "7": "9",
        "8": "",  # an empty response extracts ''
    },
}  # fmt: skip

# What the official evaluation's LLM extractor made of the responses no quick rule settles.
EXTRACTED: dict[str, dict[str, str]] = {
    "demo-beta": {"4": "[2019, 2021]", "6": "B", "8": "10"},
    "demo-gamma": {"1": "D", "2": "6", "4": "[2018, 2020]", "6": "fox"},
}

# Hints on the answer's form, in lmmreview's words, in the manner of MathVista's queries.
HINTS = {
    rules.INTEGER: "Answer with a whole number, given at the end.",
    rules.LIST: "Answer with a Python list, such as [1, 2], given at the end.",
    rules.TEXT: "Choose one of the options and give its letter at the end.",
}


def query(problem: Problem) -> str:
    """The query the model is given: a hint on the answer's form, the question (with its
    unit), then the lettered choices."""
    if problem.answer_type == rules.FLOAT:
        hint = f"Answer with a decimal number of {problem.precision} place(s), given at the end."
    else:
        hint = HINTS[problem.answer_type]
    unit = f" (Unit: {problem.unit})" if problem.unit else ""
    lines = [f"Hint: {hint}", f"Question: {problem.question}{unit}"]
    if problem.choices is not None:
        lines += ["Choices:", *(f"({chr(65 + i)}) {c}" for i, c in enumerate(problem.choices))]
    return "\n".join(lines)


def record(pid: str, problem: Problem, size: tuple[int, int], response: str) -> dict[str, Any]:
    """A problem and the model's response, as the official output file holds them."""
    width, height = size
    meta = {"split": "testmini", "language": "english", "img_width": width,
            "img_height": height, **problem.metadata}  # fmt: skip
    return {
        "question": problem.question, "image": f"images/{pid}.png",
        "choices": problem.choices, "unit": problem.unit, "precision": problem.precision,
        "answer": problem.answer, "question_type": _question_type(problem),
        "answer_type": problem.answer_type, "pid": pid, "metadata": meta,
        "query": query(problem), "response": response,
    }  # fmt: skip


def _question_type(problem: Problem) -> str:
    return rules.FREE_FORM if problem.choices is None else rules.MULTI_CHOICE


def _rules_problem(problem: Problem) -> rules.Problem:
    return rules.Problem(
        _question_type(problem), problem.answer_type, tuple(problem.choices or ()),
        problem.precision, problem.answer,
    )  # fmt: skip


def extracted(model: str, pid: str, problem: Problem) -> str:
    """What the official evaluation extracts from the model's response: the quick rules'
    answer (the official run has the quoted rule off), else its LLM extractor's."""
    quick = rules.quick_extraction(RESPONSES[model][pid], _rules_problem(problem), quoted=False)
    return quick[0] if quick is not None else EXTRACTED[model][pid]


def evaluated(row: dict[str, Any], problem: Problem, extraction: str) -> dict[str, Any]:
    """A record after the official evaluation: its extraction, normalised prediction and
    verdict (by lmmreview's restatement of the official rules)."""
    verdict = rules.verdict(extraction, _rules_problem(problem))
    return {**row, "extraction": extraction, "prediction": verdict.prediction,
            "true_false": verdict.correct}  # fmt: skip


def build_mathvista(folder: Path) -> None:
    """The images and each demo model's output file."""
    sizes = {}
    for pid, problem in PROBLEMS.items():
        image = problem.draw()
        save_png(image, folder / "images" / f"{pid}.png")
        sizes[pid] = image.size
    outputs: dict[str, dict[str, Any]] = {
        "demo-alpha": {
            pid: evaluated(record(pid, p, sizes[pid], ALPHA[pid][0]), p, ALPHA[pid][1])
            for pid, p in PROBLEMS.items()
        },
        **{
            model: {pid: evaluated(record(pid, p, sizes[pid], RESPONSES[model][pid]), p,
                                   extracted(model, pid, p))
                    for pid, p in PROBLEMS.items()}
            for model in MODELS[1:]
        },
    }  # fmt: skip
    for model, document in outputs.items():
        text_ = json.dumps(document, indent=4, ensure_ascii=False) + "\n"
        (folder / f"output_{model}.json").write_text(text_, encoding="utf-8")


def main() -> None:
    """Regenerate ``mathvista/``."""
    regenerate(FOLDER, build_mathvista, "MathVista")


if __name__ == "__main__":
    main()
