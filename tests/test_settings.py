"""The settings file: keymap and reviewer on the real screen, flags over the file, errors,
`lmmreview config`, the theme saved from the command palette, and images turned off."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual_image.widget import HalfcellImage
from tui_harness import SIZE, until

from lmmreview.tui.app import ReviewApp, review_app
from lmmreview.tui.images import IMAGES_OFF, SampleImages
from lmmreview.tui.screens import HelpScreen, JudgeScreen
from lmmreview.tui.settings import Settings, SettingsError, for_command, load

SETTINGS = """\
# kept by hand: this comment must survive a theme change
reviewer = "ada"
images = "halfcell"

[judge]
model = "file-model"
runs = 3

[keymap]
accept = "y"
"""


def settings_file(config_home: Path, text: str = SETTINGS) -> Path:
    path = config_home / "lmmreview" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_screen(
    db: Path,
    settings: Settings,
    steps: Callable[[ReviewApp, Pilot], Awaitable[None]],
    dataset: str = "mmbench",
) -> ReviewApp:
    """Open `db` as `lmmreview open` would with `settings`, wait for the answer, run `steps`."""

    async def main() -> ReviewApp:
        app = review_app(db, settings, dataset)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.session is not None and app.current() is not None)
            await steps(app, pilot)
        return app

    return asyncio.run(main())


def reviews(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT action, reviewer FROM reviews ORDER BY id").fetchall()


async def press_until_reviewed(app: ReviewApp, pilot: Pilot, key: str) -> None:
    await pilot.press(key)
    await until(pilot, lambda: app.current().reviewed)


def test_the_keymap_and_reviewer_from_the_file_apply_and_the_reviewer_flag_beats_them(
    demo_db: Path, config_home: Path
) -> None:
    settings_file(config_home)

    async def accept_with_y(app: ReviewApp, pilot: Pilot) -> None:
        await pilot.press("a")  # the default key is taken away by the keymap
        await pilot.pause(0.2)
        assert not app.current().reviewed
        await press_until_reviewed(app, pilot, "y")
        await pilot.press("question_mark")  # the help lists the keys the keymap gave
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["y", "accept", "accept"] in rows

    run_screen(demo_db, for_command(), accept_with_y)
    assert reviews(demo_db) == [("accept", "ada")]

    async def next_then_y(app: ReviewApp, pilot: Pilot) -> None:
        await pilot.press("j")
        await press_until_reviewed(app, pilot, "y")

    run_screen(demo_db, for_command(reviewer="bob"), next_then_y)  # as `open --reviewer bob`
    assert reviews(demo_db) == [("accept", "ada"), ("accept", "bob")]


def test_a_judge_flag_beats_the_file_which_beats_the_default(
    cli, demo_db: Path, config_home: Path
) -> None:
    settings_file(config_home)
    from_file = cli("judge", demo_db, "--dry-run")
    flagged = cli("judge", demo_db, "--dry-run", "--model", "flag-model")
    assert from_file.code == 0 and "to judge with file-model" in from_file.stdout
    assert flagged.code == 0 and "to judge with flag-model" in flagged.stdout


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[judge\n", "not valid TOML"),
        ("[judge]\nmodle = 'x'\n", "judge.modle"),
        ("colour = 'red'\n", "colour"),
        ("[judge]\nruns = 0\n", "judge.runs"),
        ("[review]\nspread = true\n", "review.spread"),
        ("images = 'kitty'\n", "images"),
        ("[keymap]\nacept = 'y'\n", "keymap.acept"),
        # both were accepted: q accepted the judge's score, the footer lost "q quit"
        ("[keymap]\naccept = 'q'\n", "keymap.accept: key 'q' is also bound to quit"),
        (
            "[keymap]\nnext = 'j'\nprevious = 'j'\n",
            "keymap.previous: key 'j' is also bound to next",
        ),
        ("[keymap]\nflag = 'x,ctrl+f'\n", "keymap.flag: key 'x' is also bound to cause"),
        ("theme = 'no-such-theme'\n", "theme"),
        ("[judge]\napi_key_env = 'sk-unique-SECRET'\n", "judge.api_key_env"),
        # PATH's value would be sent as the key
        ("[judge]\napi_key_env = 'PATH'\n", "judge.api_key_env: expected the NAME"),
        ("[judge]\nbase_url = 'localhost:8000'\n", "judge.base_url"),  # as the flag is checked
    ],
)
def test_a_bad_settings_file_ends_in_one_line_naming_the_file_and_the_key(
    cli, demo_db: Path, config_home: Path, text: str, key: str
) -> None:
    path = settings_file(config_home, text)
    for args in (["config"], ["config", "--json"]):
        result = cli(*args)
        assert result.code == 1 and result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and key in lines[0], result.stderr
        assert "SECRET" not in result.stderr  # a key put where its NAME belongs is not echoed
    judged = cli("judge", demo_db, "--dry-run")
    if key.startswith("judge.") or key == "not valid TOML":  # what the judge reads
        assert judged.code == 1 and key in judged.stderr and "SECRET" not in judged.stderr
    else:  # the screen's keys, the filters: not the judge's business
        assert judged.code == 0, judged.stderr


def test_a_bad_judge_setting_stops_the_judge_only(cli, demo_db: Path, config_home: Path) -> None:
    """report, export and info do not judge: `[judge] runs = 0` is no reason to stop them."""
    path = settings_file(config_home, "[judge]\nruns = 0\n")
    for args in (["report"], ["export", "--format", "json"], ["info"]):
        result = cli(args[0], demo_db, *args[1:])
        assert (result.code, result.stderr) == (0, ""), args
    judged = cli("judge", demo_db, "--dry-run")
    assert judged.code == 1
    assert (
        judged.stderr.strip() == f"error: {path}: judge.runs: expected a whole number from 1 to 100"
    )


@pytest.mark.parametrize("kind", ["fifo", "folder", "huge"])
def test_a_settings_file_that_is_not_a_small_regular_file_is_refused(
    demo_db: Path, config_home: Path, kind: str
) -> None:
    """A FIFO would block every command reading settings until something wrote to it."""
    path = settings_file(config_home, "")
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text("# " + "x" * 2**21 + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lmmreview", "info", demo_db],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    expected = "larger than 1 MiB" if kind == "huge" else "not a regular file"
    assert line.startswith(f"error: {path}: ") and expected in line, line


def test_config_prints_each_setting_with_its_source(
    cli, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(config_home)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    document = json.loads(cli("config", "--json").stdout)
    assert document["path"] == str(path) and document["exists"] is True
    found = {key: (row["value"], row["source"]) for key, row in document["settings"].items()}
    assert found["reviewer"] == ("ada", "file")
    assert found["judge.runs"] == (3, "file")
    assert found["judge.base_url"] == ("http://127.0.0.1:9/v1", "environment")
    assert found["judge.concurrency"] == (16, "default")
    assert found["keymap.accept"] == ("y", "file")
    table = cli("config").stdout
    assert str(path) in table
    assert any(line.split() == ["judge.model", "file-model", "file"] for line in table.splitlines())
    assert for_command(judge_runs=2).sources["judge.runs"] == "flag"


def test_config_without_a_file_shows_the_defaults_and_the_login_name(cli) -> None:
    document = json.loads(cli("config", "--json").stdout)
    assert document["exists"] is False
    sources = {row["source"] for row in document["settings"].values()}
    assert sources == {"default", "environment"}  # the reviewer is the login name


def test_the_theme_chosen_in_the_command_palette_is_saved_keeping_the_rest(
    demo_db: Path, config_home: Path
) -> None:
    path = settings_file(config_home)

    async def choose_theme(app: ReviewApp, pilot: Pilot) -> None:
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"theme")
        await pilot.pause(0.5)
        await pilot.press("enter")  # the "Theme" command opens the theme list
        await pilot.pause(0.5)
        await pilot.press(*"nord")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "nord" and 'theme = "nord"' in path.read_text())

    run_screen(demo_db, for_command(), choose_theme)
    text = path.read_text(encoding="utf-8")
    assert text.startswith('theme = "nord"\n' + SETTINGS.splitlines()[0])  # the comment stays
    saved = load(path)
    assert saved.theme == "nord" and saved.sources["theme"] == "file"
    assert (saved.reviewer, saved.judge_runs, dict(saved.keymap)) == ("ada", 3, {"accept": "y"})
    assert review_app(demo_db, saved).theme == "nord"  # the next start uses it


def test_images_off_shows_one_line_and_no_image(demo_db: Path, config_home: Path) -> None:
    settings_file(config_home)
    seen: dict[str, object] = {}

    def look(name: str) -> Callable[[ReviewApp, Pilot], Awaitable[None]]:
        async def steps(app: ReviewApp, pilot: Pilot) -> None:
            widget = app.screen.query_one(SampleImages)
            await until(pilot, lambda: not widget.pending)
            await pilot.pause(0.2)
            texts = [str(s.content) for s in widget.query(Static)]
            seen[name] = (len(widget.query(HalfcellImage)), texts, widget.size.height)

        return steps

    run_screen(demo_db, for_command(), look("halfcell"), dataset="mmvet")  # the file's renderer
    run_screen(demo_db, for_command(images="off"), look("off"), dataset="mmvet")
    assert seen["halfcell"][0] == 1  # the same sample shows its image with a renderer
    assert seen["off"] == (0, [IMAGES_OFF], 1)


def test_the_judge_started_from_the_screen_reads_the_key_variable_the_settings_name(
    demo_db: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings_file(config_home, '[judge]\napi_key_env = "MY_JUDGE_KEY"\n')
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    said: list[str] = []

    async def open_judge(app: ReviewApp, pilot: Pilot) -> None:
        await pilot.press("J")
        await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
        said.append(" ".join(str(s.content) for s in app.screen.query(Static)))

    run_screen(demo_db, for_command(), open_judge, dataset="mmvet")
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-from-my-variable")
    run_screen(demo_db, for_command(), open_judge, dataset="mmvet")
    assert "Set the environment variable MY_JUDGE_KEY" in said[0]
    assert "LLM judge gpt-4-0613 at the OpenAI API on mmvet" in said[1]


def test_a_user_without_a_login_name_is_named_by_uid(monkeypatch, config_home: Path) -> None:
    """In a container run with a bare uid, getpass finds no name: settings still load."""

    def nameless() -> str:
        raise KeyError("getpwuid(): uid not found: 54321")

    monkeypatch.setattr(getpass, "getuser", nameless)
    loaded = load()
    assert loaded.reviewer == f"uid-{os.getuid()}"


def test_a_settings_file_that_is_a_link_in_a_loop_is_refused_in_one_line(
    cli, demo_db: Path, config_home: Path
) -> None:
    """The loop used to surface as a raw errno text naming the file twice."""
    path = settings_file(config_home, "")
    path.unlink()
    path.symlink_to(path.with_name("other.toml"))
    path.with_name("other.toml").symlink_to(path)
    for args in (["config"], ["info", demo_db]):
        result = cli(*args)
        assert (result.code, result.stdout) == (1, ""), args
        assert result.stderr == f"error: {path}: a symbolic link in a loop, leading to no file\n"


def test_blind_review_and_its_seed_come_from_the_file_a_flag_wins(cli, config_home: Path) -> None:
    path = settings_file(config_home, "[review]\nblind = true\nshuffle_seed = 42\n")
    settings = load(path)
    assert (settings.blind, settings.shuffle_seed) == (True, 42)
    assert load(config_home / "none.toml").blind is False  # off by default
    no_blind = for_command(blind=False)  # --no-blind
    assert not no_blind.blind and no_blind.sources["review.blind"] == "flag"
    assert for_command().sources["review.blind"] == "file"
    rows = json.loads(cli("config", "--json").stdout)["settings"]
    assert rows["review.blind"] == {"value": True, "source": "file"}
    assert rows["review.shuffle_seed"] == {"value": 42, "source": "file"}
    path.write_text("[review]\nshuffle_seed = -1\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"review\.shuffle_seed: expected a whole number >= 0"):
        load(path)
