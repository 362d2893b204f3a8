"""HallusionBench's rules (engine.benchmarks.hallusionbench.rules), from the facts of the
official code (tianyi-lab/HallusionBench @ 67ba0de): the judge reply's parse and its quirks,
the correctness rule, the groups, and the offline yes/no rule (VLMEvalKit's, not official)."""

from __future__ import annotations

import math

import pytest

from lmmreview.engine.benchmarks.hallusionbench import rules
from lmmreview.engine.benchmarks.hallusionbench.rules import CORRECT, INCORRECT, UNCERTAIN
from lmmreview.engine.types import QuestionType, Sample


def question(
    category: str = "VD",
    subcategory: str = "illusion",
    set_id: str = "0",
    figure_id: str = "0",
    question_id: str = "0",
    visual_input: str = "1",
    gt_answer: str = "1",
) -> Sample:
    """A HallusionBench question as the reader stores it."""
    fields = {"category": category, "subcategory": subcategory, "set_id": set_id,
              "figure_id": figure_id, "question_id": question_id}  # fmt: skip
    return Sample(
        rules.sample_key(fields),
        "Is the left line longer?",
        QuestionType.OPEN,
        "The two lines have the same length.",
        axes={"category": (category,), "subcategory": (subcategory,)},
        extra={"set_id": set_id, "figure_id": figure_id, "question_id": question_id,
               "visual_input": visual_input, "gt_answer": gt_answer},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Correct.", CORRECT),
        ("correct", CORRECT),
        ("incorrect", INCORRECT),
        ("Incorrect.", INCORRECT),
        ("The prediction is not correct", CORRECT),  # the official substring test's quirk
        ("Unclear", UNCERTAIN),
        ("", UNCERTAIN),
        ("INCORRECT, though it looks correct", INCORRECT),  # incorrect is tested first
        ("\u201ccorrect\u201d", CORRECT),
    ],
)
def test_the_judge_reply_reads_as_the_official_code_reads_it(reply: str, verdict: str) -> None:
    assert rules.parse_verdict(reply) == verdict


def test_uncertain_is_right_only_for_a_visual_supplement_question_without_its_figure() -> None:
    no_figure = question("VS", "chart", figure_id="0", visual_input="0")
    vd_first_figure = question("VD", "illusion", figure_id="0", visual_input="1")
    vs_figure = question("VS", "chart", figure_id="1", visual_input="1")
    assert rules.without_figure(no_figure)
    assert not rules.without_figure(vd_first_figure)  # VD's figure 0 is an image
    assert not rules.without_figure(vs_figure)
    assert rules.is_correct(UNCERTAIN, True) and rules.is_correct(CORRECT, True)
    assert not rules.is_correct(INCORRECT, True)
    assert rules.is_correct(CORRECT, False)
    assert not rules.is_correct(UNCERTAIN, False) and not rules.is_correct(INCORRECT, False)


def test_the_groups_are_the_official_codes() -> None:
    """Pair: category_subcategory_set_question; figure: category_subcategory_set_figure,
    none for the no-figure question; hard: an edited figure, all else easy."""
    edited = question("VD", "illusion", "3", "1", "2", visual_input="2")
    assert edited.key == "VD_illusion_3_1_2"
    assert rules.pair_key(edited) == "VD_illusion_3_2"
    assert rules.figure_key(edited) == "VD_illusion_3_1"
    assert rules.is_hard(edited)
    no_figure = question("VS", "chart", "0", "0", "1", visual_input="0")
    assert rules.pair_key(no_figure) == "VS_chart_0_1"
    assert rules.figure_key(no_figure) is None
    assert not rules.is_hard(no_figure)
    assert not rules.is_hard(question("VS", "chart", "0", "1", "1", visual_input="1"))


def test_the_prompt_holds_the_question_the_reference_details_and_the_prediction() -> None:
    prompt = rules.judge_prompt("Is it red?", "It is blue.", "Yes, it is red.")
    assert prompt.startswith("Imagine you are an intelligent teacher.")
    assert prompt.endswith(
        "Question:Is it red?\nReference answer: It is blue.\n"
        "Prediction answer:Yes, it is red.\nOutput:"
    )
    assert len(rules.PROMPT_VERSION) == 12


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Yes, the left line is longer.", "yes"),
        ("No.", "no"),
        ("NO", "no"),
        ("Yes or no, it cannot be told.", None),  # both words: no answer
        ("Yes or no: it cannot be told.", "yes"),  # ":" stays, so "no:" is not the word
        ("The lines are equal.", None),
        ("yes-no", None),  # "-" beside no space becomes a space: both words
        ("Yes- it is", "yes"),  # beside a space, every "-" is dropped: "yes"
        ("none of them", None),  # "none" is not "no"
        ("(yes)", "yes"),
        ("Answer:yes", None),  # ":" is not a mark VLMEvalKit handles
    ],
)
def test_the_offline_rule_reads_yes_or_no_as_vlmevalkit_does(answer: str, said: str | None) -> None:
    assert rules.yes_or_no(answer) == said


def test_only_the_first_32_lone_periods_go_as_in_vlmevalkit() -> None:
    """VLMEvalKit passes re.UNICODE as `sub`'s count: the 33rd period stays on "yes."."""
    assert rules.yes_or_no(". " * 31 + "yes.") == "yes"
    assert rules.yes_or_no(". " * 32 + "yes.") is None


def test_the_offline_verdict_compares_with_gt_answer() -> None:
    yes_gold, no_gold = question(gt_answer="1"), question(gt_answer="0")
    assert rules.offline_verdict(yes_gold, "Yes, it is.") == CORRECT
    assert rules.offline_verdict(no_gold, "Yes, it is.") == INCORRECT
    assert rules.offline_verdict(no_gold, "No") == CORRECT
    assert rules.offline_verdict(no_gold, "I cannot tell.") is None


def test_the_bias_figures_from_each_golds_accuracy_and_number() -> None:
    """6 of 7 gold-yes questions right and 4 of 5 gold-no: one wrong each, no bias (0.0,
    not a float's -1e-16) and half the wrong ones on a no gold; none wrong: no FP Ratio."""
    assert rules.pct_diff(600 / 7, 80.0, 7, 5) == 0.0
    assert rules.fp_ratio(600 / 7, 80.0, 7, 5) == 50.0
    assert rules.pct_diff(100.0, 0.0, 7, 5) == pytest.approx(100 * 5 / 12)  # all said yes
    assert math.isnan(rules.fp_ratio(100.0, 100.0, 7, 5))
