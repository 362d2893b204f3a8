"""The SQLite file as an interface: its views, read without lmmreview, agree with the export."""

from __future__ import annotations

import importlib.util
import json
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmmreview.db.review import ReviewStore
from lmmreview.db.schema import MIGRATIONS, SCHEMA_VERSION
from lmmreview.db.store import Store
from lmmreview.engine.benchmarks.mmvet.rules import DEFAULT_JUDGE_MODEL, PROMPT_VERSION
from lmmreview.engine.scoring import Judgment, Status

# The table column that averages every answer of a dataset, per dataset (MMBench's
# columns count circular groups or first rotations, not answers).
OVERALL = {
    "mmvet": ("mmvet.capabilities", "total"),
    "mmmu": ("mmmu.disciplines", "overall"),
    "mmmu-pro": ("mmmu-pro.disciplines", "overall"),
    "mathvista": ("mathvista.overall", "overall"),
    "hallusionbench": ("hallusionbench.questions", "overall"),
    "generic": ("generic.overall", "overall"),
}


@pytest.fixture
def graded_demo(cli, judge_env, demo_db: Path) -> Path:
    """The demo after two LLM judge runs on MM-Vet, a failed re-judgment, human grades
    (one undone again) and a human choice on a multiple-choice question."""
    assert cli("judge", demo_db, "--dataset", "mmvet", "--runs", "2").code == 0
    with Store.open(demo_db) as store:
        ids = {(d, k, m): a for d, _ in store.datasets() for a, m, k in store.answer_keys(d)}
        with store.transaction():  # run 1 of this answer: the judge's latest judgment failed
            failed = Judgment(
                run=1,
                score=None,
                status=Status.ERROR,
                kind="llm",
                judge_model=DEFAULT_JUDGE_MODEL,
                prompt_version=PROMPT_VERSION,
            )
            other = Judgment(run=0, score=0.0, kind="llm", judge_model="another-judge")
            store.add_judgments([(ids["mmvet", "v1_0", "demo-alpha"], j) for j in (failed, other)])
        review = ReviewStore(store, "ana")
        review.grade(ids["mmvet", "v1_1", "demo-alpha"], score=0.3)
        review.grade(ids["mmvet", "v1_2", "demo-beta"], score=1.0)
        review.grade(ids["mmvet", "v1_3", "demo-beta"], score=0.0)
        review.undo_last("mmvet")  # v4 is back to the judge's score
        choice = next(s.key for s in store.samples("generic") if s.options)
        review.grade(ids["generic", choice, "demo-gamma"], choice="A")
    return demo_db


def _view(db: Path, name: str) -> list[sqlite3.Row]:
    """Every row of a view, read by plain sqlite3 as any other program would."""
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(f"SELECT * FROM {name}").fetchall()


