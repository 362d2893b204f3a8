"""MMMU: official example outputs (<Subject>/output.json or one file), the answer
dictionary, and question files in the Hugging Face field layout (JSON or JSONL).

Each source may supply part of a sample; a field is taken from the first source that
has it, in the order answer dictionary, questions file, outputs.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from string import ascii_uppercase
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
from lmmreview.db.importers.read import ImageFiles, outside, read_json, read_jsonl
from lmmreview.engine.benchmarks.mmmu.benchmark import DISCIPLINE, MMMU_BENCHMARK, SUBJECT
from lmmreview.engine.benchmarks.mmmu.rules import DISCIPLINE_OF, question_type_of, subject_of
from lmmreview.engine.types import Axes, QuestionType, Sample

MAX_IMAGES = 7


@dataclass(slots=True)
class Draft:
    """What the sources said about one sample so far."""

    question: str | None = None
    question_type: QuestionType | None = None
    golds: list[str] | None = None
    options: dict[str, str] | None = None
    subfield: str | None = None
    difficulty: str | None = None
    img_type: str | None = None
    images: list[str] = field(default_factory=list)  # relative to the questions file
    origin: str = ""

    def take(self, **values: Any) -> None:
        """Keep values already set; fill the rest."""
        for name, value in values.items():
            if getattr(self, name) is None and value not in (None, ""):
                setattr(self, name, value)


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmmu`."""
    return read_mmmu(
        request.path("outputs"),
        request.path("answer_dict"),
        request.path("questions"),
        request.text("model"),
        request.dataset or "mmmu",
    )


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's outputs, with the answer dictionary and questions."""
    folder = data / "mmmu"
    shared = {
        "answer_dict": folder / "answer_dict_val.json",
        "questions": folder / "questions.jsonl",
    }
    return [
        ImportRequest({"outputs": outputs, "model": outputs.name, **shared})
        for outputs in sorted(p for p in (folder / "outputs").iterdir() if p.is_dir())
    ]


def read_mmmu(
    outputs: Path | None,
    answer_dict: Path | None = None,
    questions: Path | None = None,
    model: str | None = None,
    dataset: str = "mmmu",
) -> ImportBatch:
    """Merge the given sources into one batch; outputs need a model name."""
    if outputs is None and questions is None:
        raise ImportFailure("mmmu", "give model outputs, a --questions file, or both")
    check_model_argument(model)
    drafts: dict[str, Draft] = {}
    responses: list[tuple[str, str, str]] = []  # key, text, file
    golds = _answer_dict(answer_dict) if answer_dict else {}
    if questions is not None:
        for key, draft in _questions(questions).items():
            drafts[key] = draft
    benchmark = set(golds) | set(drafts)  # the ids answers must have, when either is given
    strays: list[str] = []  # output files reached through links that leave the folder
    if outputs is not None:
        for path, records in _output_files(outputs):
            if outside(path, outputs):
                strays.append(str(path.relative_to(outputs)))
            for key, draft, text in records:
                drafts.setdefault(key, Draft(origin=str(path))).take(**_fields(draft))
                responses.append((key, text, str(path)))
    _check_unique(responses)
    if outputs is not None and outputs.is_dir():
        _check_folders(responses)
    if answer_dict or questions:
        _check_known(responses, benchmark, [p for p in (answer_dict, questions) if p])
    batch = ImportBatch(dataset, MMMU_BENCHMARK.name, str(outputs or questions))
    unknown_subjects: set[str] = set()
    images = ImageFiles(questions.parent if questions else Path())
    for key, draft in drafts.items():
        if key in golds:
            qtype, gold = golds[key]
            draft.question_type, draft.golds = qtype, gold
        sample = draft_sample(key, draft)
        if sample.first(DISCIPLINE) is None:
            unknown_subjects.add(sample.first(SUBJECT) or "?")
        batch.samples.append(sample)
        for name in draft.images:
            image = images.read(name, draft.origin, f"id {key}")
            if image is not None:
                batch.add_image(key, image)
    if unknown_subjects:
        batch.warnings.append(
            f"not MMMU subjects, no discipline: {', '.join(sorted(unknown_subjects))}"
        )
    batch.warnings.extend(images.warnings())
    if strays:
        batch.warnings.append(
            f"{len(strays)} output file(s) lead outside {outputs}, read anyway: {listed(strays)}"
        )
    name = model_name(model, outputs) if outputs else ""  # no outputs: no answers either
    batch.answers = [AnswerRecord(key, name, text, file) for key, text, file in responses]
    return batch


