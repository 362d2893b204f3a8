"""The review screen's footer: `? help` and `q quit` first, so a narrow terminal, which
cuts the footer's end, still shows them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST = ("help", "quit")  # the app's actions the footer always shows, in this order


class ReviewFooter(Footer):
    """Textual's footer with the keys of `FIRST` moved to its start."""

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        first = sorted(
            (w for w in widgets if isinstance(w, FooterKey) and w.action in FIRST),
            key=lambda w: FIRST.index(w.action),
        )
        yield from first
        yield from (w for w in widgets if w not in first)
