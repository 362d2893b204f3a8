"""MM-Vet official files: the question JSON, an images folder, result JSONs (id -> answer)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
    model_name,
)
from lmmreview.db.importers.model_vqa import is_model_vqa, model_vqa_answers
from lmmreview.db.importers.read import ImageFiles, existing, read_json
from lmmreview.engine.benchmarks.mmvet.benchmark import CAPABILITY, MMVET
from lmmreview.engine.benchmarks.mmvet.rules import CAPABILITIES, canonical_capabilities
from lmmreview.engine.types import QuestionType, Sample

_FIELDS = ("imagename", "question", "answer", "capability")


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmvet`: result files pair with --model names in order, or are
    named after their files."""
    return read_mmvet(*request_files(request), request.dataset or "mmvet")


def request_files(request: ImportRequest) -> tuple[Path, Path | None, list[tuple[Path, str]]]:
    """The question file, the images folder, and (result file, model) pairs; a model left
    unnamed is "" (the file's own name: its stem, or a model_vqa file's model_id)."""
    files, names = request.paths("answers"), request.texts("model")
    if names and len(names) != len(files):
        raise ImportFailure(
            "--model", "give one --model per --answers file (or none, to use file names)"
        )
    questions = request.path("questions")
    assert questions is not None  # the command requires it
    pairs = list(zip(files, names or [""] * len(files), strict=True))
    return questions, request.path("images"), pairs


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: the sample questions and images, every sample answer file."""
    folder = data / "mmvet"
    if not folder.is_dir():
        raise FileNotFoundError(f"{data}: not a sample data folder (it has no mmvet/)")
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
    return read_questions(
        questions, images, results, ImportBatch(dataset, MMVET.name, str(questions)), _sample
    )


# Reads one question file entry: (key, entry, file, "id KEY") -> the sample, and the
# names of its images in order.
EntryReader = Callable[[str, object, Path, str], tuple[Sample, list[str]]]


def read_questions(
    questions: Path,
    images: Path | None,
    results: list[tuple[Path, str]],
    batch: ImportBatch,
    read_entry: EntryReader,
) -> ImportBatch:
    """Fill `batch` from a question file (id -> entry), its images folder (without one,
    the `images/` beside the question file, as the official files lie) and result files
    (each with its model name); a missing image is left to the warnings."""
    data = read_json(questions)
    if not isinstance(data, dict):
        raise ImportFailure(questions, "expected a JSON object keyed by sample id")
    folder = images if images is not None else _images_beside(questions, batch)
    files = ImageFiles(existing(folder, "folder")) if folder is not None else None
    named = 0  # questions naming image files
    for key, entry in data.items():
        where = f"id {key}"
        sample, names = read_entry(key, entry, questions, where)
        batch.samples.append(sample)
        named += bool(names)
        images_read = (files.read(name, questions, where) for name in names) if files else ()
        for image in images_read:
            if image is not None:
                batch.add_image(key, image)
    if files is not None:
        batch.warnings.extend(files.warnings())
    elif named:
        batch.warnings.append(
            f"{questions}: {named} question(s) name image files, but no --images folder was "
            "given and there is no images/ beside the file: imported without images"
        )
    batch.answers.extend(read_results(results))
    return batch


def _images_beside(questions: Path, batch: ImportBatch) -> Path | None:
    """The `images/` folder beside the question file, if there is one (said in the
    warnings, as --images was not given)."""
    folder = questions.parent / "images"
    if not folder.is_dir():
        return None
    batch.warnings.append(f"no --images given: reading the images from {folder}")
    return folder


def read_results(results: list[tuple[Path, str]]) -> list[AnswerRecord]:
    """Every answer in the result files (id -> answer, or LLaVA's model_vqa lines for a
    .jsonl file), each file's under its model ("" for the file's own name)."""
    answers = []
    for path, model in results:
        check_model_argument(model)
        if is_model_vqa(path):
            answers.extend(model_vqa_answers(path, model or None, mmvet_id))
        else:
            answers.extend(_answers(path, model_name(model, path)))
    return answers


def mmvet_id(question_id: object, file: Path, where: str) -> str:
    """An MM-Vet sample id: `v1_0` as it is; a bare number n (LLaVA's question_id) is `v1_n`."""
    if isinstance(question_id, int) and not isinstance(question_id, bool) and question_id >= 0:
        return f"v1_{question_id}"
    if isinstance(question_id, str) and question_id.strip():
        text = question_id.strip()
        return f"v1_{text}" if text.isascii() and text.isdigit() else text
    raise ImportFailure(file, f"question_id {question_id!r} is not an MM-Vet id", where)


def _sample(key: str, entry: object, file: Path, where: str) -> tuple[Sample, list[str]]:
    sample = open_sample(key, entry, file, where, _FIELDS)
    assert isinstance(entry, dict)  # open_sample refuses anything else
    if not isinstance(entry["imagename"], str):
        raise ImportFailure(file, "imagename must be text", where)
    return sample, [entry["imagename"]]


def open_sample(
    key: str,
    entry: object,
    file: Path,
    where: str,
    fields: tuple[str, ...],
    known: tuple[str, ...] = CAPABILITIES,
) -> Sample:
    """An open question from an entry holding every one of `fields` (among them question,
    answer and capability, the latter of the `known` capabilities); other fields are ignored."""
    if not isinstance(entry, dict):
        raise ImportFailure(file, "expected an object with " + ", ".join(fields), where)
    for name in fields:
        if entry.get(name) in (None, ""):
            raise ImportFailure(file, f"missing field {name!r}", where)
    capabilities = capabilities_of(entry["capability"], file, where, known)
    return Sample(
        key=key,
        question=field_text(entry["question"], "question", file, where),
        question_type=QuestionType.OPEN,
        answer=field_text(entry["answer"], "answer", file, where),
        axes={CAPABILITY: capabilities},
    )


def capabilities_of(
    value: object, file: Path, where: str, known: tuple[str, ...] = CAPABILITIES
) -> tuple[str, ...]:
    """A `capability` field (a list or a comma-separated string) as a canonical set of the
    `known` capabilities; anything else is refused naming the file and id."""
    if not isinstance(value, str) and not (
        isinstance(value, list) and all(isinstance(c, str) for c in value)
    ):
        raise ImportFailure(file, "capability must be text or a list of text", where)
    try:
        return canonical_capabilities(value, known)
    except ValueError as exc:
        raise ImportFailure(file, str(exc), where) from None


def _answers(path: Path, model: str) -> list[AnswerRecord]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ImportFailure(path, "expected a JSON object mapping sample id to answer")
    return [
        AnswerRecord(key, model, field_text(text, "answer", path, f"id {key}"), str(path))
        for key, text in data.items()
    ]


def field_text(value: object, name: str, file: Path, where: str) -> str:
    """Strings as they are; numbers (some ground truths are bare numbers) as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ImportFailure(file, f"{name} must be text, got {type(value).__name__}", where)
