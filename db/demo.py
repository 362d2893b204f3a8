"""Build the demo database from the files in `sample_data/`."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.importers import (
    ImportSummary,
    load,
    read_generic,
    read_mmbench,
    read_mmmu,
    read_mmvet,
)
from lmmreview.db.importers.batch import ImportBatch
from lmmreview.db.store import Store

SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


def demo_batches(data: Path = SAMPLE_DATA) -> list[ImportBatch]:
    """Every import the demo makes: MM-Vet, MMBench, MMMU and generic JSONL, three demo
    models each."""
    if not (data / "mmvet").is_dir():
        raise FileNotFoundError(
            f"{data}: the sample data is not there (run lmmreview from a clone of the repository)"
        )
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


def build_demo(store: Store, data: Path = SAMPLE_DATA) -> list[ImportSummary]:
    """Import the sample data into `store` (idempotent: a second build changes nothing)."""
    return [load(store, batch) for batch in demo_batches(data)]
