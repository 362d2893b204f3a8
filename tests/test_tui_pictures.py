"""Issue 30 in the screen: the tables as bars (g), every cell's 95 % interval on demand (i),
the compare view's paired difference (v); each computed off the UI thread, never shown
stale."""

from __future__ import annotations

import io
import threading
from pathlib import Path

from conftest import matches_golden, write_lines
from rich.console import Console
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from tui_harness import drive, text_of, until

from lmmreview.db import Store
from lmmreview.db.judges import read_judges, report
from lmmreview.db.review import ReviewStore
from lmmreview.db.scoring import dataset_scores, tables_and_notes
from lmmreview.engine.export import grid
from lmmreview.engine.scoring import DEFAULT_CHOICE
from lmmreview.engine.tables import Cell, Column, Row, Table
from lmmreview.engine.uncertainty import RESAMPLES, SEED
from lmmreview.tui.charts import CapabilityBars, bar
from lmmreview.tui.judges_view import JudgesPanel
from lmmreview.tui.screens import BreakdownScreen, CompareScreen
from lmmreview.tui.session import Frozen
from lmmreview.tui.versus_view import VersusScreen


def _intervals(tables: list[Table]) -> dict[tuple[str, str, str], tuple[float, float] | None]:
    return {
        (t.name, r.label, key): cell.interval
        for t in tables
        for r in t.rows
        for key, cell in r.cells.items()
    }


def _computed(screen: BreakdownScreen) -> bool:
    return any(cell.interval for t in screen.tables for r in t.rows for cell in r.cells.values())


def test_bar_draws_eighths_of_a_cell() -> None:
    assert bar(0.5, 4) == "██"
    assert bar(1 / 32, 4) == "▏"
    assert bar(1.5, 3) == "███"  # never past its width
    assert bar(0.0, 10) == ""


