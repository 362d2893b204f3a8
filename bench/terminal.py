"""Run a command in a pseudo-terminal, as a person's terminal would, and time what it draws.

`in_terminal(command, markers)` starts the command on a new pty (160x48 cells of 10x20
pixels, TERM=xterm-256color), reads everything it writes (a full pty would stall it),
answers the terminal queries xterm answers, and records the seconds from launch until
each marker text is first drawn. Escape sequences are left out before the search, so a
style change inside a marker does not hide it. Once every marker is drawn it reads the
process's peak RSS, presses the quit keys and waits for the process to end.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

COLUMNS, ROWS = 160, 48
CELL_PIXELS = (10, 20)  # told through TIOCSWINSZ, so nothing has to ask the terminal for it
TAIL = 400  # plain text kept from one chunk to the next: longer than any marker
QUIT_SECONDS = 20.0  # after the quit keys, how long the process may take to end
# CSI, OSC, APC/DCS (textual-image's graphics query), and the short ones (ESC ( B, ESC 7, ...),
# whose final byte is never one that opens the longer kinds: an unfinished CSI stays unmatched.
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[_P][^\x1b]*\x1b\\"
    r"|[ -/]*[0-?@A-OQ-Z\\^`a-~])"
)
# Primary device attributes: xterm (no sixel) answers at once; textual-image waits for it.
_ASKS_ATTRIBUTES = re.compile(rb"\x1b\[0?c")
_ATTRIBUTES = b"\x1b[?1;2c"


class Undrawn(RuntimeError):
    """The command ended, or the time ran out, before every marker was drawn."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """Seconds from launch to each marker drawn, the peak RSS and the exit code."""

    seconds: dict[str, float]
    peak_rss_bytes: int
    returncode: int


class _Screen:
    """The plain text a terminal was sent, fed in chunks; finds the markers (label ->
    pattern) as they arrive."""

    def __init__(self, markers: dict[str, str]) -> None:
        self.pending = {label: re.compile(pattern) for label, pattern in markers.items()}
        self.found: dict[str, float] = {}
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._carry = ""  # an escape sequence cut at the end of the last chunk
        self.tail = ""  # the end of the plain text, for a marker cut between chunks

    def feed(self, chunk: bytes, seconds: float) -> None:
        text = self._carry + self._decoder.decode(chunk)
        cut = text.rfind("\x1b")
        whole = cut < 0 or _ESCAPE.match(text, cut) is not None
        self._carry = "" if whole else text[cut:]
        plain = self.tail + _ESCAPE.sub("", text if whole else text[:cut])
        for label, pattern in list(self.pending.items()):
            if pattern.search(plain):
                del self.pending[label]
                self.found[label] = seconds
        self.tail = plain[-TAIL:]


def in_terminal(
    command: Sequence[str],
    markers: dict[str, str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout: float = 300.0,
    quit_keys: bytes = b"q",
) -> Drawn:
    """Run `command` on a new pty until every marker (label -> regular expression) is
    drawn, then quit it (see the module's docstring). Raises Undrawn, naming the missing
    markers, if it ends first or `timeout` seconds pass."""
    master, slave = pty.openpty()
    size = struct.pack("HHHH", ROWS, COLUMNS, COLUMNS * CELL_PIXELS[0], ROWS * CELL_PIXELS[1])
    fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
    screen = _Screen(markers)
    started = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env={**env, "TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)},
        start_new_session=True,
    )
    os.close(slave)
    try:
        _read_until_drawn(master, screen, Path(command[0]).name, started, timeout)
        peak = _peak_rss(process.pid)
        os.write(master, quit_keys)
        code, usage_peak = _wait_for_exit(master, process)
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    return Drawn(screen.found, peak or usage_peak, code)


def _read_until_drawn(
    master: int, screen: _Screen, program: str, started: float, timeout: float
) -> None:
    while screen.pending:
        chunk = _read(master, 0.5)
        now = time.perf_counter() - started
        if chunk:
            if _ASKS_ATTRIBUTES.search(chunk):
                os.write(master, _ATTRIBUTES)
            screen.feed(chunk, now)
        elif chunk is None or now > timeout:
            state = "ended" if chunk is None else f"was still running after {timeout:.0f} s"
            shown = " ".join(screen.tail.split())[-300:]
            raise Undrawn(
                f"{program} {state} before drawing "
                f"{', '.join(screen.pending)}; its last text: {shown!r}"
            )


def _read(master: int, wait: float) -> bytes | None:
    """What the pty has within `wait` seconds: b"" for nothing yet, None once it closed."""
    ready, _, _ = select.select([master], [], [], wait)
    if not ready:
        return b""
    try:
        return os.read(master, 1 << 16) or None
    except OSError:  # EIO: every process holding the other end has ended
        return None


def _wait_for_exit(master: int, process: subprocess.Popen[bytes]) -> tuple[int, int]:
    """Read the pty until the process ends (killed after QUIT_SECONDS); its exit code and
    wait4's peak RSS (which on Linux may carry the parent's peak, hence VmHWM first)."""
    deadline = time.perf_counter() + QUIT_SECONDS
    while time.perf_counter() < deadline and _read(master, 0.2) is not None:
        pass  # drained: the process is drawing its last screen and ending
    if os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        os.killpg(process.pid, signal.SIGKILL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = code = os.waitstatus_to_exitcode(status)  # reaped: tell Popen
    return code, usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _peak_rss(pid: int) -> int | None:
    """VmHWM of a running process: its own peak since exec (Linux only)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return None


@contextmanager
def busy_core() -> Iterator[None]:
    """Keep one core busy with another process (a Python loop) while the block runs."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()
