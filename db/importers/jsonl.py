"""lmmreview's own JSONL format, for any benchmark.

Each line is one JSON object. A line with a ``question`` is a sample; a line without
one is an answer to a sample already in this file or in the database.

Sample line fields: ``id`` (required), ``question`` (required), ``answer`` (the ground
truth: text, a list of acceptable answers, or null; for multiple choice an option letter
or a list of them, in either case), ``options`` (an object letter -> text, or a list taken
as A, B, C, ...; 2 to 26 options, letters A to Z; makes it multiple choice), ``images``
(a path or a list of paths, relative to the JSONL file), ``tags`` (an object of free
breakdown tags: text or a list of text), ``split``, and optionally ``prediction`` with
``model`` (a model's answer on the same line).

Answer line fields: ``id``, ``prediction``, ``model`` (default: --model, else the file's
name without its extension).
"""

from __future__ import annotations

import string
import sys
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
    model_name,
)
from lmmreview.db.importers.read import ImageFiles, read_jsonl
from lmmreview.engine.benchmarks.generic import GENERIC
from lmmreview.engine.types import Axes, QuestionType, Sample


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import jsonl`."""
    file = request.path("file")
    assert file is not None  # the command requires it
    return read_generic(file, request.text("model"), request.dataset)


OPTION_LETTERS = frozenset(string.ascii_uppercase)  # the letters an option may have
# Distinct answer texts held once each: models give many samples the same short answer (a
# letter, "Yes", a number), and a million answers held as a million strings took 80 MB.
SHARED_TEXTS = 100_000


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: the sample JSONL, as dataset "generic"."""
    return [ImportRequest({"file": data / "generic" / "demo.jsonl"}, "generic")]


def read_generic(path: Path, model: str | None = None, dataset: str | None = None) -> ImportBatch:
    check_model_argument(model)
    batch = ImportBatch(dataset or path.stem, GENERIC.name, str(path))
    seen: dict[str, int] = {}
    images = ImageFiles(path.parent)
    named = model_name(model, path)  # a line's model when it names none
    tags: dict[tuple[tuple[str, tuple[str, ...]], ...], Axes] = {}  # equal tags: one object
    texts: dict[str, str] = {}  # equal answer texts: one string (SHARED_TEXTS)
    for number, row in read_jsonl(path):
        where = f"line {number}"
        key = _key(row, path, where)
        if "question" in row:
            if key in seen:
                raise ImportFailure(path, f"duplicate id {key!r} (also on line {seen[key]})", where)
            seen[key] = number
            batch.samples.append(_sample(key, row, path, where, tags))
            for name in _image_names(row.get("images"), path, where):
                image = images.read(name, path, where)
                if image is not None:
                    batch.add_image(key, image)
        if "prediction" in row:
            batch.answers.append(_answer(key, row, named, batch.source, where, texts))
        elif "question" not in row:
            raise ImportFailure(path, "a line needs 'question' (a sample) or 'prediction'", where)
    if not seen and not batch.answers:
        raise ImportFailure(path, "holds no samples or answers (the file has no non-blank line)")
    batch.warnings.extend(images.warnings())
    return batch


def _key(row: dict[str, Any], path: Path, where: str) -> str:
    key = row.get("id")
    if isinstance(key, float):  # 1.0 would become the id "1.0", never matching "1"
        why = f"field 'id' is {key!r}, a number with a decimal point"
        why += "; an id is text or a whole number"
        raise ImportFailure(path, why, where)
    if isinstance(key, bool) or not isinstance(key, str | int) or key == "":
        raise ImportFailure(path, "missing field 'id' (text or a number)", where)
    return sys.intern(str(key))  # a sample's key and its answers' keys: one string


def _sample(
    key: str,
    row: dict[str, Any],
    path: Path,
    where: str,
    shared: dict[tuple[tuple[str, tuple[str, ...]], ...], Axes],
) -> Sample:
    """A sample line's sample; its tags are the object in `shared` equal to them, and its
    short texts are interned (a million samples hold few distinct ones)."""
    question = row["question"]
    if not isinstance(question, str):
        raise ImportFailure(path, "question must be text", where)
    options = _options(row.get("options"), path, where)
    golds = [sys.intern(gold) for gold in _golds(row.get("answer"), path, where)]
    if options:
        golds = [_gold_letter(gold, options, path, where) for gold in golds]
    split = _text_or_none(row.get("split"), "split", path, where)
    tags = _tags(row.get("tags"), path, where)
    return Sample(
        key=key,
        question=question,
        question_type=QuestionType.CHOICE if options else QuestionType.OPEN,
        answer=golds[0] if golds else None,
        alt_answers=tuple(golds[1:]),
        options=options,
        split=split and sys.intern(split),
        axes=shared.setdefault(tuple(tags.items()), tags),
    )


def _options(value: object, path: Path, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, list):
        value = {chr(ord("A") + i): text for i, text in enumerate(value)}
    if not isinstance(value, dict) or not all(isinstance(t, str) for t in value.values()):
        raise ImportFailure(
            path, "options must be a list of text or an object letter -> text", where
        )
    if not 2 <= len(value) <= len(OPTION_LETTERS):
        raise ImportFailure(
            path,
            f"{len(value)} options: a multiple-choice question needs 2 to 26 (letters A to Z)",
            where,
        )
    options: dict[str, str] = {}
    for key, text in value.items():
        letter = str(key).strip().upper()
        if letter not in OPTION_LETTERS:
            raise ImportFailure(path, f"option key {key!r} is not a letter A to Z", where)
        if letter in options:  # "a" and "A" would otherwise become one option
            raise ImportFailure(path, f"option {letter!r} is given twice ({key!r})", where)
        options[letter] = sys.intern(text)  # option texts repeat ("Yes", "No") across samples
    return options


def _gold_letter(gold: str, options: dict[str, str], path: Path, where: str) -> str:
    """The option letter a multiple-choice gold names, in either case ("b" -> "B")."""
    letter = gold.strip().upper()
    if letter not in options:
        raise ImportFailure(path, f"answer {gold!r} is not an option letter", where)
    return letter


def _golds(value: object, path: Path, where: str) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if not items or not all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in items
    ):
        raise ImportFailure(path, "answer must be text, a number or a list of them", where)
    return [str(v) for v in items]


def _tags(value: object, path: Path, where: str) -> Axes:
    """Free breakdown tags: each is an axis of the sample, with one value or several."""
    if value is None:
        return {}
    if isinstance(value, dict):
        tags: Axes = {}
        for name, tag in value.items():
            if isinstance(tag, str):
                tags[sys.intern(name)] = (sys.intern(tag),)
            elif isinstance(tag, list) and all(isinstance(t, str) for t in tag):
                tags[sys.intern(name)] = tuple(map(sys.intern, tag))
            else:
                break
        else:
            return tags
    raise ImportFailure(path, "tags must be an object of text or lists of text", where)


def _image_names(value: object, path: Path, where: str) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(p, str) and p for p in items):
        raise ImportFailure(path, "images must be a path or a list of paths", where)
    return items


def _answer(
    key: str, row: dict[str, Any], model: str, source: str, where: str, texts: dict[str, str]
) -> AnswerRecord:
    """One answer line's answer; `model` when the line names none. The repeated texts (the
    sample key, the model, the file, an answer's text found in `texts`) are shared, not
    held once per line."""
    text = row["prediction"]
    if not isinstance(text, str):
        raise ImportFailure(source, "prediction must be text", where)
    text = texts.setdefault(text, text) if len(texts) < SHARED_TEXTS else texts.get(text, text)
    name = row.get("model")
    if name is None:
        name = model
    elif not isinstance(name, str):
        raise ImportFailure(source, "model must be text", where)
    elif not name.strip():  # a model no list could show; "" is not "absent" either
        raise ImportFailure(source, "model is blank: name it, or leave the field out", where)
    return AnswerRecord(key, sys.intern(name), text, source)


def _text_or_none(value: object, name: str, path: Path, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    raise ImportFailure(path, f"{name} must be text", where)