def _console(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(width=width, file=out, color_system=None, legacy_windows=False), out


def test_bars_show_names_from_the_data_literally_and_fit_the_width() -> None:
    """A model named with markup and a terminal escape: drawn as text, its escape made
    visible; no line wider than the console, at 80 columns and at 40."""
    hostile = "[bold]evil\x1b[2Jmodel-with-a-very-long-name-indeed-13b"
    table = Table(
        "d.t", "T", "d", [Column("a", "[red]Cap")],
        [Row(hostile, {"a": Cell(62.5, 8, interval=(40.0, 85.0))}), Row("b", {"a": Cell(None, 0)})],
    )  # fmt: skip
    for width in (80, 40):
        console, out = _console(width)
        console.print(CapabilityBars(table))
        lines = out.getvalue().splitlines()
        assert all(len(line) <= width for line in lines)
        assert "\x1b" not in out.getvalue()
        assert lines[0] == "[red]Cap"
        assert lines[1].startswith("  [bol") and lines[1].endswith("62.5 [40.0, 85.0]")
        assert width == 40 or "evil␛" in lines[1]  # the escape made visible
        assert "-13b" in lines[1]  # cut in the middle: both ends tell models apart
        assert lines[2].rstrip().endswith("–")


def test_a_bar_line_never_wraps_the_bar_gives_way_to_the_numbers() -> None:
    """A mean over runs with its std and its interval, "76.7±0.0 [40.0, 100.0]": the
    interval in brackets, the std as ±, on the bar's line at 160 columns and at 40."""
    table = Table(
        "d.t", "T", "d", [Column("total", "Total")],
        [Row("m" * 225, {"total": Cell(76.7, 8, std=0.0, interval=(40.0, 100.0))}),
         Row("b", {"total": Cell(5.0, 8, std=1.25, interval=(0.0, 12.5))})],
        std_columns=("total",),
    )  # fmt: skip
    for width in (160, 40):
        console, out = _console(width)
        console.print(CapabilityBars(table))
        lines = out.getvalue().splitlines()
        assert len(lines) == 3 and all(len(line) <= width for line in lines)
        assert lines[1].endswith(" 76.7±0.0 [40.0, 100.0]") and "█" in lines[1]
        assert lines[2].endswith(" 5.0±1.2 [0.0, 12.5]")


def test_bars_with_intervals_fit_their_lines_at_160x48(demo_db: Path) -> None:
    """i, then g: every value shows as the tables write it, [low, high], and every bar
    block is one line per model and column (none wraps)."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.press("i")
        await until(pilot, lambda: _computed(app.screen))
        await pilot.press("g")
        await until(pilot, lambda: app.screen.has_class("bars"))
        await pilot.pause(0.2)
        seen["heights"] = [
            (app.screen.query_one(f"#bars-{n}").content_size.height, t)
            for n, t in enumerate(app.screen.tables)
        ]
        seen["bars"] = text_of(app, "#bars-0")

    drive(demo_db, steps, size=(160, 48))
    for height, table in seen["heights"]:
        assert height == len(table.columns) * (1 + len(table.rows)), table.name
    first = seen["heights"][0][1]
    for _, cells in grid(first):
        assert all(f" {text}\n" in seen["bars"] for text, _ in cells)
    assert any("[" in text for _, cells in grid(first) for text, _ in cells)


def test_g_draws_the_tables_as_bars_at_80x24_and_160x48(demo_db: Path) -> None:
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.press("g")
        await until(pilot, lambda: app.screen.has_class("bars"))
        await pilot.pause(0.2)
        shots[f"breakdown-bars-{app.size.width}x{app.size.height}"] = app.export_screenshot()
        await pilot.press("g")
        await until(pilot, lambda: not app.screen.has_class("bars"))
        assert app.screen.query_one(DataTable).display

    for size in ((80, 24), (160, 48)):
        drive(demo_db, steps, size=size)
    for name, svg in shots.items():
        matches_golden(svg, f"tui/{name}.svg")


def test_the_bars_scroll_from_the_keyboard_at_once(demo_db: Path) -> None:
    """At 80x24 the bars are taller than the screen: g gives the focus to the scrolling
    view, so End, Home, PgDn and the down arrow scroll without a Tab; g again gives it back
    to the first table."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.press("g")
        await until(pilot, lambda: app.screen.has_class("bars"))
        view = app.screen.query_one("#breakdown-scroll")
        moves = []
        for key in ("end", "home", "pagedown", "down"):
            await pilot.press(key)
            await pilot.pause(0.1)
            moves.append(view.scroll_y)
        seen["moves"] = moves
        await pilot.press("g")
        await until(pilot, lambda: not app.screen.has_class("bars"))
        seen["focused"] = app.focused.id if app.focused else None

    drive(demo_db, steps, size=(80, 24))
    end, home, page, down = seen["moves"]
    assert end > 0 and home == 0 and 0 < page < down
    assert seen["focused"] == "table-0"


def test_a_long_model_name_leaves_the_tables_numbers_on_screen(cli, tmp_path: Path) -> None:
    """A 225-character model name is cut in the middle to 28 cells in the tables screen's
    rows, so its numbers stay on a 160-column screen; the row keeps the full name."""
    long = "org/" + "very-long-model-name-" * 10 + "-13b-final"
    long = long[:221] + "-13b"
    path = tmp_path / "h.db"
    for number, model in enumerate((long, "short")):
        lines = [
            {"id": f"q{i}", "question": "What?", "answer": "yes", "prediction": "yes",
             "model": model}
            for i in range(3)
        ]  # fmt: skip
        written = write_lines(tmp_path / f"h{number}.jsonl", lines)
        assert cli("import", "jsonl", path, written, "--dataset", "h").code == 0
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        view = app.screen.query_one("#table-0", DataTable)
        seen["width"], seen["screen"] = view.virtual_size.width, app.size.width
        seen["labels"] = [str(view.get_row_at(n)[0]) for n in range(2)]
        seen["keys"] = [row.key.value for row in view.ordered_rows[:2]]

    drive(path, steps, dataset="h", size=(160, 48))
    assert len(long) == 225
    assert seen["width"] <= seen["screen"]
    assert sorted(seen["keys"]) == sorted([long, "short"])
    shown = dict(zip(seen["keys"], seen["labels"], strict=True))
    assert shown["short"] == "short" and len(shown[long]) == 28
    assert shown[long].startswith("org/very") and shown[long].endswith("-13b")


def test_i_shows_every_cells_interval_as_report_computes_it(demo_db: Path) -> None:
    """The screen's intervals (from a copy of its answers, in a thread) are those of
    `tables_and_notes(..., intervals=True)` on the file; each cell shows [low, high]."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.press("i")
        await until(pilot, lambda: _computed(app.screen))
        seen["tables"] = app.screen.tables
        seen["status"] = text_of(app, "#breakdown-status")
        view = app.screen.query_one("#table-0", DataTable)
        seen["cell"] = str(view.get_cell_at(Coordinate(1, 1)))  # demo-beta, Rec

    drive(demo_db, steps)
    with Store.open(demo_db) as store:
        expected, _ = tables_and_notes(store, ["mmvet"], False, DEFAULT_CHOICE, {}, intervals=True)
    shown = seen["tables"]
    assert isinstance(shown, list)
    assert _intervals(shown) == {k: v for k, v in _intervals(expected).items() if k[0] in
                                 {t.name for t in shown}}  # fmt: skip
    beta = shown[0].rows[1].cells["rec"]
    assert beta.interval is not None
    low, high = beta.interval
    assert seen["cell"] == f"{beta.value:.1f} [{low:.1f}, {high:.1f}]"  # as exports write it
    assert "95% bootstrap intervals" in str(seen["status"])


def test_a_verdict_saved_while_intervals_compute_is_not_shown_stale(
    demo_db: Path, monkeypatch
) -> None:
    """The first computation is held until another process's verdict has landed: its
    result is never shown; the intervals shown are computed again, with the verdict."""
    release = threading.Event()
    results: list[list[Table]] = []
    shown: list[list[Table]] = []
    real_intervals, real_show = Frozen.intervals, BreakdownScreen._show

    def held(frozen: Frozen) -> list[Table]:
        first = not results
        tables = real_intervals(frozen)
        results.append(tables)
        if first:
            release.wait(30)
        return tables

    def recorded(screen: BreakdownScreen, tables: list[Table]) -> None:
        shown.append(tables)
        real_show(screen, tables)

    monkeypatch.setattr(Frozen, "intervals", held)
    monkeypatch.setattr(BreakdownScreen, "_show", recorded)

    async def steps(app, pilot) -> None:
        gamma = next(e for e in app.session.entries if e.model == "demo-gamma" and e.key == "v1_0")
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.press("i")
        await until(pilot, lambda: results)
        with Store.open(demo_db) as other:  # another terminal, another connection
            ReviewStore(other, "someone-else").grade(gamma.answer_id, 1.0)
        await until(pilot, lambda: app.screen.revision == 1)
        await until(pilot, lambda: len(results) == 2 and _computed(app.screen))
        release.set()
        await pilot.pause(0.3)  # the first computation ends: nothing of it may show

    try:
        drive(demo_db, steps, poll_seconds=0.1)
    finally:
        release.set()
    stale, fresh = results
    assert not any(tables is stale for tables in shown)
    assert shown[-1] is fresh
    total = {r.label: r.cells["total"] for r in fresh[0].rows}
    assert total["demo-gamma"].reviewed == 1 and total["demo-gamma"].value
    assert stale[0].rows[2].cells["total"].value == 0.0  # what it would have shown


def test_v_in_the_compare_view_shows_the_paired_difference_with_mcnemar(demo_db: Path) -> None:
    """The highlighted model against the next, as `DatasetScores.versus` computes it on
    the file; McNemar's p for an accuracy benchmark (MMMU). At 80x24."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        seen["pair"] = app.screen.highlighted().model
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VersusScreen) and app.screen.differences)
        screen = app.screen
        seen["a"], seen["b"], seen["differences"] = screen.a, screen.b, screen.differences
        await pilot.pause(0.2)
        seen["text"] = text_of(app, "#versus-body")
        seen["svg"] = app.export_screenshot()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))

    drive(demo_db, steps, dataset="mmmu", size=(80, 24))
    matches_golden(str(seen["svg"]), "tui/versus-80x24.svg")
    assert seen["a"] == seen["pair"] and seen["b"] != seen["a"]
    with Store.open(demo_db) as store:
        benchmark = dict(store.datasets(["mmmu"]))["mmmu"]
        judge = store.chosen_judge("mmmu", DEFAULT_CHOICE)
        scores = dataset_scores(store, "mmmu", benchmark, judge)
        expected = scores.versus(str(seen["a"]), str(seen["b"]), False, RESAMPLES, SEED)
    assert seen["differences"] == expected
    assert any(d.p_mcnemar is not None for d in expected)
    assert "McNemar p" in str(seen["text"]) and f"A: {seen['a']}" in str(seen["text"])


