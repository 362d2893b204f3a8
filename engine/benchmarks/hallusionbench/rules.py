"""HallusionBench's rules, restated from the official `evaluation.py` and `utils.py`
(tianyi-lab/HallusionBench @ 67ba0de): the GPT judge's prompt and how its reply reads, when a
verdict counts as correct, the groups the tables count together, and an offline yes/no rule
that is not the official judge.

Every question is a yes/no question about a figure. The official judge says whether the
model's answer agrees with `gt_answer_details` (a sentence stating the truth); its reply
becomes a verdict, "0" incorrect, "1" correct or "2" uncertain, stored as the official files
store it (`gpt4v_output_gpt_check`).
"""

from __future__ import annotations

import hashlib
import math
import re

from lmmreview.engine.types import Sample

INCORRECT, CORRECT, UNCERTAIN = "0", "1", "2"
VERDICTS = {INCORRECT: "incorrect", CORRECT: "correct", UNCERTAIN: "uncertain"}  # their words

# The sample's fields (the official json's names): axes, then extra fields.
CATEGORY, SUBCATEGORY = "category", "subcategory"
SET_ID, FIGURE_ID, QUESTION_ID = "set_id", "figure_id", "question_id"
VISUAL_INPUT, GT_ANSWER = "visual_input", "gt_answer"
VISUAL_DEPENDENT, VISUAL_SUPPLEMENT = "VD", "VS"
EDITED_FIGURE = "2"  # visual_input: 0 no figure, 1 the original figure, 2 an edited one
VISUAL_INPUTS = ("0", "1", EDITED_FIGURE)

# The official judge's prompt, word for word (utils.py `evaluate_by_chatgpt`; HallusionBench
# is BSD 3-Clause, copyright 2023 Fuxiao Liu): the judge's input is the measurement, as
# MM-Vet's and MMBench's papers' prompts are, so its curly and straight quotes and its
# spacing are kept as they are.
_JUDGE_TEMPLATE = (
    "Imagine you are an intelligent teacher. Thoroughly read the question, reference answer "
    "and the prediction answer to ensure a clear understanding of the information provided. "
    "Assess the correctness of the predictions. If the prediction answer does not conflict "
    "with the reference answer, please generate \u201ccorrect\u201d. If the prediction answer "
    "conflict with the reference answer, please generate \u201cincorrect\u201d. If the "
    'prediction answer is unclear about the answer, please generate "unclear". \n\n Question:'
    "{question}\nReference answer: {reference}\nPrediction answer:{prediction}\nOutput:"
)
# Recorded with each judgment so a score can be traced to the exact prompt text.
PROMPT_VERSION: str = hashlib.sha256(_JUDGE_TEMPLATE.encode()).hexdigest()[:12]


def judge_prompt(question: str, reference: str, prediction: str) -> str:
    """The judge's one user message: the question, `gt_answer_details` as the reference
    answer, and the model's answer."""
    return _JUDGE_TEMPLATE.format(question=question, reference=reference, prediction=prediction)


def parse_verdict(reply: str) -> str:
    """The verdict a judge reply gives, by plain substring tests on the lowercased reply:
    "incorrect" anywhere is INCORRECT, else "correct" anywhere is CORRECT, else UNCERTAIN.
    So "not correct" reads as correct and an empty reply as uncertain, as in the official code."""
    text = reply.lower()
    if "incorrect" in text:
        return INCORRECT
    if "correct" in text:
        return CORRECT
    return UNCERTAIN


def without_figure(sample: Sample) -> bool:
    """A visual-supplement question asked with no figure (figure 0): one the model may
    honestly say it cannot answer."""
    return sample.first(CATEGORY) == VISUAL_SUPPLEMENT and str(sample.extra[FIGURE_ID]) == "0"


def is_correct(verdict: str, no_figure: bool) -> bool:
    """The official `assign_correctness`: a correct verdict is right; without a figure
    (`without_figure`) an uncertain one is right too."""
    return verdict == CORRECT or (no_figure and verdict == UNCERTAIN)


def is_hard(sample: Sample) -> bool:
    """A hard question is asked on an edited figure; all others, the no-figure ones too,
    are easy (the official code's split; the README's prose puts it otherwise)."""
    return str(sample.extra[VISUAL_INPUT]) == EDITED_FIGURE


def _key(sample: Sample, *fields: str) -> str:
    return "_".join(
        [sample.first(CATEGORY) or "", sample.first(SUBCATEGORY) or ""]
        + [str(sample.extra[f]) for f in fields]
    )


