"""MM-Vet v2 files: the question JSON (images named inline), an images folder, result JSONs."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.benchmarks.mmvet.files import open_sample, read_questions, request_files
from lmmreview.db.importers.batch import ImportBatch, ImportRequest
from lmmreview.engine.benchmarks.mmvet.v2 import CAPABILITIES, MMVET_V2, image_names
from lmmreview.engine.types import Sample

_FIELDS = ("question", "answer", "capability")  # others (the reference has more) are ignored


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet-v2`: result files pair with --model names in order, or are
    named after their files."""
    return read_mmvet_v2(*request_files(request), request.dataset or MMVET_V2.name)


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: the sample v2 questions and images, every sample answer file."""
    folder = data / "mmvet-v2"
    answers = sorted((folder / "answers").glob("*.json"))
    files = {"questions": folder / "mm-vet-v2.json", "images": folder / "images"}
    return [ImportRequest({**files, "answers": answers})]


def read_mmvet_v2(
    questions: Path,
    images: Path | None,
    results: list[tuple[Path, str]],
    dataset: str = MMVET_V2.name,
) -> ImportBatch:
    """Parse and check everything. Each question keeps its text as given, markers and
    all, so the judge prompt can be rebuilt; its images are attached in the order named."""
    batch = ImportBatch(dataset, MMVET_V2.name, str(questions))
    return read_questions(questions, images, results, batch, _sample)


def _sample(key: str, entry: object, file: Path, where: str) -> tuple[Sample, list[str]]:
    sample = open_sample(key, entry, file, where, _FIELDS, CAPABILITIES)
    return sample, image_names(sample.question)