def _graded(db: Path) -> Path:
    """The demo's MM-Vet with 24 human verdicts (0, 0.5, 1 and 0.3 in turn), none on the
    answer shown first (its history shows the time): a graded confusion matrix and a
    reliability diagram for its offline judge."""
    with Store.open(db) as store:
        reviews = ReviewStore(store, "tester")
        ids = sorted(store.answer_ids("mmvet").items())
        graded = [answer for (_, key), answer in ids if key != "v1_0"]  # v1_0 is shown
        for number, answer in enumerate(graded[:24]):
            reviews.grade(answer, score=(0.0, 0.5, 1.0, 0.3)[number % 4])
    return db


def test_p_turns_the_judges_view_to_its_confusion_matrix_and_reliability_diagram(
    demo_db: Path,
) -> None:
    """P opens the judges view and turns its pages: the shown judge's confusion matrix
    (its counts those of `report`), its reliability diagram, the tables again. At 160x48
    and 80x24."""
    db = _graded(demo_db)
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        panel = app.screen.query_one(JudgesPanel)
        for page in ("confusion", "reliability", "tables"):
            await pilot.press("P")
            await until(pilot, lambda page=page: panel.is_open and panel.page == page)
            await pilot.pause(0.2)
            seen[page] = text_of(app, "#judges-view")
            seen[f"{page}-{app.size.width}x{app.size.height}"] = app.export_screenshot()
        await pilot.press("W")
        await until(pilot, lambda: not panel.is_open)
        seen["closed"] = panel.page

    for size in ((160, 48), (80, 24)):
        drive(db, steps, size=size)
    with Store.open(db) as store:
        found = read_judges(store, "mmvet")
        ((judge, calls),) = found.calls.items()
        expected = report(found, calls, judge)
    lines = seen["confusion"].splitlines()
    labels = expected.confusion.labels
    for label, counts in zip(labels, expected.confusion.counts, strict=True):
        row = next(line for line in lines if line.split()[:1] == [label])
        assert row.split()[1:] == [str(c) for c in counts], lines
    assert expected.calibration is not None and expected.calibration.ece is not None
    assert f"ECE {expected.calibration.ece:.3f}" in seen["reliability"]
    assert "Δ̄" in seen["tables"] and seen["closed"] == "tables"
    for page in ("confusion", "reliability"):
        for size in ("80x24", "160x48"):
            matches_golden(seen[f"{page}-{size}"], f"tui/judges-{page}-{size}.svg")


