"""Imports say how far they are on a terminal's stderr, and nothing more in a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from lmmreview.db.benchmarks.mmbench.files import read_predictions
from lmmreview.db.benchmarks.mmvet.files import read_mmvet
from lmmreview.db.importers import read


def import_mmvet(files: dict[str, Path], db: Path, *, stderr_terminal: bool) -> str:
    """What `lmmreview import mmvet` writes to stderr, a terminal (a pseudo-terminal,
    wide enough for the temporary paths) or a pipe."""
    args = [sys.executable, "-m", "lmmreview", "import", "mmvet", str(db),
            str(files["questions"]), "--answers", str(files["alpha"])]  # fmt: skip
    env = os.environ | {"COLUMNS": "500", "TERM": "xterm"}
    if not stderr_terminal:
        result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stderr
    controller, terminal = pty.openpty()
    command = subprocess.Popen(
        args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=terminal
    )
    os.close(terminal)
    shown = b""
    while True:  # until the command closes its end
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert command.wait(timeout=120) == 0
    return shown.decode("utf-8", "replace")


def test_an_import_says_what_it_reads_and_writes_on_a_terminal(
    mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """The status line is redrawn a few times a second: which file it caught reading
    depends on the machine's speed; the writing line is drawn when it starts."""
    shown = import_mmvet(mmvet_files, tmp_path / "r.db", stderr_terminal=True)
    assert "Reading " in shown
    assert f"Writing to {tmp_path / 'r.db'}" in shown


def test_the_readers_say_which_file_and_how_many_images(
    mmvet_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "PROGRESS_SECONDS", 0.0)  # every image, not a few a second
    lines: list[str] = []
    questions, alpha = mmvet_files["questions"], mmvet_files["alpha"]
    with read.reporting(lines.append):
        read_mmvet(questions, mmvet_files["images"], [(alpha, "")])
    assert lines == [
        f"Reading {questions}",
        *(f"Reading {questions}: {n} images" for n in (1, 2, 3)),
        f"Reading {alpha}",
    ]


def test_a_workbook_import_says_which_file_and_how_many_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large .xlsx takes seconds to read: the line said only "Reading input files"."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in (["index", "prediction"], [1, "A"], [2, "B"], [3, "C"]):
        book.active.append(row)
    book.save(path := tmp_path / "m_MMBench_DEV_EN.xlsx")
    monkeypatch.setattr(read, "PROGRESS_SECONDS", 0.0)
    lines: list[str] = []
    with read.reporting(lines.append):
        read_predictions(path, "m")
    assert lines == [f"Reading {path}", *(f"Reading {path}: {n} rows" for n in (1, 2, 3))]


def test_an_import_writes_no_progress_into_a_pipe(
    mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    stderr = import_mmvet(mmvet_files, tmp_path / "r.db", stderr_terminal=False)
    assert stderr.splitlines() == [
        f"warning: no --images given: reading the images from {mmvet_files['images']}"
    ]
