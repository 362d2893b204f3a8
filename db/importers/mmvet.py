"""MM-Vet official files: the question JSON, an images folder, result JSONs (id -> answer)."""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
)
from lmmreview.db.importers.read import ImageFiles, existing, read_json
from lmmreview.engine.benchmarks.mmvet import CAPABILITY, MMVET
from lmmreview.engine.mmvet import canonical_capabilities
from lmmreview.engine.types import QuestionType, Sample

_FIELDS = ("imagename", "question", "answer", "capability")


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet`: result files pair with --model names in order, or are
    named after their files."""
    return read_mmvet(*_arguments(request), request.dataset or "mmvet")


def _arguments(request: ImportRequest) -> tuple[Path, Path | None, list[tuple[Path, str]]]:
    """The question file, the images folder, and (result file, model) pairs."""
    files, names = request.paths("answers"), request.texts("model")
    if names and len(names) != len(files):
        raise ImportFailure(
            "--model", "give one --model per --answers file (or none, to use file names)"
        )
    questions = request.path("questions")
    assert questions is not None  # the command requires it
    pairs = list(zip(files, names or [f.stem for f in files], strict=True))
    return questions, request.path("images"), pairs


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: the sample questions and images, every sample answer file."""
    folder = data / "mmvet"
    answers = sorted((folder / "answers").glob("*.json"))
    files = {"questions": folder / "mm-vet.json", "images": folder / "images", "answers": answers}
    return [ImportRequest(dict(files))]


def read_mmvet(
    questions: Path,
    images: Path | None,
    results: list[tuple[Path, str]],
    dataset: str = "mmvet",
) -> ImportBatch:
    """Parse and check everything; `results` pairs each result file with its model name."""
    data = read_json(questions)
    if not isinstance(data, dict):
        raise ImportFailure(questions, "expected a JSON object keyed by sample id")
    files = ImageFiles(existing(images, "folder")) if images is not None else None
    batch = ImportBatch(dataset, MMVET.name, str(questions))
    for key, entry in data.items():
        where = f"id {key}"
        batch.samples.append(_sample(key, entry, questions, where))
        image = files.read(entry["imagename"], questions, where) if files else None
        if image is not None:
            batch.add_image(key, image)
    if files is not None:
        batch.warnings.extend(files.warnings())
    for path, model in results:
        if model != path.stem:  # a name given with --model, not the file's name
            check_model_argument(model)
        batch.answers.extend(_answers(path, model))
    return batch


def _sample(key: str, entry: object, file: Path, where: str) -> Sample:
    if not isinstance(entry, dict):
        raise ImportFailure(file, "expected an object with " + ", ".join(_FIELDS), where)
    for name in _FIELDS:
        if entry.get(name) in (None, ""):
            raise ImportFailure(file, f"missing field {name!r}", where)
    if not isinstance(entry["imagename"], str):
        raise ImportFailure(file, "imagename must be text", where)
    capability = entry["capability"]
    if not isinstance(capability, str) and not (
        isinstance(capability, list) and all(isinstance(c, str) for c in capability)
    ):
        raise ImportFailure(file, "capability must be text or a list of text", where)
    try:
        capabilities = canonical_capabilities(entry["capability"])
    except ValueError as exc:
        raise ImportFailure(file, str(exc), where) from None
    return Sample(
        key=key,
        question=_text(entry["question"], "question", file, where),
        question_type=QuestionType.OPEN,
        answer=_text(entry["answer"], "answer", file, where),
        axes={CAPABILITY: capabilities},
    )


def _answers(path: Path, model: str) -> list[AnswerRecord]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ImportFailure(path, "expected a JSON object mapping sample id to answer")
    return [
        AnswerRecord(key, model, _text(text, "answer", path, f"id {key}"), str(path))
        for key, text in data.items()
    ]


def _text(value: object, name: str, file: Path, where: str) -> str:
    """Strings as they are; numbers (some ground truths are bare numbers) as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ImportFailure(file, f"{name} must be text, got {type(value).__name__}", where)
