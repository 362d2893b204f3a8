"""Judges side by side (issue 13, items 1 and 4): a second judge adds its runs beside the
first; every table, export, `info`, the notes and the screen show one chosen judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.content import Content
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.agreement import answer_score
from lmmreview.engine.benchmarks.mmvet.rules import PROMPT_VERSION
from lmmreview.engine.scoring import JudgeChoice, Judgment
from lmmreview.tui.judges_view import JudgesPanel


def _totals(cli, db: Path, *args: str) -> dict[str, float]:
    """model -> MM-Vet total, as `export --format json` gives it."""
    result = cli("export", db, "--format", "json", *args)
    assert result.code == 0, result.stderr
    (table,) = [t for t in json.loads(result.stdout)["tables"] if t["name"] == "mmvet.capabilities"]
    return {row["model"]: row["values"]["total"] for row in table["rows"]}


@pytest.fixture
def two_judges(cli, judge_env, fake_judge, mmvet_files, tmp_path: Path) -> Path:
    """Three MM-Vet answers judged by judge-a, then by judge-b (two runs each); the fake
    judge scores a prompt asked again a little differently, so their numbers differ."""
    db = tmp_path / "two.db"
    files = mmvet_files
    assert cli("import", "mmvet", db, files["questions"], "--answers", files["alpha"]).code == 0
    for model in ("judge-a", "judge-b"):
        result = cli("judge", db, "--runs", "2", "--model", model)
        assert result.code == 0, result.stderr
    return db


def test_a_second_judge_leaves_the_first_judges_tables_as_they_were(
    cli, judge_env, fake_judge, mmvet_files, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    files = mmvet_files
    assert cli("import", "mmvet", db, files["questions"], "--answers", files["alpha"]).code == 0
    assert cli("judge", db, "--runs", "2", "--model", "judge-a").code == 0
    first = _totals(cli, db)
    markdown = cli("export", db, "--format", "md").stdout
    asked = fake_judge.requests
    assert cli("judge", db, "--runs", "2", "--model", "judge-b").code == 0
    assert fake_judge.requests == asked + 6  # judge-b asks everything itself
    assert _totals(cli, db) == first  # the default is still the first judge
    assert _totals(cli, db, "--judge", "judge-a") == first
    after = cli("export", db, "--format", "md").stdout
    assert after.replace(" Other judges in the file, not in these numbers: judge-b "
                         "(--judge NAME shows one).", "") == markdown  # fmt: skip
    second = _totals(cli, db, "--judge", "judge-b")
    assert second != first
    with Store.open(db) as store:  # judge-b's total: its own runs' scores, by hand
        judge_b = store.chosen_judge("mmvet", JudgeChoice("judge-b"))
        runs = store.deciding_judgments("mmvet", judge_b)
    per_run = [sum(r[run].score for r in runs.values()) / 3 for run in (0, 1)]
    assert second["alpha"] == pytest.approx(100 * sum(per_run) / 2)
    assert cli("judge", db, "--runs", "2", "--model", "judge-a").stdout.startswith(
        "Nothing to judge with judge-a"
    )  # judge-b's judgments settle nothing of judge-a's


def test_info_and_report_name_the_judge_and_an_unknown_one_is_an_error(cli, two_judges) -> None:
    info = json.loads(cli("info", two_judges, "--json", "--judge", "judge-b").stdout)
    assert info["datasets"][0]["judge"] == "judge-b"
    report = cli("report", two_judges)
    assert "judge judge-a (2 runs)" in report.stdout
    assert "Other judges in the file, not in these numbers: judge-b" in " ".join(
        report.stdout.split()
    )
    before = two_judges.read_bytes()
    wrong = cli("report", two_judges, "--judge", "judge-z")
    assert wrong.code == 1
    assert "no judge 'judge-z'; judges: 'judge-a', 'judge-b'" in " ".join(wrong.stderr.split())
    assert two_judges.read_bytes() == before


def test_the_settings_can_fix_the_judge_shown(cli, two_judges, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings = tmp_path / "config" / "lmmreview" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[review]\njudge = "judge-b"\n', encoding="utf-8")
    assert _totals(cli, two_judges) == _totals(cli, two_judges, "--judge", "judge-b")
    assert _totals(cli, two_judges, "--judge", "judge-a") != _totals(cli, two_judges)
    settings.write_text('[review]\njudge = "none"\n', encoding="utf-8")  # names no judge
    assert _totals(cli, two_judges) == _totals(cli, two_judges, "--judge", "judge-a")


def test_the_official_exports_follow_the_judge_the_settings_name(
    cli, two_judges, tmp_path: Path, monkeypatch
) -> None:
    """The judge is chosen once, from --judge and the settings, for every export: the
    grader's files too (they read only --judge, and fell back to the first judge)."""

    def grades(*args: str) -> dict[str, str]:
        out = tmp_path / f"grades-{len(list(tmp_path.iterdir()))}"
        result = cli("export", two_judges, "--format", "mmvet-grades", "--out", out, *args)
        assert result.code == 0, result.stderr
        return {f.name: f.read_text(encoding="utf-8") for f in out.iterdir()}

    first, second = grades("--judge", "judge-a"), grades("--judge", "judge-b")
    assert first != second and all("judge-b" in name for name in second)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings = tmp_path / "config" / "lmmreview" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[review]\njudge = "judge-b"\n', encoding="utf-8")
    assert grades() == second
    assert grades("--judge", "judge-a") == first


