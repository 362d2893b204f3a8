"""MMBench: circular copies, the ability hierarchy, choice extraction and CircularEval.

Choice extraction follows SCORING.md section 2 (the MMBench paper, section 4.2): step 1 matches
the answer against the option letters and texts, step 2 asks an LLM with the paper's template,
step 3 falls back to a seeded random label. Nothing here calls an LLM; the caller sends
`extraction_prompt` and hands the reply to `parse_extraction_reply`.
"""

from __future__ import annotations

import hashlib
import random
import re
import string
from dataclasses import dataclass
from functools import lru_cache

CIRCULAR_STRIDE = 1_000_000

# L-2 ability -> its abbreviation in the paper's tables, in the paper's column order.
L2_ABBREVIATIONS: dict[str, str] = {
    "coarse_perception": "CP",
    "finegrained_perception (instance-level)": "FP-S",
    "finegrained_perception (cross-instance)": "FP-C",
    "attribute_reasoning": "AR",
    "relation_reasoning": "RR",
    "logic_reasoning": "LR",
}

# L-3 ability (the TSV `category` column) -> its L-2 ability (the `l2-category` column).
# MMBench paper, Figure 2 and appendix Tables 8-13: each group keeps the column order of its
# appendix table; the groups follow L2_ABBREVIATIONS (the appendix puts LR before RR).
L3_ABILITIES: dict[str, str] = {
    "image_style": "coarse_perception",
    "image_scene": "coarse_perception",
    "image_emotion": "coarse_perception",
    "image_quality": "coarse_perception",
    "image_topic": "coarse_perception",
    "object_localization": "finegrained_perception (instance-level)",
    "attribute_recognition": "finegrained_perception (instance-level)",
    "celebrity_recognition": "finegrained_perception (instance-level)",
    "OCR": "finegrained_perception (instance-level)",
    "spatial_relationship": "finegrained_perception (cross-instance)",
    "attribute_comparison": "finegrained_perception (cross-instance)",
    "action_recognition": "finegrained_perception (cross-instance)",
    "physical_property_reasoning": "attribute_reasoning",
    "function_reasoning": "attribute_reasoning",
    "identity_reasoning": "attribute_reasoning",
    "social_relation": "relation_reasoning",
    "physical_relation": "relation_reasoning",
    "nature_relation": "relation_reasoning",
    "structuralized_imagetext_understanding": "logic_reasoning",
    "future_prediction": "logic_reasoning",
}

OPTION_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

# The label for "no option matches the answer" (steps 2 and 3).
_NO_MATCH = "X"

# Stripped from both ends of a word before it is compared with a letter: `(C).` -> `C`.
# Curly quotes too, which models often print around a letter.
_PUNCTUATION = string.punctuation + "\u201c\u201d\u2018\u2019"
# Words after which a bare `A` names the choice, not the article: "The answer is A dog".
_CUE_WORDS = frozenset({"answer", "option", "choice", "is"})
# Words that never follow the article, so a bare `A` before them is a letter: "A or B".
_NOT_AFTER_ARTICLE = frozenset({"or", "and", "nor", "vs", "versus", "is", "was"})
# Option letters that are also English words (generic multiple choice goes up to Z, so
# "I think it is B" must not name option I), with the words that never follow the word.
_WORD_LETTERS: dict[str, frozenset[str]] = {
    "A": _NOT_AFTER_ARTICLE,
    "I": _NOT_AFTER_ARTICLE - {"was"},  # "I was thinking of B"
}
# Trailing sentence punctuation of an option text need not appear in the answer.
_OPTION_TEXT_TAIL = ".,;:!?"

# MMBench paper section 4.2, `gpt_query_template`, verbatim; `{question}?` is the paper's too.
_EXTRACTION_TEMPLATE = (
    "You are an AI assistant to help me matching an answer with several options of a multiple "
    "choice question. "
    "You are provided with a question, several options, and an answer, "
    "and you need to find which option is most similar to the answer. "
    "If the meaning of all options are significantly different from the answer, output X. "
    "Your should output a single uppercase character in A, B, C, D (if they are valid options), "
    "and X. \n"
    "Example 1: \n"
    "Question: What is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n"
    "Answer: a cute teddy bear\nYour output: A\n"
    "Example 2: \n"
    "Question: What is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n"
    "Answer: Spider\nYour output: X\n"
    "Example 3: \n"
    "Question: {question}?\nOptions: {options}\nAnswer: {prediction}\nYour output: "
)

