"""Pictures in the terminal, drawn as Rich renderables: per-capability bars per model,
the judge × human confusion matrix, the reliability diagram of a judge's scores.

Plain Rich, no plotting widget: what they draw is text, so the SVG snapshot tests pin it
cell for cell; every label from the data goes through `safe()`; and each picture sizes
itself to the width it is given (80 columns as well as 160).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table as RichTable
from rich.text import Text

from lmmreview.engine.export import grid
from lmmreview.engine.judge_stats import Calibration, Confusion
from lmmreview.engine.names import shared_ends, short_model
from lmmreview.engine.tables import Column, Table
from lmmreview.tui.safe_text import safe

EIGHTHS = " ▏▎▍▌▋▊▉"  # a bar's last cell, by eighths of a cell
FULL = "█"
# One colour per model, in the table's row order (a model keeps its colour in every column).
PALETTE = ("dodger_blue1", "orange1", "green3", "magenta", "gold1", "cyan", "red1", "purple")
LABEL_MAX = 24  # a model's name takes at most this many cells (cut in the middle beyond)
BAR_MIN = 10  # a narrow terminal cuts the names before the bars get shorter than this


def bar(fraction: float, width: int) -> str:
    """A horizontal bar `fraction` (0..1) of `width` cells long, to an eighth of a cell."""
    eighths = round(max(0.0, min(fraction, 1.0)) * width * 8)
    full, rest = divmod(eighths, 8)
    return FULL * full + (EIGHTHS[rest] if rest else "")


def _scale(table: Table, column: Column) -> float:
    """What a full bar is worth: 100 for a percentage, else the column's largest value (a
    count, a sum, a difference)."""
    if not (column.count or column.tally or column.sum_of):
        return 100.0
    values = [abs(c.value) for r in table.rows if (c := r.cells.get(column.key)) and c.value]
    return max(values, default=1.0) or 1.0


def _label(name: str, width: int, shared: tuple[int, int]) -> Text:
    """A model's name in `width` cells, cut in the middle as the answer list cuts it."""
    label = safe(short_model(name, width, shared), one_line=True)
    label.pad_right(width - label.cell_len)
    return label


@dataclass(frozen=True, slots=True)
class CapabilityBars:
    """One table as bars: a block per column (capability), a bar per model in it, the
    value after each bar as the tables write it (± the run std, [low, high] the 95 %
    interval, when computed). A line never wraps: the bar gives way, not the numbers."""

    table: Table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table
        labels = [row.label for row in table.rows]
        numbers = {label: texts for label, texts in grid(table)}
        widest = max((cell_len(text) for texts in numbers.values() for text, _ in texts), default=1)
        width = options.max_width - widest - 4  # the indent and two gaps
        longest = max((cell_len(label) for label in labels), default=1)
        label_width = max(min(longest, LABEL_MAX, width - BAR_MIN), 4)
        room = max(width - label_width, 0)
        shared = shared_ends(labels)
        for index, column in enumerate(table.columns):
            yield safe(column.title, one_line=True, style="bold")
            scale = _scale(table, column)
            for number, row in enumerate(table.rows):
                cell = row.cells.get(column.key)
                value = cell.value if cell is not None else None
                colour = PALETTE[number % len(PALETTE)]
                line = Text("  ")
                line.append_text(_label(row.label, label_width, shared[row.label]))
                line.append(" ")
                drawn = "" if value is None else bar(abs(value) / scale, room)
                line.append(drawn, style=colour if value is None or value >= 0 else "red")
                line.append(" " * (room - cell_len(drawn) + 1))
                line.append(numbers[row.label][index][0])
                yield line


# Background shades of a confusion cell, by its share of the largest count (none: empty).
HEAT = ("", "on grey30", "on grey42", "on grey54", "on grey66")


def confusion_matrix(confusion: Confusion) -> Group:
    """The judge × human counts as a grid: a row per judge level, a column per human
    level, each cell shaded by its count (the diagonal, where they agree, in bold)."""
    matrix = RichTable(box=None, pad_edge=False, show_edge=False)
    matrix.add_column(Text("judge \\ human", style="dim"), no_wrap=True)
    for label in confusion.labels:
        matrix.add_column(safe(label, one_line=True), justify="right", no_wrap=True)
    largest = max((c for row in confusion.counts for c in row), default=0) or 1
    for number, (label, counts) in enumerate(zip(confusion.labels, confusion.counts, strict=True)):
        cells = [Text(f" {c} ", style=_heat(c, largest, i == number)) for i, c in enumerate(counts)]
        matrix.add_row(safe(label, one_line=True), *cells)
    title = f"Judge × human ({confusion.n} answers): a row per judge level, a column per human's"
    return Group(Text(title), matrix)


def _heat(count: int, largest: int, diagonal: bool) -> str:
    """A cell's shade: a step of HEAT per quarter of the largest count (rounded up, so
    any count shows); bold on the diagonal."""
    shade = HEAT[-(-count * (len(HEAT) - 1) // largest)]
    return f"{shade} bold" if diagonal else shade


def _binned(low: float, high: float) -> str:
    return f"{low:.1f}–{high:.1f}"


@dataclass(frozen=True, slots=True)
class ReliabilityDiagram:
    """A reliability diagram on its side: a line per bin of the judge's score, its bar
    the human's mean score there, ┃ at the judge's mean (a calibrated judge's bar ends on
    it); ECE and Brier under it."""

    calibration: Calibration

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        calibration = self.calibration
        yield Text(
            "Reliability: the human's mean score per bin of the judge's (┃ the judge's mean)"
        )
        room = max(options.max_width - 22, 4)  # "0.0–0.1  n 1234  " and " 0.43"
        for b in calibration.bins:
            line = Text(f"{_binned(b.lower, b.upper)}  n {b.count:<5} ")
            if b.mean_human is None or b.mean_judge is None:
                line.append("·", style="dim")
                yield line
                continue
            drawn = list(bar(b.mean_human, room).ljust(room))
            at = min(int(b.mean_judge * room), room - 1)
            line.append("".join(drawn[:at]), style="dodger_blue1")
            line.append("┃", style="bold orange1")
            line.append("".join(drawn[at + 1 :]), style="dodger_blue1")
            line.append(f" {b.mean_human:.2f}")
            yield line
        ece, brier = calibration.ece, calibration.brier
        figures = (
            "no answers" if ece is None or brier is None else f"ECE {ece:.3f} · Brier {brier:.3f}"
        )
        yield Text(figures, style="italic")
