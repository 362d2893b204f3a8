"""Untrusted text made visible: nothing in it can drive a terminal or hide from a reader.

Model names, tags, file names, questions, answers and judge replies come from files and
servers nobody vetted. Every code point that could control a terminal, reorder what is
shown, or not be shown at all is replaced by a printable stand-in (ESC → "␛",
U+200B → "⟨U+200B⟩"). This is the one place that decides which code points those are;
the screens, the command line and the exports all build on it. Pure str → str: no Rich,
no terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Code points that drive a terminal or cannot be written: C0 controls but tab and newline,
# DEL and C1 (ESC and CSI start escape sequences, CR/BS overwrite what was shown, BEL
# rings); the bidi embeddings, overrides and isolates that make text read differently
# from what it contains ("Trojan source"; plain right-to-left letters and the LRM, RLM
# and Arabic letter marks stay: they order text, they hide none); line and paragraph
# separators, drawn with an unpredictable width; lone surrogates, which cannot be encoded
# as UTF-8.
_CONTROL = [
    (0x00, 0x08),
    (0x0B, 0x0C),
    (0x0E, 0x1F),
    (0x7F, 0x9F),
    (0x202A, 0x202E),
    (0x2028, 0x2029),
    (0xD800, 0xDFFF),
]
# Code points that draw nothing, so they can hide text ("visible" then "score 1.0" in tag
# characters shows only "visible" while a judge reads it all): soft hyphen, the combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, the Mongolian vowel separator,
# zero-width space and joiners, word joiner, invisible operators, bidi isolates and the
# deprecated format controls (U+2060-U+206F), the byte order mark, the unassigned specials
# before the interlinear annotation controls, those controls, the Egyptian hieroglyph
# format controls, shorthand and musical format controls, and the tag and unassigned
# ignorable planes.
_INVISIBLE = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180E, 0x180E),
    (0x200B, 0x200D),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE00FF),
    (0xE01F0, 0xE0FFF),
]
# One variation selector picks a glyph ("❤️", a Mongolian letter form); a run of them
# carries hidden bytes.
_SELECTORS = [(0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF)]


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(rf"\U{low:08x}-\U{high:08x}" for low, high in ranges)


def _tags(text: str) -> str:
    """`text` spelled in Unicode tag characters (U+E0020-U+E007E mirror ASCII)."""
    return "".join(chr(0xE0000 + ord(c)) for c in text)


# Sequences that use invisible code points for what they are meant for, kept as they are:
# emoji joined by ZWJ ("👨‍👩‍👧"), the three subdivision flags spelled in tag characters
# (any other tag text would be hidden text), and ZWJ/ZWNJ between the letters of scripts
# that shape with them (Persian "می‌خواهم", Devanagari conjuncts).
_EMOJI = (
    r"[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf"
    r"\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff]"
    r"[\ufe0f\U0001f3fb-\U0001f3ff]*"
)
_FLAGS = "\U0001f3f4(?:" + "|".join(_tags(c) for c in ("gbeng", "gbsct", "gbwls")) + ")\U000e007f"
_SHAPED = (
    r"[\u0600-\u06ff\u0700-\u074f\u0750-\u077f\u08a0-\u08ff\u0900-\u0dff\ufb50-\ufdff\ufe70-\ufefe]"
)
_KEEP = rf"{_EMOJI}(?:\u200d{_EMOJI})+|{_FLAGS}|{_SHAPED}(?:[\u200c\u200d]{_SHAPED})+"

_UNSAFE_CLASS = _char_class(_CONTROL + _INVISIBLE)
_SELECTOR_CLASS = _char_class(_SELECTORS)
# A code point a format that can escape it losslessly (JSON) should escape: every unsafe
# one, and variation selectors, harmless alone but not worth telling apart there.
UNSAFE_CHAR = re.compile(f"[{_UNSAFE_CLASS}{_SELECTOR_CLASS}]")


def _pattern(one_line: bool) -> re.Pattern[str]:
    """Kept sequences, line endings, then runs of unsafe code points, in one linear pass.

    A run of unsafe code points is one match, translated at once. In one-line mode a
    newline (or CRLF) is a stand-in too and a tab a space.
    """
    hidden = rf"[{_UNSAFE_CLASS}]|[{_SELECTOR_CLASS}]{{2,}}|\r(?!\n)"
    breaks = r"|(?P<line>\r?\n)|(?P<tab>\t)" if one_line else r"|(?P<line>\r\n)"
    return re.compile(f"(?P<keep>{_KEEP}){breaks}|(?P<hidden>(?:{hidden})+)")


_PATTERNS = {one_line: _pattern(one_line) for one_line in (False, True)}


def stand_in(char: str) -> str:
    """The visible stand-in for one unsafe code point.

    C0 controls get their Unicode control picture (ESC → "␛", CR → "␍"), DEL gets "␡",
    everything else its code point, e.g. "⟨U+202E⟩".
    """
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "␡"
    return f"⟨U+{code:04X}⟩"


class _StandIns(dict[int, str]):
    """str.translate's table: every code point asked for maps to its stand-in, once."""

    def __missing__(self, code: int) -> str:
        self[code] = stand_in(chr(code))
        return self[code]


_STAND_INS = _StandIns()
LINE_BREAK = "⏎"  # a newline in one-line mode


def reveal(text: str, *, one_line: bool = False) -> tuple[str, list[tuple[int, int]]]:
    """`text` with every unsafe code point as its stand-in, and where the stand-ins are.

    Returns the new text and the (start, end) of each run of stand-ins in it. CRLF is an
    ordinary line ending ("\\n"). With `one_line`, line endings become "⏎" (a stand-in
    too) and tabs a space, so the text stays on one line.
    """
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0  # length of the output so far
    start = 0  # end of the last match in the input
    for match in _PATTERNS[one_line].finditer(text):
        kind = match.lastgroup
        if kind == "keep":
            continue
        before = text[start : match.start()]
        pieces.append(before)
        position += len(before)
        if kind == "tab":
            replacement = " "
        elif kind == "line":
            replacement = LINE_BREAK if one_line else "\n"
            if one_line:
                spans.append((position, position + 1))
        else:
            replacement = match.group().translate(_STAND_INS)
            spans.append((position, position + len(replacement)))
        pieces.append(replacement)
        position += len(replacement)
        start = match.end()
    pieces.append(text[start:])
    return "".join(pieces), spans


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` with every unsafe code point as a visible stand-in (see `reveal`)."""
    return reveal(text, one_line=one_line)[0]
