"""The page of `lmmreview report --format html`: one self-contained HTML file (inline style,
SVG charts, images as data: URIs, a Content-Security-Policy that forbids every fetch and
every script), from values read beforehand (tui/cli/report_html.py).

Model answers, questions, judge replies and every name are untrusted: each is made visible
(engine.visible) and escaped here, in one place, `_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lmmreview.db.flagged import Listed
from lmmreview.db.review import Detail, JudgeRecord
from lmmreview.engine.charts import text
from lmmreview.engine.export import DASH, Notes, counts_row, grid, has_intervals, hidden_note
from lmmreview.engine.review import HistoryRow
from lmmreview.engine.scoring import Judge
from lmmreview.engine.tables import Cell, Table
from lmmreview.engine.uncertainty import RESAMPLES, SEED
from lmmreview.tui.judges_tables import Grid

# No fetch of any kind, no script: an answer's markup that escaped escaping stays inert.
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
TEXT_CHARS = 4000  # an answer, question or judge reply longer than this is cut
INTERVALS_NOTE = (
    f"Under each value, low{DASH}high: its 95 % bootstrap interval over the cell's units "
    f"({RESAMPLES:,} resamples, seed {SEED})."
)
NO_VERDICTS = "No human verdict yet in this dataset: no judge is measured against one."
STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1200px;
       overflow-wrap: anywhere; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child, table.words td, table.words th { text-align: left; }
.ci { color: #777; font-size: 11px; }
.charts svg { margin: 0 1em 1em 0; vertical-align: top; max-width: 100%; height: auto; }
.answer { border: 1px solid #ccc; border-radius: 4px; padding: 0.5em 1em; margin: 1em 0; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 4px; }
.answer img { max-width: 480px; max-height: 480px; margin: 4px; border: 1px solid #eee; }
.reasons { color: #a33; }
.note { color: #555; font-style: italic; }
"""


@dataclass(frozen=True, slots=True)
class Picture:
    """One image of an answer: a data: URI, or why it cannot be shown."""

    uri: str | None
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Card:
    """One flagged answer with everything a reader needs to judge it."""

    listed: Listed
    detail: Detail
    pictures: list[Picture]


@dataclass(frozen=True, slots=True)
class DatasetPage:
    """One dataset's part of the page."""

    name: str
    tables: list[Table]
    notes: Notes | None
    charts: list[str]  # SVG documents
    judges: list[Grid]  # the judges' agreement tables (tui/judges_tables.py)
    judge_charts: list[str]
    judge_names: dict[Judge, str]  # each judge as the judges tables name it
    cards: list[Card]
    left_out: int  # flagged answers beyond --max-answers


def _text(value: str, one_line: bool = True) -> str:
    """Untrusted text, visible and escaped (cut at TEXT_CHARS)."""
    if len(value) <= TEXT_CHARS:
        return text(value, one_line)
    return text(value[:TEXT_CHARS], one_line) + f" … ({len(value) - TEXT_CHARS} more characters)"


def page(title: str, datasets: Sequence[DatasetPage]) -> str:
    """The whole HTML document."""
    body = "".join(_dataset(d) for d in datasets) or "<p>No dataset in this database.</p>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{_text(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{_text(title)}</h1>{body}</body></html>\n"
    )


def _dataset(d: DatasetPage) -> str:
    parts = [f'<section><h2 id="{_text(d.name)}">{_text(d.name)}</h2>']
    if d.notes is not None:
        parts.append(f"<p>{_text(d.notes.sentence())}</p>")
    parts += [_table(t) for t in d.tables if t.rows]
    parts += [f'<p class="note">{_text(line)}</p>' for t in d.tables if (line := hidden_note(t))]
    if has_intervals(d.tables):
        parts.append(f'<p class="note">{INTERVALS_NOTE}</p>')
    parts.append(f'<div class="charts">{"".join(d.charts)}</div>')
    if d.judges:
        parts.append("<h3>Judges against human verdicts</h3>")
        parts += [_grid(g) for g in d.judges]
        parts.append(f'<div class="charts">{"".join(d.judge_charts)}</div>')
    elif d.judge_names:
        parts.append(f"<p>{NO_VERDICTS}</p>")
    parts.append(_cards(d))
    return "".join(parts) + "</section>"


