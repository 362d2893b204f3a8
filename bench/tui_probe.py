"""Run the review app headless on a database and report what it measured, as JSON.

`python -m bench.tui_probe DB open` reports the time from starting the app to the
first screen with an answer on it (and the wall-clock moment of it, so that the caller can
count from the launch of this process), the time from the same start to the tables computed,
and the peak RSS once they are;
`... keys N` presses `j` N times and reports the app's own key-to-screen timings.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from pathlib import Path

from textual.widgets import Static
from textual_image.widget import HalfcellImage

from lmmreview.tui.app import ReviewApp
from lmmreview.tui.images import SampleImages
from lmmreview.tui.settings import Settings


async def probe(db: Path, mode: str, presses: int) -> dict[str, object]:
    opened = time.perf_counter()
    settings = Settings(path=db.with_suffix(".toml"), reviewer="bench")
    app = ReviewApp(db, settings, image_renderer=HalfcellImage)
    async with app.run_test(size=(150, 48)) as pilot:
        while app.current() is None or not app.screen.query_one("#answer", Static).content:
            await pilot.pause(0.005)
        shown = time.perf_counter()
        while app.session is None or app.session.tables is None:  # memory: fully loaded
            await pilot.pause(0.01)
        ready = time.perf_counter()
        result: dict[str, object] = {
            "open_s": shown - opened,
            "tables_s": ready - opened,
            "shown_at": time.time() - (time.perf_counter() - shown),  # wall clock
            "answers": len(app.session.entries) if app.session else 0,
        }
        if mode == "keys":
            images = app.screen.query_one(SampleImages)
            for _ in range(presses):
                await pilot.press("j")
                await pilot.pause(0.05)  # a quick reviewer: 20 samples a second
            while images.pending:
                await pilot.pause(0.01)
            result["timings_s"] = app.review_screen.timings
    result["peak_rss_bytes"] = _peak_rss()
    return result


def _peak_rss() -> int:
    """This process's own peak RSS. Linux's ru_maxrss can carry the parent's peak over a
    fork and exec, so /proc's VmHWM (this memory image only) comes first."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes there, KiB elsewhere


if __name__ == "__main__":
    path, mode = Path(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    print(json.dumps(asyncio.run(probe(path, mode, count))))
