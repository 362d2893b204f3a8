"""The built package: what the wheel and the sdist hold, and an installed wheel at work
outside the repository (its demo, `python -m lmmreview`, generic modules on the path)."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import typer

from lmmreview.tui.cli import app

ROOT = Path(__file__).resolve().parents[1]

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel built from it, as `python -m build` makes them (offline: the
    test environment's setuptools is the backend)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a folder of its own (no dependencies: the test interpreter
    has them), as pip puts it into site-packages."""
    target = tmp_path_factory.mktemp("site")
    (wheel,) = dist.glob("*.whl")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), wheel],
        check=True,
        capture_output=True,
    )
    return target


def runner(site: Path, cwd: Path, shadow: Path | None = None) -> Run:
    """Run the installed copy's `lmmreview` script, or `python -m ...`, in `cwd`, with
    `shadow` (if given) ahead of it on PYTHONPATH."""
    path = [str(shadow)] if shadow else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(site)])}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = (
            [sys.executable, *args[1:]]
            if args[0] == "python"
            else [site / "bin" / args[0], *args[1:]]
        )
        # no stdin: nothing may wait for a terminal (a hang fails after the timeout)
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


def names(archive: Path) -> list[str]:
    """The member names of a wheel or an sdist."""
    if archive.suffix == ".whl":
        return zipfile.ZipFile(archive).namelist()
    with tarfile.open(archive) as tar:
        return tar.getnames()


def test_the_wheel_installs_only_lmmreview_with_its_license_and_demo_data(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    members = names(wheel)
    top = {name.split("/")[0] for name in members}
    assert {t for t in top if not t.endswith(".dist-info")} == {"lmmreview"}
    assert len(top) == 2
    assert any(m.endswith(".dist-info/licenses/LICENSE") for m in members)
    assert "lmmreview/sample_data/mmvet/mm-vet.json" in members
    # every file the demo reads, by the data globs
    for folder in ("mmvet", "mmvet-v2", "mme", "mmstar"):
        shipped = (ROOT / "sample_data" / folder).rglob("*.*")
        expected = {f"lmmreview/{p.relative_to(ROOT).as_posix()}" for p in shipped}
        assert expected <= set(members), folder
    styles = {f"lmmreview/tui/styles/{p.name}" for p in (ROOT / "tui" / "styles").glob("*.tcss")}
    assert styles and styles <= set(members)  # the screens' style sheets (tui/styles.py)


def test_the_sdist_has_the_license_and_leaves_the_tests_out(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    inside = {name.split("/", 1)[1] for name in names(sdist) if "/" in name}
    assert {"LICENSE", "pyproject.toml", "README.md", "sample_data/mmvet/mm-vet.json"} <= inside
    assert not [name for name in inside if name.startswith("tests")]
    license_text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text


def test_the_installed_wheel_builds_the_demo_in_any_folder(installed: Path, tmp_path: Path) -> None:
    run = runner(installed, tmp_path)
    where = run("python", "-c", "import lmmreview; print(lmmreview.__file__)")
    assert where.stdout.startswith(str(installed)), where  # not the repository's copy
    assert run("lmmreview", "--help").returncode == 0
    built = run("lmmreview", "demo", "x.db", "--no-open")
    assert built.returncode == 0, built.stderr
    info = run("python", "-m", "lmmreview", "info", "x.db")
    assert info.returncode == 0, info.stderr
    assert "mmvet (mmvet): 20 samples" in info.stdout
    assert "generic (generic): 6 samples" in info.stdout


def shadow_modules(folder: Path) -> Path:
    """A folder with the generic module names research code keeps at its root (DETR's
    `engine.py`, PyPI's `db` and `tui`), each failing if anything imports it."""
    folder.mkdir()
    for name in ("engine", "db", "tui"):
        (folder / f"{name}.py").write_text(f"raise ImportError('the unrelated {name}.py')\n")
    return folder


def test_every_command_works_beside_generic_engine_db_and_tui_modules(
    installed: Path, tmp_path: Path, judge_env: str
) -> None:
    """Every command's help, and a real run of each (the judge asks the fake server)."""
    run = runner(installed, tmp_path, shadow_modules(tmp_path / "research"))
    group = typer.main.get_command(app)
    for command in [[name] for name in group.commands] + [
        ["import", name] for name in group.commands["import"].commands
    ]:
        shown = run("lmmreview", *command, "--help")
        assert shown.returncode == 0 and not shown.stderr, (command, shown.stderr)
    data = installed / "lmmreview" / "sample_data" / "generic"
    steps = [
        ["lmmreview", "demo", "x.db", "--no-open"],
        ["lmmreview", "import", "jsonl", "g.db", str(data / "demo.jsonl")],
        ["lmmreview", "score", "x.db"],
        ["lmmreview", "judge", "x.db", "--runs", "1"],
        ["lmmreview", "info", "x.db"],
        ["lmmreview", "report", "x.db"],
        ["lmmreview", "export", "x.db", "--format", "json"],
        ["python", "-m", "lmmreview", "info", "g.db"],
    ]
    for step in steps:
        done = run(*step)
        assert done.returncode == 0, (step, done.stderr)
    # `open` needs a terminal; without one it says so, instead of failing on an import
    opened = run("lmmreview", "open", "x.db")
    assert opened.returncode == 1 and "needs an interactive terminal" in opened.stderr
