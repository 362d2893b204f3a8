"""The breakdown tables as rich renderables, for `lmmreview report`."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from lmmreview.engine.export import Notes, counts_row, grid
from lmmreview.engine.tables import Table
from lmmreview.tui.safe_text import safe

_RANK_STYLE = {1: "bold", 2: "underline", 0: ""}
WIDE = 9  # tables with more columns than this are shown turned, one line per column


def render(tables: list[Table], notes: list[Notes]) -> RenderableType:
    """Every non-empty table (best per column bold, second underlined), then the notes."""
    parts: list[RenderableType] = [
        (_turned if len(t.columns) > WIDE else _upright)(t) for t in tables if t.rows
    ]
    parts.extend(safe(n.sentence(), one_line=True, style="italic") for n in notes)
    return Group(*parts)


def _view(table: Table, first: str, headers: list[str]) -> RichTable:
    title = safe(f"{table.title} ({table.dataset})", one_line=True)
    view = RichTable(title=title, title_justify="left")
    view.add_column(first, no_wrap=True)
    for header in headers:
        # Model names and tags are what a user typed: shown literally, never as markup.
        view.add_column(
            safe(header, one_line=True), justify="right", min_width=min(len(header), 16)
        )
    return view


def _cell(text: str, rank: int) -> Text:
    return Text(text, style=_RANK_STYLE[rank])


def _upright(table: Table) -> RichTable:
    """Models as rows, as in the papers."""
    view = _view(table, "Model", [c.title for c in table.columns])
    for label, cells in grid(table):
        view.add_row(safe(label, one_line=True), *(_cell(text, rank) for text, rank in cells))
    view.add_row(Text("N", style="dim"), *(Text(n, style="dim") for n in counts_row(table)))
    return view


def _turned(table: Table) -> RichTable:
    """Models as columns: a table with many columns stays readable in a terminal."""
    rows = grid(table)
    view = _view(table, "", [label for label, _ in rows] + ["N"])
    for index, (column, n) in enumerate(zip(table.columns, counts_row(table), strict=True)):
        cells = [_cell(*cells[index]) for _, cells in rows]
        view.add_row(safe(column.title, one_line=True), *cells, Text(n, style="dim"))
    return view
