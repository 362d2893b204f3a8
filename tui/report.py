"""The breakdown tables as rich renderables, for `lmmreview report`."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from engine.export import Notes, counts_row, grid
from engine.tables import Table

_RANK_STYLE = {1: "bold", 2: "underline", 0: ""}


def render(tables: list[Table], notes: list[Notes]) -> RenderableType:
    """Every non-empty table (best per column bold, second underlined), then the notes."""
    parts: list[RenderableType] = []
    for table in tables:
        if not table.rows:
            continue
        view = RichTable(title=f"{table.title} ({table.dataset})", title_justify="left")
        view.add_column("Model", no_wrap=True)
        for column in table.columns:
            view.add_column(column.title, justify="right")
        for label, cells in grid(table):
            # Text, not markup: labels are names a user typed.
            view.add_row(
                Text(label), *(Text(text, style=_RANK_STYLE[rank]) for text, rank in cells)
            )
        view.add_row(Text("N", style="dim"), *(Text(n, style="dim") for n in counts_row(table)))
        parts.append(view)
    parts.extend(Text(n.sentence(), style="italic") for n in notes)
    return Group(*parts)
