"""MMMU-Pro's answer parser: SCORING.md section 4, restated from the official
`mmmu-pro/evaluate.py` (MMMU-Benchmark/MMMU).

First the line after the last `Answer:`; then rules close to MMMU's multiple-choice parser
(engine.benchmarks.mmmu.rules), whose helpers it shares; then a random letter, which the
official code draws unseeded and we draw seeded per sample, marked as a fallback.
"""

from __future__ import annotations

from lmmreview.engine.benchmarks.mmmu.rules import (
    MmmuVerdict,
    named_by_text,
    seeded_pick,
    strip_edge_punctuation,
)
from lmmreview.engine.types import Sample

ANSWER_MARK = "Answer:"


def parse_choice(response: str, options: dict[str, str], seed_key: str) -> tuple[str, str]:
    """The option letter `response` names, and the rule that found it: "answer_line" (the
    text after the last `Answer:`), "paren" (`(X)`), "letter" (`X `), "letter_dot" (`X.`),
    "option_text", or "fallback" (the letter drawn at random, seeded by `seed_key`).

    Raises ValueError when there are no options to choose from.
    """
    if not options:
        raise ValueError(f"sample {seed_key!r}: a multiple-choice answer needs options")
    letters = list(options)
    letter = after_answer_mark(response, letters)
    if letter is not None:  # a letter may be any text, "" too
        return letter, "answer_line"
    padded = f" {strip_edge_punctuation(response)} "
    found = _letter_form(padded, letters)
    if found is not None:
        return found
    named = named_by_text(padded, options)
    if named is not None:
        return named, "option_text"
    return seeded_pick(letters, seed_key), "fallback"


def after_answer_mark(response: str, letters: list[str]) -> str | None:
    """The one letter that occurs in the text after the last `Answer:` (stripped), else None.

    A plain substring test: "Answer: (B) because A is wrong" holds A and B, so it names none.
    """
    at = response.rfind(ANSWER_MARK)
    if at < 0:
        return None
    tail = response[at + len(ANSWER_MARK) :].strip()
    named = [letter for letter in letters if letter in tail]
    return named[0] if len(named) == 1 else None


def _letter_form(padded: str, letters: list[str]) -> tuple[str, str] | None:
    """The letter named as `(X)`, else as `X `, else as `X.`, and the form's name.

    Among several letters of one form the latest wins: for `(X)` by its last occurrence; for
    `X ` and `X.` by the last ` X ` (the official code measures those two by the spaced form,
    which may be absent: -1, so such a letter loses to any spaced one, and ties go to the
    earlier option, as numpy's argmax gives them).
    """
    for template, method, measured in _LETTER_FORMS:
        found = [letter for letter in letters if template.format(letter) in padded]
        if found:
            latest = max(found, key=lambda letter: padded.rfind(measured.format(letter)))
            return latest, method
    return None


# (the form a letter is found in, its rule's name, the form its position is measured by)
_LETTER_FORMS = (
    ("({})", "paren", "({})"),
    ("{} ", "letter", " {} "),
    ("{}.", "letter_dot", " {} "),
)


def judge(sample: Sample, response: str) -> MmmuVerdict:
    """Parse `response` and check the letter against the sample's golds (none: never right);
    the verdict is MMMU's, its prediction always a letter."""
    letter, method = parse_choice(response, sample.options, sample.key)
    return MmmuVerdict(letter, letter in sample.golds, method, method == "fallback")
