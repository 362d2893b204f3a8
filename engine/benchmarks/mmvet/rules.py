"""MM-Vet: capabilities and integrations, the judge prompt and its reply, an offline grader.

Judge (SCORING.md section 1). One user message: `JUDGE_PROMPT` (the paper's Table 1), a
newline, then the query row ``question | ground truth | prediction | ``. An unparseable reply
is asked again with `RETRY_SUFFIX` appended, walking `retry_ladder()`.

Offline grader (`offline_grade`), used when no LLM judge is configured. It is keyword
matching, which the paper measures as far less reliable than GPT-4 (mean absolute difference
to human scores 0.273 against 0.042), so it grades only short ground truths and says why:

1. The ground truth is split at ``<OR>`` into alternatives and each alternative at ``<AND>``
   into elements (blank elements dropped).
2. Long ground truths are not graded (score None, "long answer: needs an LLM judge or a
   human"): any element of more than `MAX_ELEMENT_WORDS` words, or elements together longer
   than `MAX_GROUND_TRUTH_CHARS` characters. Such answers need judgement, not matching.
3. An empty (or blank) prediction scores 0.0, "empty answer".
4. A numeric element is one number, optionally signed, with an optional currency sign before
   it and an optional ``%``, currency sign or unit word after it (``$12.99``, ``-1``,
   ``30%``, ``1,000 feet``). It is present when the prediction contains a number of equal
   value: thousands separators, currency signs and units are ignored (``$12.99`` matches
   "12.99 dollars", ``3.5`` matches "3.50"), the sign counts (``-1`` does not match "1"), and
   numbers are whole (``14`` does not match "114" or "1.14"). A minus sign right after a
   letter or digit is an operator or a range ("3-1", "2004-2005"), not a sign.
5. Number words are numbers, in the ground truth and in the prediction: zero to nineteen,
   the tens, and a ten joined to a unit by a hyphen or a space ("six" = 6, "twenty-one" =
   21). Ordinals are not numbers ("sixth" is not 6), nor is a number word right before an
   ordinal, fraction or scale word ("twenty-first", "two thirds", "one hundred").
6. Any other element is text: present when its words, normalised (Unicode NFKC, case folded,
   "n't" read as "not", every character that is not a letter or digit read as a space),
   occur as consecutive whole words of the normalised prediction ("red" does not match
   "reduce"). A word also matches its regular plural either way ("apple" and "apples",
   "box" and "boxes", "berry" and "berries": -s; -es after s, x, z, ch, sh, o; a consonant
   and y to -ies; for words of three letters or more). No other stemming, no synonyms.
7. Negation: an element the prediction says only under a negation is not present. A
   negation word (`NEGATION_WORDS`) governs what follows it in its clause (which ends at
   punctuation or "but") with at most `MAX_NEGATION_GAP` words between: "It is not red, it
   is blue." and "not a red car" negate "red"; "No, it is red." does not. "No doubt", "not
   only" and "not just" negate nothing. A yes/no element is also negated when the
   prediction opens with the other word ("No, ..." against ``yes``). The reason quotes it:
   "negated: 'not red'", "negated: answers 'no'".
8. An alternative scores the fraction of its elements present; the score is the best
   alternative's, rounded half up to one decimal (0.0, 0.1, ..., 1.0). So with ground truth
   ``-1 <AND> -5``, "x = 3" scores 0.0, "x = -1" 0.5 and "x = -1 or x = -5" 1.0, as in the
   paper's Table 1.
9. Hedging: when an alternative is a single number and the prediction offers it in a list of
   numbers joined by "or" ("4 or 5", "1, 2, 3, 4 or 5", "-5 or 5") that also holds a number
   matching no element of the ground truth, its credit is halved (1.0 becomes 0.5), as the
   paper scores "x = -5 or 5". Only commas and "or" may join such a list, so "x = 4 or x = 5"
   is not caught. Other numbers in the prediction are not penalised: answers often repeat
   numbers from the question ("13.7 gallons with $50") or show their working.
10. Several acceptable ground truths (`best_offline_grade`): each is graded and the best
    grade is kept, its reason naming which ("ground truth 2 of 3: ..."); one the rules
    cannot grade wins over any score below 1.0, as it might give more.

The reason says what matched, e.g. "matched 1 of 2: -1; missing: -5". What these rules do not
understand is listed, with examples, in README.md under "What the offline grader understands,
and what it does not"; a test checks every example there against these rules.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from lmmreview.engine.defaults import DEFAULT_JUDGE_MODEL as DEFAULT_JUDGE_MODEL  # re-exported

# The paper's order; it names integrations and orders capability columns.
CAPABILITIES: tuple[str, ...] = ("rec", "ocr", "know", "gen", "spat", "math")
CAPABILITY_TITLES: dict[str, str] = {
    "rec": "Rec",
    "ocr": "OCR",
    "know": "Know",
    "gen": "Gen",
    "spat": "Spat",
    "math": "Math",
}


def canonical_capabilities(
    raw: Iterable[str] | str, known: tuple[str, ...] = CAPABILITIES
) -> tuple[str, ...]:
    """Capabilities as a set in the paper's order (`known`: a benchmark's capabilities).

    Accepts a list or a comma-separated string (both occur in redistributions).
    Raises ValueError naming any unknown capability.
    """
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = {str(item).strip().lower() for item in items if str(item).strip()}
    unknown = sorted(names - set(known))
    if unknown:
        raise ValueError(
            f"unknown capability {', '.join(map(repr, unknown))} "
            f"(expected some of {', '.join(known)})"
        )
    if not names:
        raise ValueError("no capability given")
    return tuple(c for c in known if c in names)


def integration_name(capabilities: Iterable[str]) -> str:
    """One name per capability set, whatever order it came in: ``rec_know_gen``."""
    return "_".join(canonical_capabilities(list(capabilities)))


# The column order of the paper's Table 3, as SCORING.md lists it.
INTEGRATION_ORDER: tuple[tuple[str, ...], ...] = tuple(
    canonical_capabilities(caps)
    for caps in (
        "rec,know,gen",
        "rec",
        "ocr,spat",
        "ocr,spat,math",
        "rec,spat",
        "ocr",
        "ocr,math",
        "rec,know",
        "ocr,rec,know,gen",
        "ocr,rec,spat,gen",
        "ocr,rec,spat",
        "ocr,rec",
        "ocr,spat,know",
        "rec,spat,know",
        "ocr,spat,gen",
        "ocr,rec,spat,math",
    )
)


def integration_title(caps: tuple[str, ...], titles: dict[str, str] = CAPABILITY_TITLES) -> str:
    """A column title in the paper's order, whatever order `caps` came in: ``Rec+Know+Gen``."""
    return "+".join(titles[c] for c in canonical_capabilities(caps, tuple(titles)))


