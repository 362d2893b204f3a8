"""Issue 14 items 4 ("nothing hidden") and 7 ("small terminals"): what the review screen
shows without a key the reviewer must already know, on the demo database, by Pilot."""

from __future__ import annotations

import html
import io
import re
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Input
from textual.widgets._footer import FooterKey
from tui_harness import cursor, drive, text_of, until

from lmmreview.db import Store
from lmmreview.engine.scoring import choice_score
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.footer import FIRST as FOOTER_FIRST
from lmmreview.tui.footer import ReviewFooter
from lmmreview.tui.images import SampleImages
from lmmreview.tui.screens import BreakdownScreen, CompareScreen

SMALL = (80, 24)


def screen_lines(svg: str) -> list[str]:
    """The text of a screenshot, line by line, as the terminal shows it (the SVG places
    each run of text at its column: 12.2 units per cell)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    pattern = r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for x, y, text in re.findall(pattern, svg):
        rows.setdefault(float(y), []).append((float(x), html.unescape(text)))
    lines = []
    for y in sorted(rows):
        line = ""
        for x, text in sorted(rows[y]):
            line = line.ljust(round(x / 12.2)) + text
        lines.append(line.replace("\xa0", " "))
    return lines


async def _type(app, pilot, text: str) -> None:
    """Answer the prompt that has the focus with `text`."""
    await until(pilot, lambda: isinstance(app.screen.focused, Input))
    app.screen.focused.value = text
    await pilot.press("enter")


def _score_class(app, row: int) -> str:
    """The component class of the score cell of a list row."""
    return app.screen._row(row)[2][1]


def test_the_dataset_switcher_is_in_the_footer_and_the_header_counts_datasets(
    demo_db: Path,
) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.pause(0.2)
        seen["screen"] = screen_lines(app.export_screenshot())
        seen["status"] = text_of(app, "#status")

    drive(demo_db, steps, size=(160, 48))
    assert "d dataset" in seen["screen"][-1]
    with Store.open(demo_db) as store:
        (count,) = store.conn.execute("SELECT COUNT(*) FROM datasets").fetchone()
    assert count > 1 and f"demo.db · {count} datasets · mmvet (mmvet)" in seen["status"]


def test_the_footer_makes_its_keys_once_and_shows_every_binding(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual makes the footer's keys anew at each change of focus or bindings: they are
    made once empty, then once with the bindings (not again while those stay the same),
    and they are every binding shown, `? help` and `q quit` first."""
    made = []
    compose = ReviewFooter.compose

    def counted(footer: ReviewFooter) -> object:
        made.append(footer)
        return compose(footer)

    monkeypatch.setattr(ReviewFooter, "compose", counted)
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.pause(0.3)
        screen = app.screen
        seen["made"] = len(made)
        seen["keys"] = [key.action for key in screen.query_one(ReviewFooter).query(FooterKey)]
        shown = [b.action for _, b, _, _ in screen.active_bindings.values() if b.show]
        seen["shown"] = [*FOOTER_FIRST, *(a for a in dict.fromkeys(shown) if a not in FOOTER_FIRST)]

    drive(demo_db, steps)
    assert seen["made"] == 2
    assert seen["keys"][: len(seen["shown"])] == seen["shown"]


