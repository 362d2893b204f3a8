"""Blind review (`open --blind`): before the reviewer's own verdict on an answer is saved,
no line of the screen names a model or shows a judge's score; models keep stable aliases;
the seeded order is the same from one open to the next; the verdicts are stored blind."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import write_json, write_lines
from test_hostile_names import HOSTILE, SHOWN
from textual.pilot import Pilot
from tui_harness import drive, pick, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.blind import aliases, hide_names, letters, shuffled
from lmmreview.engine.scoring import Verdict
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.blind import Blinding
from lmmreview.tui.screens import HelpScreen, Menu

ZETA, ALPHA = "Zeta-Secret-7B", "Alpha-Hidden-13B"
# Each judge score renders as text seen nowhere else on the screen (nor as |score - 1|).
SCORES = {
    (ZETA, "v1_0"): "0.37", (ZETA, "v1_1"): "0.64", (ZETA, "v1_2"): "0.81",
    (ALPHA, "v1_0"): "0.29", (ALPHA, "v1_1"): "0.46",
}  # fmt: skip
# Another reviewer's verdicts: an accept of the judge's score (SCORES'), and a grade.
OTHERS = {(ZETA, "v1_1"): (Verdict(0.64), "accept"), (ALPHA, "v1_1"): (Verdict(0.2), "grade")}
THEIR_GRADE = "0.20"  # as the list and the pane would show it


@pytest.fixture
def blind_db(cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """The three-sample MM-Vet set answered by ZETA and ALPHA, each answer judged once with
    a score of SCORES, and OTHERS given by reviewer eve."""
    db = tmp_path / "blind.db"
    files = mmvet_files
    result = cli("import", "mmvet", db, files["questions"], "--images", files["images"],
                 "--answers", files["alpha"], "--model", ZETA,
                 "--answers", files["beta"], "--model", ALPHA)  # fmt: skip
    assert result.code == 0, result.stderr
    for model in (ZETA, ALPHA):
        grades = {
            key: {"model": ["gpt-4-0613"], "content": [score], "score": [float(score)]}
            for (m, key), score in SCORES.items()
            if m == model
        }
        # Named as a file often is: after the model, though not exactly as it is stored.
        path = write_json(tmp_path / f"{model.lower()}_gpt-4-0613-grade-1runs.json", grades)
        result = cli("import", "mmvet-grades", db, path, "--model", model)
        assert result.code == 0, result.stderr
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        for answer, (verdict, action) in OTHERS.items():
            ReviewStore(store, "eve").grade(ids[answer], verdict.score, action=action)
    return db


def screen_text(app: ReviewApp) -> str:
    """Every line the screen shows now (notifications and the screen on top included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def assert_blind(app: ReviewApp, *hidden: str) -> None:
    """No real model name and none of `hidden` (judge scores) is on the screen."""
    shown = screen_text(app)
    for text in (ZETA, ALPHA, "Zeta", "Alpha-", *hidden):
        assert text not in shown, (text, shown)
    for name in ("zeta", "alpha-hidden"):  # as the grade files are named, in lower case
        assert name not in shown.lower(), (name, shown)


async def refused(app: ReviewApp, pilot: Pilot, key: str, what: str) -> None:
    """`key` is refused with one line saying `what` is hidden; no view opens."""
    screen = app.screen
    await pilot.press(key)
    await until(pilot, lambda: f"{what}: hidden in blind review." in screen_text(app))
    assert app.screen is screen


def test_nothing_names_a_model_or_shows_a_judge_score_before_the_verdict(
    blind_db: Path,
) -> None:
    seen: dict[str, object] = {}

    async def steps(app: ReviewApp, pilot: Pilot) -> None:
        scores = (*SCORES.values(), THEIR_GRADE)  # eve's accept is a judge score of these
        await until(pilot, lambda: "model A" in screen_text(app))
        assert_blind(app, *scores)
        assert "5 answers, 0 reviewed" in screen_text(app)  # eve's verdicts are not the tester's
        footer = screen_text(app).splitlines()[-1]  # no key it refuses, the others kept
        assert "u undo" in footer and "v filter" in footer, footer
        for key in ("a accept", "b tables", "c compare", "J judge", "e export"):
            assert key not in footer, footer
        await pilot.press("j")  # another answer
        await until(pilot, lambda: app.current() is not None)
        assert_blind(app, *scores)
        await pilot.press("v")  # the filter menu: no filter by the judges' results
        await until(pilot, lambda: isinstance(app.screen, Menu))
        assert_blind(app, *scores)
        await until(pilot, lambda: "Unreviewed (5)" in screen_text(app))  # eve's count too
        menu = screen_text(app)
        assert "Judge failed" not in menu and "judge - human" not in menu
        assert "Reviewers disagree" not in menu
        await pick(app, pilot, "By model…")
        await until(pilot, lambda: "Model" in screen_text(app))
        assert_blind(app, *scores)
        await pick(app, pilot, "model A")  # the status line names the filter by the alias
        await until(pilot, lambda: "model=model A" in screen_text(app))
        assert_blind(app, *scores)
        await pilot.press("escape")  # every answer again
        await until(pilot, lambda: "all answers" in screen_text(app))
        await pilot.press("s")  # the sort menu: only the list order
        await until(pilot, lambda: isinstance(app.screen, Menu))
        assert "list order" in screen_text(app) and "score, lowest" not in screen_text(app)
        await pilot.press("escape")
        await pilot.press("question_mark")  # the help
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert_blind(app, *scores)
        await pilot.press("escape")
        for key, what in (("b", "The tables"), ("c", "The compare view"),
                          ("W", "The judges view"), ("a", "Accepting the judge's score"),
                          ("r", "The circular-group view"), ("J", "Running the judge")):  # fmt: skip
            await refused(app, pilot, key, what)
            assert_blind(app, *scores)
        await pilot.press("n")  # the next answer without the tester's verdict: one eve accepted
        await until(pilot, lambda: app.current().key == "v1_1")
        entry = app.current()
        assert entry is not None
        mine = SCORES[entry.model, entry.key]
        await pilot.press("equals_sign")  # a verdict: 1.0
        await until(pilot, lambda: not app.review_screen.pending and mine in screen_text(app))
        assert_blind(app, *(s for s in scores if s != mine))  # the model stays an alias
        assert "imported from a file (its name hidden in" in screen_text(
            app
        )  # notices cover the end
        # The strip still hides the tables: a model's totals can be its published score.
        assert "The tables: hidden in blind review." in screen_text(app)
        await pilot.press("equals_sign")  # again: a notification naming the answer's model
        await until(pilot, lambda: "nothing to save" in screen_text(app))
        assert_blind(app, *(s for s in scores if s != mine))
        await pilot.press("u")  # undone, the judges stay shown: a grade now is not blind
        await until(pilot, lambda: "Undid your last verdict" in screen_text(app))
        await pilot.press("equals_sign")
        await until(pilot, lambda: len(rows_by_tester(blind_db)) == 3)
        seen["graded"] = entry.answer_id

    drive(blind_db, steps, notifications=True, blind=True)
    rows, graded = rows_by_tester(blind_db), seen["graded"]
    assert rows == [(graded, "grade", 1), (graded, "undo", 0), (graded, "grade", 0)]


def rows_by_tester(db: Path) -> list[tuple[int, str, int]]:
    """(answer, action, blind) of each review row the screen's reviewer wrote."""
    with closing(sqlite3.connect(db)) as conn:
        query = "SELECT answer_id, action, blind FROM reviews WHERE reviewer = 'tester'"
        return conn.execute(query).fetchall()


def test_hostile_model_names_never_reach_the_screen(cli, tmp_path: Path) -> None:
    lines = [
        {"id": "q1", "question": "Q1?", "answer": "yes", "prediction": "yes", "model": HOSTILE},
        {"id": "q1", "prediction": "no", "model": '=HYPERLINK("http://x")'},
    ]
    db = tmp_path / "hostile.db"
    result = cli("import", "jsonl", db, write_lines(tmp_path / "bench.jsonl", lines))
    assert result.code == 0, result.stderr
    shown: list[str] = []

    async def steps(app: ReviewApp, pilot: Pilot) -> None:
        for key in ("j", "k", "v"):
            await pilot.press(key)
            await pilot.pause(0.1)
            shown.append(screen_text(app))

    drive(db, steps, dataset=None, notifications=True, blind=True)
    for text in shown:
        assert "model A" in text or "Filter" in text
        for name in (HOSTILE, SHOWN, "HYPERLINK", "SGVsbG8", "link=file"):
            assert name not in text, (name, text)


def test_the_same_seed_lists_the_same_order_and_aliases_every_open(blind_db: Path) -> None:
    opened: list[tuple[list[int], dict[str, str]]] = []

    async def steps(app: ReviewApp, pilot: Pilot) -> None:
        session = app.session
        assert session is not None
        order = [session.listed(i).answer_id for i in range(len(session.visible))]
        opened.append((order, dict(app.review_screen.blind.names)))

    for reviewer_seed in (7, 7, 8):
        drive(blind_db, steps, blind=True, shuffle_seed=reviewer_seed)
    (first, names), (again, names_again), (other, _) = opened
    assert first == again and names == names_again
    assert sorted(first) == sorted(other) and first != other
    assert sorted(names.values()) == ["model A", "model B"]


def test_a_seeded_order_depends_on_the_seed_and_the_ids_alone() -> None:
    ids = np.arange(1000, 1100, dtype=np.int64)
    rows = np.arange(100)
    once = shuffled(rows, ids, 5)
    assert np.array_equal(once, shuffled(rows, ids, 5))
    assert not np.array_equal(once, shuffled(rows, ids, 6))
    assert not np.array_equal(once, rows) and sorted(once.tolist()) == rows.tolist()
    # a subset (a filter, the top of the list read first) keeps its members' order
    some = rows[::3]
    assert shuffled(some, ids, 5).tolist() == [r for r in once.tolist() if r % 3 == 0]


def test_aliases_follow_a_hash_not_the_names_order() -> None:
    models = [f"model-{i:02d}" for i in range(30)]
    named = aliases("mmvet", models)
    assert named == aliases("mmvet", reversed(models))  # whatever order they come in
    assert sorted(named.values(), key=lambda a: (len(a), a)) == [
        f"model {letters(i)}" for i in range(30)
    ]
    assert [named[m] for m in models] != [f"model {letters(i)}" for i in range(30)]
    assert aliases("other", models) != named  # each dataset its own letters
    assert letters(25) == "Z" and letters(26) == "AA"
    assert hide_names("m1 then m12", {"m1": "model A", "m12": "model B"}) == (
        "model A then model B"
    )


def test_a_model_imported_since_the_aliases_were_read_is_named_by_no_name() -> None:
    answers = SimpleNamespace(models=[ZETA, ALPHA, "Newcomer-1B"])
    screen = SimpleNamespace(settings=SimpleNamespace(blind=True), session=None)
    blind = Blinding(screen)  # a stand-in for the review screen
    blind.opened("mmvet", [ZETA, ALPHA], frozenset())
    screen.session = SimpleNamespace(answers=answers)
    told = blind.text(f"3 new answers imported ({ALPHA}, Newcomer-1B, {ZETA})")
    assert (
        told == f"3 new answers imported ({blind.alias(ALPHA)}, model (new), {blind.alias(ZETA)})"
    )
