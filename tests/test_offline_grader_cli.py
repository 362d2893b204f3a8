"""The offline grader through the real CLI: `import jsonl`, `score`, `export --format json`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, write_lines


def _overall(cli: Callable[..., CliResult], tmp_path: Path, gold: object, answer: str) -> float:
    """Import one question and one answer, score offline, and read the exported overall %."""
    data = write_lines(
        tmp_path / "colours.jsonl",
        [
            {"id": "q1", "question": "What colour is the car?", "answer": gold},
            {"id": "q1", "prediction": answer, "model": "m"},
        ],
    )
    db = tmp_path / "results.db"
    assert cli("import", "jsonl", db, data).code == 0
    assert cli("score", db).code == 0
    tables = json.loads(cli("export", db, "--format", "json").stdout)
    (overall,) = [t for t in tables["tables"] if t["name"] == "colours.overall"]
    (row,) = overall["rows"]
    assert row["offline"]["overall"] == 1  # scored by the offline rules
    value: float = row["values"]["overall"]
    return value


def test_an_answer_that_negates_the_gold_is_not_credited(cli, tmp_path: Path) -> None:
    assert _overall(cli, tmp_path, "red", "It is not red, it is blue.") == 0.0


def test_an_answer_matching_any_gold_of_a_list_is_credited(cli, tmp_path: Path) -> None:
    assert _overall(cli, tmp_path, ["red", "crimson"], "Crimson.") == 100.0
