"""The breakdown tables as rich renderables, for `lmmreview report`."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table as RichTable
from rich.text import Text

from lmmreview.engine.export import Notes, counts_row, grid, said
from lmmreview.engine.names import shared_ends, short_model
from lmmreview.engine.tables import Table
from lmmreview.tui.safe_text import safe

_RANK_STYLE = {1: "bold", 2: "underline", 0: ""}
HEADER_MAX = 16  # a longer column title wraps rather than widening its column
PADDING = 3  # a column's padding and its border
# A longer model name is cut in the middle: a 225-character name left no room for a value
MODEL_MAX = 30


def render(tables: list[Table], notes: list[Notes]) -> RenderableType:
    """Every non-empty table (best per column bold, second underlined), then the notes."""
    parts: list[RenderableType] = [Upright(t) for t in tables if t.rows]
    parts.extend(safe(line, one_line=True, style="italic") for line in said(tables, notes))
    return Group(*parts)


class Upright:
    """A table with models as rows, as in the papers and the exports. Columns that do not
    fit the terminal's width continue in another table below, the model column repeated."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows, counts = grid(self.table), counts_row(self.table)
        ends = shared_ends(label for label, _ in rows)
        labels = [
            safe(short_model(label, MODEL_MAX, ends[label]), one_line=True) for label, _ in rows
        ]
        first = max(cell_len(text.plain) for text in [*labels, Text("Model")]) + PADDING
        widths = [
            max(
                min(cell_len(column.title), HEADER_MAX),
                cell_len(counts[index]),
                *(cell_len(cells[index][0]) for _, cells in rows),
            )
            + PADDING
            for index, column in enumerate(self.table.columns)
        ]
        spans = _spans(widths, options.max_width - first - 1)
        for span in spans:
            part = f", columns {span.start + 1}–{span.stop} of {len(widths)}"
            view = self._view(part if len(spans) > 1 else "", span)
            for label, (_, cells) in zip(labels, rows, strict=True):
                view.add_row(label, *(_cell(*cells[i]) for i in span))
            view.add_row(Text("N", style="dim"), *(Text(counts[i], style="dim") for i in span))
            yield view

    def _view(self, part: str, span: range) -> RichTable:
        """An empty table of the columns in `span`, titled with the table and `part`."""
        title = safe(f"{self.table.title} ({self.table.dataset}){part}", one_line=True)
        view = RichTable(title=title, title_justify="left")
        view.add_column("Model", no_wrap=True)
        for index in span:
            header = self.table.columns[index].title
            # Model names and tags are what a user typed: shown literally, never as markup.
            view.add_column(
                safe(header, one_line=True), justify="right", min_width=min(len(header), HEADER_MAX)
            )
        return view


def _spans(widths: list[int], room: int) -> list[range]:
    """Consecutive runs of columns whose widths fit in `room` (at least one column each)."""
    spans: list[range] = []
    start, used = 0, 0
    for index, width in enumerate(widths):
        if used + width > room and index > start:
            spans.append(range(start, index))
            start, used = index, 0
        used += width
    spans.append(range(start, len(widths)))
    return spans


def _cell(text: str, rank: int) -> Text:
    return Text(text, style=_RANK_STYLE[rank])
