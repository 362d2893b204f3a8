"""The benchmark harness: how a repetition's value, an error and a skip are reported."""

from __future__ import annotations

from pathlib import Path

from bench.harness import Benchmark, Context, Fixtures, Skipped, run_benchmark
from bench.run import summary_lines


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
