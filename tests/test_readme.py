"""The README's reliability table: every promise names a test, and that test exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A row of the table: | promise | `tests/test_x.py::test_name` ... |
_NODE = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _reliability_rows() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Reliability", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def test_every_reliability_promise_is_backed_by_a_named_test_that_exists() -> None:
    rows = _reliability_rows()[1:]  # the first row is the header
    assert len(rows) >= 20
    for row in rows:
        nodes = _NODE.findall(row)
        assert nodes, f"a promise without a test: {row}"
        for path, name in nodes:
            source = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^(async )?def {name}\(", source, re.MULTILINE), f"{path}::{name}"


def test_every_import_command_has_a_readme_example() -> None:
    """Each `lmmreview import NAME` the installed benchmarks declare appears in the
    README's overview of import formats and in at least one example command."""
    from lmmreview.engine.registry import benchmarks

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    overview = readme.split("### Import formats", 1)[1].split("\n### ", 1)[0]
    commands = [c for b in benchmarks().values() for c in b.importers()]
    assert len(commands) >= 12
    for command in commands:
        assert f"| `{command}` |" in overview, command
        assert re.search(rf"^lmmreview import {re.escape(command)} ", readme, re.MULTILINE), command
