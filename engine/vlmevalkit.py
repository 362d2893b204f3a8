"""VLMEvalKit's option matching, `can_infer` (vlmeval/utils/matching_util.py, open-compass/
VLMEvalKit @ e8e78f0, lines 18-61 and 107-127), restated: the readers of its files compare
its verdicts with the official rules' where its files keep no verdict of their own.

An answer names an option when, its marks `.()[],:;!*#{}` turned into spaces, exactly one
option letter is among its words and among the last five of them; else `Z` when no letter
is and the word `Z` is; else the letter after "answer is" (or "correct answer is", any
case, a letter A to D); else the one option whose text (lower-cased) is in the answer
(lower-cased), when the answer is at most twice as long as the options' texts together.
"""

from __future__ import annotations

import re

REFUSAL = "Z"  # VLMEvalKit's letter for a refusal, or an answer naming no option
_FAILED_CALL = "Failed to obtain answer via API"
_REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
_MARKS = re.compile(r"[.()\[\],:;!*#{}]")
_ANSWER_IS = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")


def can_infer(answer: str, choices: dict[str, str]) -> str | None:
    """The option letter (or REFUSAL) VLMEvalKit reads in `answer`; None for none.
    (VLMEvalKit's quantifier check of a lone `A` runs only with its VERBOSE variable set.)"""
    return _by_letter(answer, choices) or _by_text(answer, choices)


def _by_letter(answer: str, choices: dict[str, str]) -> str | None:
    if _FAILED_CALL in answer:
        return None
    if any(refusal in answer for refusal in _REFUSALS):
        return REFUSAL
    words = _MARKS.sub(" ", answer).split()
    named = [letter for letter in choices if letter in words]
    if len(named) == 1 and words.index(named[0]) > len(words) - 5:
        return named[0]
    if not named and REFUSAL in words:
        return REFUSAL
    match = _ANSWER_IS.search(answer)
    if match and match[1].upper() in choices:
        return match[1].upper()
    return None


def _by_text(answer: str, choices: dict[str, str]) -> str | None:
    lowered = answer.lower()
    if len(lowered) > 2 * sum(len(text) for text in choices.values()):
        return None
    found = [letter for letter, text in choices.items() if text.lower() in lowered]
    return found[0] if len(found) == 1 else None
