"""The command line's conventions: --version, -h, shell completion, one-line errors, and a
crash that ends in one line naming a log file that holds the traceback but never the key."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import pytest
import typer
from conftest import dump
from typer.testing import CliRunner

from lmmreview import __version__
from lmmreview.tui.cli import app, main
from lmmreview.tui.options import given_path

KEY = "sk-unique-7f3a9c0e41d2b8"  # a key no other text holds
TOKEN = "tok-bearer-55e1"  # an Authorization header's token, also never written

COMMANDS = [
    [], ["info"], ["score"], ["judge"], ["report"], ["export"], ["open"], ["demo"],
    ["import"], ["import", "mmvet"], ["import", "mmbench"], ["import", "mmmu"], ["import", "jsonl"],
    ["import", "mmvet-v2"],
]  # fmt: skip


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """`lmmreview ARGS` through the script's entry point: exit code, stdout, stderr."""
    with pytest.raises(SystemExit) as ended:
        main([str(a) for a in args])
    captured = capsys.readouterr()
    return int(ended.value.code or 0), captured.out, captured.err


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run_main(capsys, "--version")
    assert (code, stdout) == (0, f"lmmreview {__version__}\n")


def test_python_m_lmmreview_prints_the_version_too() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lmmreview", "--version"], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, f"lmmreview {__version__}\n")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "lmmreview")
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_every_command_takes_h_and_help(command: list[str], flag: str) -> None:
    result = CliRunner().invoke(app, [*command, flag], prog_name="lmmreview")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: {' '.join(['lmmreview', *command])} ")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to detect a shell")
def test_shell_completion_is_offered(capsys: pytest.CaptureFixture[str]) -> None:
    _, helptext, _ = run_main(capsys, "-h")
    assert "--install-completion" in helptext
    # Typer detects the shell from the parent process: bash, kept alive by `; true`.
    command = f"{shlex.quote(sys.executable)} -m lmmreview --show-completion; true"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert "_LMMREVIEW_COMPLETE=complete_bash" in done.stdout, done.stderr


@pytest.mark.parametrize("url", ["http://[::1", "open", "ftp://x", "not a url", "http://h:x"])
@pytest.mark.parametrize("option", [["judge", "--base-url"], ["open", "--judge-base-url"]])
def test_a_bad_url_ends_in_one_line_before_the_database_is_touched(
    capsys: pytest.CaptureFixture[str], demo_db: Path, option: list[str], url: str
) -> None:
    before = dump(demo_db)
    code, stdout, stderr = run_main(capsys, option[0], demo_db, option[1], url)
    assert (code, stdout) == (1, "")
    assert stderr.count("\n") == 1
    assert stderr.startswith(f"error: lmmreview {option[0]}: Invalid value for '{option[1]}'")
    assert repr(url) not in stderr  # never quoted back: a URL may hold the key
    assert dump(demo_db) == before


