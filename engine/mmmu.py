"""MMMU: subjects, disciplines, question-type names, and the rule-based answer parser.

The parser restates SCORING.md section 3: multiple-choice letter extraction with a seeded
per-sample fallback, and the open-answer key-response/number parser with its normalisation.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lmmreview.engine.types import QuestionType, Sample

DISCIPLINES: dict[str, tuple[str, ...]] = {
    "Art and Design": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Health and Medicine": (
        "Basic_Medical_Science",
        "Clinical_Medicine",
        "Diagnostics_and_Laboratory_Medicine",
        "Pharmacy",
        "Public_Health",
    ),
    "Humanities and Social Science": ("History", "Literature", "Sociology", "Psychology"),
    "Tech and Engineering": (
        "Agriculture",
        "Architecture_and_Engineering",
        "Computer_Science",
        "Electronics",
        "Energy_and_Power",
        "Materials",
        "Mechanical_Engineering",
    ),
}

# Column titles of the MMMU paper's Table 2.
DISCIPLINE_TITLES: dict[str, str] = {
    "Art and Design": "Art & Design",
    "Business": "Business",
    "Science": "Science",
    "Health and Medicine": "Health & Medicine",
    "Humanities and Social Science": "Human. & Social Sci.",
    "Tech and Engineering": "Tech & Eng.",
}

DISCIPLINE_OF: dict[str, str] = {
    subject: discipline for discipline, subjects in DISCIPLINES.items() for subject in subjects
}

QUESTION_TYPES: dict[str, QuestionType] = {
    "multiple-choice": QuestionType.CHOICE,
    "open": QuestionType.OPEN,
    "short-answer": QuestionType.OPEN,
}


def subject_of(sample_id: str) -> str:
    """The middle of an MMMU id: ``validation_Art_Theory_12`` -> ``Art_Theory``.

    Raises ValueError when the id is not ``<split>_<Subject>_<n>``.
    """
    parts = sample_id.split("_")
    if len(parts) < 3 or not parts[-1].isdigit():
        raise ValueError(f"id {sample_id!r} is not of the form <split>_<Subject>_<number>")
    return "_".join(parts[1:-1])


def question_type_of(name: str) -> QuestionType:
    """Map MMMU's question_type strings; raises ValueError on anything else."""
    try:
        return QUESTION_TYPES[name.strip().lower()]
    except KeyError:
        raise ValueError(
            f"question_type {name!r} is not one of {', '.join(QUESTION_TYPES)}"
        ) from None


# --- Rule-based answer parsing (SCORING.md section 3) -------------------------------------------

# Stripped from both ends of a multiple-choice answer, in this order, one character at a time.
_EDGE_PUNCTUATION = ",.!?;:'"
# An open answer's key response that is only one of these marks says nothing.
_LONE_PUNCTUATION = frozenset(_EDGE_PUNCTUATION)
# Answers of at most this many words are not searched for option texts.
_SHORT_ANSWER_WORDS = 5
_INDICATORS: tuple[str, ...] = (
    "could be ",
    "so ",
    "is ",
    "thus ",
    "therefore ",
    "final ",
    "answer ",
    "result ",
)
_LAST_PIECE_INDICATOR = "="
_GROUPED_NUMBER = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_SCIENTIFIC_NUMBER = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
# An integer needs a word boundary after it ("100V" and "2nd" hold none, "30 cm" holds 30); no
# match is followed by an exponent, a comma or a digit. Searched independently of the two patterns
# above, so the last group of "1,200,000" is also the plain number 000 (the reference does this).
_PLAIN_NUMBER = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")

Candidate = str | float


@dataclass(frozen=True, slots=True)
class MmmuVerdict:
    """The parsed answer of one response and whether it is right.

    `prediction` is the option letter (multiple choice) or the normalised candidates (open).
    `method` says which rule found it: "paren", "spaced", "option_text" or "fallback" for
    multiple choice, "open" for open questions. `fallback` is True only for the random pick.
    """

    prediction: str | list[Candidate]
    correct: bool
    method: str
    fallback: bool


def parse_choice(response: str, options: dict[str, str], seed_key: str) -> tuple[str, str]:
    """The option letter a multiple-choice response names, and the rule that found it.

    Tries `(X)`, then ` X `, then (in answers of more than five words) the option texts,
    case-insensitively; among several candidates of one form, the one whose last occurrence
    starts latest wins (ties: the earlier option). With no candidate the letter is a random
    pick seeded by `seed_key`, so the same sample always gets the same letter.
    Raises ValueError when there are no options to choose from.
    """
    if not options:
        raise ValueError(f"sample {seed_key!r}: a multiple-choice answer needs options")
    padded = f" {_strip_edge_punctuation(response)} "
    for method, forms in (
        ("paren", {letter: f"({letter})" for letter in options}),
        ("spaced", {letter: f" {letter} " for letter in options}),
    ):
        found = _last_starts(padded, forms)
        if found:
            return _latest(found), method
    if len(padded.split()) > _SHORT_ANSWER_WORDS:
        # A blank option text would "occur" everywhere; it cannot name an option.
        texts = {letter: text.lower() for letter, text in options.items() if text.strip()}
        found = _last_starts(padded.lower(), texts)
        if found:
            return _latest(found), "option_text"
    return _seeded_pick(list(options), seed_key), "fallback"


