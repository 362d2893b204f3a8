"""The judge tables of the review screen on a small terminal and at start: the judges
panel (W) and the answer's "every judge, run by run" table keep every number whole, and
the first answer shown draws its judges as it does when revisited. Real database, real
screen driven by keys."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from tui_harness import drive, until

from lmmreview.db import Store
from lmmreview.db.judges import read_judges
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import Judgment
from lmmreview.tui.fitted import FittedTable
from lmmreview.tui.judges_tables import judge_grids, judge_section
from lmmreview.tui.judges_view import JudgesPanel

LONG_JUDGE = "a-judge-model-with-a-rather-long-name"


def _judged(run: int, score: float, kind: str, model: str, prompt: str) -> Judgment:
    return Judgment(
        run=run,
        score=score,
        method=kind,
        kind=kind,
        judge_model=model,
        prompt_version=prompt,
        reply="reply",
    )


@pytest.fixture
def judged_db(mmvet_two_models_db: Path) -> Path:
    """Two judges of three runs each (the official grader's gpt-4, imported, and an LLM
    with a long name) on alpha's v1_0 and v1_1, the first answers listed; three humans."""
    db = mmvet_two_models_db
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        a0, a1, b1 = ids["alpha", "v1_0"], ids["alpha", "v1_1"], ids["beta", "v1_1"]
        with store.transaction():
            store.add_judgments(
                [(a, _judged(run, score, "imported", "gpt-4", "official grader"))
                 for a, scores in ((a0, (0.6, 0.7, 0.8)), (a1, (1.0, 0.9, 1.0)))
                 for run, score in enumerate(scores)]
                + [(a, _judged(run, score, "llm", LONG_JUDGE, ""))
                   for a, scores in ((a0, (0.2, 0.2, 0.3)), (b1, (0.1, 0.4, 0.1)))
                   for run, score in enumerate(scores)]
            )  # fmt: skip
        reviews = ReviewStore(store, "tester")
        for answer, score in ((a0, 0.5), (a1, 1.0), (b1, 0.0)):
            reviews.grade(answer, score=score)
    return db


def _drawn(app, selector: str) -> list[str]:
    """A widget's content as the screen draws it: at its own width."""
    widget = app.screen.query_one(selector)
    console = Console(width=widget.content_region.width, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.file.getvalue().splitlines()


def test_the_first_answer_draws_its_judges_as_when_revisited(judged_db: Path) -> None:
    seen: dict[str, list[str]] = {}

    async def steps(app, pilot) -> None:  # the tables are in: the names are known
        await pilot.pause(0.3)
        seen["first"] = _drawn(app, "#judges")
        first = app.current().answer_id
        await pilot.press("j", "k")
        await until(pilot, lambda: app.current().answer_id == first)
        await pilot.pause(0.3)
        seen["again"] = _drawn(app, "#judges")

    drive(judged_db, steps)
    assert seen["first"] == seen["again"]
    assert "▶ gpt-4 (imported)" in "\n".join(seen["first"])
    assert "[official grader]" not in "\n".join(seen["first"])


def test_at_80x24_the_judge_tables_keep_every_number_whole(judged_db: Path) -> None:
    seen: dict[str, list[str]] = {}

    async def steps(app, pilot) -> None:
        await pilot.pause(0.3)
        seen["runs"] = _drawn(app, "#judges")
        await pilot.press("W")
        await until(pilot, lambda: app.screen.query_one(JudgesPanel).is_open)
        seen["panel"] = _drawn(app, "#judges-view")

    drive(judged_db, steps, size=(80, 24))
    runs = seen["runs"]
    assert any(line.split()[-4:] == ["0.60", "0.70", "0.80", "0.70"] for line in runs), runs
    assert any(line.split()[-4:] == ["0.20", "0.20", "0.30", "0.23"] for line in runs), runs
    with Store.open(judged_db) as store:
        (grid, *_) = judge_grids(judge_section(read_judges(store, "mmvet"), []))
    _, headers, rows = grid
    panel = seen["panel"]
    header = next(line for line in panel if line.startswith("Judge "))
    for name in ("N", "Δ̄", "κ correct", "Run std"):  # kept, whole
        assert f" {name}" in header, panel
    for row in rows:
        numbers = [row[headers.index(name)] for name in ("N", "Δ̄", "κ correct", "Run std")]
        assert any(line.split()[-4:] == numbers for line in panel), (numbers, panel)


def test_a_fitted_table_drops_the_droppable_columns_then_cuts_the_name() -> None:
    headers = ["Judge", "Prompt", "N", "95% CI", "Run std"]
    row = [Text(c) for c in ("offline rules (baseline)", "reference", "46", "0.1 to 0.2", "0.003")]
    table = FittedTable(None, headers, [row], droppable=("95% CI", "Prompt"))

    def drawn(width: int) -> str:
        console = Console(width=width, file=io.StringIO(), color_system=None)
        console.print(table)
        return console.file.getvalue()

    assert "0.1 to 0.2" in drawn(80) and "reference" in drawn(80)
    assert "0.1 to 0.2" not in drawn(50) and "reference" in drawn(50)  # the interval first
    narrow = drawn(30)
    assert "reference" not in narrow and "46" in narrow and "0.003" in narrow
    assert narrow.splitlines()[1].split() == ["offline", "rules", "(b…", "46", "0.003"]
    assert drawn(21).splitlines()[1].split() == ["offline…", "46", "0.003"]  # the name gives way
    assert drawn(20).splitlines()[1].split() == ["offline", "rules", "(…", "46"]  # then a number
