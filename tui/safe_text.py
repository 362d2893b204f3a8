"""Show untrusted text (names, questions, model answers, judge replies) literally and safely.

`safe()` is the one way data reaches the terminal, in every command and every screen: it
builds a `rich.text.Text` directly, so square brackets are never read as markup, from
`engine.visible`, which replaces every code point that could drive the terminal or hide
text with a visible stand-in, so no escape sequence ever reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.text import Span, Text

from lmmreview.engine.visible import reveal, visible

DEFAULT_LIMIT = 100_000
STAND_IN_STYLE = "dim"
CONTINUED = "↪ "  # starts a line that a line too wide for the screen wrapped onto


def safe(
    text: str, limit: int = DEFAULT_LIMIT, *, one_line: bool = False, style: StyleType = ""
) -> Text:
    """A Rich `Text` that shows untrusted `text` literally, with unsafe code points made visible.

    Markup is never parsed; stand-ins are dim. `one_line` (for names, ids, messages) shows
    line breaks as "⏎". Text over `limit` characters is cut and a dim note says how much is
    shown. Tabs are left for Rich to expand; long lines fold. `style` styles the whole.
    """
    plain, runs = reveal(text[:limit], one_line=one_line)
    spans = [Span(start, end, STAND_IN_STYLE) for start, end in runs]
    # A one-line text leaves overflow to where it is shown: a report line keeps every word
    # however narrow the terminal, a table cell follows its column.
    result = Text(plain, style=style, spans=spans, overflow=None if one_line else "fold")
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
    line = visible(head, one_line=True)
    if cell_len(line) <= width and len(head) == len(text):
        return line
    # set_cell_size pads with a space where it splits a wide character.
    return set_cell_size(line, width - 1).rstrip(" ") + "…"


def markup_line(text: str, width: int) -> str:
    """`plain_line` for a place that reads Textual markup (the command palette's titles):
    its square brackets are escaped, so they show as they are."""
    from textual.markup import escape  # Textual loads only with the screen

    return escape(plain_line(text, width))


@dataclass(frozen=True, slots=True)
class Wrapped:
    """`text` (lines holding names, paths, notes from the data) drawn with every line it
    wraps onto marked "↪": a name of spaces followed by "human verdict: 1.00" cannot wrap
    so that a line of the screen starts as one of its own. Its own line breaks start lines
    unmarked."""

    text: Text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.text.split("\n", allow_blank=True):
            if line.cell_len <= width:
                yield line
                continue
            first, *rest = line.wrap(console, max(width - cell_len(CONTINUED), 1))
            yield first
            for continued in rest:
                yield Text.assemble((CONTINUED, STAND_IN_STYLE), continued)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)
