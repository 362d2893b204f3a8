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
    assert "4 kept, 0 broken" in result.stdout


def test_the_contracts_catch_a_violation(tmp_path: Path) -> None:
    """A copy of the tree with engine importing db, the screen importing a command, and a
    command importing a screen module other than its entry point breaks each contract."""
    shutil.copytree(ROOT / "lmmreview", tmp_path / "lmmreview", symlinks=False)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    leaks = {
        "engine/leak.py": "import lmmreview.db.store\n",
        "tui/leak.py": "from lmmreview.tui.cli.report import read_tables\n",
        "tui/cli/leak.py": "from lmmreview.tui.review_screen import ReviewScreen\n",
    }
    for path, line in leaks.items():
        (tmp_path / "lmmreview" / path).write_text(line)
    result = _lint_imports(tmp_path)
    assert "1 kept, 3 broken" in result.stdout  # db's: no leak there
    for contract in ("engine is pure", "the screen never imports", "the commands reach"):
        line = next(line for line in result.stdout.splitlines() if line.startswith(contract))
        assert "BROKEN" in line, result.stdout


def test_every_shipped_reader_and_demo_name_is_one_db_registers() -> None:
    """The engine names its readers by names db/ registers (no module path in a string):
    each name a shipped benchmark gives must be registered and lead to a function, and
    every registered one must be used."""
    from lmmreview.db.importers import DEMOS, READERS, demo_of, reader_of
    from lmmreview.engine.registry import shipped

    importers = [i for b in shipped().values() for i in b.importers().values()]
    readers = {i.reader for i in importers}
    demos = {i.demo for i in importers if i.demo}
    assert (readers, demos) == (set(READERS), set(DEMOS))
    assert all(callable(reader_of(i)) and callable(demo_of(i) or len) for i in importers)