def _export(cli, db: Path) -> dict:
    result = cli("export", db, "--format", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def _cells(rows: list) -> dict[tuple[str, str], dict[str, float | int | None]]:
    """(dataset, model) -> the overall cell recomputed from effective_scores rows: per run
    the mean of the scored answers, then the mean and spread over runs."""
    runs: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    answers: dict[tuple[str, str], dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        cell = (row["dataset"], row["model"])
        answers[cell][row["answer_id"]].append(row["source"])
        if row["score"] is not None:
            runs[cell][row["run"]].append(row["score"])
        else:
            runs[cell].setdefault(row["run"], [])
    cells = {}
    for cell, per_answer in answers.items():
        per_run = [100 * sum(s) / len(s) for s in runs[cell].values() if s]
        cells[cell] = {
            "value": statistics.fmean(per_run) if per_run else None,
            "std": statistics.pstdev(per_run) if len(per_run) > 1 else None,
            "n": len(per_answer),
            "reviewed": sum("human" in s for s in per_answer.values()),
            # the one definition (engine.scoring.Outcome): no score in any run, or some
            "unscored": sum(set(s) == {"unscored"} for s in per_answer.values()),
            "partial": sum("unscored" in s and set(s) != {"unscored"} for s in per_answer.values()),
        }
    return cells


def _assert_equal_to_export(rows: list, document: dict) -> None:
    cells = _cells(rows)
    tables = {t["name"]: t for t in document["tables"]}
    for dataset, (table, column) in OVERALL.items():
        for row in tables[table]["rows"]:
            mine = cells[dataset, row["model"]]
            assert row["values"][column] == pytest.approx(mine["value"], abs=0.005), row
            std = row.get("std", {}).get(column)
            assert std == (None if mine["std"] is None else pytest.approx(mine["std"], abs=0.005))
            for count in ("n", "reviewed", "unscored", "partial"):
                assert row[count][column] == mine[count], (dataset, row["model"], count)


def test_effective_scores_read_by_sqlite3_equal_the_export(cli, graded_demo: Path) -> None:
    rows = _view(graded_demo, "effective_scores")
    _assert_equal_to_export(rows, _export(cli, graded_demo))
    by = {(r["dataset"], r["sample_key"], r["model"], r["run"]): r for r in rows}
    assert by["mmvet", "v1_0", "demo-alpha", 0]["source"] == "judge"
    # another judge's later 0.0 is no score of the shown judge's
    assert by["mmvet", "v1_0", "demo-alpha", 0]["judge"] == DEFAULT_JUDGE_MODEL
    failed = by["mmvet", "v1_0", "demo-alpha", 1]  # an older usable judgment does not count
    assert (failed["score"], failed["source"]) == (None, "unscored")
    human = by["mmvet", "v1_1", "demo-alpha", 1]
    assert (human["score"], human["source"], human["reviewer"]) == (0.3, "human", "ana")
    assert by["mmvet", "v1_3", "demo-beta", 0]["source"] == "judge"  # the grade was undone
    assert {r["source"] for r in rows if r["dataset"] == "mmmu"} == {"offline", "fallback"}


def test_the_judges_view_lists_every_judge_and_marks_the_one_the_tables_show(
    graded_demo: Path,
) -> None:
    judges = {(r["dataset"], r["judge_model"]): r for r in _view(graded_demo, "judges")}
    shown = {dataset for (dataset, _), r in judges.items() if r["shown"]}
    assert shown == {
        "mmvet", "mmvet-v2", "mmbench", "mmmu", "mmmu-pro", "mathvista", "hallusionbench",
        "mme", "ocrbench", "ocrbench-v2", "mmstar", "llava-bench", "generic",
    }  # one each  # fmt: skip
    assert judges["mmvet", DEFAULT_JUDGE_MODEL]["shown"]  # the first LLM judge
    assert not judges["mmvet", "another-judge"]["shown"]  # a later one displaces nothing
    assert not judges["mmvet", "offline rules"]["shown"]
    assert judges["mmmu", "offline rules"]["shown"]  # the only judge there


def test_current_verdicts_and_answers_readable(graded_demo: Path) -> None:
    verdicts = {
        (r["dataset"], r["sample_key"], r["model"]): r
        for r in _view(graded_demo, "current_verdicts")
    }
    assert {k[:2] for k in verdicts} >= {("mmvet", "v1_1"), ("mmvet", "v1_2")}
    assert ("mmvet", "v1_3", "demo-beta") not in verdicts  # undone: no verdict in force
    v3 = verdicts["mmvet", "v1_2", "demo-beta"]
    assert (v3["score"], v3["reviewer"], v3["action"]) == (1.0, "ana", "grade")
    assert v3["reviewed_at"]
    (chosen,) = [r for k, r in verdicts.items() if k[0] == "generic"]
    gold = next(
        r["gold"]
        for r in _view(graded_demo, "answers_readable")
        if r["answer_id"] == chosen["answer_id"]
    )
    assert (chosen["verdict_choice"], chosen["score"]) == ("A", 1.0 if gold == "A" else 0.0)
    readable = {
        (r["dataset"], r["sample_key"], r["model"]): r
        for r in _view(graded_demo, "answers_readable")
    }
    v1 = readable["mmvet", "v1_0", "demo-alpha"]
    with Store.open(graded_demo) as store:
        sample = next(s for s in store.samples("mmvet") if s.key == "v1_0")
        assert (v1["question"], v1["gold"]) == (sample.question, sample.answer)
        assert v1["model_answer"] == store.answers("mmvet", "demo-alpha")["v1_0"]


def test_a_version_3_database_gains_the_views(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        for migration in MIGRATIONS[:3]:
            conn.executescript(migration)
        conn.execute("PRAGMA user_version = 3")
    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION
    views = {
        r[0]
        for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type = 'view'")
    }
    assert views == {"effective_scores", "current_verdicts", "answers_readable", "judges"}


def test_sources_are_stored_as_given_on_the_command_line(cli, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "b.jsonl").write_text(
        '{"id": "q1", "question": "2+2?", "answer": "4"}\n'
        '{"id": "q1", "prediction": "4", "model": "m"}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert cli("import", "jsonl", "r.db", "data/b.jsonl").code == 0
    with sqlite3.connect(tmp_path / "r.db") as conn:
        stored = conn.execute("SELECT source FROM datasets UNION SELECT source FROM answers")
        assert [r[0] for r in stored] == ["data/b.jsonl"]


def test_the_demo_records_its_sources_inside_sample_data(demo_db: Path) -> None:
    """Not where this machine keeps the installed package."""
    with sqlite3.connect(demo_db) as conn:
        stored = [
            row[0]
            for row in conn.execute("SELECT source FROM datasets UNION SELECT source FROM answers")
        ]
    assert stored and all(source.startswith("sample_data/") for source in stored), stored


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def datasette(graded_demo: Path) -> Iterator[str]:
    """Datasette serving the graded demo on 127.0.0.1; yields its base URL."""
    if importlib.util.find_spec("datasette") is None:
        pytest.skip("datasette is not installed (pip install -e '.[test]' brings it)")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "datasette", "serve", str(graded_demo), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(server, base)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_until_up(server: subprocess.Popen, base: str) -> None:
    """Poll until datasette answers; fail with its stderr if it exits first."""
    for _ in range(600):
        if server.poll() is not None:
            pytest.fail(
                f"datasette exited: {server.stderr.read().decode() if server.stderr else ''}"
            )
        try:
            with urllib.request.urlopen(f"{base}/-/versions.json", timeout=5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail("datasette did not answer within a minute")


def test_datasette_serves_effective_scores_equal_to_the_export(
    cli, graded_demo: Path, datasette: str
) -> None:
    url = f"{datasette}/demo/effective_scores.json?_shape=array&_size=max"
    with urllib.request.urlopen(url, timeout=30) as response:
        rows = json.load(response)
    assert len(rows) == len(_view(graded_demo, "effective_scores"))
    _assert_equal_to_export(rows, _export(cli, graded_demo))