def order_integrations(
    counts: dict[tuple[str, ...], int],
    order: tuple[tuple[str, ...], ...] = INTEGRATION_ORDER,
    known: tuple[str, ...] = CAPABILITIES,
) -> list[tuple[str, ...]]:
    """The capability sets in `counts`, canonical, in table order.

    The paper's sets come first in Table 3's order, then any other set by descending count,
    ties by name. Keys are matched as sets: ``("know", "rec")`` and ``("rec", "know")`` are
    one set, and their counts add up.
    """
    merged: dict[tuple[str, ...], int] = {}
    for caps, count in counts.items():
        key = canonical_capabilities(caps, known)
        merged[key] = merged.get(key, 0) + count
    listed = [caps for caps in order if caps in merged]
    others = sorted(
        (caps for caps in merged if caps not in order),
        key=lambda caps: (-merged[caps], "_".join(caps)),
    )
    return listed + others


# --- The judge prompt (a protocol constant: its text must stay byte for byte) ---------------

INSTRUCTION = (
    "Compare the ground truth and prediction from AI models, to give a correctness score for "
    "the prediction. <AND> in the ground truth means it is totally right only when all elements "
    "in the ground truth are present in the prediction, and <OR> means it is totally right when "
    "any one element in the ground truth is present in the prediction. The correctness score is "
    "0.0 (totally wrong), 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, or 1.0 (totally right). "
    "Just complete the last space of the correctness score."
)
_EQUATION = "What is x in the equation?"
_MEME = "Can you explain this meme?"
_MEME_TRUTH = (
    "This meme is poking fun at the fact that the names of the countries Iceland and Greenland "
    "are misleading. Despite its name, Iceland is known for its beautiful green landscapes, "
    "while Greenland is mostly covered in ice and snow. The meme is saying that the person has "
    "trust issues because the names of these countries do not accurately represent their "
    "landscapes."
)
_MEME_PARTIAL = (
    "The meme talks about Iceland and Greenland. It's pointing out that despite their names, "
    "Iceland is not very icy and Greenland isn't very green."
)
_MEME_FULL = (
    "The meme is using humor to point out the misleading nature of Iceland's and Greenland's "
    "names. Iceland, despite its name, has lush green landscapes while Greenland is mostly "
    "covered in ice and snow. The text 'This is why I have trust issues' is a playful way to "
    "suggest that these contradictions can lead to distrust or confusion. The humor in this "
    "meme is derived from the unexpected contrast between the names of the countries and their "
    "actual physical characteristics."
)
# Table 1's seven examples: question, ground truth, prediction, correctness.
FEW_SHOT: tuple[tuple[str, str, str, str], ...] = (
    (_EQUATION, "-1 <AND> -5", "x = 3", "0.0"),
    (_EQUATION, "-1 <AND> -5", "x = -1", "0.5"),
    (_EQUATION, "-1 <AND> -5", "x = -5", "0.5"),
    (_EQUATION, "-1 <AND> -5", "x = -5 or 5", "0.5"),
    (_EQUATION, "-1 <AND> -5", "x = -1 or x = -5", "1.0"),
    (_MEME, _MEME_TRUTH, _MEME_PARTIAL, "0.4"),
    (_MEME, _MEME_TRUTH, _MEME_FULL, "1.0"),
)


