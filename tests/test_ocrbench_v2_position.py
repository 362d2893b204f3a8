"""OCRBench v2's text grounding and VQA with position (engine.benchmarks.ocrbench.
v2_position) and its reading of an answer as a dict (v2_kie.parse_dict), from the facts of
the official IoUscore_metric.py, TEDS_metric.py and eval.py (Yuliang-Liu/MultimodalOCR @
7776efc). The answers are our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_position as position
from lmmreview.engine.benchmarks.ocrbench.v2_kie import parse_dict

GOLD = position.box_text((10, 10, 60, 60))


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("[20, 20, 60, 60]", 0.64),  # 1600 / 2500
        ("The box is (10,10,60,60).", 1.0),
        ("(20, 20, 60, 60]", 0.64),  # either bracket closes either
        ("first [0, 0, 5, 5], then [20, 20, 60, 60]", 0.64),  # the last box
        ("[20, 20, 60, 60] or (0, 0, 2000, 10)", 0.64),  # past 1000: not a box
        ("[10, 10, 60, 60] and [20, 20, 60, 60] and [10, 10, 60, 60]", 1.0),  # the last again
        ("[20.5, 20, 60, 60]", 0.0),  # whole numbers only
        ("20, 20, 60, 60", 0.0),  # no brackets
        ("[60, 60, 20, 20]", 0.0),  # inverted: no intersection
        ("[100, 100, 200, 200]", 0.0),
        ("", 0.0),
    ],
)
def test_text_grounding(answer: str, score: float) -> None:
    assert position.text_grounding(answer, [GOLD]) == pytest.approx(score)


def test_iou_of_an_empty_union_is_0() -> None:
    assert position.iou((5, 5, 5, 5), (5, 5, 5, 5)) == 0.0
    assert position.iou((60, 60, 10, 10), (10, 10, 60, 60)) == 0.0  # areas 2500 - 2500


@pytest.mark.parametrize(
    ("values", "box"),
    [
        ([1, 2, 3, 4], (1, 2, 3, 4)),
        ([10.7, "20", 30, 40, 50], (10, 20, 30, 40)),  # int() of each; the fifth unused
        ("1234", (1, 2, 3, 4)),  # text iterates by characters, as the official loop reads it
        ([1, 2, 3], None),
        ([1, 2, 3, "x"], None),
        ([1, 2, 3, 4, None], None),  # every value must be readable
        (5, None),
        ([1, 2, 3, float("inf")], None),
    ],
)
def test_as_box(values: object, box: tuple[int, ...] | None) -> None:
    assert position.as_box(values) == box


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ('{"answer": "apple", "bbox": [10, 10, 60, 60]}', 1.0),
        ('{"answer": "pear", "bbox": [20, 20, 60, 60]}', 0.32),  # 0 + 0.5 * 0.64
        ("```json\n{'answer': 'It is apple', 'bbox': '(10.7, 10, 60, 60)'}\n```", 1.0),
        ('{"answer": "apple"}', 0.5),  # no bbox
        ('{"answer": "apple", "bbox": "somewhere"}', 0.5),
        # read by key: value pairs, the box cut at its first comma: "[10"
        ("answer: apple\nbbox: [10, 10, 60, 60]", 0.5),
        ("apple at [10, 10, 60, 60]", 0.0),  # no dict
        ('["apple", [10, 10, 60, 60]]', 0.0),  # JSON, but no dict
    ],
)
def test_vqa_with_position(answer: str, score: float) -> None:
    assert position.vqa_with_position(answer, ["apple"], (10, 10, 60, 60)) == pytest.approx(score)


@pytest.mark.parametrize(
    ("answer", "read"),
    [
        ('{"a": 1, "b": [2], "c": null}', {"a": "1", "b": "[2]", "c": "None"}),  # str()
        ("{'a': ' x ', ' b ': 2.0}", {"a": "x", "b": "2.0"}),  # a Python literal, stripped
        ('```JSON\n{"a": 1}\n```\n```\n{"b": 2}\n```', {"a": "1"}),  # the first fence
        ("name: Ann Lee, total = 12\nname: Bo", {"name": "Bo", "total": "12"}),  # the last wins
        ("'date': '2024/9/27'", {"date": "2024/9/27"}),
        ("{1: 'a'}", {}),  # a key that is no text
        ("[1, 2]", {}),  # no dict: nothing, though a pair may follow
        ("('a: b',)", {}),  # a literal that is no dict: nothing
        ("{[1]: 2}", {}),  # no literal Python can build (the official script fails)
        ("", {}),
    ],
)
def test_parse_dict(answer: str, read: dict[str, str]) -> None:
    assert parse_dict(answer) == read
