"""Charts as SVG text, with no dependency: grouped bars and a radar of a table's percentages
(per capability per model), a judge × human confusion matrix and a reliability diagram.

For `lmmreview report --format html`, which embeds them as they are. Every text that comes
from the data (model, column and label names) is escaped and made visible
(engine.visible); a long one is cut, its whole text in a tooltip (<title>), so no name can
break the layout or inject markup. Pure str out: no file, no font, no network.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape
from typing import TYPE_CHECKING

from lmmreview.engine.names import cut_names
from lmmreview.engine.tables import Column, Table
from lmmreview.engine.visible import visible

if TYPE_CHECKING:
    from lmmreview.engine.judge_stats import Calibration, Confusion

# Okabe and Ito's colour-blind-safe palette (black left out), then Tableau's: a model each.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
    "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd",
)  # fmt: skip
# Past the palette's colours, a model's outline is dashed instead: the next style each time.
DASHES = ("6 3", "2 2", "8 3 2 3")
LEGEND_ROW, LEGEND_COLUMN = 16, 150  # pixels: a legend flows into columns of these
FONT = 'font-family="sans-serif"'  # the reader's own font: no font is fetched
LABEL_CHARS = 16  # a name longer than this is cut (its whole text in a tooltip)
TITLE_CHARS = 60  # a figure's title, likewise
RADAR_AXES = 3  # a radar needs three axes at least
NAMED_AXES = 10  # a radar with more axes numbers them, their names in a key (no overlap)
# Columns that sum up the others: the papers' radars draw capabilities only.
SUMMARIES = frozenset({"total", "overall", "vanilla", "average", "all"})
LEVELS = 11  # a confusion matrix with more score levels is binned to tenths (MM-Vet's grid)
BINNED = " (scores binned to tenths)"  # said on the axes of a matrix so binned


@dataclass(frozen=True, slots=True)
class Series:
    """One model's values (percent; None: no value) over a chart's columns."""

    label: str
    values: tuple[float | None, ...]


def text(value: str, one_line: bool = True) -> str:
    """Untrusted text as XML or HTML character data or an attribute value: visible (on one
    line unless `one_line` is False), escaped."""
    return escape(visible(value, one_line=one_line), quote=True)


def percent_columns(table: Table) -> list[Column]:
    """The table's columns whose cells are percentages (no sum, count or tally)."""
    return [c for c in table.columns if not (c.sum_of or c.count or c.tally)]


def series(table: Table, models: Sequence[str] | None = None) -> list[Series]:
    """Each row's percentages over `percent_columns`, labelled as the table shows the row
    (its display name, if given one); only the rows `models` names (as stored), in that
    order, when given."""
    rows = {row.name: row for row in table.rows}
    names = list(rows) if models is None else [m for m in models if m in rows]
    keys = [c.key for c in percent_columns(table)]
    return [
        Series(rows[n].label, tuple(c.value if (c := rows[n].cells.get(k)) else None for k in keys))
        for n in names
    ]


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _dashes(index: int) -> str:
    """A dashed outline for a model whose colour another already has (else none)."""
    cycle = index // len(PALETTE)
    return f' stroke-dasharray="{DASHES[(cycle - 1) % len(DASHES)]}"' if cycle else ""


def _outline(index: int) -> str:
    """A swatch's or bar's outline: dashed and dark past the palette's colours."""
    return f' stroke="#222"{_dashes(index)}' if index >= len(PALETTE) else ""


def short(value: str, chars: int = LABEL_CHARS) -> str:
    """A name made visible on one line and cut to `chars`, so it cannot stretch a chart."""
    shown = visible(value, one_line=True)
    return shown if len(shown) <= chars else shown[: chars - 1] + "…"


def _label(value: str, x: float, y: float, attributes: str = "", shown: str = "") -> str:
    """A <text> of `value`, cut short (or as `shown`, cut by cut_names), with the whole
    in a tooltip."""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" {FONT} font-size="11" {attributes}>'
        f"<title>{text(value)}</title>{text(shown or short(value))}</text>"
    )


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
        f"<title>{text(title)}</title>"
        f'<rect width="100%" height="100%" fill="white"/>'
        f'<text x="10" y="18" {FONT} font-size="13" font-weight="bold">'
        f"{text(short(title, TITLE_CHARS))}</text>" + "".join(body) + "</svg>"
    )


