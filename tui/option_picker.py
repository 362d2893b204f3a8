"""A picker for any option of a multiple-choice answer, A to Z.

The review screen's letter keys choose options A to I only: J and later letters are other
keys there (j: next, u: undo, ...). The picker lists every option with its text; the
reviewer chooses with the arrows and Enter or by typing the letter.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from lmmreview.tui.safe_text import safe


class OptionPicker(ModalScreen[str | None]):
    """Choose one option letter of `options` (letter -> text); None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="picker-cancel")]
    DEFAULT_CSS = """
    OptionPicker { align: center middle; }
    OptionPicker > Vertical { width: 80; height: auto; max-height: 80%; border: thick $accent;
                              background: $surface; padding: 0 1; }
    """

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Choose an option: arrows and Enter, or its letter", style="bold"))
            yield OptionList(
                *(
                    Option(
                        Text.assemble((f"{letter}  ", "bold"), safe(text, one_line=True)), id=letter
                    )
                    for letter, text in sorted(self.options.items())
                )
            )

    @on(OptionList.OptionSelected)
    def selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        """A typed letter chooses its option at once, in either case."""
        letter = (event.character or "").upper()
        if letter in self.options:
            event.stop()
            self.dismiss(letter)
