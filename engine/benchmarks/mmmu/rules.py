"""MMMU: subjects, disciplines, question-type names, and the rule-based answer parser.

The parser restates SCORING.md section 3: multiple-choice letter extraction with a seeded
per-sample fallback, and the open-answer key-response/number parser with its normalisation.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

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
# The same marks as a set: an open answer's key response that is only one of them says nothing.
_PUNCTUATION_MARKS = frozenset(_EDGE_PUNCTUATION)
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
# "=" marks a key response only in the last piece.
_LAST_PIECE_INDICATORS = (*_INDICATORS, "=")
# float() reads a finite number only from text holding a decimal digit (re's \d: Unicode Nd).
_DIGIT = re.compile(r"\d")
_GROUPED_NUMBER = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_SCIENTIFIC_NUMBER = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
# An integer needs a word boundary after it ("100V" and "2nd" hold none, "30 cm" holds 30); no
# match is followed by an exponent, a comma or a digit. Searched independently of the two patterns
# above, so the last group of "1,200,000" is also the plain number 000 (the reference does this).
_PLAIN_NUMBER = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")

Candidate = str | float
T = TypeVar("T")


class MmmuVerdict(NamedTuple):
    """The parsed answer of one response and whether it is right (a named tuple: immutable,
    and built in a fraction of a frozen dataclass's time, once per answer).

    `prediction` is the option letter (multiple choice) or the normalised candidates (open).
    `method` says which rule found it: "paren", "spaced", "option_text" or "fallback" for
    multiple choice, "open" for open questions (MMMU-Pro's parser names its own rules).
    `fallback` is True only for the random pick.
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
    stripped = strip_edge_punctuation(response)
    if stripped in options and " " not in stripped and "(" not in stripped:
        # The commonest answer, a bare letter: padded, it is its own spaced form, and no other
        # form fits in it (each needs a "(" or a space inside the letter).
        return stripped, "spaced"
    padded = f" {stripped} "
    if match := _letter_pattern(tuple(options)).match(padded):
        paren, spaced = match.groups()
        return (spaced, "spaced") if paren is None else (paren, "paren")
    named = named_by_text(padded, options)
    if named is not None:  # a letter may be any text, "" too (the property tests try it)
        return named, "option_text"
    return seeded_pick(list(options), seed_key), "fallback"


def named_by_text(response: str, options: dict[str, str]) -> str | None:
    """In a response of more than five words, the option whose text occurs last in it
    (case-insensitively; ties: the earlier option); None when no text occurs."""
    if len(response.split()) <= _SHORT_ANSWER_WORDS:
        return None
    # A blank option text would "occur" everywhere; it cannot name an option.
    texts = {letter: text.lower() for letter, text in options.items() if text.strip()}
    found = _last_starts(response.lower(), texts)
    return _latest(found) if found else None


def strip_edge_punctuation(response: str) -> str:
    """Strip each of , . ! ? ; : ' from both ends in turn; whitespace stays, as in the reference."""
    # Most answers neither start nor end with a mark, and then every strip would be a no-op.
    if response[:1] not in _PUNCTUATION_MARKS and response[-1:] not in _PUNCTUATION_MARKS:
        return response
    for char in _EDGE_PUNCTUATION:
        response = response.strip(char)
    return response


@functools.lru_cache(maxsize=256)
def _letter_pattern(letters: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern matching the latest `(X)` among `letters` as group 1, else the latest ` X ` as
    group 2.

    The first branch is tried at every start before the second. In a branch, the greedy `.*`
    tries the latest start first, and at one start the letters are tried in option order: the
    rule "last occurrence wins, ties to the earlier option" in one scan. Option sets repeat
    (A-D, A-E, ...), so the few patterns are cached.
    """
    alternatives = "|".join(map(re.escape, letters))
    return re.compile(rf"(?s:.*)\(({alternatives})\)|(?s:.*) ({alternatives}) ")


def _last_starts(text: str, forms: dict[str, str]) -> dict[str, int]:
    """Letter -> start of the last occurrence of its form in `text`, for the forms that occur."""
    starts = {letter: text.rfind(form) for letter, form in forms.items()}
    return {letter: start for letter, start in starts.items() if start >= 0}


def _latest(starts: dict[str, int]) -> str:
    """The letter whose match starts last; max keeps the first (earlier option) on ties."""
    return max(starts, key=starts.__getitem__)


def seeded_pick(letters: list[str], seed_key: str) -> str:
    """A random letter that depends only on `seed_key` and the letters."""
    return letters[_seeded_index(seed_key, len(letters))]


@functools.lru_cache(maxsize=16_384)
def _seeded_index(seed_key: str, count: int) -> int:
    """`random.Random(...).choice` of an index below `count`, seeded by `seed_key` (str seeds
    are hashed with SHA-512, so the pick does not depend on PYTHONHASHSEED). `choice(seq)` takes
    `seq[i]` for one draw `i` below `len(seq)`, so this is the index `choice(letters)` takes.

    Seeding costs microseconds; every model's answer to one sample draws with the same seed,
    so the draws are cached.
    """
    return random.Random(f"mmmu-fallback:{seed_key}").choice(range(count))


def parse_open(response: str) -> list[Candidate]:
    """The normalised candidates of an open answer: key responses, then the numbers in them.

    Duplicates are removed, keeping the first occurrence.
    """
    keys = _key_responses(response)
    # A number is often a whole key response ("24.31"): normalise each distinct text once.
    found = _dedup([*keys, *(number for key in keys for number in _numbers(key))])
    return _dedup([value for text in found for value in _normalise(text)])


def _key_responses(response: str) -> list[str]:
    """Per line, the key response after an indicator; the whole answer when no line has one."""
    text = response.strip().strip(".").lower()
    *pieces, last = text.split("\n")
    keys = [_key_of_piece(piece, _INDICATORS) for piece in pieces]
    keys.append(_key_of_piece(last, _LAST_PIECE_INDICATORS))
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
    return "" if kept in _PUNCTUATION_MARKS else kept


def _numbers(text: str) -> list[str]:
    """Comma-grouped, then scientific, then plain numbers found in `text`, as written."""
    if not _DIGIT.search(text):  # every pattern needs a digit; many text answers hold none
        return []
    # A pattern's search is skipped where the character it needs is absent (a search costs
    # more than the test).
    grouped = _GROUPED_NUMBER.findall(text) if "," in text else []
    scientific = _SCIENTIFIC_NUMBER.findall(text) if "e" in text or "E" in text else []
    return [*grouped, *scientific, *_PLAIN_NUMBER.findall(text)]


def _normalise(text: str) -> list[Candidate]:
    """A number (commas removed, read by float()) rounded to 2 decimals, or lowercased text.

    A single character becomes " x" and "x ", so it only matches as a separate word. The words
    nan, inf and infinity stay text (nan never equals itself); digits too large for a float,
    such as 1e350, still read as infinity, as in the reference.
    """
    text = text.strip()
    # float() reads a number from digits or from those words: without a digit it is not tried,
    # which keeps the words text and spares the exception most text answers would raise.
    if _DIGIT.search(text):
        try:
            return [round(float(text.replace(",", "")), 2)]
        except ValueError:
            pass
    text = text.lower()
    return [f" {text}", f"{text} "] if len(text) == 1 else [text]


def _dedup(values: list[T]) -> list[T]:
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
    # Plain loops: this runs once per answer, and generators cost more than the tests.
    for candidate in candidates:
        if isinstance(candidate, str):
            for gold in normalised:
                if isinstance(gold, str) and gold in candidate:
                    return True
        elif candidate in normalised:  # a float never equals a str
            return True
    return False


def judge(sample: Sample, response: str) -> MmmuVerdict:
    """Parse `response` by the sample's question type and check it against every gold.

    A sample with unknown gold (`sample.answer is None`) is judged incorrect; callers must
    treat such samples as unscored rather than wrong.
    """
    if sample.question_type is QuestionType.CHOICE:
        letter, method = parse_choice(response, sample.options, sample.key)
        # `letter in sample.golds` without building that list (a letter is never None).
        correct = letter == sample.answer or (
            sample.answer is not None and letter in sample.alt_answers
        )
        return MmmuVerdict(letter, correct, method, method == "fallback")
    candidates = parse_open(response)
    return MmmuVerdict(candidates, open_correct(candidates, sample.golds), "open", False)
