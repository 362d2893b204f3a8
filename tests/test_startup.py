"""Start-up: `export` and `report` load only what they use (no screen, no judge client, no
importers), and `lmmreview --help` still lists every command with its help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from lmmreview.tui.cli import app

# What the table commands never need: the screen (Textual, its image widget), the judge's
# client and runner, the importers (and Pillow), the demo, the batch bookkeeping and
# sqlite-utils (`info` reads dict rows with it).
NOT_FOR_TABLES = (
    "sqlite_utils",
    "textual",
    "textual_image",
    "openai",
    "PIL",
    "asyncio",
    "lmmreview.tui.app",
    "lmmreview.db.importers",
    "lmmreview.db.demo",
    "lmmreview.db.batches",
    "lmmreview.engine.runner",
)

# Runs the real command line in a fresh interpreter, then names the modules it loaded.
PROBE = """
import json, sys
from lmmreview.tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _loaded_by(*args: str | Path) -> set[str]:
    """The modules `lmmreview ARGS...` loaded; the command must succeed."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] == 0, done.stderr
    return set(report["modules"])


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("command", ["export", "report"])
def test_the_table_commands_load_neither_the_screen_nor_the_judge_nor_the_importers(
    demo_db: Path, command: str
) -> None:
    written = demo_db.parent / "tables.md"
    options = ["--format", "md", "--out", written] if command == "export" else []
    modules = _loaded_by(command, demo_db, *options)
    assert "lmmreview.db.scoring" in modules  # the tables were made
    assert [name for name in NOT_FOR_TABLES if _loaded(modules, name)] == []
    assert written.exists() == (command == "export")


@pytest.mark.parametrize("group", [[], ["import"]], ids=["lmmreview", "import"])
def test_help_lists_every_command_with_its_help(cli, group: list[str]) -> None:
    result = cli(*group, "--help")
    assert result.code == 0
    lines = result.stdout.splitlines()
    command = typer.main.get_command(app)
    for name in group:
        command = command.commands[name]  # type: ignore[attr-defined]
    commands = command.commands  # type: ignore[attr-defined]
    assert len(commands) >= 5
    for name, sub in commands.items():
        summary = sub.get_short_help_str(limit=40)
        assert summary, name
        assert any(line.split()[:1] == [name] and summary[:20] in line for line in lines), name