def _row(*cells: str) -> str:
    """One table row of the prompt: cells joined by `` | ``, no outer bars."""
    return " | ".join(cells)


def _template(examples: Iterable[tuple[str, str, str, str]]) -> str:
    """The prompt's instruction and table, with these few-shot rows."""
    return (
        f"{INSTRUCTION}\n\n"
        + _row("Question", "Ground truth", "Prediction", "Correctness")
        + "\n"
        + _row("---", "---", "---", "---")
        + "\n"
        + "".join(_row(*example) + "\n" for example in examples)
    )


JUDGE_PROMPT: str = _template(FEW_SHOT)
# Recorded with every judgment so a score can be traced to the exact prompt text.
PROMPT_VERSION: str = hashlib.sha256(JUDGE_PROMPT.encode("utf-8")).hexdigest()[:12]
# Appended to the filled prompt when the judge's reply could not be read as a score.
RETRY_SUFFIX = "\nPredict the correctness of the answer (digit): "
# The reference's sampling: 3 tokens are enough for "0.5"; temperature 0 for the first call.
JUDGE_SETTINGS: dict[str, float | int] = {"temperature": 0.0, "max_tokens": 3}

# Retries, as the reference does them. Call 1 sends the plain prompt at temperature 0.0. While
# the reply is unparseable, the next call sends the retry prompt at the current temperature,
# which then rises by 0.5: calls 2..6 run at 0.0, 0.5, 1.0, 1.5, 2.0, so six calls at most.
# The reference stops after the sixth call without reading its reply and records 0.0; we read
# every reply, and a sample whose six replies all fail is "unscored (judge failed)", never 0.0.
# Only unparseable replies step the ladder: transport errors (429, timeouts) are the runner's.
RETRY_TEMPERATURES: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)
MAX_JUDGE_CALLS = 6


