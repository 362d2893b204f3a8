"""MathVista: the official output files (`results/<model>/output_<model>.json`), one JSON object
pid -> problem: its question, choices, unit, precision, answer, question_type, answer_type,
metadata (an object, or its Python literal), the query the model was given, its `response`,
and, once the official evaluation ran, its `extraction`, `prediction` and `true_false`.

An `extraction` is imported as the official extractor's judgment, scored by lmmreview's
normalisation and comparison (no LLM call); the file's own true_false is compared with
lmmreview's verdict, and any difference reported. Each problem's `image` names its image
file relative to the dataset's folder (`images/<pid>.jpg`); `--images FOLDER` reads them.
"""

from __future__ import annotations

import ast
from pathlib import Path
from string import ascii_uppercase
from typing import Any

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
from lmmreview.db.importers.read import (
    ImageFiles,
    existing,
    optional_text_field,
    read_json,
    text_field,
)
from lmmreview.db.store import StoredImage
from lmmreview.engine.benchmarks.mathvista import rules
from lmmreview.engine.benchmarks.mathvista.benchmark import (
    ANSWER_TYPE,
    BREAKDOWN,
    MATHVISTA,
    PRECISION,
    QUERY,
    SKILL,
    UNIT,
    problem_of,
)
from lmmreview.engine.benchmarks.mathvista.extractor import scored
from lmmreview.engine.scoring import Judgment, imported
from lmmreview.engine.types import Axes, Extra, QuestionType, Sample

