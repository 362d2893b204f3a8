"""Start-up: `--version` and every `--help` load no store, no rules and no benchmark (the
import commands' help only the benchmarks), `export` and `report` load only what they use
(no screen, no judge client, no importers), and `lmmreview --help` still lists every
command with its help. Structural, not timed: a module that is not loaded takes no time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
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

# What `--version` and `--help` never need: a contributor who imports one of these at the
# top of a command-line module makes every start slower (numpy alone is about 0.1 s).
NOT_FOR_HELP = (
    "numpy",
    "textual",
    "textual_image",
    "openai",
    "PIL",
    "sqlite3",
    "sqlite_utils",
    "lmmreview.db",
    "lmmreview.engine.registry",
    "lmmreview.engine.benchmarks",
)
# `lmmreview import --help` lists the benchmarks' import commands, `export --help` their
# official formats: those load, no more.
NOT_FOR_IMPORT_HELP = tuple(n for n in NOT_FOR_HELP if not n.startswith("lmmreview.engine"))
# The whole of lmmreview that `lmmreview --help` and `--version` load: the command line's
# modules and the little they import. A module added here must stay as light.
FOR_HELP = {
    "lmmreview",
    "lmmreview.engine",
    "lmmreview.engine.defaults",
    "lmmreview.engine.hooks",
    "lmmreview.engine.secrets",
    "lmmreview.engine.visible",
    "lmmreview.tui",
    "lmmreview.tui.cli",
    "lmmreview.tui.cli.assign",
    "lmmreview.tui.cli.config",
    "lmmreview.tui.cli.errata",
    "lmmreview.tui.cli.export",
    "lmmreview.tui.cli.figure",
    "lmmreview.tui.cli.import_run",
    "lmmreview.tui.cli.imports",
    "lmmreview.tui.cli.info",
    "lmmreview.tui.cli.judge",
    "lmmreview.tui.cli.judges",
    "lmmreview.tui.cli.merge",
    "lmmreview.tui.cli.plugin_trial",
    "lmmreview.tui.cli.reconcile",
    "lmmreview.tui.cli.report",
    "lmmreview.tui.cli.score",
    "lmmreview.tui.cli.screen",
    "lmmreview.tui.cli.versus",
    "lmmreview.tui.crash",
    "lmmreview.tui.options",
    "lmmreview.tui.output",
    "lmmreview.tui.plugin_watch",
    "lmmreview.tui.safe_text",
}

# Runs the real command line in a fresh interpreter, as the `lmmreview` script does (one
# command after another: argv[1] is a JSON list of argument lists), then names the modules
# loaded so far after each, and for every module the lmmreview lines that imported it.
PROBE = """
import json, sys

first = {}  # module -> "module:line" of the lmmreview frames importing it, innermost first


class Watch:  # asked first about each module not loaded yet; finds nothing itself
    def find_spec(self, name, path=None, target=None):
        frame, lines = sys._getframe(1), []
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            if module.startswith("lmmreview"):
                lines.append(f"{module}:{frame.f_lineno}")
            frame = frame.f_back
        first.setdefault(name, lines)
        return None


sys.meta_path.insert(0, Watch())
start = set(sys.modules)
from lmmreview.tui.cli import main

steps = []
for args in json.loads(sys.argv[1]):
    try:
        main(args)
    except SystemExit as exit:
        code = exit.code
    steps.append({"code": code, "modules": sorted(set(sys.modules) - start)})
print(json.dumps({"steps": steps, "first": first}))
"""


@dataclass
class Loaded:
    """The modules a command had loaded by the time it ended, and who imported each."""

    modules: set[str]
    first: dict[str, list[str]]

    def which(self, names: Iterable[str]) -> list[str]:
        """Those of `names` that were loaded (a package is, when any of its modules is),
        each with the lines that imported it: what a failing assertion shows."""
        return [
            f"{name} (imported at {' <- '.join(self.first.get(name) or ['?'])})"
            for name in names
            if name in self.modules
        ]


def _probe(*commands: list[str]) -> list[Loaded]:
    """Run the commands one after another in one fresh interpreter (each must succeed):
    what had loaded after each. Modules only accumulate, so what the first commands did
    not load, none of them loaded."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(commands)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert [step["code"] for step in report["steps"]] == [0] * len(commands), done.stderr
    return [Loaded(set(step["modules"]), report["first"]) for step in report["steps"]]


def _loaded_by(*args: str | Path) -> Loaded:
    """What `lmmreview ARGS...` loaded; the command must succeed."""
    return _probe([str(a) for a in args])[0]


@pytest.fixture(scope="module")
def help_probe() -> dict[str, Loaded]:
    """`--version`, `--help`, each command's `--help`, then each import command's, run in
    one interpreter: what had loaded after each, by its command line."""
    group = typer.main.get_command(app)
    imports = [["import", name] for name in group.commands["import"].commands]  # type: ignore[attr-defined]
    commands = [
        [],
        *([name] for name in group.commands if name not in ("import", "export")),  # type: ignore[attr-defined]
        ["export"],  # it and the import commands load the benchmarks: last, as modules stay
        ["import"],
        *imports,
    ]
    steps = _probe(["--version"], *([*c, "--help"] for c in commands))
    lines = ["--version", *(" ".join([*c, "--help"]) for c in commands)]
    return dict(zip(lines, steps, strict=True))


def test_version_and_help_load_only_the_command_line(help_probe: dict[str, Loaded]) -> None:
    for line in ("--version", "--help"):
        extra = help_probe[line].which(
            m for m in help_probe[line].modules if m.startswith("lmmreview") and m not in FOR_HELP
        )
        assert extra == [], f"lmmreview {line} loaded {extra}: import it where it is used"


def test_no_help_loads_the_store_the_rules_or_the_screen(help_probe: dict[str, Loaded]) -> None:
    """In the order they ran: the first to fail is the command that loaded the module."""
    assert len(help_probe) > 20  # every command, lmmreview's import commands included
    for line, loaded in help_probe.items():
        # `import --help` lists the benchmarks' import commands, `export --help` their formats
        heavy = NOT_FOR_IMPORT_HELP if line.startswith(("import", "export")) else NOT_FOR_HELP
        found = loaded.which(heavy)
        assert found == [], f"lmmreview {line} loaded {found}: import it where it is used"


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("command", ["export", "report"])
def test_the_table_commands_load_neither_the_screen_nor_the_judge_nor_the_importers(
    demo_db: Path, command: str
) -> None:
    written = demo_db.parent / "tables.md"
    options = ["--format", "md", "--out", written] if command == "export" else []
    modules = _loaded_by(command, demo_db, *options).modules
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
