"""The review screen on the demo's HallusionBench set: what a reviewer needs to judge a
yes/no answer (the figure shown, VD or VS, the gold and its sentence, the official judge's
verdict and its score), grading by key, and the tables, whose groups count once."""

from __future__ import annotations

from pathlib import Path

from tui_harness import drive, text_of, until

from lmmreview.tui.screens import BreakdownScreen

ORIGINAL = ("VD_illusion_0_0_0", "demo-alpha")  # "Yes, the two orange circles...": correct
EDITED = ("VD_illusion_0_1_0", "demo-alpha")  # "Yes, they are the same size": incorrect
NO_FIGURE = ("VS_chart_0_0_0", "demo-alpha")  # "I cannot see a chart...": uncertain, right


async def _go_to(app, pilot, wanted: tuple[str, str]) -> None:
    """Move down the list to `wanted` (key, model), and wait for its detail."""
    while (app.current().key, app.current().model) != wanted:
        await pilot.press("j")
    await until(pilot, lambda: wanted[0] in text_of(app, "#title") and text_of(app, "#judges"))


def _verdict(judges: str) -> list[str]:
    """The shown judge's line in the detail's run table: run, result, judge, ..."""
    return next(line.split() for line in judges.splitlines() if "imported  " in line)


def test_the_detail_shows_the_figure_the_gold_and_the_official_verdict(demo_db: Path) -> None:
    seen: dict[str, dict[str, str]] = {}  # per question: its widgets' text, its figure

    async def steps(app, pilot) -> None:
        images = app.screen.query_one("#images")
        for wanted in (ORIGINAL, EDITED, NO_FIGURE):
            await _go_to(app, pilot, wanted)
            seen[wanted[0]] = {w: text_of(app, f"#{w}") for w in ("title", "question", "gold")}
            seen[wanted[0]]["judges"] = text_of(app, "#judges")
            await until(pilot, lambda: not images.pending)
            seen[wanted[0]]["figure"] = "none" if images.has_class("empty") else "shown"

    drive(demo_db, steps, dataset="hallusionbench")
    first, edited, no_figure = (seen[key] for key, _ in (ORIGINAL, EDITED, NO_FIGURE))
    assert first["title"].split(" · ")[2:] == ["VD", "illusion", "original figure", "gold: yes\n"]
    assert first["question"].startswith("Is the left orange circle the same size")
    # the reference the judge reads is gt_answer_details, not the yes/no gold
    assert "the same size as the right orange circle." in first["gold"]
    assert "gpt-4 (imported)" in first["judges"].splitlines()[2]  # the shown judge, first
    assert _verdict(first["judges"])[:2] == ["0", "1.00"] and "(correct)" in first["judges"]
    assert (first["figure"], edited["figure"], no_figure["figure"]) == ("shown", "shown", "none")
    assert "edited figure · gold: no" in edited["title"]
    assert _verdict(edited["judges"])[:2] == ["0", "0.00"] and "(incorrect)" in edited["judges"]
    # asked without its chart: the judge's "uncertain" counts as right
    assert no_figure["title"].split(" · ")[2:] == ["VS", "chart", "no figure", "gold: yes\n"]
    assert (
        _verdict(no_figure["judges"])[:2] == ["0", "1.00"] and "(uncertain)" in no_figure["judges"]
    )


def test_grading_by_key_moves_the_pair_and_the_easy_group_not_a_figure(demo_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _go_to(app, pilot, NO_FIGURE)
        await pilot.press("0")  # the reviewer gives no benefit of the doubt: wrong
        await until(pilot, lambda: app.current().reviewed)
        seen["score"] = app.current().verdict.score
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen["tables"] = [t.name for t in app.screen.tables]
        board = app.screen.tables[0]
        seen["alpha"] = {k: round(c.value, 1) for k, c in board.rows[0].cells.items()}
        seen["n"] = {k: c.n for k, c in board.rows[0].cells.items()}

    drive(demo_db, steps, dataset="hallusionbench")
    assert seen["score"] == 0.0
    tables = ("leaderboard", "questions", "pairs", "figures", "subcategories", "consistency",
              "bias")  # fmt: skip
    assert seen["tables"] == [f"hallusionbench.{t}" for t in tables]
    # 6 pairs (2 + 3 VD, the VS question's two askings one), 5 figures (the no-figure
    # asking in none), 6 easy groups (the VS pair's two askings both easy), 5 hard ones
    assert seen["n"] == {"qacc": 6, "facc": 5, "easy": 6, "hard": 5, "aacc": 12}
    # before the verdict 66.7, 80.0, 100.0, 60.0, 83.3: the VS pair and its easy group
    # turn wrong, no figure moves
    assert seen["alpha"] == {"qacc": 50.0, "facc": 80.0, "easy": 83.3, "hard": 60.0, "aacc": 75.0}
