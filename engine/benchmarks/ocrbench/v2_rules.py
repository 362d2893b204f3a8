"""OCRBench v2's rules for its short-answer, counting and formula types, restated from
`OCRBench_v2/eval_scripts/eval.py` and `vqa_metric.py` (Yuliang-Liu/MultimodalOCR @ 7776efc).

Each item scores in [0, 1], the best over its golds:
- VQA (English): gold and answer lowercased, stripped, newlines as spaces; a gold of fewer
  than 5 words scores 1 when it occurs in the answer (else 0), a longer one its ANLS,
  1 - edit distance / the longer length, counted only from 0.5 up.
- case sensitive (an item's `eval`): the same without lowercasing.
- VQA (Chinese): spaces removed too; "short" is fewer than 4 comma-separated parts.
- multiple choice (`eval`): the answer's letters only, equal to the single gold.
- text counting: `exact match`, the gold (lowercased, stripped) inside the answer as given
  (not lowercased: a quirk); `regression`, the first whole number n of the answer against
  the gold g: 0 unless 0 < n < 2g, else 1 - |n - g| / g, kept only above 0.5.
- formula recognition: v1's handwritten-math rule (no spaces, case kept, a substring);
  Chinese formulas first lose their \\text{...} wrappers, keeping the text.
Types and `eval` values are OCRBench_v2.json's; the capabilities group the types as
`get_score.py` does. The other types' rules are in the modules beside this one
(v2_position, v2_text, v2_kie, v2_parsing, v2_spotting); `rule_of` names each item's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from lmmreview.engine.benchmarks.ocrbench.rules import handwritten_math
from lmmreview.engine.levenshtein import levenshtein

# The 30 types eval.py scores, by the rule each uses: grounding and VQA with position are
# scored in v2_position, the text-similarity types in v2_text, key information in v2_kie,
# parsing in v2_parsing, text spotting in v2_spotting.
SHORT_ANSWER = (
    "APP agent en", "ASCII art classification en", "math QA en", "reasoning VQA en",
    "science QA en", "text recognition en", "document classification en",
    "cognition VQA en", "diagram QA en",
)  # fmt: skip
CHINESE_VQA = ("cognition VQA cn", "reasoning VQA cn")
COUNTING = "text counting en"
FORMULA, FORMULA_CN = "formula recognition en", "formula recognition cn"
GROUNDING, POSITION = "text grounding en", "VQA with position en"
FULL_PAGE, FULL_PAGE_CN = "full-page OCR en", "full-page OCR cn"
FINE_GRAINED, TRANSLATION = "fine-grained text recognition en", "text translation cn"
HANDWRITTEN = "handwritten answer extraction cn"
TEXT_SIMILARITY = (FULL_PAGE, FULL_PAGE_CN, FINE_GRAINED, TRANSLATION)
KIE, MAPPING = "key information extraction en", "key information mapping en"
KIE_CN = "key information extraction cn"
TABLE, TABLE_CN, CHART = "table parsing en", "table parsing cn", "chart parsing en"
DOCUMENT, DOCUMENT_CN = "document parsing en", "document parsing cn"
SPOTTING = "text spotting en"
TYPES = (
    *SHORT_ANSWER, *CHINESE_VQA, COUNTING, FORMULA, FORMULA_CN, GROUNDING, POSITION,
    *TEXT_SIMILARITY, HANDWRITTEN, KIE, MAPPING, KIE_CN, TABLE, TABLE_CN, CHART, DOCUMENT,
    DOCUMENT_CN, SPOTTING,
)  # fmt: skip
MULTIPLE_CHOICE, CASE_SENSITIVE = "multiple choice", "case sensitive"
EXACT_MATCH, REGRESSION = "exact match", "regression"
EVALS = {  # the `eval` values each type may carry (none: its default rule)
    **{t: (MULTIPLE_CHOICE, CASE_SENSITIVE) for t in (*SHORT_ANSWER, *CHINESE_VQA)},
    COUNTING: (EXACT_MATCH, REGRESSION),
}
SHORT_WORDS, SHORT_PARTS = 5, 4  # a gold under these is short: a substring test
ANLS_FLOOR = 0.5  # ANLS below this counts 0
_TEXT_TAG = re.compile(r"\\text\{([^{}]*)\}")
_NUMBER = re.compile(r"\d+")


def anls(answer: str, gold: str) -> float:
    """1 - edit distance / the longer length; 0 when under ANLS_FLOOR."""
    length = max(len(answer), len(gold))
    value = 1.0 - (levenshtein(answer, gold) / length if length else 0.0)
    return value if value >= ANLS_FLOOR else 0.0


def _english(text: str) -> str:
    return text.lower().strip().replace("\n", " ")


def _cased(text: str) -> str:
    return text.strip().replace("\n", " ")


def spaceless(text: str) -> str:
    """Lowercased, stripped, without spaces or newlines (Chinese VQA's and KIE's form)."""
    return _english(text).replace(" ", "")


Rule = Callable[[str, Iterable[str]], float]  # (answer, golds) -> score in [0, 1]


def _vqa(normal: Callable[[str], str], short: Callable[[str], bool]) -> Rule:
    """A VQA rule: each gold, normalised, by a substring test when short, else by ANLS."""

    def score(answer: str, golds: Iterable[str]) -> float:
        said = normal(answer)
        found = [normal(g) for g in golds]
        return max((float(g in said) if short(g) else anls(said, g) for g in found), default=0.0)

    return score


vqa = _vqa(_english, lambda gold: len(gold.split()) < SHORT_WORDS)
vqa_case_sensitive = _vqa(_cased, lambda gold: len(gold.split()) < SHORT_WORDS)
vqa_chinese = _vqa(spaceless, lambda gold: len(gold.split(",")) < SHORT_PARTS)


def multiple_choice(answer: str, golds: Iterable[str]) -> float:
    """1 when the answer's letters alone are the (single) gold: "(B)" is "B"."""
    letters = "".join(c for c in answer if c.isalpha())
    return float(letters == next(iter(golds), None))


