"""`lmmreview open` in a real pseudo-terminal, and `score`: how they end, by exit code."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from conftest import dump

ROOT = Path(__file__).resolve().parents[1]
LEAVE_SCREEN = b"\x1b[?1049l"  # back from the alternate screen: what follows stays visible
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-_])|\r")

# The command line in its own process, optionally with a fault injected first. `keys`
# are typed once the screen shows its status line.
SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{root!r}]
    {inject}
    from lmmreview.tui.cli import main
    main({args!r})
    """
)


def run_in_terminal(
    args: list[str],
    *,
    inject: str = "",
    keys: bytes = b"",
    ready: bytes = b"reviewed",
    stderr: Path | None = None,
    then: Sequence[tuple[bytes, Callable[[], object] | None, bytes]] = (),
) -> tuple[int, str]:
    """Run `lmmreview ARGS` in a terminal; type `keys` once the screen shows `ready`; then
    for each (`shown`, `act`, `keys`) of `then`: once the screen draws `shown`, run `act`
    (if any) and type `keys`.

    Returns the exit code and what the terminal shows after the screen has closed (Textual
    draws on stderr, so both streams go to the terminal, unless `stderr` names a file)."""
    script = SCRIPT.format(root=str(ROOT), inject=inject, args=args)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 150, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    errors = stderr.open("wb") if stderr else None
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=follower, stdout=follower, stderr=errors or follower, env=env, close_fds=True,
    )  # fmt: skip
    if errors:
        errors.close()
    os.close(follower)
    steps = [*([(ready, None, keys)] if keys else []), *then]
    screen, drawn = b"", 0  # what was drawn before the last keys typed
    give_up = time.monotonic() + 60  # a hang guard, not a speed check
    try:
        while time.monotonic() < give_up:  # read all it draws, or it stalls on a full pty
            if select.select([leader], [], [], 0.1)[0]:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # every end of the terminal is closed: it has ended
                    break
                screen += chunk
            if steps and steps[0][0] in screen[drawn:]:
                _, act, typed = steps.pop(0)
                if act is not None:
                    act()
                os.write(leader, typed)
                drawn = len(screen)
    finally:
        process.kill()
        process.wait()
        os.close(leader)
    after = screen.rpartition(LEAVE_SCREEN)[2] if LEAVE_SCREEN in screen else screen
    return process.returncode, ESCAPES.sub("", after.decode(errors="replace"))


def test_open_an_unknown_dataset_fails_with_one_line(demo_db: Path) -> None:
    before = dump(demo_db)
    code, stderr = run_in_terminal(["open", str(demo_db), "--dataset", "bogus"])
    assert code == 1
    assert stderr.strip().splitlines() == [f"error: {demo_db}: no dataset 'bogus'"]
    assert dump(demo_db) == before


def test_open_refuses_a_keymap_clash_before_the_screen(demo_db: Path, config_home: Path) -> None:
    """`[keymap] accept = "q"` opened a screen where q accepted the judge's score."""
    settings = config_home / "lmmreview" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[keymap]\naccept = 'q'\n", encoding="utf-8")
    before = dump(demo_db)
    code, stderr = run_in_terminal(["open", str(demo_db)])
    assert code == 1
    # the last line: textual-image's probe of the pty, at import, may log before it
    assert stderr.strip().splitlines()[-1] == (
        f"error: {settings}: keymap.accept: key 'q' is also bound to quit"
    )
    assert dump(demo_db) == before


def test_open_with_stderr_redirected_says_so(demo_db: Path, tmp_path: Path) -> None:
    """Textual draws on stderr: with it sent to a file the screen would go there, unseen."""
    log = tmp_path / "errors.log"
    code, _ = run_in_terminal(["open", str(demo_db)], stderr=log)
    assert code == 1
    assert "needs an interactive terminal (stdin, stdout and stderr)" in log.read_text()