def _row(cells: Iterable[str], tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>"


def _table(table: Table) -> str:
    """A breakdown table as the exports draw it (best in bold, second underlined), each
    cell's 95 % interval under its value when the tables carry one."""
    marks = {1: "<b>{}</b>", 2: "<u>{}</u>"}
    rows = []
    for (label, cells), row in zip(grid(table, _no_interval), table.rows, strict=True):
        shown = [
            marks.get(rank, "{}").format(_text(value)) + _interval(row.cells.get(c.key))
            for (value, rank), c in zip(cells, table.columns, strict=True)
        ]
        rows.append(_row([_text(label), *shown]))
    return f"<h3>{_text(table.title)}</h3>" + _boxed(
        _row(["Model", *(_text(c.title) for c in table.columns)], "th")
        + "".join(rows)
        + _row(["N", *counts_row(table)])
    )


def _no_interval(interval: tuple[float, float]) -> str:
    return ""  # the page writes it under the value (_interval), not after it


def _boxed(rows: str, words: bool = False) -> str:
    """A table in a box that scrolls sideways when it is wider than the page (instead of
    widening it); `words`: its cells are text, aligned left, not numbers."""
    opening = '<table class="words">' if words else "<table>"
    return f'<div class="wide">{opening}{rows}</table></div>'


def _interval(cell: Cell | None) -> str:
    if cell is None or cell.interval is None:
        return ""
    low, high = cell.interval
    return f'<br><span class="ci">{low:.1f}{DASH}{high:.1f}</span>'


def _grid(found: Grid) -> str:
    title, headers, rows = found
    return f"<h4>{_text(title)}</h4>" + _boxed(
        _row((_text(h) for h in headers), "th")
        + "".join(_row(_text(c) for c in row) for row in rows)
    )


def _cards(d: DatasetPage) -> str:
    if not d.cards:
        said = f"{d.left_out} flagged; none shown (--max-answers 0)" if d.left_out else "None."
        return f"<h3>Flagged answers</h3><p>{said}</p>"
    left = (
        f"<p>{d.left_out} more flagged answers left out (--max-answers).</p>" if d.left_out else ""
    )
    shown = f"{len(d.cards)} of {len(d.cards) + d.left_out}"
    cards = "".join(_card(c, d.judge_names) for c in d.cards)
    return f"<h3>Flagged answers ({shown})</h3>{left}{cards}"


def _card(card: Card, names: dict[Judge, str]) -> str:
    listed, detail, sample = card.listed, card.detail, card.detail.sample
    options = "".join(f"<li>{_text(k)}. {_text(v)}</li>" for k, v in sample.options.items())
    golds = " | ".join(sample.golds) or DASH
    return (
        f'<div class="answer"><h4>{_text(listed.key)} · {_text(listed.model)}</h4>'
        f'<p class="reasons">{_text(", ".join(listed.reasons))}</p>'
        + "".join(_picture(p, listed.key) for p in card.pictures)
        + f'<p><b>Question</b></p><div class="text">{_text(sample.question, False)}</div>'
        + (f"<ul>{options}</ul>" if options else "")
        + f"<p><b>Gold</b>: {_text(golds)}</p>"
        + f'<p><b>Answer</b></p><div class="text">{_text(detail.text, False)}</div>'
        + _judgments(detail.judgments, names)
        + _history(detail.history)
        + "</div>"
    )


def _picture(picture: Picture, key: str) -> str:
    if picture.uri is None:
        return f'<p class="note">{_text(picture.problem)}</p>'
    return f'<img alt="{_text(key)}" src="{picture.uri}">'


def _judgments(judgments: list[JudgeRecord], names: dict[Judge, str]) -> str:
    if not judgments:
        return "<p>No judge verdict.</p>"
    rows = [
        _row(
            [
                _text(names.get(j.judge, j.judge.full_label)),
                str(j.run),
                _text(j.status),
                DASH if j.score is None else f"{j.score:g}",
                _text(j.choice or DASH),
                f'<div class="text">{_text(j.reply or j.error, False)}</div>',
            ]
        )
        for j in judgments
    ]
    header = _row(["Judge", "Run", "Status", "Score", "Choice", "Reply"], "th")
    return "<p><b>Judges</b></p>" + _boxed(header + "".join(rows), words=True)


def _history(history: list[HistoryRow]) -> str:
    if not history:
        return "<p>No human verdict.</p>"
    rows = [
        _row(
            [
                _text(h.created_at),
                _text(h.reviewer),
                _text(h.action),
                DASH if h.score is None else f"{h.score:g}",
                _text(h.choice or DASH),
                _text(h.note or ""),
            ]
        )
        for h in history
    ]
    header = _row(["Time", "Reviewer", "Action", "Score", "Choice", "Note"], "th")
    return "<p><b>Human verdicts</b></p>" + _boxed(header + "".join(rows), words=True)
