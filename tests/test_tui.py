"""The review app, driven by keys as a reviewer would, on real databases."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, OptionList
from textual.worker import Worker
from tui_harness import cursor, drive, export_to, pick, start_judge, text_of, until

from bench.fake_judge import FakeJudge
from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import BreakdownScreen, CompareScreen, HelpScreen, JudgeScreen


def _total(app, model: str = "demo-alpha") -> float:
    (table,) = [t for t in app.session.tables.breakdown.tables() if t.name == "mmvet.capabilities"]
    return next(r for r in table.rows if r.label == model).cells["total"].value


def _reviews(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT action, score, choice, reviewer FROM reviews ORDER BY id"
        ).fetchall()


def test_grading_a_sample_changes_the_tables_and_undo_restores_them(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        entry = app.current()
        assert (entry.key, entry.model) == ("v1_0", "demo-alpha") and not entry.reviewed
        seen["before"] = _total(app)
        await pilot.press("0")  # score 0.0
        await until(pilot, lambda: app.current().reviewed)
        seen["graded"] = _total(app)
        seen["strip"] = text_of(app, "#strip")
        seen["status_graded"] = text_of(app, "#status")
        seen["list"] = app.review_screen._row(cursor(app))
        await pilot.press("u")
        await until(pilot, lambda: not app.current().reviewed)
        seen["undone"] = _total(app)
        seen["status_undone"] = text_of(app, "#status")
        seen["history"] = text_of(app, "#history")

    drive(demo_db, steps)
    assert seen["graded"] < seen["before"] and seen["undone"] == pytest.approx(seen["before"])
    assert f"Total {seen['graded']:.1f}" in seen["strip"] and "1 reviewed" in seen["strip"]
    assert "judge-human Δ" in seen["strip"]
    assert "58 answers, 1 reviewed" in seen["status_graded"]
    assert "58 answers, 0 reviewed" in seen["status_undone"]
    assert "✓" in "".join(text for text, _ in seen["list"])
    assert _reviews(demo_db) == [("grade", 0.0, None, "tester"), ("undo", None, None, "tester")]
    assert "undo: 0.00 → –" in seen["history"]


def test_choices_accept_note_and_flag_on_a_multiple_choice_dataset(demo_db: Path) -> None:
    async def steps(app, pilot) -> None:
        await pilot.press("B")
        await until(pilot, lambda: app.current().reviewed)
        await pilot.press("j", "a")  # the next answer: accept the judge's choice
        await until(pilot, lambda: app.current().reviewed)
        await pilot.press("f")
        await until(pilot, lambda: app.current().flagged)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await pilot.press(*"looks right", "enter")
        await until(pilot, lambda: "looks right" in text_of(app, "#history"))
        await pilot.press("3")  # digits do not grade a choice question
        await pilot.pause(0.2)

    drive(demo_db, steps, dataset="mmbench")
    actions = [(a, c) for a, _, c, _ in _reviews(demo_db)]
    assert actions[0] == ("grade", "B") and actions[1][0] == "accept" and actions[2][0] == "note"
    assert len(actions) == 3
    with sqlite3.connect(demo_db) as conn:
        assert conn.execute("SELECT flagged FROM flags").fetchall() == [(1,)]


def test_a_choice_key_before_the_answers_detail_is_checked_against_its_options(
    demo_db: Path,
) -> None:
    """The tables' samples hold no options (db/sample_columns.py): a letter pressed on an
    answer whose detail is not read yet is checked against the options read with it."""
    seen = {}

    async def steps(app, pilot) -> None:
        await until(pilot, lambda: app.session.tables is not None)
        screen = app.review_screen
        screen.pane.details.clear()  # as when a key comes before the answer's detail
        await pilot.press("H")  # the demo's MMBench questions have options A to D
        await until(pilot, lambda: "No option H here." in notices(app))
        screen.pane.details.clear()
        await pilot.press("C")
        await until(pilot, lambda: app.current().reviewed)
        seen["verdict"] = app.current().verdict

    drive(demo_db, steps, dataset="mmbench")
    assert seen["verdict"].choice == "C"
    assert [(a, c) for a, _, c, _ in _reviews(demo_db)] == [("grade", "C")]


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_next_unreviewed_and_the_unreviewed_filter(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5", "j", "7")
        await until(pilot, lambda: sum(e.reviewed for e in app.session.entries) == 2)
        await pilot.press("g", "n")
        seen["after_n"] = cursor(app)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen.focused, OptionList))
        await pilot.press("enter")  # the first choice: Unreviewed
        await until(pilot, lambda: app.session.filter.unreviewed)
        seen["shown"] = len(app.session.visible)
        seen["status"] = text_of(app, "#status")
        seen["all_unreviewed"] = all(
            not app.session.entries[i].reviewed for i in app.session.visible
        )
        await pilot.press("escape")
        await until(pilot, lambda: not app.session.filter.unreviewed)
        seen["cleared"] = len(app.session.visible)

    drive(demo_db, steps)
    assert seen["after_n"] == 2  # the first two are graded
    assert seen["shown"] == 58 - 2 and seen["all_unreviewed"]
    assert "showing 56: unreviewed" in seen["status"]
    assert seen["cleared"] == 58


def test_a_filter_keeps_the_cursor_on_an_answer_it_still_lists(demo_db: Path) -> None:
    """Unreviewed on, then every filter cleared, on an unreviewed answer: it stays under
    the cursor (and on screen) each time."""
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5", "j", "7")
        await until(pilot, lambda: sum(e.reviewed for e in app.session.entries) == 2)
        await pilot.press("j", "j", "j")
        kept = app.current().answer_id
        for label in ("Unreviewed", "Clear all filters"):
            await pilot.press("v")
            await pick(app, pilot, label)
            on = label == "Unreviewed"
            await until(pilot, lambda on=on: app.session.filter.unreviewed == on)
            await until(pilot, lambda: app.review_screen.pane.showing == kept)
            seen[label] = app.current().answer_id, cursor(app)

    drive(demo_db, steps)
    kept = seen["Unreviewed"][0]
    assert seen == {"Unreviewed": (kept, 2), "Clear all filters": (kept, 4)}


def test_axis_and_model_filters_combine(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "By breakdown axis…")
        await pick(app, pilot, "capability")
        await pick(app, pilot, "math")
        await pilot.press("v")
        await pick(app, pilot, "By model…")
        await pick(app, pilot, "demo-beta")
        await until(pilot, lambda: app.session.filter.model == "demo-beta")
        seen["keys"] = [
            (app.session.entries[i].key, app.session.entries[i].model) for i in app.session.visible
        ]
        seen["status"] = text_of(app, "#status")

    drive(demo_db, steps)
    with Store.open(demo_db) as store:
        math = {s.key for s in store.samples("mmvet") if "math" in s.axis("capability")}
    assert seen["keys"] and {k for k, _ in seen["keys"]} == math
    assert {m for _, m in seen["keys"]} == {"demo-beta"}
    assert "capability=math & model=demo-beta" in seen["status"]


@pytest.mark.parametrize(("limit", "shown"), [(0.05, 1), (0.3, 0)])
def test_the_disagreement_filter_uses_the_threshold_given(
    demo_db: Path, limit: float, shown: int
) -> None:
    """`open --disagreement`: answers whose |judge - human| is above it."""
    seen = {}

    async def steps(app, pilot) -> None:
        judged = app.current().judge_mean()
        await pilot.press("9", "j", "=")  # 0.9 on the first answer, 1.0 on the second
        await until(pilot, lambda: sum(e.reviewed for e in app.session.entries) == 2)
        await pilot.press("v")
        await pick(app, pilot, f"|judge - human| > {limit:g}")
        await until(pilot, lambda: app.session.filter.disagreement == limit)
        seen["judged"] = judged
        seen["shown"] = [app.session.entries[i].answer_id for i in app.session.visible]
        seen["first"] = app.session.entries[0].answer_id

    drive(demo_db, steps, disagreement=limit)
    assert seen["judged"] == 1.0  # so the first answer's verdict is 0.1 away
    assert seen["shown"] == [seen["first"]][:shown]


def test_every_mark_fits_in_the_list(demo_db: Path) -> None:
    """The marks sit last on a line: the list is wide enough for them beside its scrollbar."""
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("f")  # flag the first answer (scored by the offline rules)
        await until(pilot, lambda: app.session.entries[0].flagged)
        answers = app.screen.query_one(AnswerList)
        await until(pilot, lambda: "⚑" in answers.render_line(0).text)
        seen["line"] = answers.render_line(0).text
        seen["scrollbar"] = answers.show_vertical_scrollbar

    drive(demo_db, steps)
    assert seen["scrollbar"]  # 58 answers: the list scrolls
    assert seen["line"].rstrip().endswith("⚑  °")


def test_the_breakdown_screen_filters_the_list_to_a_cell(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        table = app.screen.query_one("#table-0", DataTable)
        table.focus()
        math_column = 1 + [c.key for c in app.screen.tables[0].columns].index("math")
        table.move_cursor(row=1, column=math_column)  # demo-beta's Math cell
        await pilot.press("enter")
        await until(pilot, lambda: app.session.filter.cell_ids is not None)
        seen["shown"] = {
            (app.session.entries[i].model, app.session.entries[i].key) for i in app.session.visible
        }
        seen["n"] = app.session.tables.breakdown.row_cells("demo-beta", "v1_3")[
            "mmvet.capabilities/math"
        ].n
        seen["status"] = text_of(app, "#status")

    drive(demo_db, steps)
    assert {model for model, _ in seen["shown"]} == {"demo-beta"}
    assert len(seen["shown"]) == seen["n"]
    assert "cell demo-beta / capabilities / math" in seen["status"]


def test_compare_shows_every_model_on_the_sample(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))
        seen["models"] = [a.model for a in app.screen.answers]
        seen["texts"] = [a.text for a in app.screen.answers]

    drive(demo_db, steps)
    assert seen["models"] == ["demo-alpha", "demo-beta", "demo-gamma"]
    assert all(isinstance(t, str) for t in seen["texts"])


def test_export_writes_the_markdown_tables_and_says_where(demo_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "tables.md"
    target.parent.mkdir()
    seen = {}

    async def steps(app, pilot) -> None:
        await export_to(app, pilot, target)
        await until(pilot, lambda: target.exists() and app._notifications)
        seen["note"] = " ".join(str(n.message) for n in app._notifications)

    drive(demo_db, steps)
    assert str(target.resolve()) in seen["note"]
    text = target.read_text()
    assert "### MM-Vet: capabilities (mmvet)" in text and "| demo-alpha |" in text


def test_help_lists_every_key_with_its_id(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        table = app.screen.query_one(DataTable)
        seen["rows"] = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]

    drive(demo_db, steps)
    ids = {row[2] for row in seen["rows"]}
    assert {
        "next",
        "undo",
        "accept",
        "flag",
        "filter",
        "breakdown",
        "compare",
        "judge",
        "export",
        "help",
    } <= ids
    assert {"score-0", "score-10", "choose-A", "choose-none"} <= ids
    assert all(row[1] for row in seen["rows"])


def test_scores_written_by_another_process_appear(demo_db: Path) -> None:
    seen = {}

    async def steps(app, pilot) -> None:
        answer = app.current().answer_id
        with Store.open(demo_db) as other:  # another terminal, another connection
            ReviewStore(other, "someone-else").grade(answer, 0.4)
        await until(pilot, lambda: "0.4" in text_of(app, "#verdict"))
        seen["reviewed"] = app.current().reviewed
        seen["history"] = text_of(app, "#history")

    drive(demo_db, steps, poll_seconds=0.1)
    assert seen["reviewed"] and "someone-else" in seen["history"]


def test_a_background_judge_run_lands_scores_in_the_list(demo_db: Path, monkeypatch) -> None:
    seen = {}
    with FakeJudge(latency=0.01) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # `open --judge-base-url` instead

        async def steps(app, pilot) -> None:
            seen["before"] = [len(e.judged) for e in app.session.entries]
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
            await pilot.press("enter")
            await until(pilot, lambda: all(len(e.judged) == 2 for e in app.session.entries), 60)
            await until(pilot, lambda: not app.review_screen.judge_running, 30)
            # the run's thread ends, then tells the screen: wait for the telling
            await until(pilot, lambda: "Judge run" in text_of(app, "#judge-status"), 30)
            seen["status"] = text_of(app, "#judge-status")
            seen["total"] = _total(app)

        drive(demo_db, steps, poll_seconds=0.1, judge_runs=2, judge_base_url=server.base_url)
        requests = server.requests
    assert set(seen["before"]) == {0, 1}  # one offline score, or none for long answers
    assert requests == 58 * 2
    assert "finished" in seen["status"]
    assert seen["total"] is not None


def test_hiding_the_judge_screen_keeps_the_run_going(demo_db: Path, monkeypatch) -> None:
    """Esc says the run goes on: it must finish every item (it failed at the next progress
    report, on the hidden screen's widgets), and J shows its progress again."""
    seen: dict[str, object] = {}
    with FakeJudge(latency=0.2) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

        async def steps(app, pilot) -> None:
            await start_judge(app, pilot, lambda: server.requests)
            await pilot.press("escape")
            await until(pilot, lambda: not app.review_screen.judge_running, 60)

            def told() -> str:  # the run's end is told a moment after it ends
                return " ".join(str(n.message) for n in app._notifications)

            await until(pilot, lambda: "Judge run finished." in told(), 30)
            seen["told"] = told()
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
            await until(pilot, lambda: app.screen.query("#judge-status"))  # composed again
            seen["status"] = text_of(app, "#judge-status")

        drive(demo_db, steps, judge_runs=1, judge_base_url=server.base_url)
        requests = server.requests
    assert seen["told"] == (
        "Showing the scores of gpt-4-0613 as they come (w shows another judge). Judge run finished."
    )
    assert "Judge run finished." in str(seen["status"])
    assert requests == 58, seen  # every MM-Vet answer once


def test_quitting_during_a_judge_run_ends_cleanly(demo_db: Path, monkeypatch) -> None:
    """The run's worker ends with the app: it must not raise telling a dead app (it printed
    a traceback after every quit during a run), nor keep asking once the app has gone."""
    crashes: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", crashes.append)
    with FakeJudge(latency=2.0) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        workers: list[Worker[None]] = []

        async def steps(app, pilot) -> None:
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
            await pilot.press("enter")
            await until(pilot, lambda: server.requests > 0)  # replies are in flight
            workers.extend(w for w in app.workers if w.group == "judge")

        app = drive(demo_db, steps, judge_runs=1, judge_base_url=server.base_url)
    assert workers and all(w.is_finished for w in workers)
    assert crashes == [] and app.return_code in (None, 0)


def test_every_key_does_one_thing() -> None:
    from lmmreview.tui.app import ReviewApp
    from lmmreview.tui.review_screen import ReviewScreen

    keys = [k for b in ReviewScreen.BINDINGS + ReviewApp.BINDINGS for k in b.key.split(",")]
    assert len(keys) == len(set(keys))
    ids = [b.id for b in ReviewScreen.BINDINGS + ReviewApp.BINDINGS]
    assert all(ids) and len(ids) == len(set(ids))
