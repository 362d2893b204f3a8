"""A picker for any option of a multiple-choice answer, A to Z.

The review screen's letter keys choose options A to I only: J and later letters are other
keys there (j: next, u: undo, ...). The picker lists every option with its text; the
reviewer chooses with the arrows and Enter or by typing the letter.
"""

from __future__ import annotations

from textual import events

from lmmreview.tui.screens import Menu


class OptionPicker(Menu):
    """Choose one option letter of `options` (letter -> text); None when cancelled."""

    def __init__(self, options: dict[str, str]) -> None:
        choices = [(letter, f"{letter}  {text}") for letter, text in sorted(options.items())]
        super().__init__("Choose an option: arrows and Enter, or its letter", choices)
        self.options = options

    def on_key(self, event: events.Key) -> None:
        """A typed letter chooses its option at once, in either case."""
        letter = (event.character or "").upper()
        if letter in self.options:
            event.stop()
            self.dismiss(letter)