def test_switching_the_judge_in_the_screen_shows_its_tables(cli, two_judges) -> None:
    expected = {name: _totals(cli, two_judges, "--judge", name) for name in ("judge-a", "judge-b")}
    seen: dict[str, object] = {}

    def total(app) -> float:
        (table,) = [
            t for t in app.session.tables.breakdown.tables() if t.name == "mmvet.capabilities"
        ]
        return table.rows[0].cells["total"].value

    async def steps(app, pilot) -> None:
        seen["first"] = (app.session.judge_name, total(app))
        seen["status"] = text_of(app, "#status")
        shown = app.current().answer_id
        await pilot.press("w")
        await pick(app, pilot, "judge-b")
        await until(pilot, lambda: app.session.judge_name == "judge-b" and app.session.tables)
        seen["second"] = (app.session.judge_name, total(app))
        seen["same answer"] = app.current().answer_id == shown
        seen["side by side"] = text_of(app, "#judges")

    drive(two_judges, steps)
    assert seen["first"] == ("judge-a", pytest.approx(expected["judge-a"]["alpha"]))
    assert "judge judge-a (w: one of 2)" in str(seen["status"])
    assert seen["second"] == ("judge-b", pytest.approx(expected["judge-b"]["alpha"]))
    assert seen["same answer"]
    side = str(seen["side by side"])
    assert "Every judge, run by run" in side
    assert "▶ judge-b" in side and "  judge-a" in side


def test_the_palette_offers_the_other_judges(two_judges) -> None:
    seen: dict[str, list[str]] = {}

    async def steps(app, pilot) -> None:
        seen["commands"] = [c.title for c in app.get_system_commands(app.screen)]

    drive(two_judges, steps)
    assert "Show judge: judge-b" in seen["commands"]
    assert "Show judge: judge-a" not in seen["commands"]  # the one shown


def test_a_hostile_judge_name_is_shown_literally_in_the_palette_and_the_header(
    two_judges,
) -> None:
    """A judge model is data: markup in it is text, and an escape is a visible stand-in."""
    hostile = "[bold red]evil[/] \x1b[2J"
    with Store.open(two_judges) as store:
        answer = store.answer_ids("mmvet")["alpha", "v1_1"]
        judgment = Judgment(
            run=0, score=0.5, kind="llm", judge_model=hostile, prompt_version=PROMPT_VERSION
        )
        with store.transaction():
            store.add_judgments([(answer, judgment)])
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        (title,) = [c.title for c in app.get_system_commands(app.screen) if "evil" in c.title]
        seen["shown"] = Content.from_markup(title).plain  # as the palette reads it
        app.review_screen.show_judge(hostile)
        await until(pilot, lambda: app.session.judge_name == hostile and app.session.tables)
        seen["status"] = text_of(app, "#status")

    drive(two_judges, steps)
    assert seen["shown"] == "Show judge: [bold red]evil[/] ␛[2J"
    assert "judge [bold red]evil[/] ␛[2J (w: one of 3)" in str(seen["status"])
    assert "\x1b" not in str(seen["status"])


def test_the_judges_view_moves_with_each_verdict(two_judges) -> None:
    """W shows Δ̄ per judge against the humans; grading an answer changes it at once, to
    |mean of the judge's runs - human score| over the graded answers."""
    with Store.open(two_judges) as store:
        judges = store.judges("mmvet")
        scores = {
            judge: {a: [j.score for j in runs.values()] for a, runs in found.items()}
            for judge in judges
            if (found := store.deciding_judgments("mmvet", judge))
        }
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("W")
        panel = app.screen.query_one(JudgesPanel)
        await until(pilot, lambda: panel.is_open)
        seen["before"] = text_of(app, "#judges-view")
        graded = app.current().answer_id
        seen["graded"] = str(graded)
        await pilot.press("0")  # score 0.0
        await until(pilot, lambda: panel.found.humans.get(graded) is not None)
        seen["after"] = text_of(app, "#judges-view")
        await pilot.press("W")
        await until(pilot, lambda: not panel.is_open)

    drive(two_judges, steps)
    graded = int(seen["graded"])
    assert "0 reviewed" in seen["before"] and "1 reviewed" in seen["after"]
    for judge, per_answer in scores.items():
        delta = abs(answer_score(per_answer[graded]) - 0.0)
        row = next(line for line in seen["after"].splitlines() if line.startswith(judge.model))
        assert f"{delta:.3f}" in row.split(), (row, delta)


def test_the_judges_disagree_filter_lists_the_answers_whose_judges_differ(two_judges) -> None:
    with Store.open(two_judges) as store:
        ids = store.answer_ids("mmvet")
        apart = ids["alpha", "v1_1"]  # both judges gave 1.0 (±0.1); judge-c says 0.0
        judge_c = Judgment(
            run=0, score=0.0, kind="llm", judge_model="judge-c", prompt_version=PROMPT_VERSION
        )
        with store.transaction():
            store.add_judgments([(apart, judge_c)])
        ReviewStore(store, "x").grade(ids["alpha", "v1_0"], 1.0)  # a verdict: no judge
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "Judges disagree (|judge - judge| > 0.3)")
        await until(pilot, lambda: app.session.filter.judges_disagree is not None)
        seen["shown"] = [app.session.entries[i].answer_id for i in app.session.visible]
        seen["status"] = text_of(app, "#status")

    drive(two_judges, steps)
    assert seen["shown"] == [apart]
    assert "judges disagree" in str(seen["status"])
