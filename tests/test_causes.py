"""Error causes (MMMU §5): tagged by key, append-only, undone like verdicts, counted per
model in `report` and `export`, filtered in the screen, replaced by the settings."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.causes import MMMU_CAUSES
from lmmreview.engine.review import Entry, Filter

# Three answers the demo's offline rules mark wrong, and the cause each is given.
TAGS = ("perceptual", "perceptual", "reasoning")


def _wrong_answers(app, count: int) -> list[Entry]:
    """The first `count` answers of the list that the judge scored 0."""
    wrong = [e for e in app.session.entries if e.judge_mean() == 0.0]
    assert len(wrong) >= count
    return wrong[:count]


def _cause_table(cli, db: Path) -> dict[str, dict]:
    """The exported cause table of the mmvet dataset: model -> {"values", "n"}."""
    result = cli("export", db, "--format", "json", "--dataset", "mmvet")
    assert result.code == 0, result.stderr
    tables = [t for t in json.loads(result.stdout)["tables"] if t["name"] == "causes"]
    return {row["model"]: row for table in tables for row in table["rows"]}


def _expected(tags: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """model -> cause -> count, from (model, cause) tags."""
    counts: dict[str, dict[str, int]] = {}
    for model, cause in tags:
        counts.setdefault(model, {}).setdefault(cause, 0)
        counts[model][cause] += 1
    return counts


def _counts(table: dict[str, dict]) -> dict[str, dict[str, int]]:
    return {
        model: {cause: n for cause, n in row["n"].items() if cause != "total" and n}
        for model, row in table.items()
    }


def test_three_causes_tagged_by_key_export_as_tagged_and_undo_takes_the_last_back(
    demo_db: Path, cli
) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        wrong = _wrong_answers(app, len(TAGS))
        for entry, cause in zip(wrong, TAGS, strict=True):
            app.review_screen.reveal(entry.answer_id)
            await until(pilot, lambda e=entry: app.current().answer_id == e.answer_id)
            await pilot.press("x")
            await pick(app, pilot, MMMU_CAUSES[cause])
            await until(
                pilot, lambda c=cause: app.current().cause == c and not app.review_screen.pending
            )
        seen["tags"] = [(e.model, c) for e, c in zip(wrong, TAGS, strict=True)]
        seen["tagged"] = _cause_table(cli, demo_db)
        seen["history_tagged"] = text_of(app, "#history")
        # undo finds the latest change wherever the cursor is
        app.review_screen.reveal(wrong[0].answer_id)
        await pilot.press("u")
        await until(pilot, lambda: app.current().answer_id == wrong[-1].answer_id)
        await until(pilot, lambda: app.current().cause is None)
        seen["history_undone"] = text_of(app, "#history")
        seen["undone"] = _cause_table(cli, demo_db)

    drive(demo_db, steps)
    tags = seen["tags"]
    assert _counts(seen["tagged"]) == _expected(tags)
    for model, counts in _expected(tags).items():
        row = seen["tagged"][model]
        total = sum(counts.values())
        assert row["n"]["total"] == total
        for cause, n in counts.items():
            assert row["values"][cause] == pytest.approx(100.0 * n / total)
    assert "error cause: Reasoning error" in seen["history_tagged"]
    assert "cause: none → Reasoning error" in seen["history_tagged"]
    assert _counts(seen["undone"]) == _expected(tags[:-1])
    assert "undo cause: Reasoning error → none" in seen["history_undone"]
    assert "error cause:" not in seen["history_undone"]
    with sqlite3.connect(demo_db) as conn:
        rows = conn.execute("SELECT cause, previous, action, reviewer FROM causes ORDER BY id")
        assert rows.fetchall() == [
            ("perceptual", None, "set", "tester"),
            ("perceptual", None, "set", "tester"),
            ("reasoning", None, "set", "tester"),
            (None, "reasoning", "undo", "tester"),
        ]


def test_undo_takes_back_the_latest_change_verdict_or_cause(demo_db: Path) -> None:
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "ada")
        first, second = sorted(store.answer_ids("mmvet").values())[:2]
        review.set_cause(first, "knowledge")
        review.grade(second, 0.0)
        review.set_cause(first, "reasoning")
        assert review.undo_change("mmvet") == (first, "cause")
        assert review.detail(first).cause == "knowledge"
        assert review.undo_change("mmvet") == (second, "verdict")
        assert review.undo_change("mmvet") == (first, "cause")
        assert review.detail(first).cause is None
        assert review.undo_change("mmvet") is None
        # Another reviewer's cause in force is not undone from here.
        ReviewStore(store, "bob").set_cause(first, "textual")
        assert review.undo_change("mmvet") is None


def test_the_same_cause_again_adds_no_row(demo_db: Path) -> None:
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "ada")
        answer = min(store.answer_ids("mmvet").values())
        review.set_cause(answer, "knowledge")
        review.set_cause(answer, "knowledge")
        assert [c.cause for c in review.cause_history(answer)] == ["knowledge"]


@pytest.mark.parametrize(
    "statement", ["UPDATE causes SET cause = 'knowledge'", "DELETE FROM causes"]
)
def test_causes_are_append_only(demo_db: Path, statement: str) -> None:
    with Store.open(demo_db) as store:
        ReviewStore(store, "ada").set_cause(min(store.answer_ids("mmvet").values()), "reasoning")
    with sqlite3.connect(demo_db) as conn, pytest.raises(sqlite3.IntegrityError, match="append"):
        conn.execute(statement)
    with sqlite3.connect(demo_db) as conn:
        assert conn.execute("SELECT cause FROM causes").fetchall() == [("reasoning",)]


def test_a_database_without_causes_exports_no_cause_table(demo_db: Path, cli) -> None:
    for fmt in ("md", "csv", "json", "latex"):
        result = cli("export", demo_db, "--format", fmt)
        assert result.code == 0 and "Error causes" not in result.stdout
        assert "causes" not in result.stdout.split("\n", 1)[0]


def _settings(config_home: Path, text: str) -> Path:
    path = config_home / "lmmreview" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("causes = 'perceptual'\n", "causes"),
        ("[causes]\n", "causes"),
        ("[causes]\n'bad id' = 'Bad'\n", "causes.bad id"),
        ("[causes]\nmisread = 3\n", "causes.misread"),
    ],
)
def test_a_bad_cause_taxonomy_is_one_line_naming_the_file_and_key(
    cli, config_home: Path, text: str, key: str
) -> None:
    path = _settings(config_home, text)
    result = cli("config")
    lines = result.stderr.strip().splitlines()
    assert result.code == 1 and len(lines) == 1
    assert str(path) in lines[0] and f"{key}:" in lines[0], result.stderr


def test_the_settings_replace_the_taxonomy_in_report_and_export(
    cli, config_home: Path, demo_db: Path
) -> None:
    _settings(config_home, '[causes]\nmisread = "Misread the chart"\nguess = "Guessed"\n')
    document = json.loads(cli("config", "--json").stdout)["settings"]
    assert document["causes.misread"] == {"value": "Misread the chart", "source": "file"}
    assert "causes.perceptual" not in document
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "ada")
        first, second = sorted(store.answer_ids("mmvet").values())[:2]
        review.set_cause(first, "misread")
        review.set_cause(second, "perceptual")  # from the default taxonomy, before the change
    report = cli("report", demo_db, "--dataset", "mmvet")
    assert report.code == 0 and "Misread the chart" in report.stdout
    markdown = cli("export", demo_db, "--dataset", "mmvet").stdout
    header = next(line for line in markdown.splitlines() if "Misread the chart" in line)
    assert header.split("|")[2:4] == [" Misread the chart ", " perceptual "]


def test_the_cause_filter_keeps_the_answers_with_that_cause(demo_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        target = _wrong_answers(app, 1)[0]
        app.review_screen.reveal(target.answer_id)
        await until(pilot, lambda: app.current().answer_id == target.answer_id)
        await pilot.press("x")
        await pick(app, pilot, MMMU_CAUSES["knowledge"])
        await until(
            pilot, lambda: app.current().cause == "knowledge" and not app.review_screen.pending
        )
        await pilot.press("v")
        await pick(app, pilot, "By error cause…")
        await pick(app, pilot, MMMU_CAUSES["knowledge"])
        await until(pilot, lambda: app.session.filter.cause == "knowledge")
        seen["listed"] = [app.session.entries[i].answer_id for i in app.session.visible]
        seen["target"] = target.answer_id
        await pilot.press("x")
        await pick(app, pilot, "(no cause: clear it)")
        await until(pilot, lambda: app.current() is None or app.current().cause is None)

    drive(demo_db, steps)
    assert seen["listed"] == [seen["target"]]
    assert Filter(cause="knowledge").describe() == "cause=knowledge"
