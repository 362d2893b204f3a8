"""OCRBench v2's text spotting rule, restated from `spotting_metric.py` and the ICDAR
end-to-end evaluator it runs (`spotting_eval/script.py`, `rrc_evaluation_funcs_1_1.py`;
Yuliang-Liu/MultimodalOCR @ 7776efc) with the parameters eval.py gives it (IoU above
0.5, no word spotting, special characters removed only at the ends of the gold).

- The answer's words: the answer read as a Python literal list (or tuple) of
  `[x1, y1, x2, y2, text, ...]` entries, else every bracketed `x1, y1, x2, y2, text` in
  it (none: 0). Coordinates are whole numbers within 0-1000 (others are skipped), the
  text loses newlines, surrounding spaces and quotes; a repeated entry counts once, an
  empty or inverted box is dropped. A literal that is no list scores 0.
- The gold: each box of the item's `bbox` as the rectangle of its points, with the text
  of `content` at the same place; the text `###` is "don't care".
- Matching (the evaluator's greedy order, gold by gold, then word by word): a gold and a
  word neither matched yet, neither don't care, with IoU above 0.5, are matched, and
  correct when their texts agree in upper case, or the gold's does without a special
  character (!?.:,*"()·[]/') at its start, its end, or both. A word covering a don't-care
  box by more than half of its area is left out.
- The score: the F-measure of precision (correct / words) and recall (correct / golds),
  the don't-care ones not counted.
Texts pass through the evaluator's files: carriage returns are dropped and a text written
within double quotes loses them (its `\\\\` and `\\"` unescaped).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from lmmreview.engine.benchmarks.ocrbench.v2_position import COORDINATE_RANGE, Box, iou

DONT_CARE = "###"
SPECIAL = "!?.:,*\"()·[]/'"
IOU_ABOVE, COVER_ABOVE = 0.5, 0.5
# A bracketed entry, stripped after the match: the official pattern's lazy \s* on both
# sides takes cubic time on an answer of "[" and spaces; this one finds the same entries.
_BRACKETED = re.compile(r"[\[(]([^\[\]()]*)[\])]")
_QUOTED = re.compile(r'^\s*"(.*)"\s*$')


class Word(NamedTuple):
    """A box and its text."""

    box: Box
    text: str


def answer_words(answer: str) -> list[Word]:
    """The answer's words as the official extract_bounding_boxes_robust reads them."""
    try:
        data: Any = ast.literal_eval(answer)
    except Exception:  # any text that is no literal, as officially
        data = None
    if data is None:
        entries = [part.strip().split(",", 4) for part in _BRACKETED.findall(answer)]
    elif isinstance(data, list | tuple):
        entries = [list(e[:5]) for e in data if isinstance(e, list | tuple) and len(e) >= 5]
    else:
        return []
    words = (_word(entry) for entry in entries if len(entry) == 5)
    return list(dict.fromkeys(word for word in words if word is not None))  # once each


def _word(entry: Sequence[Any]) -> Word | None:
    """One entry's word; None when a coordinate is no whole number within 0-1000."""
    try:
        x1, y1, x2, y2 = (int(str(value).strip()) for value in entry[:4])
    except ValueError:
        return None
    if not all(n in COORDINATE_RANGE for n in (x1, y1, x2, y2)):
        return None
    return Word((x1, y1, x2, y2), str(entry[4]).replace("\n", "").strip().strip('"').strip("'"))


def gold_words(boxes: Iterable[Sequence[int]], texts: Iterable[str]) -> list[Word]:
    """Each gold box as the rectangle of its points (x, y, x, y, ...), with its text."""
    return [
        Word((min(box[0::2]), min(box[1::2]), max(box[0::2]), max(box[1::2])), text)
        for box, text in zip(boxes, texts, strict=False)  # as many as the shorter, as officially
    ]


def words_text(words: list[Word]) -> str:
    """Gold words as stored: JSON, `[[x1, y1, x2, y2, text], ...]`."""
    return json.dumps([[*word.box, word.text] for word in words], ensure_ascii=False)


def read_words(text: str) -> list[Word]:
    """Gold words stored by words_text."""
    return [Word((x1, y1, x2, y2), said) for x1, y1, x2, y2, said in json.loads(text)]


def _filed(text: str) -> str:
    """A text as the evaluator reads it back from its file."""
    text = text.replace("\r", "")
    quoted = _QUOTED.match(text)
    return quoted.group(1).replace("\\\\", "\\").replace('\\"', '"') if quoted else text


def text_spotting(answer: str, golds: Iterable[str]) -> float:
    """The F-measure of the answer's words against the gold words (the item's gold)."""
    said = [w for w in answer_words(answer) if w.box[0] < w.box[2] and w.box[1] < w.box[3]]
    wanted = read_words(next(iter(golds)))
    if not said or not wanted:
        return 0.0
    said = [Word(w.box, _filed(w.text)) for w in said]
    wanted = [Word(w.box, _filed(w.text)) for w in wanted]
    ignored = [i for i, w in enumerate(wanted) if w.text == DONT_CARE]
    left_out = [
        d for d, w in enumerate(said) if any(_covers(w.box, wanted[g].box) for g in ignored)
    ]
    correct = _correct_matches(said, wanted, set(ignored), set(left_out))
    recall = correct / (len(wanted) - len(ignored)) if len(wanted) > len(ignored) else 0.0
    precision = correct / (len(said) - len(left_out)) if len(said) > len(left_out) else 0.0
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def _covers(box: Box, ignored: Box) -> bool:
    """The box lies more than half within a don't-care box."""
    inter = _intersection(box, ignored)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return area != 0 and inter / area > COVER_ABOVE


def _intersection(a: Box, b: Box) -> int:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, width) * max(0, height)


def _correct_matches(
    said: list[Word], wanted: list[Word], ignored: set[int], left_out: set[int]
) -> int:
    """The count of correct matches, matching greedily gold by gold, word by word."""
    taken: set[int] = set()
    correct = 0
    for g, gold in enumerate(wanted):
        if g in ignored:
            continue
        for d, word in enumerate(said):
            if d not in taken and d not in left_out and iou(word.box, gold.box) > IOU_ABOVE:
                taken.add(d)
                correct += _same_text(gold.text.upper(), word.text.upper())
                break
    return correct


def _same_text(gold: str, word: str) -> bool:
    """Equal, or equal to the gold without a special character at its start, its end or
    both (a gold of no characters matches only an empty word)."""
    if gold == word:
        return True
    if not gold:
        return False
    first, last = gold[0] in SPECIAL, gold[-1] in SPECIAL
    return (
        (first and gold[1:] == word)
        or (last and gold[:-1] == word)
        or (first and last and gold[1:-1] == word)
    )