def retry_ladder() -> list[tuple[bool, float]]:
    """(use the retry prompt, temperature) for calls 1..MAX_JUDGE_CALLS, in order."""
    return [(False, float(JUDGE_SETTINGS["temperature"]))] + [
        (True, temperature) for temperature in RETRY_TEMPERATURES
    ]


SHOTS_VARIANT = "shots="  # a prompt variant keeping some few-shot rows: shots=1,2,5


def shots_variant(name: str) -> tuple[int, ...]:
    """The few-shot rows (1-based, ascending, each once) a variant name such as
    ``shots=1,2,5`` keeps; ValueError saying what a valid name is."""
    numbers = name.removeprefix(SHOTS_VARIANT).split(",")
    valid = range(1, len(FEW_SHOT) + 1)
    if not name.startswith(SHOTS_VARIANT) or not all(n.isdecimal() for n in numbers):
        raise ValueError(
            f"prompt variant {name!r}: expected {SHOTS_VARIANT}N,N,... with few-shot row "
            f"numbers from 1 to {len(FEW_SHOT)}"
        )
    shots = tuple(sorted({int(n) for n in numbers}))
    if not set(shots) <= set(valid):
        raise ValueError(
            f"prompt variant {name!r}: the prompt has few-shot rows 1 to {len(FEW_SHOT)}"
        )
    return shots


def variant_template(shots: Sequence[int]) -> str:
    """The prompt with only the few-shot rows numbered in `shots` (MM-Vet Table 8)."""
    return _template(FEW_SHOT[n - 1] for n in shots)


def variant_version(shots: Sequence[int]) -> str:
    """A variant's prompt version: the reference prompt's, then the rows it keeps."""
    return f"{PROMPT_VERSION}+{SHOTS_VARIANT}{','.join(map(str, shots))}"


def judge_prompt(
    question: str, ground_truth: str, prediction: str, template: str = JUDGE_PROMPT
) -> str:
    """The user message for one answer: the template (the reference's, or a variant's), a
    newline, the query row.

    Every ``<AND>`` / ``<OR>`` of the ground truth becomes `` <AND> `` / `` <OR> `` by a
    literal replace, as the reference does (so ``a <OR> b`` gets doubled spaces). The question
    and prediction go in as they are, newlines and bars included, also as the reference does.
    """
    return f"{template}\n{_row(question, spaced(ground_truth), prediction, '')}"


def spaced(ground_truth: str) -> str:
    """The ground truth with every ``<AND>`` / ``<OR>`` spaced, by a literal replace."""
    return ground_truth.replace("<AND>", " <AND> ").replace("<OR>", " <OR> ")


def retry_prompt(question: str, ground_truth: str, prediction: str) -> str:
    """The user message sent after an unparseable reply: `judge_prompt` + `RETRY_SUFFIX`."""
    return judge_prompt(question, ground_truth, prediction) + RETRY_SUFFIX


# A plain decimal number, optional sign and exponent. Stricter than float(), which also takes
# "nan", "inf", "1_0" and non-ASCII digits. A token with anything after the number ("0.5.",
# "0.5,") is refused: no guessing at a malformed reply, which then goes to the retry ladder
# as it does in the reference. "1." and ".5" are numbers (as float() reads them) and pass.
_SCORE_TOKEN = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_score(reply: str) -> float | None:
    """The judge's score: the reply's first whitespace-separated token, if a number in [0, 1].

    Returns None for anything else: an empty reply, words, nan, inf, out-of-range numbers,
    a number with trailing punctuation.
    """
    tokens = reply.split()
    if not tokens or not _SCORE_TOKEN.fullmatch(tokens[0]):
        return None
    score = float(tokens[0])
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        return None
    return score + 0.0  # "-0" reads as -0.0; report it as 0.0