def _fields(draft: Draft) -> dict[str, Any]:
    return {
        name: getattr(draft, name) for name in ("question", "question_type", "golds", "options")
    }


def draft_sample(key: str, draft: Draft, fewest_options: int = 2) -> Sample:
    """The sample a draft describes; a multiple-choice one needs `fewest_options` options
    (MMMU-Pro's files hold a question with one)."""
    where = f"id {key}"
    try:
        subject = subject_of(key)
    except ValueError as exc:
        raise ImportFailure(draft.origin, str(exc), where) from None
    if draft.question_type is None:
        raise ImportFailure(draft.origin, "no question_type in any source", where)
    golds = draft.golds or []
    options = draft.options or {}
    if draft.question_type is QuestionType.CHOICE and len(options) < fewest_options:
        raise ImportFailure(draft.origin, "a multiple-choice question needs its options", where)
    axes: Axes = {SUBJECT: (subject,)}
    if discipline := DISCIPLINE_OF.get(subject):
        axes[DISCIPLINE] = (discipline,)
    for axis, value in (("subfield", draft.subfield), ("difficulty", draft.difficulty)):
        if value:
            axes[axis] = (value,)
    if img_types := [part.strip() for part in (draft.img_type or "").split(",") if part.strip()]:
        axes["img_type"] = tuple(img_types)
    return Sample(
        key=key,
        question=draft.question or "",
        question_type=draft.question_type,
        answer=golds[0] if golds else None,
        alt_answers=tuple(golds[1:]),
        options=options,
        split=key.split("_", 1)[0],
        axes=axes,
    )


# -- the answer dictionary --------------------------------------------------------------


def _answer_dict(path: Path) -> dict[str, tuple[QuestionType, list[str]]]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ImportFailure(path, "expected a JSON object: id -> {question_type, ground_truth}")
    golds = {}
    for key, entry in data.items():
        where = f"id {key}"
        if not isinstance(entry, dict) or "ground_truth" not in entry:
            raise ImportFailure(path, "missing field 'ground_truth'", where)
        qtype = file_question_type(entry.get("question_type"), path, where)
        golds[key] = (qtype, gold_list(entry["ground_truth"], path, where))
    return golds


def file_question_type(value: object, file: Path | str, where: str) -> QuestionType:
    if not isinstance(value, str):
        raise ImportFailure(file, "missing field 'question_type'", where)
    try:
        return question_type_of(value)
    except ValueError as exc:
        raise ImportFailure(file, str(exc), where) from None


def gold_list(value: object, file: Path, where: str) -> list[str]:
    """A gold answer as a list: one string, a list, or a string holding a list literal."""
    if isinstance(value, str) and value.strip().startswith("["):
        value = literal_list(value, "answer", file, where)
    items = value if isinstance(value, list) else [value]
    if not items or not all(is_text_or_number(item) for item in items):
        raise ImportFailure(file, "ground truth must be text, a number or a list of them", where)
    return [str(item) for item in items]


def is_text_or_number(value: object) -> bool:
    """Text or a finite number: what a gold answer or an option may be."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int) and not isinstance(value, bool)


def literal_list(
    text: str,
    name: str,
    file: Path,
    where: str,
    item: Callable[[object], bool] = is_text_or_number,
) -> list[Any]:
    """Parse a Python list literal safely (literal_eval never runs code); each of its items
    must pass `item` (text or a number, unless the caller says otherwise)."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ImportFailure(file, f"{name} is not a list literal: {text[:60]!r}", where) from None
    if not isinstance(value, list) or not all(map(item, value)):
        raise ImportFailure(file, f"{name} must be a list of text or numbers: {text[:60]!r}", where)
    return value