def counting_exact(answer: str, golds: Iterable[str]) -> float:
    """A gold, lowercased and stripped, inside the answer as it is (its case kept)."""
    return float(any(_english(g) in answer for g in golds))


def counting_regression(answer: str, golds: Iterable[str]) -> float:
    """The first whole number n of the answer against each gold count g: 0 unless
    0 < n < 2g; then 1 - |n - g| / g, counted only above 0.5."""
    found = _NUMBER.search(_english(answer))
    n = int(found.group()) if found else 0
    best = 0.0
    for gold in golds:
        g = gold_count(gold)
        if 0 < n < 2 * g and (value := 1 - abs(n - g) / g) > ANLS_FLOOR:
            best = max(best, value)
    return best


def gold_count(gold: str) -> int:
    """A regression gold as the count it is (ValueError for one that is no whole number,
    which the official eval.py cannot read either)."""
    return int(_english(gold))


def formula(answer: str, golds: Iterable[str]) -> float:
    """v1's handwritten-math rule."""
    said = handwritten_math(answer)
    return float(any(handwritten_math(g) in said for g in golds))


def without_text_tags(latex: str) -> str:
    """\\text{...} wrappers removed, their text kept."""
    return _TEXT_TAG.sub(r"\1", latex)


def formula_chinese(answer: str, golds: Iterable[str]) -> float:
    """Without \\text{...} tags, v1's handwritten-math rule; the text "nan" (any case),
    which the official script takes for a missing value, scores 0."""
    if answer.lower() == "nan":
        return 0.0
    return formula(without_text_tags(answer), [without_text_tags(g) for g in golds])


RULES: dict[str, Rule] = {
    "VQA": vqa, "case-sensitive VQA": vqa_case_sensitive, "Chinese VQA": vqa_chinese,
    "multiple choice": multiple_choice, "counting exact match": counting_exact,
    "counting regression": counting_regression, "formula": formula,
    "Chinese formula": formula_chinese,
}  # fmt: skip


# The rule of each type whose items all take one rule, by name.
_TYPE_RULES = {
    FORMULA: "formula", FORMULA_CN: "Chinese formula", GROUNDING: "IoU",
    POSITION: "VQA with position", **dict.fromkeys(TEXT_SIMILARITY, "text similarity"),
    **dict.fromkeys(CHINESE_VQA, "Chinese VQA"), **dict.fromkeys((KIE, MAPPING, KIE_CN), "key F1"),
    TABLE_CN: "HTML table", CHART: "chart", DOCUMENT: "document", DOCUMENT_CN: "document",
    SPOTTING: "spotting",
}  # fmt: skip
TABLE_FORMATS = ("html", "markdown")  # an English table question names one (lowercased)
ESSAY = "简答"  # in a handwritten-answer question: an essay, not letters


def rule_of(kind: str, method: str | None, question: str = "") -> str:
    """The name of the rule an item of type `kind` with the `eval` value `method` and
    this question is scored by."""
    if method == MULTIPLE_CHOICE:
        return "multiple choice"
    if method == CASE_SENSITIVE:
        return "case-sensitive VQA"
    if kind == COUNTING:
        return "counting regression" if method == REGRESSION else "counting exact match"
    if kind == HANDWRITTEN:
        return "handwritten essay" if ESSAY in question else "handwritten letters"
    if kind == TABLE:  # a question naming neither format has no rule (eval.py fails)
        named = next((f for f in TABLE_FORMATS if f in question.lower()), "no")
        return "HTML table" if named == "html" else f"{named} table"
    return _TYPE_RULES.get(kind, "VQA")


# get_score.py's capabilities, with their types, in its order: English, then Chinese.
ENGLISH = {
    "text_recognition": ("text recognition en", FINE_GRAINED, FULL_PAGE),
    "text_detection": (GROUNDING, POSITION),
    "text_spotting": (SPOTTING,),
    "relationship_extraction": (KIE, MAPPING),
    "element_parsing": (DOCUMENT, CHART, TABLE, FORMULA),
    "mathematical_calculation": ("math QA en", COUNTING),
    "visual_text_understanding": (
        "document classification en", "cognition VQA en", "diagram QA en",
    ),
    "knowledge_reasoning": (
        "reasoning VQA en", "science QA en", "APP agent en", "ASCII art classification en",
    ),
}  # fmt: skip
CHINESE = {  # keyed apart from the English ones
    "cn_text_recognition": (FULL_PAGE_CN,),
    "cn_relationship_extraction": (KIE_CN, HANDWRITTEN),
    "cn_element_parsing": (DOCUMENT_CN, TABLE_CN, FORMULA_CN),
    "cn_visual_text_understanding": ("cognition VQA cn",),
    "cn_knowledge_reasoning": ("reasoning VQA cn", TRANSLATION),
}
CAPABILITY_OF = {kind: name for name, kinds in (ENGLISH | CHINESE).items() for kind in kinds}