# --- Offline grader (rules in the module docstring) -----------------------------------------

MAX_ELEMENT_WORDS = 5
MAX_GROUND_TRUTH_CHARS = 60
LONG_ANSWER_REASON = "long answer: needs an LLM judge or a human"
EMPTY_ANSWER_REASON = "empty answer"
NO_GROUND_TRUTH_REASON = "no ground truth: needs a human"
NOTHING_TO_MATCH_REASON = "ground truth has no word or number: needs an LLM judge or a human"


@dataclass(frozen=True, slots=True)
class OfflineGrade:
    """A rule-based score in 0.0, 0.1, ..., 1.0, or None when the rules do not apply."""

    score: float | None
    reason: str


_CURRENCY = "$€£¥₹"
_MINUS = "-\u2212"  # ASCII hyphen-minus and the Unicode minus sign
# A whole number: thousands groups ("1,234.5"), plain ("3.50") or a bare fraction (".5").
_DIGITS = r"[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+"
# Number words and their values: zero to nineteen, the tens, and tens-units ("twenty-one").
_SMALL_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUES: dict[str, int] = {word: value for value, word in enumerate(_SMALL_WORDS)} | {
    word: 20 + 10 * i for i, word in enumerate(_TENS_WORDS)
}
# After one of these a number word is part of an ordinal, a fraction or a larger number
# ("twenty-first", "two thirds", "one hundred"), which the grader does not read.
_NOT_A_COUNT_AFTER = (
    r"first|second|thirds?|(?:four|fif|six|seven|eigh|nin|ten)ths?|half|halves|quarters?"
    r"|dozens?|hundreds?|thousands?|millions?|billions?"
)
_TENS = "|".join(_TENS_WORDS)
_UNITS = "|".join(_SMALL_WORDS[1:10])
_SMALL = "|".join(_SMALL_WORDS)
# Atomic, so "twenty-one hundred" is not read as twenty.
_NUMBER_WORD = (
    rf"(?i:(?>(?:{_TENS})(?!\w)(?:[- ](?:{_UNITS})(?!\w))?|(?:{_SMALL})(?!\w))"
    rf"(?![- ](?:{_NOT_A_COUNT_AFTER})(?!\w)))"
)
# Not inside a word or another number; a minus right after a letter or digit is an operator.
_NUMBER = (
    rf"(?<![\w.])(?:(?P<sign>[{_MINUS}+]?)[{_CURRENCY}]?(?P<digits>{_DIGITS})"
    rf"|(?P<word>{_NUMBER_WORD}))"
)
_NUMBER_RE = re.compile(_NUMBER)
# A ground-truth element that is just a number: a unit word, "%" or currency may follow it.
_NUMERIC_ELEMENT_RE = re.compile(rf"\s*{_NUMBER}\s*(?:%|[{_CURRENCY}]|[^\W\d_]+\.?)?\s*")
# What may stand between two numbers of one list: a comma, "or", ", or".
_LIST_GAP_RE = re.compile(r"\s*,\s*(?:or\s+)?|\s+or\s+", re.IGNORECASE)
_OR_RE = re.compile(r"\bor\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W_]+")  # a run of letters and digits
_CONTRACTED_NOT_RE = re.compile(r"n['\u2019]t(?!\w)")  # "isn't", also with a curly apostrophe

