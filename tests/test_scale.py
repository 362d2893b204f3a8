"""Scale (issue 15): the generated million-answer database, its benchmarks, and the review
screen driven on it by keys as a reviewer would."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tui_harness import RENDERER, SIZE, pick, text_of, until

from bench.benchmarks_tui import _database
from bench.big_data import (
    MILLION_SAMPLES,
    MODELS,
    cache_folder,
    cache_name,
    cached_copy,
    write_database,
)
from bench.harness import registered, select
from bench.run import load_benchmark_modules
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.settings import Settings

# Today's code takes about 20 s to the tables at a million answers: the waits are hang
# guards, far above that, never speed checks.
PATIENCE = 600.0


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Schema, version and every table's rows in id order, `created_at` stamps left out."""
    with sqlite3.connect(db) as conn:
        found = {
            "schema": conn.execute(
                "SELECT type, name, sql FROM sqlite_master ORDER BY name"
            ).fetchall(),
            "version": conn.execute("PRAGMA user_version").fetchall(),
        }
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (table,) in tables:
            columns = [
                c[1] for c in conn.execute(f"PRAGMA table_info({table})") if c[1] != "created_at"
            ]
            found[table] = conn.execute(
                f"SELECT {', '.join(columns)} FROM {table} ORDER BY rowid"
            ).fetchall()
    return found


def test_the_bulk_writer_makes_what_import_and_score_make(tmp_path: Path) -> None:
    """The same rows and ids as `load` of the generator's batch then `score_offline`."""
    imported = _database(tmp_path, 400, images=False)
    written = write_database(tmp_path / "bulk.db", 400)
    expected = _rows(imported)
    assert len(expected["answers"]) == 400 * MODELS == len(expected["judgments"])
    assert _rows(written) == expected


