from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import typer
from conftest import dump

from lmmreview.db import Store
from lmmreview.db.schema import SCHEMA_VERSION
from lmmreview.sample_data.make_sample_data import MODELS as DEMO_MODELS
from lmmreview.tui.cli import app

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_every_command_with_a_description(cli) -> None:
    group = typer.main.get_command(app)
    top = cli("--help").stdout
    assert {"import", "info", "demo"} <= set(group.commands)
    for name, command in group.commands.items():
        summary = command.get_short_help_str(limit=80)
        assert summary and not summary.endswith("..."), name
        assert f"{name} " in top and summary in top
    sub = cli("import", "--help").stdout
    for name, command in group.commands["import"].commands.items():
        assert f"{name} " in sub and command.get_short_help_str(limit=80) in sub


def test_info_json_shape(cli, mmvet_files, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    f = mmvet_files
    cli(
        "import",
        "mmvet",
        db,
        f["questions"],
        "--images",
        f["images"],
        "--answers",
        f["alpha"],
        "--answers",
        f["beta"],
    )
    document = json.loads(cli("info", db, "--json").stdout)
    assert document["schema_version"] == SCHEMA_VERSION
    (dataset,) = document["datasets"]
    assert {k: dataset[k] for k in ("name", "kind", "samples", "images")} == {
        "name": "mmvet", "kind": "mmvet", "samples": 3, "images": 3,
    }  # fmt: skip
    assert dataset["models"] == [
        {"model": "alpha", "answers": 3, "judged": 0, "reviewed": 0, "unscored": 3, "offline": 0},
        {"model": "beta", "answers": 2, "judged": 0, "reviewed": 0, "unscored": 2, "offline": 0},
    ]
    table = cli("info", db).stdout
    assert "mmvet (mmvet): 3 samples, 3 images" in table and "beta" in table


def test_the_readme_test_command_is_what_ci_runs() -> None:
    """CI's first test run is the README's command; then the smoke set on the lowest versions."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [line for line in lines if line and not line.startswith("#")]
    runs = [i for i, command in enumerate(commands) if "-m pytest" in command]
    first_run, later = commands[runs[0]], commands[runs[0] + 1 :]
    assert first_run.startswith("python3 -m venv .venv ")
    assert f"\n{first_run}\n" in (ROOT / "README.md").read_text()
    assert any("--resolution lowest-direct" in command for command in later)
    assert later[-1].endswith("-m pytest -m smoke")


def test_demo_builds_every_benchmark_and_is_idempotent(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # from a folder without sample_data/: the file names the demo records (sample_data/...)
    # are never read again, its imported judgments' file included
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "demo.db"
    result = cli("demo", db, "--no-open")
    assert result.code == 0, result.stderr
    document = json.loads(cli("info", db, "--json").stdout)
    datasets = {d["name"]: d for d in document["datasets"]}
    assert set(datasets) == {
        "mmvet", "mmvet-v2", "mmbench", "mmmu", "mmmu-pro", "mathvista", "hallusionbench",
        "mme", "ocrbench", "ocrbench-v2", "mmstar", "llava-bench", "generic",
    }  # fmt: skip
    for dataset in datasets.values():
        models = {m["model"] for m in dataset["models"]}
        assert models == {"demo-alpha", "demo-beta", "demo-gamma"}, dataset["name"]
    assert (datasets["mmbench"]["samples"], datasets["generic"]["samples"]) == (38, 6)
    for name in ("mmvet", "mmvet-v2", "mmmu-pro", "mathvista"):
        images = (ROOT / "sample_data" / name / "images").glob("*.png")
        assert datasets[name]["images"] == len(
            {hashlib.sha256(p.read_bytes()).digest() for p in images}
        )
    with Store.open(db) as store:
        files = [file for (file,) in store.conn.execute("SELECT file FROM imports")]
    assert sorted(files) == sorted(  # the imports of judgments, by their sample_data/ names
        [f"sample_data/mathvista/output_{m}.json" for m in DEMO_MODELS]
        + [
            f"sample_data/hallusionbench/{m}/hallusion_output_{c}_model.json"
            for m in DEMO_MODELS
            for c in ("vd", "vs")
        ]
        + [f"sample_data/llava-bench/reviews/{m}.jsonl" for m in DEMO_MODELS]
    )
    assert (datasets["hallusionbench"]["samples"], datasets["hallusionbench"]["images"]) == (12, 5)
    before = dump(db)
    assert cli("demo", db, "--no-open").code == 0
    assert dump(db) == before


@pytest.mark.parametrize("name", ["mmvet", "my-benchmark"])
def test_demo_keeps_out_of_a_users_own_database(
    cli, mmvet_files: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """`lmmreview demo results.db` on a user's file attached the demo's answers to the
    user's MM-Vet questions of the same keys: a file holding other datasets is refused,
    and a dataset of the demo's name whose questions differ too."""
    db = tmp_path / "mine.db"
    f = mmvet_files
    made = cli("import", "mmvet", db, f["questions"], "--images", f["images"],
               "--answers", f["alpha"], "--dataset", name)  # fmt: skip
    assert made.code == 0, made.stderr
    before = dump(db)
    result = cli("demo", db, "--no-open")
    assert result.code == 1
    assert result.stderr.count("\n") == 1
    assert (
        "holds datasets the demo does not make (my-benchmark)"
        if name == "my-benchmark"
        else "sample 'v1_0': its question differs from the one 'mmvet' holds"
    ) in result.stderr, result.stderr
    assert dump(db) == before


@pytest.mark.parametrize(
    "bad_line",
    [
        "{not json",  # fails while reading, before any database exists
        # fails while loading the last dataset, after the others went into the new file
        '{"id": "g1", "model": "demo-alpha", "prediction": "green"}',
    ],
)
def test_a_failed_demo_leaves_no_file_behind(cli, tmp_path: Path, bad_line: str) -> None:
    """Bad sample data: one line naming the file, exit 1, and no database (nor any
    temporary file) in the folder."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "sample_data", data)
    broken = data / "generic" / "demo.jsonl"
    broken.write_text(broken.read_text() + bad_line + "\n")
    folder = tmp_path / "out"
    folder.mkdir()
    result = cli("demo", folder / "demo.db", "--no-open", "--data", data)
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert str(broken) in line
    assert list(folder.iterdir()) == []


def test_open_without_a_terminal_says_so_and_leaves_the_file(cli, tmp_path: Path) -> None:
    """The screen needs a terminal to read keys from; a pipe gets one clear line."""
    db = tmp_path / "demo.db"
    built = cli("demo", db)  # builds, then cannot open: the runner's stdin is no terminal
    assert built.code == 1 and "demo database ready" in built.stdout
    assert "needs an interactive terminal" in built.stderr
    before = dump(db)
    result = cli("open", db)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        "error: lmmreview open needs an interactive terminal (stdin, stdout and stderr); "
        "for the tables without one, use lmmreview report or lmmreview export"
    ]
    assert dump(db) == before


@pytest.mark.parametrize("name", ["", "   "])
def test_open_refuses_an_empty_reviewer(cli, demo_db: Path, name: str) -> None:
    """Verdicts under a blank reviewer could never be merged: refused before the screen."""
    before = dump(demo_db)
    result = cli("open", demo_db, "--reviewer", name)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: --reviewer: {name!r} is empty: give a name, or leave --reviewer out to take "
        "the settings' or your user name"
    ]
    assert dump(demo_db) == before


def test_info_and_the_notes_agree_on_choices_with_no_gold(cli, tmp_path: Path) -> None:
    """A choice with no gold is judged (extracted) but has no score: unscored in both."""
    lines = [
        {"id": "c1", "question": "Which?", "options": {"A": "x", "B": "y"}},
        {"id": "c2", "question": "Which?", "options": {"A": "x", "B": "y"}, "answer": "A"},
        {"id": "c1", "model": "m", "prediction": "A"},
        {"id": "c2", "model": "m", "prediction": "A"},
    ]
    data = tmp_path / "nogold.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    db = tmp_path / "r.db"
    assert cli("import", "jsonl", db, data).code == 0
    assert cli("score", db).code == 0
    (model,) = json.loads(cli("info", db, "--json").stdout)["datasets"][0]["models"]
    notes = json.loads(cli("export", db, "--format", "json").stdout)["notes"]["nogold"]
    assert (model["judged"], model["unscored"]) == (2, 1)
    assert notes["unscored"] == 1
