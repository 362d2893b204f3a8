"""Build the demo database from the sample data installed with lmmreview."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from importlib.resources import files
from pathlib import Path

from lmmreview.db.importers import (
    ImportSummary,
    batch_sha256,
    demo_of,
    import_target,
    load,
    reader_of,
)
from lmmreview.db.importers.batch import ImportBatch, JudgmentRecord
from lmmreview.db.scoring import score_offline
from lmmreview.db.store import StoreError
from lmmreview.engine import hooks
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.guarded import PluginFailure, plugin_call
from lmmreview.engine.registry import benchmarks, origin


def sample_data() -> Path:
    """The folder of the installed `lmmreview.sample_data` package (the repository's
    `sample_data/`)."""
    folder = files("lmmreview.sample_data")
    # pip, pipx and uv unpack wheels; only a zipped install would give no real folder
    if not isinstance(folder, Path):
        raise FileNotFoundError(f"{folder}: the sample data is not a folder on disk")
    return folder


def demo_batches(data: Path) -> list[ImportBatch]:
    """Every import the demo makes: each installed benchmark's, in the registry's order."""
    batches = []
    for benchmark in benchmarks().values():
        try:
            batches += plugin_call(benchmark, "demo", partial(_demo, benchmark, data))
        except PluginFailure as failure:  # a plug-in's demo fails alone, said once
            for report in hooks.listeners:
                report(f"{failure}; its demo is left out")
    return batches


def _demo(benchmark: Benchmark, data: Path) -> list[ImportBatch]:
    """A benchmark's demo imports, read (none without a demo lister)."""
    importer, package = benchmark.importer, origin(benchmark.name)
    if importer is None or (requests := demo_of(importer, package)) is None:
        return []
    return [reader_of(importer, package)(request) for request in requests(data)]


def installed_demo_batches() -> list[ImportBatch]:
    """The demo's imports from the sample data installed with lmmreview, their sources
    recorded as `sample_data/...` rather than where this machine keeps the package."""
    data = sample_data()
    batches = demo_batches(data)
    for batch in batches:
        if batch.judgments or batch.group_verdicts:  # recorded by the file read here
            batch.sha256 = batch_sha256(batch)
        batch.source = _as_sample_data(batch.source, data)
        batch.answers = [
            replace(answer, source=_as_sample_data(answer.source, data)) for answer in batch.answers
        ]
        batch.judgments = [_judgment_as_sample_data(record, data) for record in batch.judgments]
        batch.group_verdicts = [
            replace(v, source=_as_sample_data(v.source, data)) for v in batch.group_verdicts
        ]
    return batches


def _judgment_as_sample_data(record: JudgmentRecord, data: Path) -> JudgmentRecord:
    """An imported judgment (a file's own verdict), its source named as the answer's is."""
    judgment = replace(record.judgment, source=_as_sample_data(record.judgment.source, data))
    return replace(record, judgment=judgment)


def _as_sample_data(source: str, data: Path) -> str:
    """A source read from the installed sample data, as `sample_data/...` ('' stays '')."""
    return (Path("sample_data") / Path(source).relative_to(data)).as_posix() if source else ""


def build_demo(path: Path, batches: list[ImportBatch]) -> list[ImportSummary]:
    """Load the demo's `batches` into the database at `path` and score them offline
    (idempotent: a second build changes nothing). A new file appears only if this succeeds."""
    with import_target(path) as store:
        demo = {batch.dataset for batch in batches}
        others = [name for (name,) in store.conn.execute("SELECT name FROM datasets")]
        if set(others) - demo:  # a user's own file: the demo keeps out of it
            listed = ", ".join(sorted(set(others) - demo))
            raise StoreError(
                f"{path}: holds datasets the demo does not make ({listed}): give the demo a "
                "file of its own"
            )
        summaries = [load(store, batch) for batch in batches]
        list(score_offline(store))
    return summaries
