"""How a score is named on screen, free of Textual: the screen's panels and the write
queue's labels both say it so."""

from __future__ import annotations

from lmmreview.engine.export import DASH


def score_label(score: float | None, choice: str | None = None) -> str:
    """A score as the screen shows it everywhere (list, runs, verdicts, history): a choice
    as its letter, a number with two decimals (a mean of five runs needs them), none as a
    dash."""
    if choice is not None:
        return choice
    return DASH if score is None else f"{score:.2f}"
