"""The faulty format's writer: one text file per dataset, or what $FAULTY says."""

from __future__ import annotations

from faulty_bench import fault
from lmmreview.db import Store
from lmmreview.db.official import OfficialFile, OfficialFiles
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.scoring import Judge


def write(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles | None:
    if fault() == "writer-exit":
        raise SystemExit(4)
    if fault() == "writer-none":
        return None
    name = "../escaped.txt" if fault() == "writer-escape" else f"{dataset}.txt"
    content: object = 5 if fault() == "writer-int" else f"faulty {dataset}\n"
    return OfficialFiles([OfficialFile(name, None, content)])  # type: ignore[arg-type]
