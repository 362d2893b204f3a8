"""The review screen's footer: `? help` and `q quit` first, so a narrow terminal, which
cuts the footer's end, still shows them."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

FIRST = ("help", "quit")  # the app's actions the footer always shows, in this order


class ReviewFooter(Footer):
    """Textual's footer with the keys of `FIRST` moved to its start, made anew only when
    what it shows changed; the keys of the actions `hidden` left out (blind review's
    refused keys, which stay bound: pressed, they say why)."""

    _composed_for: Hashable = None  # what the keys shown were made from

    def __init__(self, hidden: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.hidden = hidden

    def compose(self) -> ComposeResult:
        self._composed_for = self._shown()
        widgets = [w for w in super().compose() if _action(w) not in self.hidden]
        first = sorted(
            (w for w in widgets if _action(w) in FIRST), key=lambda w: FIRST.index(_action(w))
        )
        yield from first
        yield from (w for w in widgets if w not in first)

    async def recompose(self) -> None:
        """Textual makes the footer's keys anew at each change of focus or bindings: four
        times before the first screen is drawn, three of them with the same keys. Only a
        change of what Footer.compose reads makes them anew."""
        if self._shown() != self._composed_for:
            await super().recompose()

    def _shown(self) -> Hashable:
        """Everything Footer.compose reads: the bindings with their state and key display,
        whether they are ready, and the command palette's key."""
        app = self.app
        bindings = tuple(
            (binding, enabled, tooltip, app.get_key_display(binding))
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
        )
        palette = (self.show_command_palette, app.ENABLE_COMMAND_PALETTE)
        # Footer.compose draws nothing until its private `_bindings_ready` is set, and
        # Textual offers no public way to read it; no Textual issue asks for one (the
        # nearest, Textualize/textual#1057, asked for an API over the footer's bindings
        # and was closed).
        return self._bindings_ready, self.compact, palette, bindings


def _action(widget: Widget) -> str | None:
    """The action of a key of the footer (None: another part of it). Textual exports no
    FooterKey class (it is in the private textual.widgets._footer): a key is known by the
    action it carries."""
    return getattr(widget, "action", None)