# Words that negate what follows them in their clause (rule 7).
NEGATION_WORDS = frozenset({"not", "no", "never", "neither", "nor", "none", "cannot", "without"})
# A negation word right before one of these negates nothing after it: "no doubt", "not only".
_NOT_NEGATING_NEXT = frozenset({"doubt", "only", "just"})
MAX_NEGATION_GAP = 2  # words that may stand between a negation word and what it negates
# A clause ends at punctuation (not a decimal point or a thousands comma) or at "but".
_CLAUSE_END_RE = re.compile(r"[.,;:!?()\[\]\u2013\u2014](?![0-9])|\bbut\b")
# A yes/no ground truth is contradicted by an answer that opens with the other word.
_OPPOSITE_ANSWER: dict[tuple[str, ...], str] = {("yes",): "no", ("no",): "yes"}


@dataclass(frozen=True, slots=True)
class _Number:
    """A number found in a text, with where it stands (to find lists and negations)."""

    value: Decimal
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Element:
    """One ground-truth element: a number, or normalised words."""

    text: str
    number: Decimal | None
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Prediction:
    """An answer read once: its numbers in the text as given, its words in the folded text."""

    text: str
    numbers: list[_Number]
    folded: str
    words: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]  # where each word stands in `folded`


def _value(match: re.Match[str]) -> Decimal:
    """The signed value of a `_NUMBER` match, thousands separators dropped."""
    if match["word"] is not None:
        return Decimal(sum(_WORD_VALUES[w] for w in re.split("[- ]", match["word"].casefold())))
    value = Decimal(match["digits"].replace(",", ""))
    return -value if match["sign"] not in ("", "+") else value


def _numbers(text: str) -> list[_Number]:
    """Every number in `text`, in digits or in words, in order."""
    return [_Number(_value(m), m.start(), m.end()) for m in _NUMBER_RE.finditer(text)]


def _fold(text: str) -> str:
    """Unicode NFKC, case folded, with "n't" written " not" ("isn't" reads "is not")."""
    return _CONTRACTED_NOT_RE.sub(" not", unicodedata.normalize("NFKC", text).casefold())


def _words(text: str) -> tuple[str, ...]:
    """Folded words: anything not a letter or digit separates words."""
    return tuple(_WORD_RE.findall(_fold(text)))


def _read(prediction: str) -> _Prediction:
    """Find the numbers and the words of an answer once, for every element to look up."""
    folded = _fold(prediction)
    tokens = list(_WORD_RE.finditer(folded))
    return _Prediction(
        prediction,
        _numbers(prediction),
        folded,
        tuple(token.group() for token in tokens),
        tuple(token.span() for token in tokens),
    )


def _element(text: str) -> _Element:
    """Classify one ground-truth element as a number or as words."""
    match = _NUMERIC_ELEMENT_RE.fullmatch(text)
    return _Element(text, _value(match) if match else None, _words(text))


def _alternatives(ground_truth: str) -> list[list[str]]:
    """The ground truth split at <OR>, then at <AND>; blank elements and alternatives dropped."""
    alternatives = []
    for alternative in ground_truth.split("<OR>"):
        elements = [e.strip() for e in alternative.split("<AND>") if e.strip()]
        if elements:
            alternatives.append(elements)
    return alternatives


def _is_long(alternatives: list[list[str]]) -> bool:
    """Too long to match by rule: a wordy element or much text in all."""
    elements = [e for alternative in alternatives for e in alternative]
    return (
        any(len(e.split()) > MAX_ELEMENT_WORDS for e in elements)
        or sum(len(e) for e in elements) > MAX_GROUND_TRUTH_CHARS
    )


def _is_plural_of(plural: str, singular: str) -> bool:
    """Whether `plural` is the regular plural of a word of three letters or more.

    -s ("apples"), -es after s, x, z, ch, sh or o ("boxes", "tomatoes"), consonant + y to
    -ies ("berries").
    """
    if len(singular) < 3 or not singular.isalpha():
        return False
    if plural == singular + "s":
        return True
    if plural == singular + "es":
        return singular.endswith(("s", "x", "z", "ch", "sh", "o"))
    return singular[-1] == "y" and singular[-2] not in "aeiou" and plural == singular[:-1] + "ies"


