"""OCRBench v2's rules for text grounding and VQA with position, restated from
`OCRBench_v2/eval_scripts/IoUscore_metric.py` and `eval.py` (Yuliang-Liu/MultimodalOCR @
7776efc).

- text grounding: the answer's last box written `(x1, y1, x2, y2)` or `[x1, y1, x2, y2]`
  (whole numbers; either bracket may close either) whose four values all lie in 0-1000,
  scored by its IoU with the gold box; no such box scores 0.
- VQA with position: the answer read as a dict (v2_kie.parse_dict); half the VQA rule's
  score of its `answer` against the golds, half the IoU of its `bbox` (a Python literal,
  each coordinate read as int() reads it: 10.7 is 10) with the item's gold box. A missing
  key, or a box that is no four whole numbers, adds 0.
IoU is the official one: the boxes' areas as given (an inverted box's is negative), 0 when
the union is 0.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from lmmreview.engine.benchmarks.ocrbench.v2_kie import parse_dict
from lmmreview.engine.benchmarks.ocrbench.v2_rules import vqa

# Four whole numbers in round or square brackets (\d: any Unicode digit, as the official
# pattern's); a box counts only when every value is within COORDINATE_RANGE.
_BOX = re.compile(r"[(\[]\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*[)\]]")
COORDINATE_RANGE = range(1001)

Box = tuple[int, int, int, int]


def last_box(text: str) -> Box | None:
    """The answer's last box whose values all lie in 0-1000 (None: none)."""
    boxes = (tuple(int(n) for n in found.groups()) for found in _BOX.finditer(text))
    inside = [b for b in boxes if all(n in COORDINATE_RANGE for n in b)]
    return (inside[-1][0], inside[-1][1], inside[-1][2], inside[-1][3]) if inside else None


def as_box(values: Any) -> Box | None:
    """The values, iterated, as int() reads each (10.7 is 10, "10" is 10; the text "1234"
    is the box 1, 2, 3, 4, as the official loop reads it); None when there are fewer than
    four or one is unreadable (the official IoU then scores 0). Values past the fourth
    must be readable too but are not used."""
    try:
        numbers = [int(v) for v in values]
    except (TypeError, ValueError, OverflowError):
        return None
    return (numbers[0], numbers[1], numbers[2], numbers[3]) if len(numbers) >= 4 else None


def iou(box: Box, gold: Box) -> float:
    """Intersection over union, as the official calculate_iou computes it."""
    width = max(0, min(box[2], gold[2]) - max(box[0], gold[0]))
    height = max(0, min(box[3], gold[3]) - max(box[1], gold[1]))
    inter = width * height
    union = _area(box) + _area(gold) - inter
    return inter / union if union != 0 else 0.0


def _area(box: Box) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


def box_text(box: Box) -> str:
    """A gold box as stored: `[x1, y1, x2, y2]`."""
    return json.dumps(list(box))


def read_box(text: str) -> Box:
    """A gold box stored by box_text."""
    box = as_box(json.loads(text))
    if box is None:
        raise ValueError(f"not a box: {text!r}")
    return box


def text_grounding(answer: str, golds: Iterable[str]) -> float:
    """The IoU of the answer's last box with the gold box (the item's single gold)."""
    box = last_box(answer)
    return 0.0 if box is None else iou(box, read_box(next(iter(golds))))


def vqa_with_position(answer: str, golds: Sequence[str], gold_box: Box) -> float:
    """Half the VQA score of the answer's `answer`, half the IoU of its `bbox`."""
    said = parse_dict(answer)
    content = vqa(said["answer"], golds) if "answer" in said else 0.0
    box = _literal_box(said["bbox"]) if "bbox" in said else None
    return 0.5 * content + 0.5 * (0.0 if box is None else iou(box, gold_box))


def _literal_box(text: str) -> Box | None:
    try:
        return as_box(ast.literal_eval(text))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