def test_open_exits_non_zero_after_a_crash(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any unexpected error ends the screen with exit code 1 and one line naming the crash
    log, which holds the traceback (Textual's own, with local variables, is not shown)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    inject = (
        "from lmmreview.tui.review_screen import ReviewScreen\n"
        "def broken(self): raise RuntimeError('injected fault')\n"
        "ReviewScreen.action_compare = broken"
    )
    code, stderr = run_in_terminal(["open", str(demo_db)], inject=inject, keys=b"c")
    assert code == 1
    [log] = (tmp_path / "state" / "lmmreview").glob("crash-*.log")
    assert stderr.strip().splitlines() == [
        "error: lmmreview open failed unexpectedly (RuntimeError: injected fault); "
        f"the full report is in {log}"
    ]
    assert "in broken\n" in log.read_text()  # the traceback, for a bug report


@pytest.mark.parametrize(
    "command", [["score"], ["judge"], ["judge", "--dry-run"], ["report"], ["export"]]
)
def test_every_command_refuses_an_unknown_dataset_with_one_line(
    cli, demo_db: Path, command: list[str]
) -> None:
    before = dump(demo_db)
    result = cli(command[0], demo_db, *command[1:], "--dataset", "bogus")
    assert result.code == 1
    assert result.stderr.strip() == f"error: {demo_db}: no dataset 'bogus'"
    assert dump(demo_db) == before


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_screen_and_removes_the_images_o_wrote(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """SIGTERM, or SIGHUP as tmux kill-session closes the terminal: the screen ends as `q`
    does (back from the alternate screen) and the folder `o` wrote its images to is gone."""
    temporary, pid = tmp_path / "tmp", tmp_path / "pid"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.delenv("DISPLAY", raising=False)  # no viewer: `o` only writes the files
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    written: list[Path] = []

    def kill() -> None:
        written.extend(temporary.glob("lmmreview-images-*"))
        os.kill(int(pid.read_text()), signum)

    code, after = run_in_terminal(
        ["open", str(demo_db)],
        inject=f"import os; open({str(pid)!r}, 'w').write(str(os.getpid()))",
        keys=b"o",
        # the caption with the image's size: "image 1/1" alone is also the loading
        # placeholder's, and `o` before the answer is read only says it is loading
        ready="image 1/1 · ".encode(),
        then=[(b"No image viewer here", kill, b"")],
    )
    assert len(written) == 1  # the folder was there before the signal
    assert list(temporary.glob("lmmreview-images-*")) == []
    assert code == 128 + signum
    assert "No image viewer here" not in after  # the alternate screen was left


# What a look at the first screen never needs: each loads when its key is first pressed.
NOT_FOR_A_LOOK = (
    "openai",
    "sqlite_utils",
    "lmmreview.tui.judge_run",
    "lmmreview.tui.judge_worker",
    "lmmreview.tui.exporting",
    "lmmreview.tui.zoom",
    "lmmreview.db.reviewers",
)


def test_open_loads_what_the_first_screen_draws_and_sets_it_aside(
    demo_db: Path, tmp_path: Path
) -> None:
    """Opened, drawn, quit: none of the judge run's, the export's or the zoom's modules
    was loaded, the screen's modules were set aside from the garbage collector's passes
    (gc.freeze) once loaded, and textual-image, imported beside them, still found a
    terminal (one that answers none of its questions: half cells)."""
    report = tmp_path / "report.json"
    inject = (
        "import atexit, gc, json\n"
        f"atexit.register(lambda: open({str(report)!r}, 'w').write(json.dumps("
        "{'frozen': gc.get_freeze_count(), 'modules': sorted(sys.modules), "
        "'images': sys.modules['textual_image.renderable'].Image.__module__})))"
    )
    code, _ = run_in_terminal(["open", str(demo_db)], inject=inject, keys=b"q")
    assert code == 0
    found = json.loads(report.read_text())
    assert [name for name in NOT_FOR_A_LOOK if name in found["modules"]] == []
    assert "lmmreview.tui.review_screen" in found["modules"]  # the screen was drawn
    assert found["frozen"] > 0
    assert found["images"] == "textual_image.renderable.halfcell"