EXTRACTOR = "official extractor"  # the judge an imported extraction is filed under
PROMPT = "official extraction"  # its prompt version: the official quick rules, then GPT-4
_OUTPUT_PREFIX = "output_"  # output_<model>.json, as the official results are named
_METADATA = tuple(axis for axis, _ in BREAKDOWN if axis not in ("question_type", "answer_type"))


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mathvista`."""
    outputs = request.path("outputs")
    assert outputs is not None  # the command's required argument
    return read_mathvista(
        outputs, request.text("model"), request.dataset or MATHVISTA.name, request.path("images")
    )


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's output file (output_<model>.json), with the images."""
    folder = data / "mathvista"
    return [
        ImportRequest({"outputs": path, "images": folder})
        for path in sorted(folder.glob(f"{_OUTPUT_PREFIX}*.json"))
    ]


def read_mathvista(
    path: Path, model: str | None = None, dataset: str = "mathvista", images: Path | None = None
) -> ImportBatch:
    """One output file's problems, the model's responses, its official extractions as
    judgments, and the problems' images from the `images` folder."""
    check_model_argument(model)
    files = None if images is None else ImageFiles(existing(images, "folder"))
    document = read_json(existing(path))
    if not isinstance(document, dict):
        raise ImportFailure(path, "expected a JSON object: pid -> problem")
    if not document:
        raise ImportFailure(path, "no problems: the object is empty")
    name = model or _model_of(path)
    batch = ImportBatch(dataset, MATHVISTA.name, str(path))
    disagree: list[str] = []
    for pid, row in document.items():
        where = f"pid {pid}"
        if not isinstance(row, dict):
            raise ImportFailure(path, "expected an object: the problem", where)
        sample = problem_sample(pid, row, path, where)
        response = row.get("response")
        if not isinstance(response, str):
            raise ImportFailure(path, "missing or non-text field 'response'", where)
        batch.samples.append(sample)
        if files is not None and (image := _image(row, files, path, where)) is not None:
            batch.add_image(pid, image)
        batch.answers.append(AnswerRecord(pid, name, response, str(path)))
        judgment = extraction_judgment(sample, row.get("extraction"), path, where)
        if judgment is not None:
            batch.judgments.append(JudgmentRecord(pid, name, judgment))
            if not agrees(judgment, row):
                disagree.append(pid)
    if disagree:
        batch.warnings.append(disagreement("official", disagree))
    if files is not None:
        batch.warnings.extend(files.warnings())
    return batch


def _image(row: dict[str, Any], files: ImageFiles, path: Path, where: str) -> StoredImage | None:
    """The problem's image, named by its `image` field relative to the images folder."""
    name = optional_text_field(row, "image", path, where)
    return files.read(name, path, where) if name else None


def _model_of(path: Path) -> str:
    """output_<model>.json names <model>; any other file its name without .json."""
    stem = model_name(None, path)
    return stem.removeprefix(_OUTPUT_PREFIX) or stem


def problem_sample(pid: str, row: dict[str, Any], path: Path, where: str) -> Sample:
    """One problem (of an output file, or the dataset's row) as a sample: a multiple-choice
    one's golds are the letters of its answer's choice (two choices may read alike); its
    answer type, precision, unit and query kept."""
    if row.get("pid", pid) != pid:
        raise ImportFailure(path, f"pid {row['pid']!r} differs from its key", where)
    question = text_field(row, "question", path, where)
    question_type, answer_type = _types(row, path, where)
    answer = optional_text_field(row, "answer", path, where) or None  # blank: hidden (test split)
    split, metadata = _metadata(row.get("metadata"), path, where)
    axes: Axes = {"question_type": (question_type,), "answer_type": (answer_type,), **metadata}
    extra = _extra(row, answer_type, path, where)
    if question_type == rules.FREE_FORM:
        return Sample(pid, question, QuestionType.OPEN, answer, split=split, axes=axes, extra=extra)
    options = _options(row.get("choices"), path, where)
    golds = [letter for letter, text in options.items() if text == answer]
    if answer is not None and not golds:
        raise ImportFailure(path, f"answer {answer!r} is none of the choices", where)
    return Sample(
        pid, question, QuestionType.CHOICE, golds[0] if golds else None, tuple(golds[1:]),
        options, split=split, axes=axes, extra=extra,
    )  # fmt: skip


def _types(row: dict[str, Any], path: Path, where: str) -> tuple[str, str]:
    """The problem's question type and answer type, checked."""
    question_type, answer_type = row.get("question_type"), row.get("answer_type")
    if question_type not in (rules.MULTI_CHOICE, rules.FREE_FORM):
        message = f"question_type {question_type!r} is neither multi_choice nor free_form"
        raise ImportFailure(path, message, where)
    if answer_type not in rules.ANSWER_TYPES:
        listed_types = ", ".join(rules.ANSWER_TYPES)
        raise ImportFailure(path, f"answer_type {answer_type!r} is none of {listed_types}", where)
    return question_type, answer_type


def _extra(row: dict[str, Any], answer_type: str, path: Path, where: str) -> Extra:
    """What the rules and the extractor read beyond the common fields (a null left out, as
    the store keeps them)."""
    precision = _precision(row.get(PRECISION), path, where)
    if answer_type == rules.FLOAT and precision is None:
        raise ImportFailure(path, "a float answer needs its precision (decimals)", where)
    found = (
        (ANSWER_TYPE, answer_type),
        (PRECISION, precision),
        (UNIT, optional_text_field(row, UNIT, path, where)),
        (QUERY, optional_text_field(row, QUERY, path, where)),
    )
    return {name: value for name, value in found if value is not None}


def _precision(value: object, path: Path, where: str) -> int | None:
    """The number of decimals: a whole number (1 or 1.0), or null."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ImportFailure(path, f"precision {value!r} is no number of decimals", where)


def _options(value: object, path: Path, where: str) -> dict[str, str]:
    """A multiple-choice problem's choices, lettered A, B, ..."""
    if not isinstance(value, list) or not value or not all(isinstance(c, str) for c in value):
        raise ImportFailure(path, "a multi_choice problem needs its choices: a list of text", where)
    if len(value) > len(ascii_uppercase):
        raise ImportFailure(path, f"{len(value)} choices: at most 26 have letters", where)
    return dict(zip(ascii_uppercase, value, strict=False))


def _metadata(value: object, path: Path, where: str) -> tuple[str | None, Axes]:
    """The split and the breakdown's axes (language, source, ..., skills) of the metadata, an
    object or its Python literal (parsed safely: literal_eval runs no code)."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            shown = str(value)[:60]
            raise ImportFailure(path, f"metadata is no literal: {shown!r}", where) from None
    if value is None:
        return None, {}
    if not isinstance(value, dict):
        raise ImportFailure(path, "metadata must be an object", where)
    split = value.get("split")
    if split is not None and not isinstance(split, str):
        raise ImportFailure(path, f"metadata split {split!r} is not text", where)
    axes: Axes = {}
    for axis in _METADATA:
        found = value.get(axis)
        if found is None:
            continue
        values = found if axis == SKILL and isinstance(found, list) else [found]
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) != len(values):
            raise ImportFailure(path, f"metadata {axis} {found!r} is not text", where)
        axes[axis] = tuple(dict.fromkeys(texts))  # a skill listed twice counts once
    return split, axes


def extraction_judgment(
    sample: Sample,
    extraction: object,
    path: Path,
    where: str,
    judge: str = EXTRACTOR,
    prompt: str = PROMPT,
) -> Judgment | None:
    """An extractor's recorded extraction (the official one's by default) as its judgment,
    scored by lmmreview's rules; None when there is none, or the gold is unknown."""
    if extraction is None or sample.answer is None:
        return None
    if not isinstance(extraction, str):
        raise ImportFailure(path, f"extraction must be text, not {extraction!r}", where)
    score, choice, reply = scored(problem_of(sample), extraction)
    return imported(judge, prompt, score, reply, str(path), choice)


def disagreement(whose: str, pids: list[str]) -> str:
    """The warning that names the problems whose recorded verdict is not lmmreview's."""
    return (
        f"{len(pids)} {whose} true_false value(s) differ from lmmreview's verdict on the "
        f"same extraction (lmmreview's are imported): {listed(pids)}"
    )


def agrees(judgment: Judgment, row: dict[str, Any]) -> bool:
    """Whether the file's own true_false, where it holds one, is our verdict. (Its
    prediction may differ where the verdict does not: the published files' integer rule
    predates the official code's, which reads "13.75" as 13.)"""
    ours = judgment.score == 1.0
    return row.get("true_false", ours) == ours
