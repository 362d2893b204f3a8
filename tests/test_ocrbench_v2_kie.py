"""OCRBench v2's key information extraction and mapping (engine.benchmarks.ocrbench.v2_kie):
the golds as generate_combinations reads them and the best F1 of compute_f1_score, from
the official eval.py and TEDS_metric.py (Yuliang-Liu/MultimodalOCR @ 7776efc). The
answers are our own; each figure equals the official functions' on the same texts."""

from __future__ import annotations

import re

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_kie as kie

RECEIPT = {"company": ["OLD TOWN KOPITAM"], "date": ["2024/9/27"], "total": ["30"]}


def _score(answer: str, fields: kie.Fields) -> float:
    return kie.key_f1(answer, [kie.fields_text(fields)])


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ('{"company": "Old Town Kopitam", "date": "2024/9/27", "total": "30"}', 1.0),
        ('{"company": "OLDTOWN kopitam", "date": "2024/9/27"}', 2 / 3),  # spaces, case: alike
        ('{"company": "OLD TOWN", "date": "2024/9/27", "total": "30", "tax": "2"}', 2 / 4),
        ("company: Old Town Kopitam\ndate: 2024/9/27\ntotal: 30.0", 2 / 3),  # 30.0 is not 30
        ('```json\n{"total": 30}\n```', 1 / 3),  # the number read as its text
        ("The total is 30.", 0.0),  # no dict
    ],
)
def test_the_f1_of_an_answer(answer: str, score: float) -> None:
    assert _score(answer, RECEIPT) == pytest.approx(score)


def test_the_best_combination_counts() -> None:
    fields: kie.Fields = {"name": ["Ann Lee", "A. Lee"], "phone": ["555", None]}
    assert _score('{"name": "A. Lee"}', fields) == 1.0  # phone None: not counted
    assert _score('{"name": "A. Lee", "phone": "555"}', fields) == 1.0
    assert _score('{"name": "Bo", "phone": "555"}', fields) == 0.5
    assert _score('{"name": "A. Lee"}', {"name": ["A. Lee"], "phone": []}) == 0.0  # none


@pytest.mark.parametrize(
    ("gold", "fields"),
    [
        ({"a": ["x", "y"], "b": "xy"}, {"a": ["x", "y"], "b": ["x", "y"]}),  # text: characters
        ('{"a": "x y", "b": ["z"]}', {"a": ["x y"], "b": ["z"]}),  # JSON: text is one value
        ("\"{'a': 'x', 'b': None}\"", {"a": ["x"], "b": [None]}),  # quoted, a literal
    ],
)
def test_english_golds(gold: object, fields: kie.Fields) -> None:
    assert kie.english_fields(gold) == fields


def test_chinese_golds_are_python_literals() -> None:
    assert kie.chinese_fields("{'名称': '北京', '电话': ['1', '2']}") == {
        "名称": ["北京"], "电话": ["1", "2"],
    }  # fmt: skip
    with pytest.raises(ValueError, match="expected a dict"):
        kie.chinese_fields('{"名称": null}')  # JSON's null is no literal


@pytest.mark.parametrize(
    ("gold", "reason"),
    [
        ("[1, 2]", "expected a dict"),
        ("not a dict", "expected a dict"),
        ({"a": None}, "'a': None: expected text or a list of text"),
        ('{"total": 30}', "'total': [30]: expected text or a list of text"),
        ("{1: 'x'}", "key 1: expected text"),
        (["x"], "expected a dict"),
    ],
)
def test_golds_eval_py_cannot_score_are_refused(gold: object, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        kie.english_fields(gold)