def pair_key(sample: Sample) -> str:
    """The question pair (qAcc's group): the same question asked of every figure of a set,
    category_subcategory_set_question; it may hold one to four questions."""
    return _key(sample, SET_ID, QUESTION_ID)


def figure_key(sample: Sample) -> str | None:
    """The figure (fAcc's group), category_subcategory_set_figure; None for a question
    asked without a figure, which belongs to none."""
    return None if without_figure(sample) else _key(sample, SET_ID, FIGURE_ID)


def sample_key(sample_fields: dict[str, str]) -> str:
    """A question's id: category_subcategory_set_figure_question, unique in the official json."""
    order = (CATEGORY, SUBCATEGORY, SET_ID, FIGURE_ID, QUESTION_ID)
    return "_".join(sample_fields[f] for f in order)


# -- The official script's yes/no bias (utils.py `yes_ratio_stats`) ------------------------


def gold_word(sample: Sample) -> str | None:
    """ "yes" or "no" by `gt_answer` ("1" or "0"); None for a question without one."""
    return {"1": "yes", "0": "no"}.get(str(sample.extra.get(GT_ANSWER)))


def _wrong(accuracy: float, questions: float) -> float:
    """How many questions were wrong, from their accuracy (percent) and their number. The
    number right is rounded to millionths, the unit scores are summed in (MICRO): 6 of 7
    right is 6, not 5.999999999999999, and equal numbers wrong differ by 0, not -1e-16."""
    return questions - round(questions * accuracy / 100, 6)


def pct_diff(yes_right: float, no_right: float, yes_questions: float, no_questions: float) -> float:
    """Yes/No Bias (Pct Diff), in percentage points: the share of questions answered yes
    minus the share whose gold is yes. The official code takes a question as answered yes
    when it is right on a yes gold or wrong on a no gold (it reads correctness, not the
    answer), so this is (wrong on no golds - wrong on yes golds) / questions. From each
    gold's accuracy (percent) and number of questions."""
    wrong = _wrong(no_right, no_questions) - _wrong(yes_right, yes_questions)
    return 100 * wrong / (yes_questions + no_questions)


def fp_ratio(yes_right: float, no_right: float, yes_questions: float, no_questions: float) -> float:
    """Yes/No Bias (FP Ratio), in percent: of the questions wrong, the share whose gold is
    no (a wrong answer there is a yes); NaN, no figure, when none is wrong (the official
    code divides by zero)."""
    wrong_no = _wrong(no_right, no_questions)
    wrong = wrong_no + _wrong(yes_right, yes_questions)
    return 100 * wrong_no / wrong if wrong else math.nan


# -- The offline rule: not the official judge ----------------------------------------------

# VLMEvalKit's `process_punctuation` (vlmeval/smp/misc.py @ e8e78f0): each of these marks is
# dropped where the text has it beside a space (or any digit,digit comma), else made a space.
_MARKS = ';/[]"{}()=+\\_-><@`,?!'
_DIGIT_COMMA = re.compile(r"\d,\d")
_LONE_PERIOD = re.compile(r"(?<!\d)\.(?!\d)")
# VLMEvalKit passes re.UNICODE (32) where `sub` takes its count: only 32 periods go.
_PERIODS_DROPPED = int(re.UNICODE)


def _words(answer: str) -> list[str]:
    """The answer's words as VLMEvalKit splits them: lowercased, marks handled as above."""
    text = answer.lower()
    drop = _DIGIT_COMMA.search(text) is not None
    out = text
    for mark in _MARKS:
        beside_space = drop or f"{mark} " in text or f" {mark}" in text
        out = out.replace(mark, "" if beside_space else " ")
    return _LONE_PERIOD.sub("", out, count=_PERIODS_DROPPED).split()


def yes_or_no(answer: str) -> str | None:
    """The answer's "yes" or "no" when it holds exactly one of the two as a word, else None:
    VLMEvalKit's `YOrN_Extraction` (vlmeval/dataset/utils/yorn.py @ e8e78f0), the step it
    takes before asking an LLM."""
    words = _words(answer)
    has_yes, has_no = "yes" in words, "no" in words
    if has_yes == has_no:
        return None
    return "yes" if has_yes else "no"


def offline_verdict(sample: Sample, answer: str) -> str | None:
    """CORRECT or INCORRECT by comparing the yes or no the answer gives with `gt_answer`
    ("1" yes, "0" no); None when it gives neither or both. Not the official judge, which
    reads the answer against `gt_answer_details` and may find it uncertain."""
    said = yes_or_no(answer)
    if said is None:
        return None
    truth = "yes" if str(sample.extra[GT_ANSWER]) == "1" else "no"
    return CORRECT if said == truth else INCORRECT
