"""OCRBench v2: the official results file, one model's answers, of its 30 types
(engine.benchmarks.ocrbench.v2_rules.TYPES).

eval.py reads OCRBench_v2.json's list with each item's `predict`: dataset_name, type, id,
image_path, question, answers (a list; a count may be a number, read as its text) and, for
some, `eval` (multiple choice, case sensitive; exact match or regression for text
counting, which needs one). Some types' golds are more than text, each stored as one gold
text: text grounding's `answers` is a box (four coordinates), VQA with position has its
box as `bbox`, key information and chart golds are dicts, text spotting's words are its
`bbox` boxes and `content` texts. A `predict` must be text (eval.py fails without one); a
text translation with an empty gold is left out, as get_score.py leaves it out. A
sample's key is `{dataset_name}/{id}`, as v1's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.ocrbench.files import golds_of, item_key, read_items
from lmmreview.db.importers.batch import ImportBatch, ImportFailure, ImportRequest, listed
from lmmreview.db.importers.read import nonblank_text_field
from lmmreview.engine.benchmarks.ocrbench import v2_kie as kie
from lmmreview.engine.benchmarks.ocrbench import v2_position as position
from lmmreview.engine.benchmarks.ocrbench import v2_rules as rules
from lmmreview.engine.benchmarks.ocrbench import v2_spotting as spotting
from lmmreview.engine.benchmarks.ocrbench.benchmark import TYPE
from lmmreview.engine.benchmarks.ocrbench.v2 import BOX, EVAL, NEED_EXTRA, OCRBENCH_V2, rule_of
from lmmreview.engine.benchmarks.ocrbench.v2_extra import EXTRA
from lmmreview.engine.types import Extra, QuestionType, Sample

# The rules eval.py asserts an item has one gold for, and what they score.
ONE_GOLD = {
    "multiple choice": "multiple choice", "handwritten letters": "a letters answer",
    "document": "document parsing", **dict.fromkeys(("HTML table", "markdown table"), "a table"),
}  # fmt: skip


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's results file, with the images."""
    folder = data / "ocrbench-v2"
    return [
        ImportRequest({"results": path, "images": folder / "images"})
        for path in sorted((folder / "results").glob("*.json"))
    ]


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import ocrbench-v2`."""
    results = request.path("results")
    assert results is not None  # the command's required argument
    dataset = (request.dataset or OCRBENCH_V2.name, OCRBENCH_V2.name)
    ignored: list[str] = []  # items get_score.py leaves out

    def read_item(item: dict[str, Any], path: Path, where: str) -> tuple[Sample, str] | None:
        kind = nonblank_text_field(item, "type", path, where)
        if kind not in rules.TYPES:  # eval.py fails on it
            raise ImportFailure(path, f"type {kind!r}: not one of OCRBench v2's 30", where)
        if ignored_translation(item, kind):
            ignored.append(item_key(item, path, where))
            return None
        key = item_key(item, path, where)
        return type_sample(key, item, kind, path, where), _prediction(item, path, where)

    batch, _ = read_items(
        results, request.text("model"), dataset, request.path("images"), read_item
    )
    return finished(batch, results, ignored, "item")


def finished(batch: ImportBatch, file: Path, ignored: list[str], what: str) -> ImportBatch:
    """A reader's batch once its checks and warnings are made: refused when every `what`
    (item, row) of `file` was an `ignored` empty-gold translation; those named."""
    if not batch.samples:
        raise ImportFailure(file, f"no {what} to score: each has an empty gold translation")
    if ignored:
        batch.warnings.append(
            f"{len(ignored)} text translation {what}(s) with an empty gold, left out as the "
            f"official scores leave them out: {listed(ignored)}"
        )
    warn_of_the_extra(batch)
    return batch


def ignored_translation(item: dict[str, Any], kind: str) -> bool:
    """A text translation with an empty first gold, which get_score.py leaves out (eval.py
    marks it ignored; had the answer been empty too, it would count 0)."""
    answers = item.get("answers")
    return kind == rules.TRANSLATION and isinstance(answers, list) and answers[:1] == [""]


def warn_of_the_extra(batch: ImportBatch) -> None:
    """Items whose rules need the extra's libraries, when they are not installed."""
    unscored: Counter[str] = Counter()
    for sample in batch.samples:
        rule = rule_of(sample)
        if rule in NEED_EXTRA and (missing := NEED_EXTRA[rule]()):
            unscored[missing] += 1
    for missing, count in unscored.items():
        batch.warnings.append(
            f"{count} item(s) imported unscored: their rules need the extra {EXTRA} "
            f"({missing}); install it, then run `lmmreview score` again"
        )


def type_sample(key: str, item: dict[str, Any], kind: str, path: Path, where: str) -> Sample:
    """Sample `key`: an item of type `kind` (its question, golds and what its rule reads)."""
    method = _eval(item, kind, path, where)
    golds = _golds(item, kind, path, where)
    question = nonblank_text_field(item, "question", path, where)
    rule = rules.rule_of(kind, method, question)
    if rule == "no table":
        raise ImportFailure(path, "a table question naming neither html nor markdown", where)
    # (table parsing cn reads its first gold: eval.py asserts nothing there)
    if len(golds) != 1 and rule in ONE_GOLD and kind != rules.TABLE_CN:
        raise ImportFailure(path, f"{len(golds)} golds: {ONE_GOLD[rule]} has one", where)
    if method == rules.REGRESSION:
        for gold in golds:
            try:
                rules.gold_count(gold)
            except ValueError:
                raise ImportFailure(
                    path, f"gold {gold!r}: a regression needs a whole count", where
                ) from None
    extra: Extra = {EVAL: method} if method else {}
    if kind == rules.POSITION:
        extra[BOX] = position.box_text(_box(item.get(BOX), "bbox", path, where))
    return Sample(
        key, question, QuestionType.OPEN, golds[0], tuple(golds[1:]),
        axes={TYPE: (kind,)}, extra=extra,
    )  # fmt: skip


def _golds(item: dict[str, Any], kind: str, path: Path, where: str) -> list[str]:
    """The item's golds as text: text grounding's box as one (position.box_text), a key
    information gold's fields as one (kie.fields_text)."""
    answers = item.get("answers")
    if kind == rules.GROUNDING:
        return [position.box_text(_box(answers, "answers", path, where))]
    if kind in KEY_FIELDS:
        return [kie.fields_text(_fields(answers, KEY_FIELDS[kind], path, where))]
    if kind == rules.SPOTTING:  # its words: `bbox` and `content` (eval.py reads no answers)
        return [spotting.words_text(_words(item, path, where))]
    if kind == rules.CHART:  # its first gold, a dict (eval.py reads no other)
        first = answers[0] if isinstance(answers, list) and answers else None
        if not isinstance(first, dict):
            raise ImportFailure(path, f"answers {answers!r}: expected a dict first", where)
        return [json.dumps(first, ensure_ascii=False)]
    if isinstance(answers, list):  # a count may be a number, read as its text, as eval.py does
        answers = [str(a) if isinstance(a, int | float) and not isinstance(a, bool) else a
                   for a in answers]  # fmt: skip
    return golds_of(answers, path, where)


# How eval.py reads each key information type's gold.
KEY_FIELDS = {
    rules.KIE: kie.english_fields, rules.MAPPING: kie.english_fields,
    rules.KIE_CN: kie.chinese_fields,
}  # fmt: skip


def _fields(
    answers: object, read: Callable[[object], kie.Fields], path: Path, where: str
) -> kie.Fields:
    """A key information gold: `answers` holds one, a dict or text (eval.py asserts one;
    it scores every answer 0 against a gold it cannot read, or fails)."""
    if not isinstance(answers, list) or len(answers) != 1:
        raise ImportFailure(path, f"answers {answers!r}: expected one gold, a dict", where)
    try:
        return read(answers[0])
    except ValueError as exc:
        raise ImportFailure(path, f"gold {answers[0]!r}: {exc}", where) from None


def _words(item: dict[str, Any], path: Path, where: str) -> list[spotting.Word]:
    """A spotting item's gold words: its `bbox`, boxes of whole-number points, and the
    texts of its `content` (eval.py fails on other coordinates, on a text holding a
    newline, and on an empty text matched to a word)."""
    boxes, texts = item.get(BOX), item.get("content")
    if not isinstance(boxes, list) or not all(_points(box) for box in boxes):
        raise ImportFailure(path, f"bbox {boxes!r}: expected boxes of whole numbers", where)
    if not isinstance(texts, list) or not all(_word_text(text) for text in texts):
        raise ImportFailure(path, f"content {texts!r}: expected texts of one line", where)
    return spotting.gold_words(boxes, texts)


def _points(box: object) -> bool:
    return (
        isinstance(box, list)
        and len(box) >= 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in box)
    )


def _word_text(text: object) -> bool:
    return isinstance(text, str) and text != "" and "\n" not in text


def _box(value: object, field: str, path: Path, where: str) -> position.Box:
    """A gold box: a list of four coordinates int() reads (eval.py scores every answer 0
    against any other, or fails)."""
    box = None
    if isinstance(value, list) and len(value) == 4 and not any(isinstance(v, bool) for v in value):
        box = position.as_box(value)
    if box is None:
        raise ImportFailure(path, f"{field} {value!r}: expected a box, four coordinates", where)
    return box


def _eval(item: dict[str, Any], kind: str, path: Path, where: str) -> str | None:
    """The item's `eval`, where its type reads one (eval.py ignores it elsewhere): one the
    type does not know is refused, as eval.py refuses it, and text counting needs one."""
    allowed = rules.EVALS.get(kind)
    if allowed is None:
        return None
    method = item.get(EVAL)
    if method in allowed or (method is None and kind != rules.COUNTING):
        return method
    shown = " or ".join(allowed)
    raise ImportFailure(path, f"eval {method!r} for {kind}: expected {shown}", where)


def _prediction(item: dict[str, Any], path: Path, where: str) -> str:
    predict = item.get("predict")
    if not isinstance(predict, str):
        raise ImportFailure(path, f"predict {predict!r}: expected text", where)
    return predict