def test_a_bad_url_in_the_environment_is_named_too(
    capsys: pytest.CaptureFixture[str], demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://x")
    code, _, stderr = run_main(capsys, "judge", demo_db)
    assert code == 1
    assert stderr.count("\n") == 1
    assert "OPENAI_BASE_URL" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["info"], "error: lmmreview info: Missing argument 'DB'. (-h for help)"),
        (
            ["info", "x.db", "--bogus"],
            "error: lmmreview info: No such option: --bogus (-h for help)",
        ),
        (["nosuch"], "error: lmmreview: No such command 'nosuch'. (-h for help)"),
        (["judge", "x.db", "--runs", "0"], "error: lmmreview judge: Invalid value for '--runs'"),
    ],
)
def test_a_usage_error_ends_in_one_line_with_exit_code_1(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, stderr = run_main(capsys, *args)
    assert code == 1
    assert stderr.count("\n") == 1
    assert stderr.startswith(message)


# A forced internal error: opening any database raises, with the key in the message, a
# Bearer token beside it, and the key in a local variable of the failing frame.
CRASH = textwrap.dedent(
    """
    import os, sys
    from lmmreview.db.store import Store

    def broken(cls, *args, **kwargs):
        key = os.environ[{variable!r}]
        raise RuntimeError(f"injected fault: key {{key}}, Bearer {token}")

    Store.open = classmethod(broken)
    from lmmreview.tui.cli import main
    main(sys.argv[1:])
    """
)


@pytest.mark.parametrize(
    ("variable", "args", "settings"),
    [
        ("OPENAI_API_KEY", ["info"], ""),
        ("LAB_JUDGE", ["judge", "--api-key-env", "LAB_JUDGE"], ""),  # a name without "KEY"
        ("LAB_SETTING", ["judge"], '[judge]\napi_key_env = "LAB_SETTING"\n'),  # named in the file
    ],
)
def test_a_crash_ends_in_one_line_and_a_log_without_the_key(
    tmp_path: Path, variable: str, args: list[str], settings: str
) -> None:
    state, config = tmp_path / "state", tmp_path / "config"
    (config / "lmmreview").mkdir(parents=True)
    (config / "lmmreview" / "config.toml").write_text(settings, encoding="utf-8")
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state),
        "XDG_CONFIG_HOME": str(config),
        variable: KEY,
    }
    script = CRASH.format(variable=variable, token=TOKEN)
    db = tmp_path / "x.db"
    done = subprocess.run(
        [sys.executable, "-c", script, args[0], str(db), *args[1:]],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    logs = list((state / "lmmreview").glob("crash-*.log"))
    assert len(logs) == 1
    assert line.startswith(f"error: lmmreview {args[0]} failed unexpectedly (RuntimeError: ")
    assert line.endswith(f"; the full report is in {logs[0]}")
    log = logs[0].read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in log
    assert "in broken\nRuntimeError: injected fault: key [redacted], Bearer [redacted]" in log
    for secret in (KEY, TOKEN):
        assert secret not in done.stderr
        assert secret not in log
    assert not db.exists()


def path_parameters() -> Iterator[tuple[str, str, typing.Any]]:
    """(command, parameter, its typer info) for every path argument and option of every
    command (lmmreview's own import commands included)."""

    def walk(command: typing.Any, words: list[str]) -> Iterator[tuple[str, str, typing.Any]]:
        for name, sub in getattr(command, "commands", {}).items():  # no plug-in is loaded
            yield from walk(sub, [*words, name])
        if command.callback is None:
            return
        for name, hint in typing.get_type_hints(command.callback, include_extras=True).items():
            if "Path" in str(hint):  # a plain `Path` (no typer info) is found too: info None
                info = typing.get_args(hint)[1] if typing.get_origin(hint) is Annotated else None
                yield " ".join(words), name, info

    return walk(typer.main.get_command(app), ["lmmreview"])


def test_every_path_argument_and_option_is_read_by_the_one_path_parser() -> None:
    found = list(path_parameters())
    assert {"export", "merge", "judges", "import jsonl", "demo"} <= {
        command.removeprefix("lmmreview ") for command, _, _ in found
    }
    assert [(c, p) for c, p, info in found if getattr(info, "parser", None) is not given_path] == []


@pytest.mark.parametrize(
    "args",
    [
        ["export", "{db}", "--out", ""],
        ["export", "{db}", "--format", "mmvet-csv", "--out", ""],  # wrote into the current folder
        ["judges", "{db}", "--out", ""],
        ["report", ""],
        ["merge", "{db}", ""],
        ["import", "jsonl", "{db}", ""],
    ],
)
def test_an_empty_path_is_refused_in_one_line_naming_the_option(
    capsys: pytest.CaptureFixture[str],
    demo_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    """Path("") is the current folder: `export --out ''` wrote its files there, exit 0."""
    (here := tmp_path / "here").mkdir()
    monkeypatch.chdir(here)
    before = dump(demo_db)
    code, stdout, stderr = run_main(capsys, *(a.format(db=demo_db) for a in args))
    assert (code, stdout) == (1, "")
    assert stderr.count("\n") == 1 and "an empty path" in stderr, stderr
    assert stderr.startswith(f"error: lmmreview {args[0]}")
    assert dump(demo_db) == before and list(here.iterdir()) == []
