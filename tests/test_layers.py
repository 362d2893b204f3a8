"""The layer rules of DESIGN.md, checked with import-linter's contracts in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    executable = Path(sys.executable).with_name("lint-imports")
    command = (
        [str(executable)]
        if executable.exists()
        else [shutil.which("lint-imports") or "lint-imports"]
    )
    return subprocess.run(
        [*command, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_engine_db_the_screen_and_the_commands_respect_the_layers() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_the_contracts_catch_a_violation(tmp_path: Path) -> None:
    """A copy of the tree with engine importing db, the screen importing a command, a
    command importing a screen module other than its entry point, and a helper the
    commands share importing the screen breaks each contract."""
    shutil.copytree(ROOT / "lmmreview", tmp_path / "lmmreview", symlinks=False)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    leaks = {
        "engine/leak.py": "import lmmreview.db.store\n",
        "tui/leak.py": "from lmmreview.tui.cli.report import read_tables\n",
        "tui/cli/leak.py": "from lmmreview.tui.review_screen import ReviewScreen\n",
    }
    for path, line in leaks.items():
        (tmp_path / "lmmreview" / path).write_text(line)
    with (tmp_path / "lmmreview" / "tui" / "settings.py").open("a") as settings:
        settings.write("from lmmreview.tui import review_screen\n")  # a door past the doors
    result = _lint_imports(tmp_path)
    assert "1 kept, 4 broken" in result.stdout  # db's: no leak there
    for contract in ("engine is pure", "the screen never imports", "the commands reach",
                     "the helpers the commands share"):  # fmt: skip
        line = next(line for line in result.stdout.splitlines() if line.startswith(contract))
        assert "BROKEN" in line, result.stdout


def test_every_shipped_file_function_is_declared_and_used() -> None:
    """The engine names its readers, demo listers and export writers by names that
    lmmreview's pyproject.toml declares under `lmmreview.files`, as a plug-in declares its
    own (no module path in the engine): each name a shipped benchmark gives must lead to a
    function, and every declared one must be used."""
    from lmmreview.db.importers import demo_of, reader_of
    from lmmreview.engine.registry import FILES_GROUP, OWN, own_declared, shipped

    importers = [i for b in shipped().values() for i in b.importers().values()]
    named = {i.reader for i in importers} | {i.demo for i in importers if i.demo}
    named |= {f.writer for b in shipped().values() for f in b.exports}
    own = {entry.name for entry in own_declared(FILES_GROUP)}
    assert named == own
    assert all(callable(reader_of(i, OWN)) and callable(demo_of(i, OWN) or len) for i in importers)