def test_the_versus_view_names_the_models_as_the_tables_do(demo_db: Path) -> None:
    """With display names in the settings' [models], the versus view's A and B are those
    names, as the tables screen's rows are."""
    names = {"demo-alpha": "Alpha 7B", "demo-beta": "Beta 13B", "demo-gamma": "Gamma 2B"}
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VersusScreen) and app.screen.differences)
        seen["a"], seen["b"] = app.screen.a, app.screen.b
        seen["text"] = text_of(app, "#versus-body")

    drive(demo_db, steps, models=names)
    assert seen["text"].startswith(f"A: {names[seen['a']]}\nB: {names[seen['b']]}\n")


def test_the_versus_view_computes_again_when_a_verdict_lands(demo_db: Path) -> None:
    """Another process's verdict while the versus view is shown: its differences are
    computed again, to those of the file with the verdict."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VersusScreen) and app.screen.differences)
        screen = app.screen
        seen["before"] = screen.differences
        session = app.session
        answer = next(
            e for e in session.entries if e.model == screen.b and session.rightness(e) == "right"
        )
        with Store.open(demo_db) as other:  # right made wrong: B's cells move
            ReviewStore(other, "someone-else").grade(answer.answer_id, 0.0)
        await until(pilot, lambda: screen.revision == 1 and screen.differences)
        seen["a"], seen["b"], seen["after"] = screen.a, screen.b, screen.differences

    drive(demo_db, steps, poll_seconds=0.1)
    with Store.open(demo_db) as store:
        benchmark = dict(store.datasets(["mmvet"]))["mmvet"]
        judge = store.chosen_judge("mmvet", DEFAULT_CHOICE)
        scores = dataset_scores(store, "mmvet", benchmark, judge)
        expected = scores.versus(str(seen["a"]), str(seen["b"]), False, RESAMPLES, SEED)
    assert seen["after"] == expected != seen["before"]
