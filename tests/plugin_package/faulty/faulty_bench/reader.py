"""`lmmreview import faulty`: a JSON list of [id, question, answer, prediction]."""

from __future__ import annotations

import json
import os

from faulty_bench import fault
from lmmreview.db.importers import ImportBatch, ImportRequest
from lmmreview.db.importers.batch import AnswerRecord
from lmmreview.engine.types import QuestionType, Sample


def read(request: ImportRequest) -> ImportBatch | list[str]:
    if fault() == "reader-exit":
        raise SystemExit(3)
    if fault() == "reader-list":
        return ["not", "a", "batch"]
    if fault() == "print":
        print("\x1b]0;title\x07\x1b[2J reading")
    if fault() == "reader-write":  # to the descriptors themselves
        os.write(1, b"\x1b]0;title\x07")
        os.write(2, f"\x1b[2J key {os.environ['OPENAI_API_KEY']}".encode())
    path = request.path("questions")
    assert path is not None  # the command requires it
    batch = ImportBatch(request.dataset or path.stem, "faulty", str(path))
    kind = "weird" if fault() == "reader-kind" else QuestionType.OPEN
    for key, question, answer, prediction in json.loads(path.read_text(encoding="utf-8")):
        gold = float("nan") if fault() == "reader-nan" else answer
        batch.samples.append(Sample(key, question, kind, answer=gold))  # type: ignore[arg-type]
        batch.answers.append(AnswerRecord(key, "m", prediction, str(path)))
    return batch
