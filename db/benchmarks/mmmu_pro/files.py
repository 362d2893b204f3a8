"""MMMU-Pro: the official output files (`mmmu-pro/output/<model>_<setting>_<method>.jsonl`),
one line per question: its id, question, options (a Python list literal), answer letter,
img_type, topic_difficulty and subject, and the model's `response`; once `evaluate.py` has
run, also its parse's letter `pred_indexs` and verdict `if_right`, imported as the judgment
of a judge of their own (OFFICIAL_JUDGE) beside lmmreview's parse.

Each file is one model's answers (in one setting, with one prompt); the questions are read from
the same lines, and must agree from file to file. The files name no image: an images folder
may give them, as `<id>_<n>.png` (the dataset's image_<n>) or `<id>.png` (the vision
setting's screenshot).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mmmu.files import (
    draft_sample,
    is_text_or_number,
    literal_list,
    question_draft,
)
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
    listed,
    model_name,
)
from lmmreview.db.importers.read import existing, image_from_file, read_jsonl
from lmmreview.engine.benchmarks.mmmu.benchmark import DISCIPLINE, SUBJECT
from lmmreview.engine.benchmarks.mmmu_pro.benchmark import MMMU_PRO
from lmmreview.engine.scoring import Judgment, imported
from lmmreview.engine.types import Sample

# The official files have no question_type: every MMMU-Pro question is multiple choice.
_CHOICE = "multiple-choice"
MAX_IMAGES = 7  # the dataset's image_1 .. image_7
SCREENSHOT_QUESTION = "<image 1>"
OFFICIAL_JUDGE = "mmmu-pro/evaluate.py"  # the judge of the files' own verdicts
OFFICIAL_PROMPT = "official"  # its "prompt": the official parse, no model


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmmu-pro`."""
    outputs = request.path("outputs")
    if outputs is None:
        raise ImportFailure("mmmu-pro", "give an official output file, or a folder of them")
    return read_mmmu_pro(
        outputs, request.text("model"), request.dataset or MMMU_PRO.name, request.path("images")
    )


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's official output file, under the model part of its name
    (<model>_<setting>_<method>.jsonl), with the questions' images."""
    folder = data / "mmmu-pro"
    return [
        ImportRequest(
            {"outputs": path, "model": path.name.split("_", 1)[0], "images": folder / "images"}
        )
        for path in sorted((folder / "outputs").glob("*.jsonl"))
    ]


def read_mmmu_pro(
    outputs: Path,
    model: str | None = None,
    dataset: str = "mmmu-pro",
    images: Path | None = None,
) -> ImportBatch:
    """The questions and answers of one output file, or of each *.jsonl file in a folder,
    and the questions' images from the `images` folder."""
    check_model_argument(model)
    files = _output_files(existing(outputs, "file or folder"), model)
    batch = ImportBatch(dataset, MMMU_PRO.name, str(outputs))
    samples: dict[str, tuple[Sample, str]] = {}  # key -> sample, the line it was first read on
    for path in files:
        _read_file(path, model_name(model, path), samples, batch)
    batch.samples = [sample for sample, _ in samples.values()]
    batch.warnings.extend(_warnings(batch.samples))
    if images is not None:
        _add_images(batch, existing(images, "folder"))
    return batch


def _add_images(batch: ImportBatch, folder: Path) -> None:
    """Each question's images from `folder`: its screenshot `<id>.png`, then `<id>_1.png`,
    `<id>_2.png`, ... in order; a question with none is named in a warning."""
    bare = []
    for sample in batch.samples:
        names = [f"{sample.key}.png", *(f"{sample.key}_{n}.png" for n in range(1, MAX_IMAGES + 1))]
        found = [image_from_file(folder / name, folder, f"id {sample.key}") for name in names]
        for image in filter(None, found):
            batch.add_image(sample.key, image)
        if not any(found):
            bare.append(sample.key)
    if bare:
        batch.warnings.append(f"{folder}: {len(bare)} question(s) without an image: {listed(bare)}")


def _read_file(
    path: Path, model: str, samples: dict[str, tuple[Sample, str]], batch: ImportBatch
) -> None:
    """One file's answers and official verdicts, added to `batch`; its questions are added
    to `samples`, or checked against them."""
    lines: dict[str, int] = {}  # this file's ids -> line
    for number, row in read_jsonl(path):
        sample, response = _line(row, path, number)
        where = f"line {number}"
        if sample.key in lines:
            message = f"duplicate id {sample.key!r} (also on line {lines[sample.key]})"
            raise ImportFailure(path, message, where)
        lines[sample.key] = number
        first, origin = samples.setdefault(sample.key, (sample, f"{path}, {where}"))
        if first != sample:
            message = f"question {sample.key!r} differs from the one in {origin}"
            raise ImportFailure(path, f"{message}: are both files MMMU-Pro's?", where)
        batch.answers.append(AnswerRecord(sample.key, model, response, str(path)))
        if (verdict := _official_verdict(row, sample, path, where)) is not None:
            batch.judgments.append(JudgmentRecord(sample.key, model, verdict))


