"""Issue 14 item 2, the grading flow: advance after a grade (a setting and a key), the list
sorted by score, judge-human disagreement or run spread."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from tui_harness import cursor, drive, pick, text_of, until

from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.ordering import ORDERS, sorted_rows
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict, human_score
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.settings import SettingsError, load


def _verdicts(db: Path) -> list[tuple[int, float | None]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT answer_id, score FROM reviews ORDER BY id").fetchall()


def test_advance_after_a_grade_moves_on_and_t_turns_it_off(demo_db: Path) -> None:
    seen: dict = {}

    async def steps(app, pilot) -> None:
        screen = app.review_screen
        seen["first"] = app.current().answer_id
        await pilot.press("3")
        await until(pilot, lambda: cursor(app) == 1 and not screen.pending)
        seen["second"] = app.current().answer_id
        seen["status_on"] = text_of(app, "#status")
        await pilot.press("t")
        await pilot.press("5")
        await until(pilot, lambda: app.current().reviewed and not screen.pending)
        seen["cursor_off"] = cursor(app)
        seen["status_off"] = text_of(app, "#status")

    drive(demo_db, steps, auto_advance=True)
    # each verdict landed on the answer shown when its key was pressed
    assert _verdicts(demo_db) == [(seen["first"], 0.3), (seen["second"], 0.5)]
    assert seen["cursor_off"] == 1
    assert "advance after a grade" in seen["status_on"]
    assert "advance after a grade" not in seen["status_off"]


def test_the_setting_is_read_from_the_file_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[review]\nauto_advance = true\n", encoding="utf-8")
    assert load(path).auto_advance and not load(tmp_path / "none.toml").auto_advance
    path.write_text("[review]\nauto_advance = 1\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"review\.auto_advance: expected true or false"):
        load(path)


def _order_by(app, pilot, order: str):
    async def sort() -> None:
        await pilot.press("s")
        await pick(app, pilot, ORDERS[order])
        await until(pilot, lambda: app.session.order == order)

    return sort()


def test_sorting_by_score_puts_the_lowest_first_and_unscored_last(demo_db: Path) -> None:
    seen: dict = {}

    async def steps(app, pilot) -> None:
        session = app.session
        await _order_by(app, pilot, "score")
        rows = [session.listed(i) for i in range(len(session.visible))]
        seen["scores"] = [
            human_score(e.verdict, session.golds(e.key)) if e.reviewed else e.judge_mean()
            for e in rows
        ]
        seen["cursor"] = cursor(app)
        seen["status"] = text_of(app, "#status")
        seen["count"] = (len(session.visible), len(session.answers))

    drive(demo_db, steps, dataset="mmmu")
    scores = seen["scores"]
    known = [s for s in scores if s is not None]
    assert known == sorted(known) and len(set(known)) > 1
    assert scores == known + [None] * (len(scores) - len(known))  # unscored last
    assert seen["count"][0] == seen["count"][1] and seen["cursor"] == 0
    assert "sorted by score, lowest first" in seen["status"]


def test_sorting_by_disagreement_puts_the_largest_first_and_grades_land_right(
    demo_db: Path,
) -> None:
    seen: dict = {}

    async def steps(app, pilot) -> None:
        screen, session = app.review_screen, app.session
        # grade the first three: 1.0, 0.0 and as the judge said
        for key in ("equals_sign", "0"):
            await pilot.press(key)
            await until(pilot, lambda: not screen.pending)
            await pilot.press("j")
        await pilot.press("a")
        await until(pilot, lambda: not screen.pending and session.reviewed == 3)
        await _order_by(app, pilot, "disagreement")
        rows = [session.entries[i] for i in session.visible]
        seen["gaps"] = [e.disagreement(session.golds(e.key)) for e in rows]
        await pilot.press("5")  # grades the answer now at the top
        seen["graded"] = rows[0].answer_id
        await until(pilot, lambda: not screen.pending)
        await _order_by(app, pilot, "list")
        seen["listed"] = list(session.visible)

    drive(demo_db, steps)
    gaps = seen["gaps"]
    assert gaps[:3] == sorted(gaps[:3], reverse=True) and gaps[0] > 0 and gaps[2] == 0
    assert all(gap is None for gap in gaps[3:])  # unreviewed: nothing to compare, last
    assert _verdicts(demo_db)[-1] == (seen["graded"], 0.5)
    assert seen["listed"] == sorted(seen["listed"])


def _entry(index: int, *runs: float | None, verdict: Verdict | None = None) -> Entry:
    return Entry(index, "m", f"k{index}", judged=tuple(runs), verdict=verdict)


def test_each_order_is_stable_with_the_undefined_last() -> None:
    entries = [
        _entry(0, 0.5, 0.5),
        _entry(1),  # never judged
        _entry(2, 0.0, 1.0, verdict=Verdict(1.0)),
        _entry(3, 0.5, 0.5),
        _entry(4, 0.2, verdict=Verdict(0.2)),
        _entry(5, 1.0, 0.0),
    ]
    sample = Sample("k", "q", QuestionType.OPEN, answer="x")
    answers = AnswerColumns.from_entries(entries, [e.key for e in entries])
    visible = np.array([5, 4, 3, 2, 1, 0])  # a previous sort's order: ties go by list order

    def rows(order: str) -> list[int]:
        return sorted_rows(visible, answers, lambda _: sample.golds, order).tolist()

    assert rows("score") == [4, 0, 3, 5, 2, 1]
    assert rows("disagreement") == [2, 4, 0, 1, 3, 5]
    assert rows("spread") == [2, 5, 0, 3, 1, 4]
    assert rows("list") == [0, 1, 2, 3, 4, 5]
