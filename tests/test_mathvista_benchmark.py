"""MathVista as a benchmark: the paper's table and the official breakdown, and the quick rules
as offline rules."""

from __future__ import annotations

import json

from lmmreview.engine import registry
from lmmreview.engine.benchmarks.mathvista.benchmark import MATHVISTA
from lmmreview.engine.scoring import Status
from lmmreview.engine.types import QuestionType, Sample


def _sample(
    key: str, task: str, skills: tuple[str, ...], *, choices: tuple[str, ...] = (), **extra: object
) -> Sample:
    kind = ("multi_choice", "text") if choices else ("free_form", str(extra.get("answer_type")))
    axes = {"question_type": (kind[0],), "answer_type": (kind[1],), "language": ("english",),
            "source": ("Geometry3K",), "category": ("math-targeted-vqa",), "task": (task,),
            "context": ("geometry diagram",), "grade": ("high school",), "skills": skills}  # fmt: skip
    if choices:
        options = dict(zip("ABCDE", choices, strict=False))
        gold = [letter for letter, text in options.items() if text == extra["gold"]]
        return Sample(key, "q", QuestionType.CHOICE, gold[0], tuple(gold[1:]), options,
                      split="testmini", axes=axes, extra={"answer_type": "text"})  # fmt: skip
    answer = str(extra.pop("gold"))
    return Sample(key, "q", QuestionType.OPEN, answer, split="testmini", axes=axes, extra=extra)


SAMPLES = [
    _sample("1", "geometry problem solving", ("geometry reasoning", "algebraic reasoning"),
            choices=("2", "4", "2", "8"), gold="2"),
    _sample("2", "math word problem", ("arithmetic reasoning",), answer_type="integer", gold="14"),
    _sample("3", "figure question answering", ("statistical reasoning",), answer_type="float",
            precision=2, gold="1.45"),
]  # fmt: skip


def test_it_is_installed_after_mmmu_pro() -> None:
    names = list(registry.OWN_ORDER)
    assert names.index("mathvista") == names.index("mmmu-pro") + 1
    assert registry.benchmark("mathvista").title == "MathVista"


def test_the_papers_table_and_the_official_breakdown() -> None:
    specs, units = MATHVISTA.tables("mv", SAMPLES, [1, 1, 1])
    paper, *breakdown = specs
    assert (paper.name, paper.title) == ("mv.overall", "MathVista: overall, tasks and skills")
    assert [c.title for c in paper.columns] == ["ALL", "FQA", "GPS", "MWP", "ALG", "ARI", "GEO",
                                                "STA"]  # fmt: skip
    assert [spec.name for spec in breakdown] == [
        f"mv.{key}" for key in ("question_type", "answer_type", "language", "source", "category",
                                "task", "context", "grade", "skills")
    ]  # fmt: skip
    answer_types = breakdown[1]
    assert answer_types.title == "MathVista: by answer type"
    assert [c.key for c in answer_types.columns] == ["float", "integer", "text"]  # count, name
    (unit,) = units["1"]
    assert set(unit.cells) == {
        ("mv.overall", "overall"), ("mv.overall", "geometry problem solving"),
        ("mv.overall", "geometry reasoning"), ("mv.overall", "algebraic reasoning"),
        ("mv.question_type", "multi_choice"), ("mv.answer_type", "text"),
        ("mv.language", "english"), ("mv.source", "Geometry3K"),
        ("mv.category", "math-targeted-vqa"), ("mv.task", "geometry problem solving"),
        ("mv.context", "geometry diagram"), ("mv.grade", "high school"),
        ("mv.skills", "geometry reasoning"), ("mv.skills", "algebraic reasoning"),
    }  # fmt: skip


def test_a_value_the_paper_lacks_is_in_the_breakdown_only() -> None:
    odd = _sample("4", "puzzle solving", ("spatial reasoning",), answer_type="integer", gold="1")
    specs, units = MATHVISTA.tables("mv", [odd], [3])
    assert [c.key for c in specs[0].columns] == ["overall"]
    assert ("mv.skills", "spatial reasoning") in units["4"][0].cells
    assert ("mv.overall", "spatial reasoning") not in units["4"][0].cells


def test_the_quick_rules_judge_offline_and_leave_the_rest_to_the_extractor() -> None:
    choice, integer, decimal = SAMPLES
    judged = MATHVISTA.offline(choice, "2")
    assert judged is not None
    # The first "2" is chosen (letter A); the third choice is "2" too: a gold as well.
    assert (judged.score, judged.choice, judged.method) == (1.0, "A", "choice")
    assert (judged.kind, judged.status) == ("offline", Status.OK)
    assert json.loads(judged.reply) == {"extraction": "2", "prediction": "2"}
    assert MATHVISTA.offline(choice, "(C)") is None  # no quick rule: the LLM extractor's
    quoted = MATHVISTA.offline(choice, 'The answer is "(C) 2".')
    assert quoted is not None and (quoted.score, quoted.choice) == (1.0, "C")
    assert MATHVISTA.offline(integer, "14") is not None
    empty = MATHVISTA.offline(integer, "")
    assert empty is not None and (empty.score, empty.method) == (0.0, "empty")
    assert MATHVISTA.offline(integer, "14.0") is None
    judged = MATHVISTA.offline(decimal, "1.450")
    assert judged is not None and judged.score == 1.0
    assert json.loads(judged.reply) == {"extraction": "1.45", "prediction": "1.45"}


def test_the_facts_say_a_free_form_answers_type_decimals_and_unit() -> None:
    one_decimal = _sample("4", "math word problem", ("arithmetic reasoning",),
                          answer_type="float", precision=1, unit="cm", gold="2.5")  # fmt: skip
    facts = [MATHVISTA.facts(s) for s in (*SAMPLES, one_decimal)]
    assert facts[0] == ["geometry problem solving", "geometry diagram", "high school", "testmini"]
    assert facts[1][-2:] == ["integer answer", "testmini"]
    assert facts[2][-2] == "float answer, 2 decimals"
    assert facts[3][-2] == "float answer, 1 decimal (unit: cm)"


def test_against_other_golds_a_choice_is_right_by_its_letter() -> None:
    """The tables with errata score a stored extraction again (rescored): a multiple-choice
    sample's golds are letters, so the choice the extraction names counts by its letter."""
    from dataclasses import replace

    choice, integer, _ = SAMPLES
    corrected = replace(choice, answer="D", alt_answers=())  # "8"
    assert MATHVISTA.rescored(corrected, json.dumps({"extraction": "8"})) == 1.0
    assert MATHVISTA.rescored(corrected, json.dumps({"extraction": "D"})) == 1.0
    assert MATHVISTA.rescored(corrected, json.dumps({"extraction": "4"})) == 0.0
    assert MATHVISTA.rescored(replace(integer, answer="15"), "15") == 1.0