# -- the questions file (Hugging Face layout) -------------------------------------------


def _questions(path: Path) -> dict[str, Draft]:
    if path.suffix.lower() == ".jsonl":
        rows = list(read_jsonl(path))
    else:
        data = read_json(path)
        if not isinstance(data, list):
            raise ImportFailure(path, "expected a JSON list of questions (or a .jsonl file)")
        rows = list(enumerate(data, start=1))
    drafts: dict[str, Draft] = {}
    for number, row in rows:
        key, draft = question_draft(row, path, number)
        if key in drafts:
            raise ImportFailure(path, f"duplicate id {key!r}", f"row {number}")
        drafts[key] = draft
    return drafts


def question_draft(row: Any, path: Path, number: int) -> tuple[str, Draft]:
    if not isinstance(row, dict):
        raise ImportFailure(path, "expected a JSON object", f"row {number}")
    for name in ("id", "question", "question_type"):
        if row.get(name) in (None, ""):
            raise ImportFailure(path, f"missing field {name!r}", f"row {number}")
    key = mmmu_key(row["id"], path, f"row {number}")
    where = f"id {key}"
    options = row.get("options") or []
    if isinstance(options, str):
        options = literal_list(options, "options", path, where)
    if isinstance(options, dict):
        options = _lettered(options, path, where)
    if not isinstance(options, list) or not all(map(is_text_or_number, options)):
        raise ImportFailure(path, "options must be a list of text, or an object A -> text", where)
    if not isinstance(row["question"], str):
        raise ImportFailure(path, "question must be text", where)
    draft = Draft(
        question=row["question"],
        question_type=file_question_type(row["question_type"], path, where),
        golds=gold_list(row["answer"], path, where) if row.get("answer") is not None else None,
        options={chr(ord("A") + i): str(text) for i, text in enumerate(options)} or None,
        subfield=_optional(row.get("subfield"), "subfield", path, where),
        difficulty=_optional(row.get("topic_difficulty"), "topic_difficulty", path, where),
        img_type=_img_type(row.get("img_type"), path, where),
        origin=str(path),
    )
    for position in range(1, MAX_IMAGES + 1):
        image = row.get(f"image_{position}")
        if isinstance(image, str) and image:
            draft.images.append(image)
    return key, draft


def _lettered(options: dict[str, Any], path: Path, where: str) -> list[Any]:
    """Options given as an object of letter -> text: its texts, if the letters are A, B, ...
    in order (a sample's options are lettered by position)."""
    letters = [chr(ord("A") + i) for i in range(len(options))]
    if list(options) != letters:
        message = f"options: the keys must be the letters {', '.join(letters)} in order"
        raise ImportFailure(path, message, where)
    return list(options.values())


