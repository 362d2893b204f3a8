"""Show untrusted text (questions, model answers, judge replies) literally and safely.

Everything here builds `rich.text.Text` directly, so square brackets are never read as
markup, and replaces every code point that could drive the terminal with a visible
stand-in, so no escape sequence ever reaches it.
"""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size
from rich.text import Span, Text

DEFAULT_LIMIT = 100_000
STAND_IN_STYLE = "dim"

# One regex pass keeps the work linear in the text's length. Matched, in this order:
# CRLF (an ordinary line ending, not a carriage return that overwrites the line);
# C0 controls except tab and newline, DEL and C1 controls (ESC and CSI start escape
# sequences, CR/BS overwrite what was shown, BEL rings); the bidi embeddings, overrides
# and isolates that can make text read differently from what it contains ("Trojan
# source"; plain right-to-left letters and the LRM/RLM marks stay); line and paragraph
# separators, which terminals draw with an unpredictable width; and lone surrogates,
# which cannot be encoded as UTF-8 and would crash the write to the terminal. A run of
# unsafe code points is one match, translated at once and styled as one span.
_UNSAFE = re.compile(
    r"\r\n|(?:[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
    r"|\r(?!\n))+"
)

# A preview row keeps to one line and one cell per space.
_ONE_LINE = str.maketrans({"\n": "⏎", "\t": " "})


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


# Every code point _UNSAFE matches, for str.translate over a whole run at once.
_STAND_INS = {
    code: stand_in(chr(code))
    for code in [
        *(code for code in range(0x20) if chr(code) not in "\t\n"),
        *range(0x7F, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0x2028,
        0x2029,
        *range(0xD800, 0xE000),
    ]
}


def _sanitize(text: str) -> tuple[str, list[Span]]:
    """`text` with CRLF as "\\n" and unsafe code points as stand-ins, and the stand-ins' spans."""
    pieces: list[str] = []
    spans: list[Span] = []
    position = 0  # length of the output so far
    start = 0  # end of the last match in the input
    for match in _UNSAFE.finditer(text):
        before = text[start : match.start()]
        pieces.append(before)
        position += len(before)
        if match.group() == "\r\n":
            replacement = "\n"
        else:
            replacement = match.group().translate(_STAND_INS)
            spans.append(Span(position, position + len(replacement), STAND_IN_STYLE))
        pieces.append(replacement)
        position += len(replacement)
        start = match.end()
    pieces.append(text[start:])
    return "".join(pieces), spans


def safe(text: str, limit: int = DEFAULT_LIMIT) -> Text:
    """A Rich `Text` that shows untrusted `text` literally, with unsafe code points made visible.

    Markup is never parsed; stand-ins are dim. Text over `limit` characters is cut and a dim
    note says how much is shown. Tabs are left for Rich to expand; long lines fold.
    """
    plain, spans = _sanitize(text[:limit])
    result = Text(plain, spans=spans, overflow="fold")
    if len(text) > limit:
        result.append(
            f"\n… (showing the first {limit:,} of {len(text):,} characters)", STAND_IN_STYLE
        )
    return result


def plain_line(text: str, width: int) -> str:
    """A one-line, sanitized preview of `text` at most `width` terminal cells wide.

    Newlines become "⏎", tabs a space, unsafe code points their stand-ins; a cut is
    marked with "…".
    """
    if width <= 0:
        return ""
    # Only the start of a long text can show, so sanitize a bounded head; four code points
    # per cell leave room for combining marks.
    head = text[: width * 4 + 1]
    line = _sanitize(head)[0].translate(_ONE_LINE)
    if cell_len(line) <= width and len(head) == len(text):
        return line
    # set_cell_size pads with a space where it splits a wide character.
    return set_cell_size(line, width - 1).rstrip(" ") + "…"
