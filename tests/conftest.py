"""Shared helpers: small real input files, a CLI runner, and the shared fixtures folder."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from lmmreview.tui.cli import app

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
GOLDEN = Path(__file__).parent / "golden"
FIXTURES = SHARED / "fixtures"


def needs_fixture(relative: str) -> pytest.MarkDecorator:
    """Skip, with the reason, when ../shared/fixtures is not beside the checkout."""
    return pytest.mark.skipif(
        not (FIXTURES / relative).exists(),
        reason=f"{FIXTURES / relative} is absent (it ships beside the repository, not in it)",
    )


def png_bytes(color: str = "red", size: tuple[int, int] = (8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def png_base64(color: str = "red") -> str:
    return base64.b64encode(png_bytes(color)).decode()


@pytest.fixture(autouse=True)
def config_home(monkeypatch) -> Iterator[Path]:
    """Every test has its own empty XDG_CONFIG_HOME: the user's real settings never leak in.

    Made in the system's temporary folder and open to all, as `nobody` (whom some tests
    run commands as) must find it empty rather than be refused.
    """
    with tempfile.TemporaryDirectory(prefix="lmmreview-config-") as name:
        home = Path(name)
        home.chmod(0o755)
        monkeypatch.setenv("XDG_CONFIG_HOME", name)
        yield home


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    """Run `lmmreview ARGS...` in-process, as a user would from the shell."""
    runner = CliRunner()

    def run(*args: str | Path) -> CliResult:
        result = runner.invoke(app, [str(a) for a in args])
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo database, built once per test session by `lmmreview demo`; tests use copies."""
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    result = CliRunner().invoke(app, ["demo", str(db), "--no-open"])
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def demo_db(demo_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo database (all four kinds of dataset, offline-scored)."""
    db = tmp_path / "demo.db"
    shutil.copyfile(demo_template, db)
    return db


def first_rows(cli: Any, db: Path, *options: str) -> dict[str, dict[str, Any]]:
    """`export --format json` (with `options`, as --judge NAME): each table's first row."""
    document = json.loads(cli("export", db, "--format", "json", *options).stdout)
    return {t["name"]: t["rows"][0] for t in document["tables"]}


def dump(db: Path) -> list[str]:
    """The whole database as SQL text: equal dumps mean nothing changed."""
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def llm_judgments(db: Path) -> set[tuple[str, str, str, int, float | None]]:
    """(dataset, sample, model, run, score) of every LLM judgment in `db`: what a run paid for."""
    with closing(sqlite3.connect(db)) as conn:
        return set(
            conn.execute(
                "SELECT d.name, s.key, m.name, j.run, j.score FROM judgments j "
                "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id "
                "JOIN datasets d ON d.id = s.dataset_id JOIN models m ON m.id = a.model_id "
                "WHERE j.judge_kind = 'llm'"
            )
        )


def write_json(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_tsv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(header), *("\t".join(str(c) for c in row) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


MMBENCH_HEADER = [
    "index", "question", "hint", "A", "B", "C", "D", "answer",
    "category", "image", "source", "l2-category", "comment", "split",
]  # fmt: skip


@pytest.fixture
def mmvet_files(tmp_path: Path) -> dict[str, Path]:
    """A three-sample MM-Vet set: questions, images, two models' results."""
    images = tmp_path / "images"
    images.mkdir()
    for i, color in enumerate(("red", "green", "blue")):
        (images / f"v1_{i}.png").write_bytes(png_bytes(color))
    questions = write_json(
        tmp_path / "mm-vet.json",
        {
            "v1_0": {"imagename": "v1_0.png", "question": "What is x?", "answer": "-1 <AND> -5",
                     "capability": ["math", "ocr"]},
            "v1_1": {"imagename": "v1_1.png", "question": "Which colour?", "answer": "green",
                     "capability": "rec"},
            "v1_2": {"imagename": "v1_2.png", "question": "Price?", "answer": "$4 <OR> 4 dollars",
                     "capability": "ocr, spat ,rec"},
        },
    )  # fmt: skip
    alpha = write_json(tmp_path / "alpha.json", {"v1_0": "x=-1", "v1_1": "green", "v1_2": "$4"})
    beta = write_json(tmp_path / "beta.json", {"v1_0": "3", "v1_1": "red"})
    return {"questions": questions, "images": images, "alpha": alpha, "beta": beta}


@pytest.fixture
def mmvet_two_models_db(cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """The three-sample MM-Vet set imported with alpha's and beta's answers, nothing judged."""
    db = tmp_path / "mmvet-two-models.db"
    files = mmvet_files
    result = cli("import", "mmvet", db, files["questions"], "--images", files["images"],
                 "--answers", files["alpha"], "--answers", files["beta"])  # fmt: skip
    assert result.code == 0, result.stderr
    return db


# Twenty models, as the list shows them (import order): the last two differ only at the end
# of a name too long for a compare box.
MANY_MODELS = [
    "llava-v1.5-7b", "llava-v1.5-13b", "qwen-vl-chat", "internvl2-8b", "minicpm-v-2.6",
    "cogvlm-chat-17b", "gpt-4o-2024-05-13", "claude-3-5-sonnet-20240620", "gemini-1.5-pro-002",
    "idefics2-8b", "deepseek-vl-7b-chat", "yi-vl-34b", "phi-3-vision-128k-instruct",
    "llava-next-34b", "instructblip-vicuna-13b", "mplug-owl2", "otter-9b", "shikra-7b",
    "organisation/a-very-long-model-family-name-7b",
    "organisation/a-very-long-model-family-name-13b",
]  # fmt: skip


@pytest.fixture
def many_models_db(cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """The three-sample MM-Vet set with alpha's answers imported under MANY_MODELS."""
    db = tmp_path / "many.db"
    files = mmvet_files
    answers = [
        arg for model in MANY_MODELS for arg in ("--answers", files["alpha"], "--model", model)
    ]
    result = cli("import", "mmvet", db, files["questions"], "--images", files["images"], *answers)
    assert result.code == 0, result.stderr
    return db


@pytest.fixture
def mmbench_tsv(tmp_path: Path) -> Path:
    """Two questions with circular copies: one with 2 options, one with 3, one shared image."""
    image = png_base64("purple")
    rows = [
        [7, "Is it day?", "", "yes", "no", "", "", "A", "image_scene", image, "s",
         "coarse_perception", "", "dev"],
        [1000007, "Is it day?", "", "no", "yes", "", "", "B", "image_scene", "7", "s",
         "coarse_perception", "", "dev"],
        [9, "Which shape?", "Look left.", "circle", "square", "star", "", "C", "OCR",
         png_base64("orange"), "s", "finegrained_perception (instance-level)", "", "dev"],
        [1000009, "Which shape?", "Look left.", "square", "star", "circle", "", "B", "OCR",
         "9", "s", "finegrained_perception (instance-level)", "", "dev"],
        [2000009, "Which shape?", "Look left.", "star", "circle", "square", "", "A", "OCR",
         "9", "s", "finegrained_perception (instance-level)", "", "dev"],
    ]  # fmt: skip
    return write_tsv(tmp_path / "mmbench.tsv", MMBENCH_HEADER, rows)


@pytest.fixture
def mmmu_fixture_db(cli, tmp_path: Path) -> Path:
    """The official LLaVA-1.5-13B MMMU outputs imported as model "llava-1.5-13b" (not scored)."""
    db = tmp_path / "mmmu.db"
    mmmu = FIXTURES / "mmmu"
    result = cli("import", "mmmu", db, mmmu / "llava1.5_13b",
                 "--answer-dict", mmmu / "answer_dict_val.json", "--model", "llava-1.5-13b")  # fmt: skip
    assert result.code == 0, result.stderr
    return db


@pytest.fixture
def fake_judge():
    """A real chat-completions server on 127.0.0.1 with a scripted judge (no faults)."""
    from bench.fake_judge import FakeJudge

    with FakeJudge() as server:
        yield server


@pytest.fixture
def judge_env(monkeypatch, fake_judge):
    """The environment of a user whose judge is the fake server; returns the API key."""
    key = "sk-test-SECRET-4f9a7c1e"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_judge.base_url)
    return key


def matches_golden(text: str, name: str) -> None:
    """Compare with tests/golden/NAME; LMMREVIEW_UPDATE_GOLDEN=1 rewrites it instead."""
    path = GOLDEN / name
    if os.environ.get("LMMREVIEW_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if text != path.read_text(encoding="utf-8"):
        actual = Path(tempfile.gettempdir()) / "lmmreview-snapshots" / name
        actual.parent.mkdir(parents=True, exist_ok=True)
        actual.write_text(text, encoding="utf-8")
        raise AssertionError(
            f"{path} differs; this run gave {actual} (see the README on snapshots)"
        )


# The smoke subset (`pytest -m smoke`) that .ci/run also runs on the lowest versions
# pyproject.toml allows: one test or file where each dependency is met (CLI, judge client,
# screens, images, scoring rules, contracts). Static checks stay out: old ruff and mypy judge
# today's code differently.
SMOKE = (
    "tests/test_cli.py",
    "tests/test_scoring_cli.py",
    "tests/test_export.py",
    "tests/test_judge.py::test_mmvet_demo_five_runs_then_nothing_left_to_ask",
    "tests/test_fake_judge.py::test_mmvet_score_is_the_fraction_of_ground_truth_elements",
    "tests/test_hardening_judge.py::test_a_failed_reply_is_not_replayed_and_a_healthy_server_is_asked_again",
    "tests/test_tui.py::test_grading_a_sample_changes_the_tables_and_undo_restores_them",
    "tests/test_tui_snapshots.py",
    "tests/test_open_terminal.py::test_open_exits_non_zero_after_a_crash",
    "tests/test_images.py",
    "tests/test_mmvet_rules.py",
    "tests/test_mmbench_rules.py",
    "tests/test_mmmu_rules.py",
    "tests/test_layers.py",
    "tests/test_migration.py",
)


def in_smoke_set(nodeid: str) -> bool:
    """A node id is in the smoke set when it is an entry, a test of an entry file, or a case."""
    return any(nodeid == e or nodeid.startswith((f"{e}::", f"{e}[")) for e in SMOKE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the smoke set, so `-m smoke` selects it."""
    for item in items:
        if in_smoke_set(item.nodeid):
            item.add_marker(pytest.mark.smoke)


def serve_fake(module: str, *args: str) -> subprocess.Popen[str]:
    """Start one of bench/'s fake servers (`bench.fake_judge`, `bench.fake_batch`) on a free
    port, as its command line; its first line of stdout is its base URL."""
    return subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0", *args],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def stop_fake(process: subprocess.Popen[str]) -> dict:
    """Ctrl-C a fake server; it exits 0 and its last line is its counters."""
    try:
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    return json.loads(stdout.strip().splitlines()[-1])
