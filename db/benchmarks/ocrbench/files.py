"""OCRBench: the official results file, one model's answers.

The official example.py writes OCRBench.json's list back with each item's `predict` (the
model's answer) and `result`: an object per item with dataset_name, id, image_path,
question, answers (a string, or a list of strings) and type (one of the 10 question
types). An item without `predict`, or with `predict` 0, is skipped by the official
scoring and counts 0: it is imported as an empty answer, which the rule scores 0 too, so
that every count and accuracy equals the official one. A sample's key is
`{dataset_name}/{id}` (an id alone repeats across datasets).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
    listed,
    model_name,
)
from lmmreview.db.importers.read import ImageFiles, existing, nonblank_text_field, read_json
from lmmreview.engine.benchmarks.ocrbench import rules
from lmmreview.engine.benchmarks.ocrbench.benchmark import DATASET, IMAGE, OCRBENCH, TYPE
from lmmreview.engine.types import Axes, QuestionType, Sample

NOT_ANSWERED = 0  # the official scoring skips a `predict` equal to this, or none at all


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import ocrbench`."""
    results = request.path("results")
    assert results is not None  # the command's required argument
    dataset = request.dataset or OCRBENCH.name
    return read_results(results, request.text("model"), dataset, request.path("images"))


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's results file, with the images."""
    folder = data / "ocrbench"
    return [
        ImportRequest({"results": path, "images": folder / "images"})
        for path in sorted((folder / "results").glob("*.json"))
    ]


def read_results(
    path: Path, model: str | None = None, dataset: str = "ocrbench", images: Path | None = None
) -> ImportBatch:
    """The items of one results file and the model's answers; with `images`, each item's
    image (its image_path, relative to that folder)."""
    batch, unanswered = read_items(path, model, (dataset, OCRBENCH.name), images, _read_item)
    if unanswered:
        batch.warnings.append(
            f"{len(unanswered)} item(s) without a prediction, imported as empty answers "
            f"(0, as the official scoring counts them): {listed(unanswered)}"
        )
    return batch


def _read_item(item: dict[str, Any], path: Path, where: str) -> tuple[Sample, str | None]:
    return item_sample(item, path, where), _prediction(item, path, where)


# An item of a results file -> its sample and the model's answer (None: no prediction),
# or None to leave the item out.
ItemReader = Callable[[dict[str, Any], Path, str], tuple[Sample, str | None] | None]


def read_items(
    path: Path,
    model: str | None,
    dataset: tuple[str, str],
    images: Path | None,
    read_item: ItemReader,
) -> tuple[ImportBatch, list[str]]:
    """A results file (a JSON list of items, as the official scripts of v1 and v2 read
    them) into a batch of `dataset` (its name and benchmark), and the keys of the items
    without a prediction (imported as empty answers)."""
    check_model_argument(model)
    files = None if images is None else ImageFiles(existing(images, "folder"))
    items = read_json(existing(path))
    if not isinstance(items, list):
        raise ImportFailure(path, "expected a JSON list: the items, each with its predict")
    if not items:
        raise ImportFailure(path, "no items: the list is empty")
    name = model_name(model, path)
    batch = ImportBatch(*dataset, str(path))
    seen: dict[str, str] = {}  # key -> where it was read
    unanswered: list[str] = []
    for index, item in enumerate(items):
        where = f"item {index + 1}"
        if not isinstance(item, dict):
            raise ImportFailure(path, "expected an object: an OCRBench item", where)
        read = read_item(item, path, where)
        if read is None:
            continue
        sample, answer = read
        if sample.key in seen:
            raise ImportFailure(path, f"{sample.key} again (also {seen[sample.key]})", where)
        seen[sample.key] = where
        if answer is None:
            unanswered.append(sample.key)
        batch.samples.append(sample)
        batch.answers.append(AnswerRecord(sample.key, name, answer or "", str(path)))
        if files is not None:
            _add_image(
                batch, files, sample.key, nonblank_text_field(item, IMAGE, path, where), where
            )
    if files is not None:
        batch.warnings.extend(files.warnings())
    return batch, unanswered


def _add_image(batch: ImportBatch, files: ImageFiles, key: str, name: str, where: str) -> None:
    image = files.read(name, batch.source, where)
    if image is not None:
        batch.add_image(key, image)


def item_key(item: dict[str, Any], path: Path, where: str) -> str:
    """`{dataset_name}/{id}`: an id alone repeats across datasets."""
    source = nonblank_text_field(item, "dataset_name", path, where)
    number = item.get("id")
    if isinstance(number, bool) or not isinstance(number, int | str) or number == "":
        raise ImportFailure(path, f"id {number!r}: expected a number or text", where)
    return f"{source}/{number}"


def item_sample(item: dict[str, Any], path: Path, where: str) -> Sample:
    """One item of OCRBench.json as a sample, keyed `{dataset_name}/{id}`."""
    key = item_key(item, path, where)
    kind = item.get("type")
    check_type(kind, path, where)
    golds = golds_of(item.get("answers"), path, where)
    question = nonblank_text_field(item, "question", path, where)
    source = nonblank_text_field(item, "dataset_name", path, where)
    return ocrbench_sample(key, question, golds, str(kind), source)


def ocrbench_sample(
    key: str, question: str, golds: list[str], kind: str, source: str | None
) -> Sample:
    """A question with its golds (the first is the answer), question type and dataset.
    Where a tool's file names no dataset, an HMER item's is HME100k (OCRBench's only
    handwritten-math source, whose rule it needs), any other's is left unknown."""
    if source is None and kind == rules.TYPES[-1]:
        source = rules.HANDWRITTEN_MATH
    axes: Axes = {TYPE: (kind,)}
    if source:
        axes[DATASET] = (source,)
    return Sample(key, question, QuestionType.OPEN, golds[0], tuple(golds[1:]), axes=axes)


def check_type(kind: object, path: Path, where: str) -> None:
    if kind not in rules.TYPES:
        raise ImportFailure(path, f"type {kind!r}: not one of OCRBench's 10 question types", where)


def golds_of(value: object, path: Path, where: str) -> list[str]:
    """An item's golds: its `answers`, a string or a list of strings, none blank (a blank
    gold is in every answer)."""
    golds = [value] if isinstance(value, str) else value
    if not isinstance(golds, list) or not golds or not all(isinstance(g, str) for g in golds):
        raise ImportFailure(path, f"answers {value!r}: expected text or a list of text", where)
    if any(not gold.strip() for gold in golds):
        raise ImportFailure(path, "a blank gold: every answer would contain it", where)
    return golds


def _prediction(item: dict[str, Any], path: Path, where: str) -> str | None:
    """The item's `predict`; None when the official scoring skips it (none, or 0)."""
    predict = item.get("predict", NOT_ANSWERED)
    if isinstance(predict, str):
        return predict
    if predict == NOT_ANSWERED:  # 0.0 and false too, as the official `== 0` reads them
        return None
    raise ImportFailure(path, f"predict {predict!r}: expected text", where)