def _legend(models: Sequence[str], x: float, y: float, rows: int) -> tuple[list[str], float]:
    """A swatch and name per model, one under the other in columns of `rows` (a long list
    flows into the next column: none is clipped); and the legend's width."""
    parts, cut, rows = [], cut_names(models, LABEL_CHARS), max(rows, 1)
    for i, model in enumerate(models):
        left, top = x + LEGEND_COLUMN * (i // rows), y + LEGEND_ROW * (i % rows)
        parts.append(
            f'<rect x="{left:.1f}" y="{top:.1f}" width="10" height="10" '
            f'fill="{colour(i)}"{_outline(i)}/>'
        )
        parts.append(_label(model, left + 14, top + 9, shown=cut[model]))
    return parts, LEGEND_COLUMN * math.ceil(len(models) / rows)


def bars(table: Table, models: Sequence[str] | None = None) -> str:
    """Grouped bars: a group per percentage column, a bar per model (0 to 100)."""
    columns, rows = percent_columns(table), series(table, models)
    bar, gap, left, top, plot_h = 10, 14, 90, 30, 200  # left: room for a slanted label
    group = max(len(rows), 1) * bar + gap
    plot_w = max(len(columns) * group, 120)
    legend, legend_w = _legend([r.label for r in rows], left + plot_w + 12, top, plot_h // 16)
    width, height = left + plot_w + 12 + max(legend_w, 138), top + plot_h + 110
    titles = cut_names([c.title for c in columns], LABEL_CHARS)
    body = [_y_axis(left, top, plot_w, plot_h)]
    for i, column in enumerate(columns):
        x0 = left + i * group + gap / 2
        for j, row in enumerate(rows):
            value = row.values[i]
            if value is None:
                continue
            h = plot_h * min(max(value, 0.0), 100.0) / 100
            body.append(
                f'<rect x="{x0 + j * bar:.1f}" y="{top + plot_h - h:.1f}" width="{bar - 1}" '
                f'height="{h:.1f}" fill="{colour(j)}"{_outline(j)}><title>{text(row.label)}, '
                f"{text(column.title)}: {value:.1f}</title></rect>"
            )
        centre = x0 + len(rows) * bar / 2
        body.append(
            _label(
                column.title, centre, top + plot_h + 12,
                f'text-anchor="end" transform="rotate(-40 {centre:.1f} {top + plot_h + 12:.1f})"',
                titles[column.title],
            )
        )  # fmt: skip
    body += legend
    return _svg(width, height, f"{table.title} ({table.dataset})", body)


def _y_axis(left: float, top: float, plot_w: float, plot_h: float, most: float = 100) -> str:
    """Grid lines and labels at a fifth of `most` apart, from 0 to `most`."""
    parts = []
    for fifth in range(6):
        y = top + plot_h - plot_h * fifth / 5
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 4}" y="{y + 4:.1f}" {FONT} font-size="10" '
            f'text-anchor="end">{most * fifth / 5:g}</text>'
        )
    return "".join(parts)


def radar_axes(table: Table, models: Sequence[str] | None = None) -> list[int]:
    """Which of `percent_columns` a radar draws: capabilities, not a column summing them
    up (Total, Overall, ...), and only those every model drawn has a value in (a missing
    value drawn as 0 would read as a score)."""
    rows = series(table, models)
    return [
        i
        for i, column in enumerate(percent_columns(table))
        if SUMMARIES.isdisjoint({column.key.lower(), column.title.lower()})
        and all(row.values[i] is not None for row in rows)
    ]


