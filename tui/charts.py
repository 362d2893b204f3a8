"""Pictures in the terminal, drawn as Rich renderables: per-capability bars per model.

Plain Rich, no plotting widget: what they draw is text, so the SVG snapshot tests pin it
cell for cell; every label from the data goes through `safe()`; and each picture sizes
itself to the width it is given (80 columns as well as 160). No Textual here: a command
could print them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from lmmreview.engine.export import grid
from lmmreview.engine.tables import Cell, Column, Table
from lmmreview.tui.safe_text import safe

EIGHTHS = " ▏▎▍▌▋▊▉"  # a bar's last cell, by eighths of a cell
FULL = "█"
# One colour per model, in the table's row order (a model keeps its colour in every column).
PALETTE = ("dodger_blue1", "orange1", "green3", "magenta", "gold1", "cyan", "red1", "purple")
LABEL_MAX = 24  # a model's name takes at most this many cells (cut in the middle beyond)
NUMBER_WIDTH = 12  # "100.0 ±12.3"
BAR_MIN = 10  # a narrow terminal cuts the names before the bars get shorter than this


def bar(fraction: float, width: int) -> str:
    """A horizontal bar `fraction` (0..1) of `width` cells long, to an eighth of a cell."""
    eighths = round(max(0.0, min(fraction, 1.0)) * width * 8)
    full, rest = divmod(eighths, 8)
    return FULL * full + (EIGHTHS[rest] if rest else "")


def half_width(cell: Cell) -> float | None:
    """Half the width of a cell's 95 % interval: what "±" shows (None: no interval)."""
    if cell.interval is None:
        return None
    low, high = cell.interval
    return (high - low) / 2


def plus_minus(cell: Cell | None) -> str:
    """The text "±h" after a cell's value when it has an interval, else nothing."""
    half = half_width(cell) if cell is not None else None
    return "" if half is None else f" ±{half:.1f}"


def _scale(table: Table, column: Column) -> float:
    """What a full bar is worth: 100 for a percentage, else the column's largest value (a
    count, a sum, a difference)."""
    if not (column.count or column.tally or column.sum_of):
        return 100.0
    values = [abs(c.value) for r in table.rows if (c := r.cells.get(column.key)) and c.value]
    return max(values, default=1.0) or 1.0


def _label(name: str, width: int) -> Text:
    """A model's name in `width` cells: cut in the middle when longer (its two ends tell
    models apart: llava-v1.5-7b, llava-v1.5-13b), padded when shorter."""
    label = safe(name, one_line=True)
    if label.cell_len > width:
        keep = max(width - 1, 0)
        head = label[: (keep + 1) // 2]
        tail = label[len(label) - keep // 2 :] if keep // 2 else Text("")
        label = Text.assemble(head, "…", tail)
    label.pad_right(width - label.cell_len)
    return label


@dataclass(frozen=True, slots=True)
class CapabilityBars:
    """One table as bars: a block per column (capability), a bar per model in it, the
    value (and ± half its 95 % interval, when computed) after each bar."""

    table: Table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table
        labels = [row.label for row in table.rows]
        width = options.max_width - NUMBER_WIDTH - 3  # the indent and two gaps
        longest = max((cell_len(label) for label in labels), default=1)
        label_width = max(min(longest, LABEL_MAX, width - BAR_MIN), 4)
        room = max(width - label_width, 1)
        numbers = {label: texts for label, texts in grid(table)}
        for index, column in enumerate(table.columns):
            yield safe(column.title, one_line=True, style="bold")
            scale = _scale(table, column)
            for number, row in enumerate(table.rows):
                cell = row.cells.get(column.key)
                value = cell.value if cell is not None else None
                colour = PALETTE[number % len(PALETTE)]
                line = Text("  ")
                line.append_text(_label(row.label, label_width))
                line.append(" ")
                drawn = "" if value is None else bar(abs(value) / scale, room)
                line.append(drawn, style=colour if value is None or value >= 0 else "red")
                line.append(" " * (room - cell_len(drawn) + 1))
                line.append(numbers[row.label][index][0] + plus_minus(cell))
                yield line
