"""The benchmark harness: how a repetition's value, an error and a skip are reported."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bench.benchmarks_import import repo_first_env, run_measured
from bench.benchmarks_launch import screen_markers, user_env
from bench.harness import Benchmark, Context, Fixtures, Skipped, run_benchmark, select
from bench.run import summary_lines
from bench.terminal import Undrawn, _Screen, in_terminal


def _bench(name: str, function, target: float | None = 10.0) -> Benchmark:
    return Benchmark(name, function, "ms", target, True, "")


def _run(bench: Benchmark, tmp_path: Path, repeat: int = 3):
    return run_benchmark(bench, repeat, Fixtures(tmp_path, lambda _: None), quick=False)


def test_values_medians_and_missed_targets(tmp_path: Path) -> None:
    values = iter([12.0, 8.0, 30.0])
    result = _run(_bench("slow", lambda _ctx: next(values)), tmp_path)
    assert (result.values, result.median, result.status) == ([12.0, 8.0, 30.0], 12.0, "MISSED")
    assert summary_lines([result])[0].startswith("MISSED: slow: median 12")


def test_an_absent_input_skips_and_an_exception_is_an_error(tmp_path: Path) -> None:
    calls: list[int] = []

    def absent(ctx: Context) -> float:
        calls.append(ctx.repetition)
        raise Skipped("the fixture is absent (/nowhere)")

    def broken(_ctx: Context) -> float:
        raise ValueError("wrong row count")

    skipped = _run(_bench("needs fixture", absent), tmp_path)
    failed = _run(_bench("broken", broken), tmp_path)
    fine = _run(_bench("fine", lambda _ctx: 1.0), tmp_path)
    assert calls == [0]  # a skip ends the benchmark at once
    assert (skipped.status, skipped.skipped, skipped.values) == (
        "skipped",
        "the fixture is absent (/nowhere)",
        [],
    )
    assert (failed.status, failed.error) == ("ERROR", "ValueError: wrong row count")
    assert summary_lines([skipped, failed, fine]) == [
        "skipped: needs fixture: the fixture is absent (/nowhere)",
        "ERROR: broken: ValueError: wrong row count",
        "1 of 2 targets met",  # a skipped benchmark has no target to meet here
    ]
    assert skipped.to_json()["status"] == "skipped"


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="peak memory is read with wait4 (Unix)")
def test_a_commands_peak_memory_is_its_own_not_the_runners(tmp_path: Path) -> None:
    """On Linux a child's ru_maxrss starts from its parent's peak: a runner holding
    300 MB would see every command it runs as at least that large."""
    held = bytearray(300_000_000)
    held[::4096] = b"x" * len(held[::4096])  # touched: resident
    small = run_measured([sys.executable, "-c", "pass"], tmp_path, repo_first_env())
    large = [sys.executable, "-c", "b = bytearray(150_000_000); b[::4096] = b'x' * len(b[::4096])"]
    grown = run_measured(large, tmp_path, repo_first_env())
    del held
    assert small.returncode == grown.returncode == 0
    assert small.peak_rss_bytes is not None and grown.peak_rss_bytes is not None
    assert small.peak_rss_bytes < 100_000_000 < 150_000_000 < grown.peak_rss_bytes


def test_a_marker_is_found_across_chunks_and_escape_sequences() -> None:
    """The terminal gets styled text in pieces: a marker split by a style change, or an
    escape sequence cut between two reads, is still found, at the chunk that ends it."""
    screen = _Screen({"detail": "Ground truth:", "row": r"q1 +[^\s·]"})
    screen.feed(b"\x1b[1mGround tr", 0.1)
    screen.feed(b"uth\x1b[0", 0.2)
    screen.feed(b"m:  q1 \xc2\xb7 model-0", 0.3)  # the title, not a row
    assert (screen.found, list(screen.pending)) == ({"detail": 0.3}, ["row"])
    screen.feed(b"\x1b[3;1Hq1        model-0", 0.4)
    assert screen.found == {"detail": 0.3, "row": 0.4}


def test_a_command_that_ends_before_drawing_a_marker_is_named(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "print('hello')"]
    with pytest.raises(Undrawn, match="ended before drawing tables; its last text: 'hello'"):
        in_terminal(command, {"tables": "Overall"}, env=dict(os.environ), cwd=tmp_path)


def test_the_review_screen_is_timed_from_launch_in_a_terminal(
    demo_db: Path, tmp_path: Path
) -> None:
    """`lmmreview open` on the demo in a pty: every stage is drawn and timed, then quit.

    No order is asserted: on a database this small one frame may carry all three stages,
    written in whatever order Textual paints the regions (CI saw the detail pane first)."""
    command = [sys.executable, "-m", "lmmreview", "open", str(demo_db)]
    drawn = in_terminal(
        command, screen_markers(demo_db), env=user_env(tmp_path / "home"), cwd=tmp_path
    )
    assert drawn.returncode == 0
    assert set(drawn.seconds) == {"row", "detail", "tables"}
    assert all(seconds > 0 for seconds in drawn.seconds.values())
    assert drawn.peak_rss_bytes > 10_000_000  # an interpreter with Textual loaded


def test_a_benchmark_on_request_runs_only_when_named_alone() -> None:
    everyday = _bench("launch tables, generic 1,000,000 answers", lambda _ctx: 1.0)
    big = Benchmark("launch 10,000,000 answers, tables", lambda _ctx: 1.0, "s", None, True,
                    "", on_request=True)  # fmt: skip
    both = [everyday, big]
    assert select(both, []) == select(both, ["launch"]) == select(both, ["1,000"]) == [everyday]
    assert select(both, ["launch 10,000,000"]) == select(both, ["10,000,000"]) == [big]
