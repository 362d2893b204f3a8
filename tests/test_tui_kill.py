"""A verdict is on disk before the screen shows it: kill -9 the app right after."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The app, headless, in its own process: grade the first answer 0.7, say so once the
# verdict is on screen as saved (not as "not saved yet"), then wait to be killed.
SCRIPT = textwrap.dedent(
    """
    import sys, time
    sys.path[:0] = [{tests!r}, {root!r}]
    from pathlib import Path
    from tui_harness import drive, until, text_of

    async def steps(app, pilot):
        await pilot.press("7")
        await until(pilot, lambda: "human verdict: 0.7" in text_of(app, "#verdict"))
        print("SHOWN", flush=True)
        time.sleep(60)

    drive(Path({db!r}), steps)
    """
)


def test_a_verdict_survives_a_kill_right_after_the_key(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    script = SCRIPT.format(tests=str(ROOT / "tests"), root=str(ROOT), db=str(db))
    app = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        line = app.stdout.readline() if app.stdout else ""
        assert line.strip() == "SHOWN"
        os.kill(app.pid, signal.SIGKILL)  # no clean-up, no final commit
    finally:
        app.kill()
        app.wait(timeout=30)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT action, score, reviewer FROM reviews").fetchall()
    assert rows == [("grade", 0.7, "tester")]