def test_the_tables_screen_focuses_its_first_table(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.pause(0.1)
        seen["focused"] = app.screen.focused
        seen["first"] = app.screen.query_one("#table-0", DataTable)

    drive(demo_db, steps)
    assert seen["focused"] is seen["first"]


def test_the_list_colours_right_and_wrong_choice_answers_included(demo_db: Path) -> None:
    """Green where the effective score is full (a choice: the gold letter), red where it
    is zero; on MMBench, whose judge chose options."""
    seen: dict[str, list] = {"rows": []}

    async def steps(app, pilot) -> None:
        session = app.session
        for row, index in enumerate(session.visible):
            entry = session.entries[index]
            golds = session.golds(entry.key)
            seen["rows"].append((choice_score(entry.judge_choice, golds), _score_class(app, row)))

    drive(demo_db, steps, dataset="mmbench")
    expected = {1.0: "answer-list--good", 0.0: "answer-list--bad"}
    judged = [(score, style) for score, style in seen["rows"] if score is not None]
    assert {score for score, _ in judged} == {0.0, 1.0}  # both kinds are there
    assert all(style == expected[score] for score, style in judged)


def test_long_ids_are_shortened_from_the_left(demo_db: Path) -> None:
    """MMMU ids end in the number that tells them apart: the list keeps that end."""
    seen = {}

    async def steps(app, pilot) -> None:
        entry = app.session.entries[app.session.visible[0]]
        seen["key"] = entry.key
        seen["line"] = app.screen.query_one(AnswerList).render_line(0).text

    drive(demo_db, steps, dataset="mmmu")
    assert seen["key"] == "validation_Math_1"  # 17 characters; the column has 16
    assert seen["line"].startswith("…lidation_Math_1 ")


def test_a_note_gets_a_mark_in_the_list_and_notes_and_flags_show_in_the_history(
    demo_db: Path,
) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        answers = app.screen.query_one(AnswerList)
        await pilot.press("f")
        await until(pilot, lambda: app.session.entries[0].flagged)
        await pilot.press("m")
        await _type(app, pilot, "check the chart")
        await until(pilot, lambda: "✎" in answers.render_line(0).text)
        await until(pilot, lambda: "check the chart" in text_of(app, "#history"))
        seen["line"] = answers.render_line(0).text
        seen["history"] = text_of(app, "#history")

    drive(demo_db, steps)
    assert seen["line"].rstrip().endswith("✎")
    assert "tester  flagged" in seen["history"]
    assert "note  “check the chart”" in seen["history"]


def test_compare_shows_question_gold_and_image_and_grades_each_models_answer(
    demo_db: Path,
) -> None:
    """The second model's answer, highlighted with →, is graded in the compare view; the
    grade is saved as the review screen saves one."""
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))
        compare = app.screen
        images = compare.query_one(SampleImages)
        await until(pilot, lambda: images.children and not images.pending)
        seen["question"] = text_of(app, "#compare-question")
        await pilot.press("right", "5")
        await until(pilot, lambda: not app.review_screen.pending and _reviews(demo_db))
        seen["subtitles"] = [str(c.border_subtitle) for c in compare.query(VerticalScroll)]

    drive(demo_db, steps)
    assert "How many apples were sold?" in seen["question"]
    assert "Ground truth: 14" in seen["question"]
    assert _reviews(demo_db) == [("demo-beta", "v1_0", 0.5)]
    assert seen["subtitles"][1] == "0.50"


def _reviews(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT m.name, s.key, r.score FROM reviews r JOIN answers a ON a.id = r.answer_id "
            "JOIN models m ON m.id = a.model_id JOIN samples s ON s.id = a.sample_id"
        ).fetchall()


def test_a_filter_with_no_match_clears_the_detail_panel(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("slash")
        await _type(app, pilot, "no answer says this")
        await until(pilot, lambda: app.session.filter.text is not None)
        await pilot.pause(0.1)
        seen["panels"] = [text_of(app, s).strip() for s in ("#title", "#answer", "#judges")]

    drive(demo_db, steps)
    assert seen["panels"] == ["", "", ""]


def test_esc_after_a_search_keeps_the_answer_under_the_cursor(demo_db: Path) -> None:
    """As after any filter (issue 31): the answer found stays under the cursor, in its
    place in the whole list."""
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("down", "down", "down", "down")
        seen["before"] = app.current().answer_id
        await pilot.press("slash")
        await _type(app, pilot, "apples")
        await until(pilot, lambda: app.session.filter.text is not None)
        found = app.current()
        await pilot.press("escape")
        await until(pilot, lambda: app.session.filter.text is None)
        seen["found"], seen["after"] = found.answer_id, app.current().answer_id
        seen["row"] = cursor(app)
        seen["place"] = app.session.place(found.answer_id)
        seen["title"] = text_of(app, "#title")
        seen["key"] = found.key

    drive(demo_db, steps)
    assert seen["after"] == seen["found"] != seen["before"]
    assert seen["row"] == seen["place"]
    assert seen["title"].startswith(seen["key"])


def test_at_80x24_question_gold_answer_and_the_runs_fit_and_the_footer_keeps_help_and_quit(
    demo_db: Path,
) -> None:
    """Nothing of the answer needs scrolling (the image shrinks), the judge table shows its
    run and result columns at the panel's width, and `? help` and `q quit` stay."""
    seen = {}

    async def steps(app, pilot) -> None:
        images = app.screen.query_one(SampleImages)
        await until(pilot, lambda: images.children and not images.pending)
        await pilot.pause(0.2)
        detail = app.screen.query_one("#detail")
        seen["scroll"] = detail.max_scroll_y
        judges = app.screen.query_one("#judges")
        console = Console(width=judges.content_size.width, file=io.StringIO(), color_system=None)
        console.print(judges.content)
        seen["judges"] = console.file.getvalue().splitlines()
        seen["screen"] = screen_lines(app.export_screenshot())

    drive(demo_db, steps, size=SMALL)
    assert seen["scroll"] == 0
    header, row = seen["judges"][:2]
    assert header.split()[:2] == ["run", "result"] and row.split()[:2] == ["0", "1.00"]
    shown = "\n".join(seen["screen"])
    for text in ("How many apples were sold?", "Ground truth: 14", "Answer: 14"):
        assert text in shown
    assert "? help" in seen["screen"][-1] and "q quit" in seen["screen"][-1]
