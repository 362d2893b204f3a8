"""Inspect AI logs (issue 29, acceptance b): a log written by inspect_ai itself (a tiny task
run with its mock model, tests/data/inspect/write_log.py) imports; after grading,
`export --format inspect` gives a copy that inspect_ai reads back with the edited scores,
their history and provenance. And the refusals: no extra, no log, a moved or changed log."""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import dump

from lmmreview.db import Store
from lmmreview.db.importers.batch import ToolRun
from lmmreview.db.importers.inspect_logs import (
    PROMPT_VERSION,
    TWICE,
    mapped,
    sample_key,
    tool_run,
)
from lmmreview.db.imports import file_sha256
from lmmreview.db.inspect_edits import inspect_value
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import IMPORTED, Judge

WRITER = Path(__file__).parent / "data" / "inspect" / "write_log.py"


def write_log(folder: Path, epochs: int) -> Path:
    """The log inspect_ai writes for the tiny task (its data and cache folders in tmp)."""
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    run = subprocess.run(
        [sys.executable, str(WRITER), str(folder / "logs"), str(epochs)],
        capture_output=True, text=True, env=env, cwd=folder, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return Path(run.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def written_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_log(tmp_path_factory.mktemp("inspect"), epochs=1)


@pytest.fixture
def log(written_log: Path, tmp_path: Path) -> Path:
    """A copy of the log, each test's own (one test moves it)."""
    copy = tmp_path / "logs" / written_log.name
    copy.parent.mkdir()
    shutil.copyfile(written_log, copy)
    return copy


def rows(db: Path, query: str) -> list[tuple]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(query).fetchall()


def test_a_log_imports_with_its_samples_images_answers_scorers_and_run(cli, log, tmp_path):
    db = tmp_path / "r.db"
    result = cli("import", "inspect", db, log)
    assert result.code == 0, result.stderr
    assert "3 samples (3 new), 1 new images; answers: mockllm/model 3 new" in result.stdout
    assert "9 imported judgments as import 1" in result.stdout
    assert "scorer 'stars': 1 value(s) not a score in [0, 1], kept unscored: q2" in result.stderr
    samples = rows(
        db,
        "SELECT key, question, question_type, answer, alt_answers, options, extra FROM samples ORDER BY id",
    )
    assert samples == [
        ("q1", "Colour? A red B blue", "open", "A", None, None, '{"inspect_id":"q1","inspect_epoch":1}'),
        ("q2", "What is 2+2?", "open", "4", '["four"]', None, '{"inspect_id":"q2","inspect_epoch":1}'),
        ("3", "Pick the sky's colour", "choice", "B", None, '{"A": "red", "B": "blue"}', '{"inspect_id":3,"inspect_epoch":1}'),
    ]  # fmt: skip
    assert rows(
        db,
        "SELECT s.key, i.format, i.width FROM sample_images x JOIN samples s ON s.id = x.sample_id JOIN images i ON i.hash = x.image_hash",
    ) == [("q1", "PNG", 4)]
    assert rows(db, "SELECT text FROM answers ORDER BY id") == [("A, it is red",), ("4",), ("B",)]
    judged = rows(
        db,
        "SELECT s.key, j.judge_kind, j.judge_model, j.prompt_hash, j.score, j.status FROM judgments j JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id ORDER BY j.id",
    )
    assert judged == [
        ("q1", "imported", "letter", "inspect_ai", 1.0, "ok"),
        ("q1", "imported", "stars", "inspect_ai", 0.25, "ok"),
        ("q1", "imported", "match", "inspect_ai", 0.0, "ok"),
        ("q2", "imported", "letter", "inspect_ai", 0.0, "ok"),
        ("q2", "imported", "stars", "inspect_ai", None, "unparseable"),  # 7: kept unscored
        ("q2", "imported", "match", "inspect_ai", 1.0, "ok"),
        ("3", "imported", "letter", "inspect_ai", 1.0, "ok"),
        ("3", "imported", "stars", "inspect_ai", 0.25, "ok"),
        ("3", "imported", "match", "inspect_ai", 1.0, "ok"),
    ]
    (listed,) = json.loads(cli("imports", db, "--json").stdout)
    assert (listed["dataset"], listed["file"], listed["sha256"]) == (
        "tiny",
        str(log),
        file_sha256(log),
    )
    run = listed["run"]
    assert run["tool"] == "inspect_ai" and run["version"].startswith("0.3.")
    assert run["command"].startswith("tiny") and datetime.fromisoformat(run["date"])
    again = cli("import", "inspect", db, log)
    assert again.code == 0 and "already there as import 1: nothing to add" in again.stdout


def test_the_run_record_names_the_packages_commit_command_and_grader():
    """ToolRun from the fields EvalSpec has (inspect_ai/log/_log.py): packages, revision,
    task, task_args, model_roles (a role may hold a list of models), created."""
    spec = SimpleNamespace(
        packages={"inspect_ai": "0.3.285", "inspect_evals": "0.3.1"},
        revision=SimpleNamespace(commit="abc123"),
        task="inspect_evals/mmmu",
        task_args={"subject": "Art", "shots": 2},
        model_roles={
            "grader": [SimpleNamespace(model="openai/gpt-4o"), SimpleNamespace(model="m2")]
        },
        created="2026-11-27T23:09:20+00:00",
    )
    assert tool_run(spec) == ToolRun(
        "inspect_ai", "0.3.285, inspect_evals 0.3.1", "abc123",
        "inspect_evals/mmmu -T subject=Art -T shots=2", "openai/gpt-4o, m2",
        "2026-11-27T23:09:20+00:00",
    )  # fmt: skip
    bare = SimpleNamespace(
        packages={}, revision=None, task="t", task_args={}, model_roles=None, created="d"
    )
    assert tool_run(bare).recorded() == {"tool": "inspect_ai", "command": "t", "date": "d"}


def test_a_graded_log_exports_with_score_edits_inspect_reads_back(cli, log, tmp_path):
    from inspect_ai.log import read_eval_log

    db, out = tmp_path / "r.db", tmp_path / "out"
    before = file_sha256(log)
    assert cli("import", "inspect", db, log).code == 0
    with Store.open(db) as store:
        review = ReviewStore(store, "ana")
        answers = {key: answer for answer, _, key in store.answer_keys("tiny")}
        review.grade(answers["q1"], 0.0)
        review.note(answers["q1"], "red, but the answer says A for the wrong reason")
        review.grade(answers["3"], choice="A")  # wrong: the gold is B
        review.grade(answers["q2"], 1.0)
        review.grade(answers["q2"], 0.5)
        review.undo_last("tiny")  # back to 1.0
        stamps = dict(
            rows(
                db,
                "SELECT a.id, MAX(r.created_at) FROM reviews r JOIN answers a ON a.id = r.answer_id WHERE r.action != 'note' GROUP BY a.id",
            )
        )
    result = cli("export", db, "--format", "inspect", "--out", out)
    assert result.code == 0, result.stderr
    edited = out / log.name
    assert f"wrote {edited}: 9 score edits on {log}" in result.stdout
    assert file_sha256(log) == before  # the original untouched

    back = read_eval_log(str(edited))
    scores = {(s.id, name): score for s in back.samples for name, score in s.scores.items()}
    assert {k: v.value for k, v in scores.items()} == {
        ("q1", "letter"): "I", ("q1", "stars"): 0.0, ("q1", "match"): "I",
        ("q2", "letter"): "C", ("q2", "stars"): 1.0, ("q2", "match"): "C",
        (3, "letter"): "I", (3, "stars"): 0.0, (3, "match"): "I",
    }  # fmt: skip
    assert scores[3, "letter"].answer == "A"  # the option the reviewer chose
    first = scores["q1", "letter"]
    original, edit = first.history
    assert (original.value, original.provenance) == ("C", None)
    assert edit.value == "I"
    assert edit.provenance.author == "ana"
    assert edit.provenance.reason == "red, but the answer says A for the wrong reason"
    assert edit.provenance.timestamp == datetime.fromisoformat(stamps[answers["q1"]])
    assert edit.provenance.metadata["tool"] == "lmmreview"
    assert scores["q2", "stars"].history[0].value == 7  # the value lmmreview kept unscored
    assert scores["q2", "match"].history[-1].provenance.reason == "reviewed in lmmreview"
    metrics = {s.name: s.metrics for s in back.results.scores}
    assert metrics["letter"]["accuracy"].value == pytest.approx(1 / 3)  # recomputed


def test_a_log_moved_or_changed_since_the_import_is_refused_by_name(cli, log, tmp_path):
    db, out = tmp_path / "r.db", tmp_path / "out"
    assert cli("import", "inspect", db, log).code == 0
    moved = log.rename(tmp_path / "elsewhere.eval")
    result = cli("export", db, "--format", "inspect", "--out", out)
    assert result.code == 1
    assert f"{log}: the Inspect log of import 1 (tiny) is not there any more" in result.stderr
    shutil.copyfile(moved, log)
    with log.open("ab") as file:
        file.write(b"\0")
    result = cli("export", db, "--format", "inspect", "--out", out)
    assert result.code == 1
    assert f"{log}: the Inspect log of import 1 (tiny) has changed since" in result.stderr
    assert not out.exists()


def test_an_exported_copy_imports_the_scorers_own_values(cli, log, tmp_path):
    """The copy's edits are a reviewer's verdicts: read again, each score is the scorer's
    (the first of its history), and the import says which were edited."""
    db, out = tmp_path / "r.db", tmp_path / "out"
    assert cli("import", "inspect", db, log).code == 0
    with Store.open(db) as store:
        answers = {key: answer for answer, _, key in store.answer_keys("tiny")}
        ReviewStore(store, "ana").grade(answers["q1"], 0.0)  # the scorers said C (1.0)
    assert cli("export", db, "--format", "inspect", "--out", out).code == 0
    over = cli("import", "inspect", db, out / log.name)  # the same scorers' judgments
    assert over.code == 1
    assert "Give --replace" in over.stderr and "--judge" not in over.stderr  # it has none
    again = cli("import", "inspect", tmp_path / "again.db", out / log.name)
    assert again.code == 0, again.stderr
    assert "3 score(s) were edited after the scorer gave them" in again.stderr
    with Store.open(tmp_path / "again.db") as store:
        (q1,) = [a for a, _, key in store.answer_keys("tiny") if key == "q1"]
        letter = Judge(IMPORTED, "letter", PROMPT_VERSION)
        assert store.latest_judgments("tiny", letter)[q1, 0].score == 1.0


def test_the_copy_never_goes_over_the_original(cli, log, tmp_path):
    """--out naming the log, or its folder (Inspect's ./logs), is refused: the original
    stays the record."""
    db = tmp_path / "r.db"
    assert cli("import", "inspect", db, log).code == 0
    before = file_sha256(log)
    for out in (log, log.parent):
        result = cli("export", db, "--format", "inspect", "--out", out)
        assert result.code == 1
        assert f"would write over the original log {log}" in result.stderr
    assert file_sha256(log) == before


def test_without_the_extra_the_import_names_it(cli, log, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import raises ImportError
    db = tmp_path / "r.db"
    result = cli("import", "inspect", db, log)
    assert result.code == 1
    assert "needs the extra lmmreview[inspect]: pip install 'lmmreview[inspect]'" in result.stderr
    assert not db.exists()


def test_a_file_that_is_no_log_is_refused_and_the_database_unchanged(cli, log, tmp_path):
    db = tmp_path / "r.db"
    assert cli("import", "inspect", db, log).code == 0
    kept = dump(db)
    for name, content in (("notes.eval", b"not a zip"), ("notes.txt", b"hello")):
        bad = tmp_path / name
        bad.write_bytes(content)
        result = cli("import", "inspect", db, bad)
        assert result.code == 1
        assert result.stderr.startswith(f"error: {bad}: not a log inspect_ai ")
    assert dump(db) == kept


@pytest.mark.parametrize(("copied", "given"), [("q1", "q1"), (3, "3")])
def test_two_samples_with_one_id_are_refused_by_name(cli, log, tmp_path, copied, given):
    """A log whose samples share an id (edited: `inspect eval` refuses such a dataset) is
    refused naming the file and the id; importing one of them lost an answer silently.
    Written by inspect_ai as JSON: its .eval writer keeps one sample per id and epoch."""
    from inspect_ai.log import read_eval_log, write_eval_log

    written = read_eval_log(str(log))
    assert written.samples is not None
    twin = next(s for s in written.samples if s.id == copied).model_copy(update={"id": given})
    written.samples.append(twin)
    edited, db = tmp_path / "twice.json", tmp_path / "r.db"
    write_eval_log(written, str(edited))
    result = cli("import", "inspect", db, edited)
    assert result.code == 1
    assert result.stderr == f"error: {edited}: sample '{given}': {TWICE}\n"
    assert not db.exists()


def test_epochs_after_the_first_are_samples_of_their_own(cli, tmp_path):
    """Each epoch is another answer: a sample of its own, whose verdict edits that epoch."""
    from inspect_ai.log import read_eval_log

    assert sample_key("q1", 1) == "q1"
    assert sample_key(7, 3) == "7 epoch 3"
    log, db = write_log(tmp_path, epochs=2), tmp_path / "r.db"
    assert cli("import", "inspect", db, log).code == 0
    with Store.open(db) as store:
        answers = {key: answer for answer, _, key in store.answer_keys("tiny")}
        assert sorted(answers) == ["3", "3 epoch 2", "q1", "q1 epoch 2", "q2", "q2 epoch 2"]
        ReviewStore(store, "ben").grade(answers["q2 epoch 2"], 0.0)
    assert cli("export", db, "--format", "inspect", "--out", tmp_path / "out.eval").code == 0
    edited = {
        (s.id, s.epoch): s.scores["letter"]
        for s in read_eval_log(str(tmp_path / "out.eval")).samples
    }
    assert [k for k, score in edited.items() if score.history] == [("q2", 2)]
    assert edited["q2", 2].value == "I" and edited["q2", 2].history[-1].provenance.author == "ben"


@pytest.mark.parametrize(
    ("value", "score"),
    [
        ("C", 1.0), ("P", 0.5), ("I", 0.0), ("N", 0.0), ("yes", 1.0), ("False", 0.0),
        (True, 1.0), (0, 0.0), (0.25, 0.25), ("0.75", 0.75),
        (7, None), (-0.5, None), (math.nan, None), ("maybe", None), ([1, 0], None),
        ({"a": 1}, None),
    ],
)  # fmt: skip
def test_inspect_values_map_to_scores_as_value_to_float_does_or_stay_unscored(value, score):
    assert mapped(value) == score


@pytest.mark.parametrize(
    ("score", "original", "written"),
    [(1.0, "I", "C"), (0.5, "C", "P"), (0.0, "N", "I"), (0.3, "C", 0.3), (1.0, False, True),
     (0.0, 0.25, 0.0), (0.5, True, 0.5)],
)  # fmt: skip
def test_a_verdict_is_written_as_the_scorer_wrote_its_values(score, original, written):
    assert inspect_value(score, original) == written
    assert type(inspect_value(score, original)) is type(written)


def test_a_log_with_chunked_samples_is_refused_while_inspect_ai_cannot_read_them(
    cli, log, tmp_path
):
    """inspect_ai 0.3.285 writes chunked samples (its hidden `inspect log convert-chunked`)
    and cannot read them back: the import says so. A later inspect_ai that reads them
    imports the log as written."""
    folder = tmp_path / "chunked"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    convert = [sys.executable, "-m", "inspect_ai", "log", "convert-chunked", str(log)]
    run = subprocess.run(
        [*convert, "--output-dir", str(folder)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    if run.returncode != 0:
        pytest.skip(f"this inspect_ai writes no chunked logs: {run.stderr[-200:]}")
    db = tmp_path / "r.db"
    result = cli("import", "inspect", db, folder / log.name)
    if result.code == 0:
        assert "9 imported judgments" in result.stdout
        return
    assert "epoch 1: inspect_ai " in result.stderr
    assert "a log whose samples are stored in chunks" in result.stderr
    assert not db.exists()