# Recorded with each LLM judgment so a changed template is visible.
EXTRACTION_PROMPT_VERSION: str = hashlib.sha256(_EXTRACTION_TEMPLATE.encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Extraction:
    """The choice read from one answer and how it was obtained.

    `choice` is an option letter, ``"X"`` (no option matches) or ``None`` (nothing yet);
    `method` is ``"matched"`` (step 1), ``"llm"`` (step 2), ``"fallback"`` (step 3) or
    ``"none"``; `fallback` marks a random choice that a reviewer should settle.
    """

    choice: str | None
    method: str
    fallback: bool


def circular_position(index: int) -> tuple[int, int]:
    """(group, rotation) of a row: copy k of question q has index q + k * 1,000,000."""
    return index % CIRCULAR_STRIDE, index // CIRCULAR_STRIDE


_LETTERS = frozenset(string.ascii_uppercase)
MATCHES_KEPT = 50_000  # answers remembered by each step-1 search (letters, option texts)


def _valid_letters(options: dict[str, str]) -> list[str]:
    """The option letters that have a non-blank text, in letter order (2 to 4 in MMBench,
    up to 26 in generic multiple choice)."""
    return sorted(letter for letter, text in options.items() if letter in _LETTERS and text.strip())


def _labels(options: dict[str, str]) -> list[str]:
    """The valid letters and X (no option matches), unless X is itself an option letter."""
    letters = _valid_letters(options)
    return letters if _NO_MATCH in letters else [*letters, _NO_MATCH]


def match_choice(answer: str, options: dict[str, str]) -> str | None:
    """Step 1: the one option the answer names by letter or, failing that, by text.

    None when the answer is empty, names several options, or names none.
    """
    return _match(answer, options, _valid_letters(options))


def forget_matches() -> None:
    """Let go of the remembered matches (see engine.offline.forget_grades)."""
    _letters_named.cache_clear()
    _texts_named.cache_clear()


def _match(answer: str, options: dict[str, str], labels: list[str]) -> str | None:
    """Step 1 with `labels` as the letters to look for (the LLM's reply may also say X)."""
    letters = _letters_named(answer, tuple(labels))
    if not letters:
        # Option texts are consulted only when no letter at all was found.
        letters = _texts_named(answer, tuple(options.items()))
    return next(iter(letters)) if len(letters) == 1 else None


@lru_cache(maxsize=MATCHES_KEPT)
def _letters_named(answer: str, labels: tuple[str, ...]) -> frozenset[str]:
    """Every label that occurs as a word, punctuation stripped, except `A` as an article.
    Remembered apart from the option texts: many questions get the same answer ("B", "The
    answer is B."), where the same answer to the same options comes rarely in bulk (a
    question's answers from several models lie a model's answers apart)."""
    found: set[str] = set()
    # Lines are looked at one by one: an article never ends a line ("A\nThe dog is ...").
    for line in answer.splitlines():
        words = line.split()
        for position, word in enumerate(words):
            core = word.strip(_PUNCTUATION)
            if core in labels and not _is_word(words, position, _WORD_LETTERS.get(core)):
                found.add(core)
    return frozenset(found)


def _is_word(words: list[str], position: int, not_after: frozenset[str] | None) -> bool:
    """Whether the letter at `position` is an English word (the article `A`, the pronoun
    `I`) rather than an option; `not_after` holds the words that never follow that word,
    None when the letter is no word.

    It is the word only when bare (no punctuation after it) and directly followed by a
    word, unless a cue word precedes it ("Option A is ...") or the next word cannot follow
    it ("A or B", "A is correct").
    """
    word = words[position]
    if not_after is None:
        return False
    if word.rstrip(_PUNCTUATION) != word or position + 1 == len(words):
        return False  # a letter form (`A.`, `(A)`, `A,`) or the last word of the line
    following = words[position + 1]
    if not following[0].isalnum() or following.strip(_PUNCTUATION).lower() in not_after:
        return False  # "A - teddy bear", "A (teddy bear)", "A or B"
    before = words[position - 1].strip(_PUNCTUATION).lower() if position else ""
    return before not in _CUE_WORDS


@lru_cache(maxsize=MATCHES_KEPT)
def _texts_named(answer: str, items: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """The valid options (`items` of the options) whose text occurs in the answer as whole
    words, ignoring case; remembered for the same answer to the same options.

    Whole words, so "cat" is not found in "category". An occurrence that lies inside an
    occurrence of another option's text does not count, so "a black cat" names "black cat"
    and not also "cat"; "a black cat and a cat" names both. Two options with the same text
    hide each other, so neither is named.
    """
    options = dict(items)
    haystack = " ".join(answer.split())
    spans: list[tuple[int, int, str]] = []
    for letter in _valid_letters(options):
        text = " ".join(options[letter].split()).rstrip(_OPTION_TEXT_TAIL)
        if not text:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(text)}(?!\w)", re.IGNORECASE)
        spans.extend((m.start(), m.end(), letter) for m in pattern.finditer(haystack))
    return frozenset(
        letter
        for start, end, letter in spans
        if not any(
            other != letter and o_start <= start and end <= o_end for o_start, o_end, other in spans
        )
    )


def extraction_prompt(question: str, options: dict[str, str], prediction: str) -> str:
    """Step 2: the paper's query asking an LLM which option the prediction means.

    Options are rendered as in the paper's examples: ``A. teddy bear B. rabbit``.
    """
    rendered = " ".join(
        f"{letter}. {options[letter].strip()}" for letter in _valid_letters(options)
    )
    return _EXTRACTION_TEMPLATE.format(question=question, options=rendered, prediction=prediction)


def parse_extraction_reply(reply: str, options: dict[str, str]) -> str | None:
    """The option letter, or ``"X"`` (no option matches), in the LLM's reply; None if unclear."""
    return _match(reply, options, _labels(options))


def fallback_choice(options: dict[str, str], seed_key: str) -> str:
    """Step 3: a random label among the valid letters and X, the same for the same row.

    Seeded from `seed_key` (the row's index) through a string seed, which Python hashes with
    SHA-512, so the result is stable across runs, unlike `hash()`.
    """
    return random.Random(f"mmbench-fallback:{seed_key}").choice(_labels(options))


def extract_offline(answer: str, options: dict[str, str], seed_key: str) -> Extraction:
    """The offline mode, no LLM: step 1, else step 3 marked as a fallback."""
    matched = match_choice(answer, options)
    if matched is not None:
        return Extraction(choice=matched, method="matched", fallback=False)
    return Extraction(choice=fallback_choice(options, seed_key), method="fallback", fallback=True)
