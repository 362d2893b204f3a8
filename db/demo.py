"""Build the demo database from the sample data installed with lmmreview."""

from __future__ import annotations

from dataclasses import replace
from importlib.resources import files
from pathlib import Path

from lmmreview.db.importers import (
    ImportSummary,
    import_target,
    load,
    read_generic,
    read_mmbench,
    read_mmmu,
    read_mmvet,
)
from lmmreview.db.importers.batch import ImportBatch
from lmmreview.db.scoring import score_offline


def sample_data() -> Path:
    """The folder of the installed `lmmreview.sample_data` package (the repository's
    `sample_data/`)."""
    folder = files("lmmreview.sample_data")
    # pip, pipx and uv unpack wheels; only a zipped install would give no real folder
    if not isinstance(folder, Path):
        raise FileNotFoundError(f"{folder}: the sample data is not a folder on disk")
    return folder


def demo_batches(data: Path) -> list[ImportBatch]:
    """Every import the demo makes: MM-Vet, MMBench, MMMU and generic JSONL, three demo
    models each."""
    if not (data / "mmvet").is_dir():
        raise FileNotFoundError(f"{data}: not a sample data folder (it has no mmvet/)")
    mmvet = data / "mmvet"
    results = [(path, path.stem) for path in sorted((mmvet / "answers").glob("*.json"))]
    batches = [read_mmvet(mmvet / "mm-vet.json", mmvet / "images", results)]
    tsv = data / "mmbench" / "mmbench_demo.tsv"
    batches.append(read_mmbench(tsv, dataset="mmbench"))
    for path in sorted((data / "mmbench" / "predictions").glob("*.tsv")):
        batches.append(read_mmbench(tsv, path, path.stem, dataset="mmbench"))
    mmmu = data / "mmmu"
    for outputs in sorted(p for p in (mmmu / "outputs").iterdir() if p.is_dir()):
        batches.append(
            read_mmmu(
                outputs, mmmu / "answer_dict_val.json", mmmu / "questions.jsonl", outputs.name
            )
        )
    batches.append(read_generic(data / "generic" / "demo.jsonl", dataset="generic"))
    return batches


def installed_demo_batches() -> list[ImportBatch]:
    """The demo's imports from the sample data installed with lmmreview, their sources
    recorded as `sample_data/...` rather than where this machine keeps the package."""
    data = sample_data()
    batches = demo_batches(data)
    for batch in batches:
        batch.source = _as_sample_data(batch.source, data)
        batch.answers = [
            replace(answer, source=_as_sample_data(answer.source, data)) for answer in batch.answers
        ]
    return batches


def _as_sample_data(source: str, data: Path) -> str:
    return (Path("sample_data") / Path(source).relative_to(data)).as_posix()


def build_demo(path: Path, batches: list[ImportBatch]) -> list[ImportSummary]:
    """Load the demo's `batches` into the database at `path` and score them offline
    (idempotent: a second build changes nothing). A new file appears only if this succeeds."""
    with import_target(path) as store:
        summaries = [load(store, batch) for batch in batches]
        list(score_offline(store))
    return summaries