def mmmu_key(value: object, path: Path, where: str) -> str:
    """A sample id: text or a whole number."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ImportFailure(path, "id must be text or a whole number", where)
    return str(value)


def _optional(value: object, name: str, path: Path, where: str) -> str | None:
    """An optional text field (a number is taken as text)."""
    if value is None:
        return None
    if not is_text_or_number(value):
        raise ImportFailure(path, f"{name} must be text", where)
    return str(value).strip() or None


def _img_type(value: object, path: Path, where: str) -> str | None:
    """img_type is often a list literal ("['Diagrams']"): keep its items, comma-joined."""
    if isinstance(value, str) and value.strip().startswith("["):
        value = literal_list(value, "img_type", path, where)
    if isinstance(value, list):
        if not all(map(is_text_or_number, value)):
            raise ImportFailure(path, "img_type must be text or a list of text", where)
        return ", ".join(map(str, value)) or None
    return _optional(value, "img_type", path, where)


# -- model outputs ------------------------------------------------------------------------


def _output_files(outputs: Path) -> list[tuple[Path, list[tuple[str, Draft, str]]]]:
    if not outputs.exists():
        raise ImportFailure(outputs, "no such file or folder")
    if outputs.is_dir():
        files = sorted(outputs.glob("*/output.json"))
        if not files:
            raise ImportFailure(outputs, "no <Subject>/output.json files in this folder")
    else:
        files = [outputs]
    return [(path, _output_records(path)) for path in files]


def _output_records(path: Path) -> list[tuple[str, Draft, str]]:
    """(id, what the record says of the sample, response) for each record of a file.

    A file is a list of records (id, question_type, answer, all_choices, index2ans,
    response), or an object mapping id to a response or to such a record.
    """
    data = read_json(path) if path.suffix.lower() != ".jsonl" else None
    if data is None:
        data = [row for _, row in read_jsonl(path)]
    if isinstance(data, dict):
        data = [
            {"id": key, **value} if isinstance(value, dict) else {"id": key, "response": value}
            for key, value in data.items()
        ]
    if not isinstance(data, list):
        raise ImportFailure(path, "expected a list of output records or an id -> response object")
    return [_output_record(record, path, number) for number, record in enumerate(data, start=1)]


def _output_record(record: Any, path: Path, number: int) -> tuple[str, Draft, str]:
    if not isinstance(record, dict) or record.get("id") in (None, ""):
        raise ImportFailure(path, "missing field 'id'", f"record {number}")
    key = mmmu_key(record["id"], path, f"record {number}")
    where = f"id {key}"
    response = record.get("response")
    if not isinstance(response, str):
        raise ImportFailure(path, "missing or non-text field 'response'", where)
    choices = record.get("all_choices") or []
    index2ans = record.get("index2ans") or {}
    if (
        not isinstance(choices, list)
        or not isinstance(index2ans, dict)
        or not all(map(is_text_or_number, [*choices, *index2ans.values()]))
    ):
        raise ImportFailure(
            path, "all_choices must be a list of text and index2ans an object of text", where
        )
    letters = [str(c) for c in choices]
    if letters != list(ascii_uppercase[: len(letters)]):  # as MMMU's own letters are made
        raise ImportFailure(
            path, f"all_choices {letters!r} are not the letters A, B, C, ... in order", where
        )
    draft = Draft(
        question_type=(
            file_question_type(record["question_type"], path, where)
            if "question_type" in record
            else None
        ),
        golds=gold_list(record["answer"], path, where)
        if record.get("answer") is not None
        else None,
        options={str(c): str(index2ans.get(c, "")) for c in choices} or None,
        origin=str(path),
    )
    return key, draft, response


def _check_folders(responses: list[tuple[str, str, str]]) -> None:
    """An answer in <Subject>/output.json answers a question of that subject."""
    for key, _, file in responses:
        folder = Path(file).parent.name
        try:
            subject = subject_of(key)
        except ValueError:
            continue  # said when its sample is made
        if subject != folder:
            message = f"the id is of subject {subject!r}, and the file is in folder {folder!r}"
            raise ImportFailure(file, f"{message}: is the id or the folder wrong?", f"id {key}")


def _check_known(responses: list[tuple[str, str, str]], known: set[str], files: list[Path]) -> None:
    """Each answer answers a question the answer dictionary or the questions file has."""
    for key, _, file in responses:
        if key not in known:
            named = " nor ".join(map(str, files))
            where = f"neither {named}" if len(files) > 1 else named
            raise ImportFailure(file, f"no question with this id in {where}", f"id {key}")


def _check_unique(responses: list[tuple[str, str, str]]) -> None:
    seen: dict[str, str] = {}
    for key, _, file in responses:
        if key in seen:
            raise ImportFailure(file, f"duplicate id (also in {seen[key]})", f"id {key}")
        seen[key] = file