def _strip_edge_punctuation(response: str) -> str:
    """Strip each of , . ! ? ; : ' from both ends in turn; whitespace stays, as in the reference."""
    for char in _EDGE_PUNCTUATION:
        response = response.strip(char)
    return response


def _last_starts(text: str, forms: dict[str, str]) -> dict[str, int]:
    """Letter -> start of the last occurrence of its form in `text`, for the forms that occur."""
    starts = {letter: text.rfind(form) for letter, form in forms.items()}
    return {letter: start for letter, start in starts.items() if start >= 0}


def _latest(starts: dict[str, int]) -> str:
    """The letter whose match starts last; max keeps the first (earlier option) on ties."""
    return max(starts, key=starts.__getitem__)


def _seeded_pick(letters: list[str], seed_key: str) -> str:
    """A random letter that depends only on `seed_key` (str seeds are hashed with SHA-512)."""
    return random.Random(f"mmmu-fallback:{seed_key}").choice(letters)


def parse_open(response: str) -> list[Candidate]:
    """The normalised candidates of an open answer: key responses, then the numbers in them.

    Duplicates are removed, keeping the first occurrence.
    """
    keys = _key_responses(response)
    found = [*keys, *(number for key in keys for number in _numbers(key))]
    return _dedup([value for text in found for value in _normalise(text)])


def _key_responses(response: str) -> list[str]:
    """Per line, the key response after an indicator; the whole answer when no line has one."""
    text = response.strip().strip(".").lower()
    pieces = text.split("\n")
    # "=" marks a key response only in the last piece.
    indicator_sets = [_INDICATORS] * (len(pieces) - 1) + [(*_INDICATORS, _LAST_PIECE_INDICATOR)]
    keys = [
        _key_of_piece(piece, found) for piece, found in zip(pieces, indicator_sets, strict=True)
    ]
    return [key for key in keys if key] or [text]


def _key_of_piece(piece: str, indicators: tuple[str, ...]) -> str:
    """The shortest stripped text after the last occurrence of an indicator in `piece`, or "".

    As in the reference, an empty tail kept so far counts as none kept, so the next indicator's
    tail replaces it whatever its length. A tail that is only a punctuation mark says nothing.
    """
    kept = ""
    for indicator in indicators:
        if indicator in piece:
            tail = piece.rsplit(indicator, 1)[1].strip()
            if not kept or len(tail) < len(kept):
                kept = tail
    return "" if kept in _LONE_PUNCTUATION else kept


def _numbers(text: str) -> list[str]:
    """Comma-grouped, then scientific, then plain numbers found in `text`, as written."""
    patterns = (_GROUPED_NUMBER, _SCIENTIFIC_NUMBER, _PLAIN_NUMBER)
    return [match for pattern in patterns for match in pattern.findall(text)]


def _normalise(text: str) -> list[Candidate]:
    """A number (commas removed) rounded to 2 decimals, or lowercased text.

    A single character becomes " x" and "x ", so it only matches as a separate word.
    """
    text = text.strip()
    number = _as_number(text.replace(",", ""))
    if number is not None:
        return [round(number, 2)]
    text = text.lower()
    return [f" {text}", f"{text} "] if len(text) == 1 else [text]


def _as_number(text: str) -> float | None:
    """`text` read by float(), else None.

    The words nan, inf and infinity stay text (nan never equals itself); digits too large for a
    float, such as 1e350, still read as infinity, as in the reference.
    """
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) or any(char.isdigit() for char in text) else None


def _dedup(values: list[Candidate]) -> list[Candidate]:
    """`values` without repeats, in first-seen order."""
    return list(dict.fromkeys(values))


def normalize_gold(gold: str) -> list[Candidate]:
    """A gold answer normalised like a candidate; a blank gold gives nothing.

    (Normalised as is, a blank gold would be a substring of every text answer.)
    """
    return _normalise(gold) if gold.strip() else []


def open_correct(candidates: Sequence[Candidate], golds: Sequence[str]) -> bool:
    """True when a text candidate contains a text gold, or a number equals a numeric gold.

    Text never equals a number. Any one of several acceptable golds suffices.
    """
    normalised = [value for gold in golds for value in normalize_gold(gold)]
    text_golds = [value for value in normalised if isinstance(value, str)]
    number_golds = {value for value in normalised if not isinstance(value, str)}
    return any(
        any(gold in candidate for gold in text_golds)
        if isinstance(candidate, str)
        else candidate in number_golds
        for candidate in candidates
    )


def judge(sample: Sample, response: str) -> MmmuVerdict:
    """Parse `response` by the sample's question type and check it against every gold.

    A sample with unknown gold (`sample.answer is None`) is judged incorrect; callers must
    treat such samples as unscored rather than wrong.
    """
    if sample.question_type == QuestionType.CHOICE:
        letter, method = parse_choice(response, sample.options, sample.key)
        fallback = method == "fallback"
        return MmmuVerdict(letter, letter in sample.golds, method, fallback)
    candidates = parse_open(response)
    return MmmuVerdict(candidates, open_correct(candidates, sample.golds), "open", False)
