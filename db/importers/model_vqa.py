"""LLaVA's model_vqa answer files: one JSON object per line with question_id, prompt, text,
answer_id, model_id and metadata (the answers of `llava.eval.model_vqa` and its MMBench twin)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lmmreview.db.importers.batch import AnswerRecord, ImportFailure
from lmmreview.db.importers.read import read_jsonl

# Turns a line's question_id into the benchmark's sample id: (question_id, file, "line N").
KeyOf = Callable[[object, Path, str], str]


def is_model_vqa(path: Path) -> bool:
    """Whether an answers file is read as model_vqa lines (by its .jsonl extension)."""
    return path.suffix.lower() == ".jsonl"


def model_vqa_answers(path: Path, model: str | None, key_of: KeyOf) -> list[AnswerRecord]:
    """Every line's answer (`text`) under `model`, or under the file's model_id when no
    model is given (its name when the lines carry none); a question_id may appear once."""
    records: list[AnswerRecord] = []
    lines: dict[str, int] = {}
    for number, line in read_jsonl(path):
        where = f"line {number}"
        for name in ("question_id", "text"):
            if line.get(name) is None:
                raise ImportFailure(
                    path, f"missing field {name!r} (a model_vqa answer line)", where
                )
        if not isinstance(line["text"], str):
            raise ImportFailure(path, "text must be text", where)
        key = key_of(line["question_id"], path, where)
        if key in lines:
            raise ImportFailure(path, f"question_id {key} again (also on line {lines[key]})", where)
        lines[key] = number
        name = model or _model_id(line, path, where) or path.stem
        records.append(AnswerRecord(key, name, line["text"], str(path)))
    return records


def _model_id(line: dict[str, object], path: Path, where: str) -> str | None:
    value = line.get("model_id")
    if value is not None and not isinstance(value, str):
        raise ImportFailure(path, "model_id must be text", where)
    return value or None
