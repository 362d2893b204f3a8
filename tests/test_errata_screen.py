"""The review screen's `!` (errata): set through the dialog, shown under the gold, the
tables view's `e` switching to the tables with errata; undo from the same dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_hidden import SMALL, screen_lines
from textual.widgets import Input, Label
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.errata import ErrataStore
from lmmreview.db.review import EntryReader
from lmmreview.engine.errata import Erratum
from lmmreview.engine.tables import Table
from lmmreview.tui.screens import BreakdownScreen

KEY = "validation_Accounting_1"  # choice, gold B: alpha and beta chose B, gamma D
UNDO = "undo: back to the state before the last change"


def _accounting(tables: list[Table]) -> dict[str, float | None]:
    (subjects,) = [t for t in tables if t.name == "mmmu.subjects"]
    return {row.name: row.cells["Accounting"].value for row in subjects.rows}


async def _tables(app, pilot, errata: bool) -> dict[str, float | None]:
    """The Accounting column of the tables view, as published or (`errata`) of the twins
    with errata that `e` shows under the tables as published (empty: none)."""
    await pilot.press("b")
    await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
    screen = app.screen
    found = _accounting(screen.tables)
    if errata:
        await pilot.press("e")
        await until(pilot, lambda: "rrat" in text_of(app, "#breakdown-status"))
        assert _accounting(screen.tables) == found  # the tables as published stay
        twins = list(screen.twins.values())
        assert screen.has_class("errata") == bool(twins)  # the twins' widgets show
        found = _accounting(twins) if twins else {}
    await pilot.press("escape")
    await until(pilot, lambda: not isinstance(app.screen, BreakdownScreen))
    return found


async def _type(app, pilot, text: str) -> None:
    await until(pilot, lambda: isinstance(app.screen.focused, Input))
    app.screen.focused.value = text
    await pilot.press("enter")


def test_an_erratum_set_by_key_changes_the_tables_with_errata_only_and_undo_restores(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    def read_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tables with errata read the dataset's answers again")

    async def steps(app, pilot) -> None:
        # `e` scores the answers the screen holds with the errata: no second read
        monkeypatch.setattr(EntryReader, "bare_columns", read_again)
        gamma = next(e for e in app.session.entries if e.key == KEY and e.model == "demo-gamma")
        app.review_screen.reveal(gamma.answer_id)
        await until(pilot, lambda: app.current().answer_id == gamma.answer_id)
        seen["published"] = await _tables(app, pilot, errata=False)
        await pilot.press("!")
        await pick(app, pilot, "wrong: give the corrected gold")
        await pick(app, pilot, "D. $70,000")
        await _type(app, pilot, "")
        await _type(app, pilot, "the key's total \x1b[31mis $70,000")
        await until(pilot, lambda: "Erratum in force" in text_of(app, "#gold"))
        seen["gold"] = text_of(app, "#gold")
        seen["after"] = await _tables(app, pilot, errata=False)
        seen["errata"] = await _tables(app, pilot, errata=True)
        await pilot.press("!")
        await pick(app, pilot, UNDO)
        await until(pilot, lambda: "Erratum" not in text_of(app, "#gold"))
        seen["undone"] = await _tables(app, pilot, errata=True)

    drive(demo_db, steps, dataset="mmmu")
    published = seen["published"]
    assert published == {"demo-alpha": 100.0, "demo-beta": 100.0, "demo-gamma": 0.0}
    assert seen["after"] == published  # the published tables never move
    # by hand: Accounting holds 2 samples per model; on this one the gold becomes D
    assert seen["errata"] == {"demo-alpha": 50.0, "demo-beta": 50.0, "demo-gamma": 50.0}
    assert seen["undone"] == {}  # no erratum in force: no twin
    gold = str(seen["gold"])
    assert "Erratum in force: wrong; corrected gold D" in gold and "by tester" in gold
    assert "\x1b" not in gold  # the reason is sanitised
    with Store.open(demo_db, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu") == {}
        actions = store.conn.execute("SELECT action, reviewer FROM errata ORDER BY id").fetchall()
    assert actions == [("set", "tester"), ("undo", "tester")]


def test_the_tables_view_footer_lists_e_at_80_columns(demo_db: Path) -> None:
    seen: list[str] = []

    async def steps(app, pilot) -> None:
        await until(pilot, app.review_screen.tables_ready)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.pause(0.1)
        seen.extend(screen_lines(app.export_screenshot()))

    drive(demo_db, steps, dataset="mmmu", size=SMALL)
    footer = seen[-1]
    assert "e errata" in footer and "? help" in footer and "q quit" in footer


def test_a_wrong_letter_is_refused_before_the_reason_and_a_clear_can_be_undone(
    demo_db: Path,
) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        told: list[str] = []
        app.tell = lambda message, severity="information": told.append(message)
        gamma = next(e for e in app.session.entries if e.key == KEY and e.model == "demo-gamma")
        app.review_screen.reveal(gamma.answer_id)
        await until(pilot, lambda: app.current().answer_id == gamma.answer_id)
        await pilot.press("!")
        await pick(app, pilot, "wrong: give the corrected gold")
        await pick(app, pilot, "D. $70,000")
        await _type(app, pilot, "E")  # no such option: asked again, before the reason
        await until(pilot, lambda: told)
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        seen["told"], seen["again"] = told[0], str(app.screen.query_one(Label).render())
        await pilot.press("escape")  # cancelled: nothing saved, nothing typed lands elsewhere
        await until(pilot, lambda: not isinstance(app.screen.focused, Input))
        await pilot.press("!")
        await pick(app, pilot, "wrong: give the corrected gold")
        await pick(app, pilot, "D. $70,000")
        await _type(app, pilot, "")
        await _type(app, pilot, "the key")
        await until(pilot, lambda: "Erratum in force" in text_of(app, "#gold"))
        await pilot.press("!")
        await pick(app, pilot, "clear: the gold as published")
        await until(pilot, lambda: "Erratum" not in text_of(app, "#gold"))
        await pilot.press("!")
        await pick(app, pilot, UNDO)  # offered after a clear
        await until(pilot, lambda: "Erratum in force" in text_of(app, "#gold"))

    drive(demo_db, steps, dataset="mmmu")
    told = str(seen["told"])
    assert "'E' is not an option letter of validation_Accounting_1" in told
    assert "type them again" in told
    assert "Further acceptable option letters" in str(seen["again"])  # not the reason
    with Store.open(demo_db, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu")[KEY].gold == "D"


def test_an_erratum_another_process_writes_reaches_the_pane_of_the_open_screen(
    demo_db: Path,
) -> None:
    async def steps(app, pilot) -> None:
        gamma = next(e for e in app.session.entries if e.key == KEY and e.model == "demo-gamma")
        app.review_screen.reveal(gamma.answer_id)
        await until(pilot, lambda: "Ground truth: B" in text_of(app, "#gold"))  # drawn
        await pilot.pause(0.5)  # and polls found nothing new
        assert "Erratum" not in text_of(app, "#gold")
        with Store.open(demo_db, create=False) as store:  # another program, as the CLI would
            ErrataStore(store, "bo").set("mmmu", Erratum(KEY, "wrong", "D", reason="the key"))
        await until(pilot, lambda: "corrected gold D" in text_of(app, "#gold"))

    drive(demo_db, steps, dataset="mmmu", poll_seconds=0.2)


def test_an_erratum_another_process_gives_one_rotation_reaches_the_pane_of_another(
    demo_db: Path,
) -> None:
    """An erratum reads on its whole circular group: given on rotation 0 elsewhere, it
    shows on rotation 1000000, the answer on screen, though no row of that answer changed."""

    async def steps(app, pilot) -> None:
        here = next(e for e in app.session.entries if e.key == "1000000")
        app.review_screen.reveal(here.answer_id)
        await until(pilot, lambda: "Ground truth: D" in text_of(app, "#gold"))  # drawn
        await pilot.pause(0.5)  # and polls found nothing new
        assert "Erratum" not in text_of(app, "#gold")
        with Store.open(demo_db, create=False) as store:  # another program, as the CLI would
            ErrataStore(store, "bo").set("mmbench", Erratum("0", "wrong", "B", reason="forest"))
        await until(pilot, lambda: "from rotation 0" in text_of(app, "#gold"))

    drive(demo_db, steps, dataset="mmbench", poll_seconds=0.2)