def test_the_cache_builds_once_and_hands_out_copies(tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("LMMREVIEW_TEST_CACHE", f" {cache} ")
    assert cache_folder("LMMREVIEW_TEST_CACHE") == cache
    first = cached_copy(30, tmp_path / "first.db", cache)
    cached = cache / cache_name(30)
    built_at = cached.stat().st_mtime_ns
    with sqlite3.connect(first) as conn:  # whoever opens a copy may write to it
        conn.execute("DELETE FROM judgments")
    second = cached_copy(30, tmp_path / "second.db", cache)
    assert [p.name for p in cache.iterdir()] == [cached.name]  # no half-built file left
    assert cached.stat().st_mtime_ns == built_at  # not built again
    assert _rows(second) == _rows(write_database(tmp_path / "fresh.db", 30))


def test_the_million_benchmarks_run_alone_and_each_has_its_100k_figure() -> None:
    """`--only 1,000,000` picks the scale set with the issue's targets; each figure has its
    100,000-answer counterpart, named alike, so both come from the same run."""
    load_benchmark_modules()
    everything = registered()
    million = {
        b.name: b.target
        for b in select(everything, ["1,000,000"])
        # from launch, and its peers: no 100,000 twin
        if b.function.__module__ not in ("bench.benchmarks_launch", "bench.benchmarks_peers")
    }
    assert million == {
        "open 1,000,000 answers to the first screen": 1.0,
        "tables ready with 1,000,000 answers": 2.0,
        "memory with 1,000,000 answers open": 400,
        "key to next sample, 1,000,000 answers, p95": 16.7,
        "recompute all tables, 1,000,000 answers x 5 runs": 500,
    }
    names = {b.name for b in everything}
    assert {name.replace("1,000,000", "100,000") for name in million} <= names


def _graded(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT r.action, r.score, r.reviewer, s.key, m.name FROM reviews r "
            "JOIN answers a ON a.id = r.answer_id JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id ORDER BY r.id"
        ).fetchall()


def _total(db: Path, model: str) -> float:
    """A model's MM-Vet total from the database: every answer has one offline grade, which
    a human verdict replaces (in percent)."""
    with sqlite3.connect(db) as conn:
        (mean,) = conn.execute(
            "SELECT AVG(COALESCE(r.score, j.score)) FROM answers a "
            "JOIN models m ON m.id = a.model_id JOIN judgments j ON j.answer_id = a.id "
            "LEFT JOIN reviews r ON r.answer_id = a.id WHERE m.name = ?",
            (model,),
        ).fetchone()
    return 100 * mean


def _shown(status: str) -> int:
    """The list's length the status line gives ("showing 999999: unreviewed")."""
    found = re.search(r"showing ([\d,]+)", status)
    assert found, status
    return int(found[1].replace(",", ""))


def _filled(app: ReviewApp) -> bool:
    """Whether the screen shows the first table with its rows."""
    tables = app.screen.query("#table-0").results(DataTable)
    return any(table.row_count for table in tables)


@pytest.fixture(scope="session")
def scale_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the million-answer database is built once: $LMMREVIEW_TEST_CACHE (kept across
    sessions), else a folder of this session."""
    return cache_folder("LMMREVIEW_TEST_CACHE") or tmp_path_factory.mktemp("scale")


@pytest.mark.slow
def test_a_million_answers_open_grade_filter_and_show_the_tables(
    scale_cache: Path, tmp_path: Path
) -> None:
    db = cached_copy(MILLION_SAMPLES, tmp_path / "review.db", scale_cache)
    seen: dict[str, object] = {}

    async def main() -> None:
        settings = Settings(path=db.with_suffix(".toml"), reviewer="tester")
        app = ReviewApp(db, settings, image_renderer=RENDERER)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.session is not None and app.session.tables is not None, PATIENCE)  # fmt: skip
            await until(pilot, lambda: text_of(app, "#answer").strip(), PATIENCE)
            entry = app.current()
            assert entry is not None
            seen["answer"] = (entry.key, entry.model)
            await pilot.press("3")  # a human verdict of 0.3
            await until(pilot, lambda: _graded(db), PATIENCE)
            await pilot.press("v")
            await pick(app, pilot, "Unreviewed")
            await until(pilot, lambda: "unreviewed" in text_of(app, "#status"), PATIENCE)
            await until(pilot, lambda: _shown(text_of(app, "#status")) < 1_000_000, PATIENCE)
            seen["shown"] = _shown(text_of(app, "#status"))
            await pilot.press("b")
            await until(pilot, lambda: _filled(app), PATIENCE)
            table = app.screen.query_one("#table-0", DataTable)
            rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
            total = [str(c.label) for c in table.columns.values()].index("Total")
            seen["totals"] = {row[0]: row[total] for row in rows}

    asyncio.run(main())
    assert _graded(db) == [("grade", 0.3, "tester", *seen["answer"])]
    assert seen["shown"] == 1_000_000 - 1
    totals = seen["totals"]
    assert isinstance(totals, dict)
    assert totals["reviewed"] == "1" and totals["N"].replace(",", "") == str(MILLION_SAMPLES)
    for name in (f"model-{m}" for m in range(MODELS)):
        assert float(totals[name]) == pytest.approx(_total(db, name), abs=0.05 + 1e-9)


def test_the_launch_run_holds_every_target_of_issue_26_on_each_input() -> None:
    """`--only launch` measures each of the four 1,000,000-answer inputs built by the CLI
    (first screen, tables, memory, the Markdown export) and the commands, with their
    targets."""
    load_benchmark_modules()
    launch = {b.name: b.target for b in select(registered(), ["launch"])}
    for kind in ("mm-vet", "mmbench", "mmmu", "generic"):
        label = f"{kind} 1,000,000 answers"
        assert launch[f"launch first row, {label}"] == launch[f"launch first answer, {label}"] == 1
        assert launch[f"launch tables, {label}"] == 2
        assert launch[f"launch peak memory, {label}"] == 400
        assert launch[f"launch export --format md, {label}"] == 1
    assert launch["launch --version"] == launch["launch --help"] == 0.2
    assert launch["launch import generic 1,000,000 answers"] == 20
    assert launch["launch score generic 1,000,000 answers"] == 15
    assert launch["launch import mmbench tsv 4400 rows, cli"] == 3