def radar(table: Table, models: Sequence[str] | None = None) -> str:
    """A radar (the MM-Vet and MMBench papers' capability chart): an axis per column of
    radar_axes (three at least: ValueError otherwise), a polygon per model, 0 at the
    centre, a scale along the upward axis."""
    kept = radar_axes(table, models)
    columns = [percent_columns(table)[i] for i in kept]
    rows = series(table, models)
    if len(columns) < RADAR_AXES:
        raise ValueError(f"a radar needs {RADAR_AXES} columns at least; {table.name} has "
                         f"{len(columns)} every model has a value in")  # fmt: skip
    radius, cx, cy = 120, 250, 185  # cx - radius: room for a label on the left
    numbered = len(columns) > NAMED_AXES
    titles = cut_names([c.title for c in columns], LABEL_CHARS)
    body = []
    angles = [2 * math.pi * i / len(columns) - math.pi / 2 for i in range(len(columns))]
    for ring in (20, 40, 60, 80, 100):
        points = " ".join(_point(cx, cy, radius * ring / 100, a) for a in angles)
        body.append(
            f'<polygon points="{points}" fill="none" stroke="#ddd"/>'
            f'<text x="{cx + 3}" y="{cy - radius * ring / 100 + 10:.1f}" {FONT} '
            f'font-size="9" fill="#999">{ring}</text>'
        )
    for i, (column, angle) in enumerate(zip(columns, angles, strict=True)):
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        body.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ccc"/>')
        anchor = "middle" if abs(math.cos(angle)) < 0.3 else "start" if x > cx else "end"
        lx, ly = cx + (radius + 10) * math.cos(angle), cy + (radius + 10) * math.sin(angle)
        name = f"{i + 1}" if numbered else column.title
        shown = "" if numbered else titles[column.title]
        body.append(_label(name, lx, ly + 4, f'text-anchor="{anchor}"', shown))
    for j, row in enumerate(rows):
        points = " ".join(
            _point(cx, cy, radius * min(max(row.values[i] or 0.0, 0.0), 100.0) / 100, a)
            for i, a in zip(kept, angles, strict=True)
        )
        body.append(
            f'<polygon points="{points}" fill="{colour(j)}" fill-opacity="0.15" '
            f'stroke="{colour(j)}" stroke-width="2"{_dashes(j)}><title>{text(row.label)}'
            "</title></polygon>"
        )
    legend, legend_w = _legend([r.label for r in rows], 2 * cx + 20, 40, (2 * cy - 40) // 16)
    body += legend
    if numbered:  # the axes' names, numbered, under the radar
        body += [
            _label(f"{i + 1}. {c.title}", 20 + 170 * (i % 3), 2 * cy + 20 + 16 * (i // 3))
            for i, c in enumerate(columns)
        ]
    key = 16 * math.ceil(len(columns) / 3) + 10 if numbered else 0
    width = 2 * cx + 20 + max(legend_w, 150)
    return _svg(width, 2 * cy + 10 + key, f"{table.title} ({table.dataset})", body)


def _point(cx: float, cy: float, r: float, angle: float) -> str:
    return f"{cx + r * math.cos(angle):.1f},{cy + r * math.sin(angle):.1f}"


def shown_levels(matrix: Confusion) -> tuple[Confusion, bool]:
    """The matrix as a chart shows it, and whether it was binned: score levels rounded to
    two decimals, or to tenths where more than LEVELS remain (a judge's mean over several
    runs takes many values: six-digit labels would run together); wrong/right as they are."""
    try:
        values = [float(label) for label in matrix.labels]
    except ValueError:
        return matrix, False
    binned = len({round(v, 2) for v in values}) > LEVELS
    shown = [round(v, 1 if binned else 2) for v in values]
    merged = sorted(set(shown))
    place = [merged.index(v) for v in shown]
    counts = [[0] * len(merged) for _ in merged]
    for i, row in enumerate(matrix.counts):
        for j, n in enumerate(row):
            counts[place[i]][place[j]] += n
    labels = tuple(f"{v:g}" for v in merged)
    return replace(matrix, labels=labels, counts=tuple(map(tuple, counts))), binned


def confusion(matrix: Confusion, title: str) -> str:
    """The judge × human confusion matrix: a row per judge level, a column per human
    level, each cell shaded by its count (levels as shown_levels makes them)."""
    matrix, binned = shown_levels(matrix)
    labels, counts = matrix.labels, matrix.counts
    said = BINNED if binned else ""
    cell, left, top = 44, 110, 70
    most = max((n for row in counts for n in row), default=0) or 1
    body = [
        f'<text x="{left + cell * len(labels) / 2:.1f}" y="{top - 38}" {FONT} font-size="11" '
        f'text-anchor="middle">human{said}</text>',
        f'<text x="14" y="{top + cell * len(labels) / 2:.1f}" {FONT} font-size="11" '
        f'transform="rotate(-90 14 {top + cell * len(labels) / 2:.1f})" '
        f'text-anchor="middle">judge{said}</text>',
    ]
    for i, label in enumerate(labels):
        body.append(_label(label, left + cell * i + cell / 2, top - 8, 'text-anchor="middle"'))
        body.append(_label(label, left - 6, top + cell * i + cell / 2 + 4, 'text-anchor="end"'))
    for i, row in enumerate(counts):
        for j, n in enumerate(row):
            shade = n / most
            ink = "white" if shade > 0.55 else "black"
            x, y = left + cell * j, top + cell * i
            body.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" stroke="white" '
                f'fill="rgb({_mix(shade)})"><title>judge {text(labels[i])}, human '
                f"{text(labels[j])}: {n}</title></rect>"
                f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" {FONT} font-size="11" '
                f'text-anchor="middle" fill="{ink}">{n}</text>'
            )
    size = cell * len(labels)
    return _svg(max(left + size + 20, 260), top + size + 20, title, body)


def _mix(shade: float) -> str:
    """White to the palette's blue, as an rgb() triple."""
    return ",".join(f"{round(255 + (end - 255) * shade)}" for end in (0, 114, 178))


def reliability(calibration: Calibration, title: str) -> str:
    """The reliability diagram: per bin of the judge's score, the mean human score (a bar
    over the bin, its count of answers on top) against the mean judge score (a dot), the
    diagonal being perfect calibration; ECE and Brier in the subtitle."""
    left, top, size = 50, 50, 240
    body = [_y_axis(left, top, size, size, most=1)]
    body.append(
        f'<line x1="{left}" y1="{top + size}" x2="{left + size}" y2="{top}" stroke="#999" '
        'stroke-dasharray="4 3"/>'
    )
    for b in calibration.bins:
        if b.mean_human is None:
            continue
        x0, x1 = left + size * b.lower, left + size * b.upper
        h = size * b.mean_human
        body.append(
            f'<rect x="{x0:.1f}" y="{top + size - h:.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
            f'height="{h:.1f}" fill="{colour(0)}" fill-opacity="0.6"><title>judge '
            f"{b.lower:g} to {b.upper:g}: {b.count} answers, human mean {b.mean_human:.3f}"
            "</title></rect>"
        )
        body.append(  # how many answers the bar stands for: a bar of 2 says little
            f'<text x="{(x0 + x1) / 2:.1f}" y="{top + size - h - 3:.1f}" {FONT} '
            f'font-size="9" text-anchor="middle" fill="#555">{b.count}</text>'
        )
        if b.mean_judge is not None:
            body.append(
                f'<circle cx="{left + size * b.mean_judge:.1f}" '
                f'cy="{top + size - h:.1f}" r="3" fill="{colour(1)}"/>'
            )
    for tick in (0.0, 0.5, 1.0):
        body.append(
            f'<text x="{left + size * tick:.1f}" y="{top + size + 14}" {FONT} font-size="10" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    body.append(
        f'<text x="{left + size / 2}" y="{top + size + 30}" {FONT} font-size="11" '
        'text-anchor="middle">judge score</text>'
        f'<text x="10" y="36" {FONT} font-size="11">{text(_figures(calibration))}</text>'
    )
    return _svg(left + size + 30, top + size + 40, title, body)


def _figures(calibration: Calibration) -> str:
    ece, brier = calibration.ece, calibration.brier
    return (
        f"mean human score per bin · ECE {'–' if ece is None else f'{ece:.3f}'}"
        f" · Brier {'–' if brier is None else f'{brier:.3f}'}"
    )
