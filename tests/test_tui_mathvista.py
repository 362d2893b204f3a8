"""The review screen on the demo's MathVista set: the choices, or the answer's type,
precision and unit; the extraction and the normalised prediction of each judgment; grading
by key; the tables, the paper's first."""

from __future__ import annotations

import json
from pathlib import Path

from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (pid, model), and wait for its detail."""
    while (app.current().key, app.current().model) != wanted:
        await pilot.press("j")
    await until(
        pilot,
        lambda: text_of(app, "#title").startswith(f"{wanted[0]} ") and text_of(app, "#judges"),
    )


def _reply(judges: str) -> dict[str, str]:
    """The JSON reply on the judges panel's first run."""
    line = judges.splitlines()[1]
    return json.loads(line[line.index("{") : line.rindex("}") + 1])


def test_the_detail_shows_the_choices_or_the_answer_form_and_each_extraction(
    demo_db: Path,
) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        for pid, model in (("1", "demo-alpha"), ("3", "demo-alpha"), ("3", "demo-beta"),
                           ("4", "demo-gamma")):  # fmt: skip
            await _go_to(app, pilot, (pid, model))
            for panel in ("title", "question", "judges"):
                seen[pid, model, panel] = text_of(app, f"#{panel}")

    drive(demo_db, steps, dataset="mathvista")
    question = seen["1", "demo-alpha", "question"]
    assert [line.strip() for line in question.splitlines()[1:5]] == [
        "A. 50°", "B. 60°", "C. 70°", "D. 80°",
    ]  # fmt: skip
    assert "answer" not in seen["1", "demo-alpha", "title"]  # the choices say it
    # demo-alpha's file: the official extraction, a letter, normalised to its choice
    alpha = seen["1", "demo-alpha", "judges"]
    assert "official extractor" in alpha and "output_demo-alpha.json" in alpha
    assert _reply(alpha) == {"extraction": "B", "prediction": "60°"}
    assert "float answer, 2 decimals (unit: $)" in seen["3", "demo-alpha", "title"]
    # two judges: the official extraction, and lmmreview's quick rules' float, rounded to
    # the 2 decimals: "3.5" both, not the gold 3.75
    beta = seen["3", "demo-beta", "judges"].splitlines()
    runs = beta[beta.index(next(line for line in beta if line.startswith("run "))) + 1 :][:2]
    assert [line.split()[:2] for line in runs] == [["0", "0.00"], ["0", "0.00"]]
    assert "imported" in runs[0] and "float" in runs[1]
    assert [_reply("\n" + line) for line in runs] == [
        {"extraction": "3.5", "prediction": "3.5"}
    ] * 2
    assert "list answer" in seen["4", "demo-gamma", "title"]
    gamma = seen["4", "demo-gamma", "judges"]  # a list: no quick rule, the official extraction
    assert _reply(gamma) == {"extraction": "[2018, 2020]", "prediction": "[2018, 2020]"}
    assert "offline rules" not in gamma


def test_grading_by_key_and_the_tables_view(demo_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _go_to(app, pilot, ("1", "demo-gamma"))  # "(D)": the official extraction D
        await pilot.press("B")
        await until(pilot, lambda: app.current().reviewed)
        seen["choice"] = (app.current().key, app.current().verdict.choice)
        await _go_to(app, pilot, ("4", "demo-beta"))  # "2019 and 2021": right
        await pilot.press("=")
        await until(pilot, lambda: app.current().reviewed)
        seen["score"] = (app.current().key, app.current().verdict.score)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen["tables"] = {
            t.name: {r.label: r.cells["overall"].value for r in t.rows if "overall" in r.cells}
            for t in app.screen.tables
        }

    drive(demo_db, steps, dataset="mathvista")
    assert seen["choice"] == ("1", "B") and seen["score"] == ("4", 1.0)
    tables = seen["tables"]
    assert isinstance(tables, dict)
    assert next(iter(tables)) == "mathvista.overall"  # the paper's: ALL, tasks, skills
    assert "mathvista.skills" in tables
    # the shown judge is demo-alpha's official extractor: 7 of 8 right
    assert tables["mathvista.overall"]["demo-alpha"] == 87.5
