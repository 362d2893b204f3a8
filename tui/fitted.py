"""A table of short cells (a name, then numbers) that fits the width it is drawn in.

Rich squeezes every column of a table that is too wide, so a score became `0.…` on a small
terminal. This one decides at draw time: it leaves out its least needed columns first, then
cuts its first column (a name) with "…"; the other cells are never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.table import Table
from rich.text import Text

GAP = 2  # cells between two columns: a cell's padding on each side
NAME_MIN = 8  # the first column gives way down to this; then numbers go, never cut


@dataclass(frozen=True, slots=True)
class FittedTable:
    """`headers` over `rows` (the first column a name); `droppable` lists the headers of
    the columns to leave out first, in that order (a repeated header: the rightmost first);
    `justify` places the cells after the name."""

    title: Text | None
    headers: list[str]
    rows: list[list[Text]]
    droppable: Sequence[str] = ()
    justify: JustifyMethod = "left"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = [
            max([cell_len(header), *(row[i].cell_len for row in self.rows)])
            for i, header in enumerate(self.headers)
        ]
        kept = _kept(widths, self.headers, self.droppable, options.max_width)
        others = sum(widths[i] for i in kept[1:]) + GAP * (len(kept) - 1)
        yield self._table(kept, widths, max(min(widths[0], options.max_width - others), 1))

    def _table(self, kept: list[int], widths: list[int], name_width: int) -> Table:
        table = Table(box=None, pad_edge=False, show_edge=False, title_justify="left")
        table.title = self.title
        table.add_column(self.headers[0], width=name_width, no_wrap=True, overflow="ellipsis")
        for i in kept[1:]:
            table.add_column(self.headers[i], width=widths[i], no_wrap=True, justify=self.justify)
        for row in self.rows:
            table.add_row(*(row[i] for i in kept))
        return table


def _kept(widths: list[int], headers: list[str], droppable: Sequence[str], room: int) -> list[int]:
    """The columns that fit in `room` cells: the droppable ones leave while the name would
    be cut, then the rightmost others while even a cut name leaves too little room."""
    kept = list(range(len(headers)))

    def width(name: int) -> int:
        return name + sum(widths[i] for i in kept[1:]) + GAP * (len(kept) - 1)

    for header in droppable:
        for i in reversed(kept[1:]):
            if headers[i] == header and width(widths[0]) > room:
                kept.remove(i)
    while len(kept) > 1 and width(min(widths[0], NAME_MIN)) > room:
        kept.pop()
    return kept