def _output_files(outputs: Path, model: str | None) -> list[Path]:
    """The file, or the folder's *.jsonl files (each a model, named by its file)."""
    if not outputs.is_dir():
        return [outputs]
    if model:
        raise ImportFailure(
            "--model", f"names the answers of one file, and {outputs} is a folder: give one file"
        )
    files = sorted(outputs.glob("*.jsonl"))
    if not files:
        raise ImportFailure(outputs, "no *.jsonl output files in this folder")
    return files


def _line(row: dict[str, Any], path: Path, number: int) -> tuple[Sample, str]:
    """One line's question and response."""
    where = f"line {number}"
    response = row.get("response")
    if isinstance(response, dict):
        response = ""  # the official code reads an object (a failed call's) as no answer
    if not isinstance(response, str):
        raise ImportFailure(path, "missing or non-text field 'response'", where)
    return question_sample(row, path, number), response


def question_sample(row: dict[str, Any], path: Path, number: int) -> Sample:
    """The question of an official output line or a dataset row; a vision-setting row has no
    question field (its screenshot shows the question): it asks SCREENSHOT_QUESTION."""
    where = f"line {number}"
    options = _options(row.get("options"), path, where)
    fields = {"question": SCREENSHOT_QUESTION, **row, "question_type": _CHOICE, "options": options}
    key, draft = question_draft(fields, path, number)
    # MMMU-Pro is one set: its ids keep the MMMU split each question came from, which the
    # official accuracy does not split by.
    sample = replace(draft_sample(key, draft, fewest_options=1), split=None)
    subject = row.get("subject")
    if subject not in (None, "", sample.first(SUBJECT)):
        raise ImportFailure(
            path, f"subject {subject!r}, and the id {key!r} is of {sample.first(SUBJECT)!r}", where
        )
    return sample


def _official_verdict(
    row: dict[str, Any], sample: Sample, path: Path, where: str
) -> Judgment | None:
    """evaluate.py's verdict on the line (None before it ran): its parse's letter
    `pred_indexs`, always one of the options (its fallback draws one), and `if_right`, whether
    that letter is the answer, as the official code decides it."""
    if "pred_indexs" not in row and "if_right" not in row:
        return None
    letter, right = row.get("pred_indexs"), row.get("if_right")
    if not isinstance(letter, str) or not isinstance(right, bool):
        message = "pred_indexs must be a letter and if_right true or false (evaluate.py's)"
        raise ImportFailure(path, message, where)
    if letter not in sample.options:
        raise ImportFailure(path, f"pred_indexs {letter!r} is none of the option letters", where)
    if right != (letter == sample.answer):
        message = (
            f"if_right {json.dumps(right)} and pred_indexs {letter!r}, the answer {sample.answer!r}"
        )
        raise ImportFailure(path, f"{message}: they disagree", where)
    reply = json.dumps({"pred_indexs": letter, "if_right": right})
    return imported(OFFICIAL_JUDGE, OFFICIAL_PROMPT, float(right), reply, str(path), letter)


def _options(value: object, path: Path, where: str) -> object:
    """The options as a list, an item that is itself a list (one official question's single
    option is one) kept as its literal text, as the official code reads it."""
    if isinstance(value, str):
        value = literal_list(value, "options", path, where, item=_option_item)
    if isinstance(value, list):
        return [str(item) if isinstance(item, list) else item for item in value]
    return value


def _option_item(value: object) -> bool:
    """An option: text, a number, or a list of those."""
    return is_text_or_number(value) or (
        isinstance(value, list) and all(map(is_text_or_number, value))
    )


def _warnings(samples: list[Sample]) -> list[str]:
    """What the official code scores as it is, and the reader should know."""
    warnings = []
    if unmatched := [s.key for s in samples if s.answer is not None and s.answer not in s.options]:
        warnings.append(
            f"{len(unmatched)} answer(s) not among their question's option letters, never "
            f"right (as in the official code): {listed(unmatched)}"
        )
    if unknown := sorted({s.first(SUBJECT) or "?" for s in samples if s.first(DISCIPLINE) is None}):
        warnings.append(f"not MMMU subjects, no discipline: {', '.join(unknown)}")
    return warnings
