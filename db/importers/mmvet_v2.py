"""MM-Vet v2 files: the question JSON (images named inline), an images folder, result JSONs."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest
from lmmreview.db.importers.mmvet import open_sample, read_results, request_files
from lmmreview.db.importers.read import ImageFiles, existing, read_json
from lmmreview.engine.benchmarks.mmvet_v2 import CAPABILITIES, MMVET_V2, image_names

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
    data = read_json(questions)
    if not isinstance(data, dict):
        raise ImportFailure(questions, "expected a JSON object keyed by sample id")
    files = ImageFiles(existing(images, "folder")) if images is not None else None
    batch = ImportBatch(dataset, MMVET_V2.name, str(questions))
    for key, entry in data.items():
        where = f"id {key}"
        sample = open_sample(key, entry, questions, where, _FIELDS, CAPABILITIES)
        batch.samples.append(sample)
        if files is not None:
            _attach_images(batch, sample.key, sample.question, files, questions)
    if files is not None:
        batch.warnings.extend(files.warnings())
    batch.answers.extend(read_results(results))
    return batch


def _attach_images(
    batch: ImportBatch, key: str, question: str, files: ImageFiles, questions: Path
) -> None:
    """Attach the images a question names, in order; a missing one is left to the warnings."""
    for name in image_names(question):
        image = files.read(name, questions, f"id {key}")
        if image is not None:
            batch.add_image(key, image)