def _forms(word: str) -> frozenset[str]:
    """The word with its regular plural, or with the singular it is the plural of."""
    plurals = (word + "s", word + "es", word[:-1] + "ies")
    singulars = (word[:-1], word[:-2], word[:-3] + "y")
    return frozenset(
        [word]
        + [plural for plural in plurals if _is_plural_of(plural, word)]
        + [singular for singular in singulars if _is_plural_of(word, singular)]
    )


def _phrase_starts(words: tuple[str, ...], phrase: tuple[str, ...]) -> list[int]:
    """Where `phrase` occurs in `words` as consecutive whole words, plurals allowed."""
    forms = [_forms(word) for word in phrase]
    n = len(phrase)
    return [
        i
        for i in range(len(words) - n + 1)
        if words[i] in forms[0] and all(map(frozenset.__contains__, forms, words[i : i + n]))
    ]


def _negation(before: str) -> str | None:
    """The negation word governing what follows `before`, with the words after it; or None.

    A negation word governs when it stands in the same clause as what follows, with at most
    `MAX_NEGATION_GAP` words after it; the nearest one is taken.
    """
    clause = _CLAUSE_END_RE.split(_fold(before))[-1]
    window = _words(clause)[-(MAX_NEGATION_GAP + 1) :]
    for i in reversed(range(len(window))):
        if window[i] in NEGATION_WORDS and _NOT_NEGATING_NEXT.isdisjoint(window[i + 1 : i + 2]):
            return " ".join(window[i:])
    return None


def _negated(text: str, start: int, end: int) -> str | None:
    """The quoted negation of ``text[start:end]`` ("'not red'"), or None when it stands free."""
    negation = _negation(text[:start])
    return None if negation is None else f"'{negation} {text[start:end]}'"


def _opposite_opening(element: _Element, prediction: _Prediction) -> str | None:
    """For a yes/no element: the other word, when the answer opens with it ("No, ...")."""
    opposite = _OPPOSITE_ANSWER.get(element.words)
    opening = prediction.words[:2]
    if opposite is None or opening[:1] != (opposite,):
        return None
    return opposite if _NOT_NEGATING_NEXT.isdisjoint(opening[1:]) else None


def _lookup(element: _Element, prediction: _Prediction) -> tuple[bool, list[str]]:
    """Whether the prediction says the element somewhere unnegated, and why not elsewhere."""
    opposite = _opposite_opening(element, prediction)
    if opposite is not None:
        return False, [f"answers '{opposite}'"]
    if element.number is not None:
        places = [
            _negated(prediction.text, number.start, number.end)
            for number in prediction.numbers
            if number.value == element.number
        ]
    else:
        last = len(element.words) - 1
        places = [
            _negated(prediction.folded, prediction.spans[i][0], prediction.spans[i + last][1])
            for i in _phrase_starts(prediction.words, element.words)
        ]
    return None in places, [why for why in places if why is not None]


def _or_lists(prediction: str, numbers: list[_Number]) -> list[set[Decimal]]:
    """The values of each run of numbers joined by commas and "or" that has an "or" in it."""
    runs: list[list[_Number]] = []
    run = numbers[:1]
    for previous, current in itertools.pairwise(numbers):
        if _LIST_GAP_RE.fullmatch(prediction[previous.end : current.start]):
            run.append(current)
            continue
        runs.append(run)
        run = [current]
    runs.append(run)
    return [
        {n.value for n in run}
        for run in runs
        if len(run) > 1 and _OR_RE.search(prediction[run[0].start : run[-1].end])
    ]


def _round_tenth(value: Fraction) -> float:
    """Round half up to one decimal: 1/4 -> 0.3, 2/3 -> 0.7 (exact, no float ties)."""
    return math.floor(value * 10 + Fraction(1, 2)) / 10


def _grade_alternative(
    elements: list[_Element],
    prediction: _Prediction,
    hedge_lists: list[set[Decimal]],
    gold_numbers: set[Decimal],
) -> tuple[Fraction, str]:
    """One alternative's credit (fraction of elements present, maybe halved) and reason."""
    looked_up = [(e, *_lookup(e, prediction)) for e in elements]
    present = [e for e, free, _ in looked_up if free]
    negated = [why[0] for _, free, why in looked_up if not free and why]
    missing = [e.text for e, free, why in looked_up if not free and not why]
    credit = Fraction(len(present), len(elements))
    reason = f"matched {len(present)} of {len(elements)}"
    if present:
        reason += ": " + ", ".join(e.text for e in present)
    if missing:
        reason += "; missing: " + ", ".join(missing)
    if negated:
        reason += "; negated: " + ", ".join(negated)
    single = elements[0].number if len(elements) == 1 else None
    if present and single is not None:
        for offered in hedge_lists:
            if single in offered and offered - gold_numbers:
                credit /= 2
                reason += f"; hedged among {', '.join(map(str, sorted(offered)))}: credit halved"
                break
    return credit, reason


def offline_grade(ground_truth: str, prediction: str) -> OfflineGrade:
    """Grade a short ground truth by rule; None with the reason when it needs a judge."""
    raw = _alternatives(ground_truth)
    if not raw:
        return OfflineGrade(None, NO_GROUND_TRUTH_REASON)
    if not prediction.strip():
        return OfflineGrade(0.0, EMPTY_ANSWER_REASON)
    if _is_long(raw):
        return OfflineGrade(None, LONG_ANSWER_REASON)
    alternatives = [[_element(text) for text in alt] for alt in raw]
    if any(e.number is None and not e.words for alt in alternatives for e in alt):
        return OfflineGrade(None, NOTHING_TO_MATCH_REASON)
    read = _read(prediction)
    gold_numbers = {e.number for alt in alternatives for e in alt if e.number is not None}
    hedge_lists = _or_lists(prediction, read.numbers)
    graded = [_grade_alternative(alt, read, hedge_lists, gold_numbers) for alt in alternatives]
    best, reason = max(graded, key=lambda item: item[0])  # the first of equals
    if len(graded) > 1:
        if best == 0:
            texts = " | ".join(", ".join(alt) for alt in raw)
            reason = f"matched none of {len(graded)} alternatives: {texts}"
        else:
            which = [credit for credit, _ in graded].index(best) + 1
            reason = f"alternative {which} of {len(graded)}: {reason}"
    return OfflineGrade(_round_tenth(best), reason)


def _preference(grade: OfflineGrade) -> tuple[bool, bool, float]:
    """Full credit first, then "the rules cannot tell", then the higher score."""
    return (grade.score == 1.0, grade.score is None, grade.score or 0.0)


def best_offline_grade(ground_truths: Sequence[str], prediction: str) -> OfflineGrade:
    """Grade against every acceptable ground truth and keep the best, saying which it was.

    A ground truth the rules cannot grade (score None) wins over any score below 1.0: it might
    give more, so the answer is left to a judge or a human. When no ground truth gives any
    credit, the reason lists each one's.
    """
    grades = [offline_grade(truth, prediction) for truth in ground_truths]
    if not grades:
        return OfflineGrade(None, NO_GROUND_TRUTH_REASON)
    if len({grade.reason for grade in grades}) == 1:
        return grades[0]
    which = max(range(len(grades)), key=lambda i: _preference(grades[i]))  # first of equals
    best, count = grades[which], len(grades)
    if best.score == 0.0:
        each = " | ".join(f"{t} ({g.reason})" for t, g in zip(ground_truths, grades, strict=True))
        return OfflineGrade(0.0, f"matched none of {count} ground truths: {each}")
    return OfflineGrade(best.score, f"ground truth {which + 1} of {count}: {best.reason}")
