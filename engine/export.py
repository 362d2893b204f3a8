"""Render breakdown tables for papers and scripts: Markdown, CSV, JSON, LaTeX (booktabs).

Tables come in the papers' shape: models as rows, one decimal, the best value of each
column in bold and the second underlined (in Markdown, italic), N per column in a footer
row, and a note per dataset saying who judged, how many runs, and how many answers are
human-reviewed, unscored or decided by a random fallback; a note per table says what
engine.table_options left out of it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lmmreview.engine.tables import Cell, Column, Row, Table
from lmmreview.engine.visible import LINE_BREAK, UNSAFE_CHAR, visible

if TYPE_CHECKING:  # the notes only hold one: the rules of errata (numpy) load where used
    from lmmreview.engine.errata import ErrataCount

DASH = "\u2013"  # en dash: an empty cell, or a range of N


@dataclass(frozen=True, slots=True)
class Notes:
    """What a reader must know about one dataset's numbers."""

    dataset: str
    kind: str
    judges: tuple[str, ...]  # judge models ("offline rules" for the offline judge)
    runs: int
    answers: int
    reviewed: int
    unscored: int  # no score in any run (engine.scoring.Outcome.unscored)
    fallback: int
    unscored_as_zero: bool = False
    partial: int = 0  # scored in some runs, not all
    offline: int = 0  # scored by the offline rules (Outcome.offline)
    no_gold: int = 0  # of the unscored, answers to questions with no gold (a test split)
    imported_circular: tuple[ImportedCircular, ...] = ()  # another tool's, beside ours
    no_reply: int = 0  # answers scored by an imported 0.0 that came with no judge reply
    other_judges: tuple[str, ...] = ()  # the file's judges these numbers leave out
    errata: ErrataCount | None = None  # what the errata in force changed, when asked

    def sentence(self) -> str:
        judges = ", ".join(self.judges) or "none yet"
        runs = f"{self.runs} run{'s' if self.runs != 1 else ''}"
        unscored = "counted as 0" if self.unscored_as_zero else "left out of the percentages"
        partial = (
            f"{self.partial} scored in only some runs ({unscored} in the others); "
            if self.partial
            else ""
        )
        main = (
            f"{self.dataset}: judge {judges} ({runs}); {self.reviewed} of {self.answers} answers "
            f"human-reviewed; {self.unscored} unscored ({unscored}{self._no_gold()}); {partial}"
            f"{self.fallback} decided by a seeded random fallback."
        )
        others = (
            f" Other judges in the file, not in these numbers: {', '.join(self.other_judges)} "
            "(--judge NAME shows one)."
            if self.other_judges
            else ""
        )
        circular = "".join(f" {c.sentence()}" for c in self.imported_circular)
        errata = f" {self.errata.sentence(self.dataset)}" if self.errata else ""
        return main + self._no_reply() + others + circular + errata

    def fields(self) -> dict[str, object]:
        """The notes as JSON fields. What older releases never had (a no-reply count,
        another tool's circular verdicts, other judges, a no-gold count) is left out while
        there is none, so
        a database without them exports as the releases before it did."""
        fields = {
            **asdict(self),
            "judges": list(self.judges),
            "other_judges": list(self.other_judges),
        }
        for name in ("no_reply", "imported_circular", "other_judges", "no_gold", "errata"):
            if not fields[name]:
                del fields[name]
        return fields

    def _no_gold(self) -> str:
        """The unscored answers no judge or verdict can score, when there are any."""
        if not self.no_gold:
            return ""
        return (
            f"; {self.no_gold} of them answer questions with no gold, as in a test split: "
            "their choices are read, never scored"
        )

    def _no_reply(self) -> str:
        """The imported 0.0 scores no judge reply backs (lmms-eval's record of a failed
        judge call), when there are any."""
        if not self.no_reply:
            return ""
        return (
            f" {self.no_reply} answer(s) scored 0 by an imported judge result without a reply "
            "(a judge API failure, in lmms-eval's files), counted as 0: filter "
            "'judge result without a reply' to review them."
        )


@dataclass(frozen=True, slots=True)
class ImportedCircular:
    """Another tool's CircularEval of one model's groups (VLMEvalKit's `hit`), and
    lmmreview's own on the same groups."""

    model: str
    source: str  # the file the verdicts came from
    judge: str
    groups: int
    theirs: float  # percent of the groups solved
    ours: float | None  # percent of the groups lmmreview scored; None: none scored
    unscored: int  # groups lmmreview cannot score (a row unanswered or unjudged)
    differ: int  # groups both scored, with different verdicts

    def sentence(self) -> str:
        ours = DASH if self.ours is None else f"{self.ours:.1f}%"
        unscored = f" ({self.unscored} groups unscored)" if self.unscored else ""
        return (
            f"{self.model}: CircularEval imported from {self.source} (judge {self.judge}): "
            f"{self.theirs:.1f}% of {self.groups} groups; lmmreview's on the same groups: "
            f"{ours}{unscored}; {self.differ} groups differ."
        )


# -- shared formatting -----------------------------------------------------------------


# How a cell's 95 % bootstrap interval follows its value (Cell.interval: `--ci`)
IntervalText = Callable[[tuple[float, float]], str]
INTERVALS_NOTE = "[low, high]: the 95 % bootstrap interval over the cell's units (seeded)"
LATEX_INTERVALS_NOTE = "(±h): half the 95 % bootstrap interval over the cell's units (seeded)"


def bracketed(interval: tuple[float, float]) -> str:
    """An interval as Markdown and the terminal show it: percentile intervals are not
    symmetric, so both ends."""
    low, high = interval
    return f" [{low:.1f}, {high:.1f}]"


def signed(value: float) -> str:
    """A difference to one decimal with its sign ("+8.3", "-63.2"); "0.0" where it rounds
    to zero, so that no "-0.0" or "+0.0" suggests a direction there is not."""
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def _half_width(interval: tuple[float, float]) -> str:
    """An interval as papers print it in LaTeX: ± half its width."""
    low, high = interval
    return f" (±{(high - low) / 2:.1f})"


def has_intervals(tables: list[Table]) -> bool:
    """Whether the tables were read with their intervals (`--ci`), even if no cell has one."""
    return any(t.intervals for t in tables)


def _number(cell: Cell | None, with_std: bool, interval: IntervalText) -> str:
    if cell is None or cell.value is None:
        return DASH
    text = f"{cell.value:.1f}"
    if with_std and cell.std is not None:
        text += f"±{cell.std:.1f}"
    if cell.interval is not None:
        text += interval(cell.interval)
    return text


def _ranks(table: Table, column: Column) -> dict[str, int]:
    """Row label -> 1 for the best value of a column, 2 for the second (the highest, or
    the lowest: Column.best).

    Competition ranking on the printed (one-decimal) values: tied rows share a place and
    the next place is skipped, so a tie for best leaves no second; all equal, no marks.
    """
    if len(table.rows) < 2 or not column.best:
        return {}
    sign = -1 if column.best == "lower" else 1
    shown = {
        r.label: sign * round(c.value, 1)
        for r in table.rows
        if (c := r.cells.get(column.key)) and c.value is not None
    }
    if len(set(shown.values())) < 2:
        return {}  # nothing stands out
    ranks = {label: 1 + sum(v > value for v in shown.values()) for label, value in shown.items()}
    last = 2 if len(table.rows) > 2 else 1  # with two rows, "second" is just "last"
    return {label: rank for label, rank in ranks.items() if rank <= last}


def _counts(table: Table, column: str) -> str:
    """N of a column: one number, or a range when models answered different subsets."""
    ns = {c.n for r in table.rows if (c := r.cells.get(column))}
    if not ns:
        return "0"
    return str(min(ns)) if len(ns) == 1 else f"{min(ns)}{DASH}{max(ns)}"


def grid(
    table: Table, interval: IntervalText = bracketed
) -> list[tuple[str, list[tuple[str, int]]]]:
    """Each row's label and its cells as (text, rank): rank 1 best, 2 second, 0 neither;
    a cell's interval, where it has one, written by `interval`."""
    ranks = {c.key: _ranks(table, c) for c in table.columns}
    return [
        (
            row.label,
            [
                (
                    _number(row.cells.get(c.key), c.key in table.std_columns, interval),
                    ranks[c.key].get(row.label, 0),
                )
                for c in table.columns
            ],
        )
        for row in table.rows
    ]


def counts_row(table: Table) -> list[str]:
    """The N of every column."""
    return [_counts(table, c.key) for c in table.columns]


def _marked(
    table: Table, mark: Callable[[str, int], str], interval: IntervalText = bracketed
) -> list[list[str]]:
    rows = grid(table, interval)
    return [[label, *(mark(text, rank) for text, rank in cells)] for label, cells in rows]


def hidden_note(table: Table) -> str:
    """What engine.table_options.without_empty left out of a table ("": nothing)."""
    parts = []
    if table.hidden_rows:
        models = ", ".join(r.label for r in table.hidden_rows)
        parts.append(f"{len(table.hidden_rows)} unscored model(s), every cell {DASH}: {models}")
    if table.hidden_columns:
        titles = ", ".join(c.title for c in table.hidden_columns)
        parts.append(f"{len(table.hidden_columns)} column(s) with N = 0: {titles}")
    if not parts:
        return ""
    return (
        f"{table.title} ({table.dataset}): left out {'; '.join(parts)} (--show-empty keeps them)."
    )


def said(
    tables: list[Table], notes: list[Notes], intervals_note: str = INTERVALS_NOTE
) -> list[str]:
    """The lines under the tables: each dataset's note, what each table left out, and what
    the intervals are where the cells have them."""
    hidden = [line for t in tables if (line := hidden_note(t))]
    return (
        [n.sentence() for n in notes] + hidden + ([intervals_note] if has_intervals(tables) else [])
    )


def named(tables: list[Table]) -> bool:
    """Whether display names replace stored ones (engine.table_options.with_names): then the
    CSV and JSON give both."""
    return any(r.stored for t in tables for r in t.rows)


# -- Markdown --------------------------------------------------------------------------


# What Markdown would read as syntax in a name: backslash escapes, the cell separator,
# emphasis, code, strikethrough, link brackets, "$" (GitHub reads "$a$" as math); "_" only
# where it can open or close emphasis (not inside a word: "image_scene" stays); what
# GitHub's Markdown turns into a link by itself ("http://", "www.", an e-mail address).
# HTML tags and entities become text.
_MD_SYNTAX = re.compile(r"[\\|*`~\[\]@$]|(?<![^\W_])_|_(?![^\W_])|:(?=//)|(?<=www)\.")
_MD_HTML = re.compile(r"<|>|&(?=#?\w+;)")
_HTML_ENTITY = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md_escape(text: str) -> str:
    """A name as literal Markdown text on one line (a table cell or a heading)."""
    text = _MD_SYNTAX.sub(lambda m: "\\" + m.group(), visible(text, one_line=True))
    return _MD_HTML.sub(lambda m: _HTML_ENTITY[m.group()], text)


def _md_mark(text: str, rank: int) -> str:
    """Best bold, second italic: Markdown's own marks (no HTML, which some renderers drop)."""
    return {1: f"**{text}**", 2: f"*{text}*"}.get(rank, text)


def to_markdown(tables: list[Table], notes: list[Notes]) -> str:
    """Every table as a Markdown section, then the notes."""
    parts = []
    for table in tables:
        if not table.rows:
            continue
        header = ["Model", *(c.title for c in table.columns)]
        lines = [
            f"### {md_escape(table.title)} ({md_escape(table.dataset)})",
            "",
            "| " + " | ".join(md_escape(h) for h in header) + " |",
            "|" + "---|" + "---:|" * len(table.columns),
        ]
        for label, *cells in _marked(table, _md_mark):
            lines.append("| " + " | ".join([md_escape(label), *cells]) + " |")
        lines.append("| N | " + " | ".join(counts_row(table)) + " |")
        parts.append("\n".join(lines))
    parts.append("\n".join(f"- {md_escape(line)}" for line in said(tables, notes)))
    return "\n\n".join(parts) + "\n"


# -- CSV -------------------------------------------------------------------------------


def to_csv(tables: list[Table], notes: list[Notes]) -> str:
    """Long format: one line per table cell, every statistic in its own column."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    fields = ["value", "std", "n", "reviewed", "unscored", "fallback", "offline", "partial"]
    ci = has_intervals(tables)  # the interval's ends as two columns more, when read
    shown = named(tables)  # the display name after the stored one, when there are any
    header = ["dataset", "table", "model", *("display",)[:shown], "column"]
    writer.writerow([*header, *fields, *CI_FIELDS[: 2 * ci]])
    for table in tables:
        for row in table.rows:
            for column in table.columns:
                cell = row.cells.get(column.key)
                if cell is None:
                    continue
                values = asdict(cell)
                names = (row.name, *(row.label,)[:shown])
                writer.writerow(
                    [csv_text(t) for t in (table.dataset, table.name, *names, column.key)]
                    + ["" if values[f] is None else _csv_number(values[f]) for f in fields]
                    + _interval_ends(cell)[: 2 * ci]
                )
    return buffer.getvalue()


# A cell starting with one of these is a formula to a spreadsheet (=HYPERLINK(...)).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """A name as a text cell: one visible line, and never read as a formula.

    A leading "'" is what spreadsheets take as "this is text"; numbers (the value
    columns) are not names and are written as they are.
    """
    return not_a_formula(visible(text, one_line=True))


def not_a_formula(text: str) -> str:
    """`text` with a "'" before it where a spreadsheet would run it as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_name(cell: str) -> str:
    """The name a csv_text cell holds: without the "'" put before a formula's start."""
    guarded = cell.startswith("'") and cell[1:].startswith(_FORMULA_START)
    return cell[1:] if guarded else cell


CI_FIELDS = ("ci_low", "ci_high")  # the interval's ends in CSV and JSON


def _interval_ends(cell: Cell) -> list[str]:
    return ["", ""] if cell.interval is None else [_csv_number(v) for v in cell.interval]


def _csv_number(value: float) -> str:
    return str(round(value, 4)) if isinstance(value, float) else str(value)


# -- JSON ------------------------------------------------------------------------------


def to_json(tables: list[Table], notes: list[Notes]) -> str:
    """The shape documented in the README: tables with rows of values and n, and notes."""

    def stat(row_cells: dict[str, Cell], name: str) -> dict[str, float | int | None]:
        return {key: getattr(cell, name) for key, cell in row_cells.items()}

    def ends(row_cells: dict[str, Cell]) -> dict[str, dict[str, float | None]]:
        """The intervals' ends (None: a cell without one), when the tables were read with
        them."""
        if not has_intervals(tables):
            return {}
        return {
            name: {k: None if c.interval is None else c.interval[end] for k, c in row_cells.items()}
            for end, name in enumerate(CI_FIELDS)
        }

    displays = named(tables)

    def shown(row: Row) -> dict[str, str]:
        """The display name beside the stored one, when display names are given."""
        return {"display": row.label} if displays else {}

    document = {
        "tables": [
            {
                "name": table.name,
                "title": table.title,
                "dataset": table.dataset,
                "columns": [c.key for c in table.columns],
                "column_titles": {c.key: c.title for c in table.columns},
                "runs": table.runs,
                "rows": [
                    {
                        "model": row.name,
                        **shown(row),
                        # Unrounded: a reader rounding to one decimal gets the Markdown.
                        "values": stat(row.cells, "value"),
                        "n": stat(row.cells, "n"),
                        "std": stat(row.cells, "std"),
                        "reviewed": stat(row.cells, "reviewed"),
                        "unscored": stat(row.cells, "unscored"),
                        "partial": stat(row.cells, "partial"),
                        "fallback": stat(row.cells, "fallback"),
                        "offline": stat(row.cells, "offline"),
                        **ends(row.cells),
                    }
                    for row in table.rows
                ],
            }
            for table in tables
        ],
        "notes": {n.dataset: n.fields() for n in notes},
    }
    return json_text(document)


def json_text(document: object) -> str:
    """`document` as indented JSON, exact: an unsafe code point (a terminal's escape, a
    bidi control) is written as its \\u escape, never raw."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return UNSAFE_CHAR.sub(lambda m: _json_escape(m.group()), text) + "\n"


def _json_escape(char: str) -> str:
    """`char` as JSON \\u escapes (a surrogate pair above U+FFFF)."""
    return json.dumps(char, ensure_ascii=True)[1:-1]


# -- LaTeX -----------------------------------------------------------------------------

_LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    # Braced, so a name starting with "[" after a row's "\\" is not read as its spacing.
    "[": "{[}",
    "]": "{]}",
    # OT1, pdflatex's default font encoding, prints "<" and ">" as "¡" and "¿"
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    # visible()'s code-point brackets ("⟨U+202E⟩"), which pdflatex cannot typeset
    "\u27e8": r"\textless{}",
    "\u27e9": r"\textgreater{}",
}


def tex(text: str) -> str:
    """A name as literal LaTeX text on one line (no blank line ends the table)."""
    return "".join(_tex_char(c) for c in visible(text, one_line=True))


# visible()'s stand-ins pdflatex rejects (control pictures: ESC → "␛"), in caret notation
# ("^["): C0's pictures are U+2400 + code, caret letters "@" + code.
_CARETS = {chr(0x2400 + code): chr(0x40 + code) for code in range(0x20)} | {
    "␡": "?",
    LINE_BREAK: "J",
}


def _tex_char(char: str) -> str:
    """One character as LaTeX."""
    if (caret := _CARETS.get(char)) is not None:
        return _LATEX_SPECIAL["^"] + _LATEX_SPECIAL.get(caret, caret)
    return _LATEX_SPECIAL.get(char, char)


def _tex_mark(text: str, rank: int) -> str:
    text = text.replace("±", r"$\pm$").replace(DASH, "--")
    return {1: rf"\textbf{{{text}}}", 2: rf"\underline{{{text}}}"}.get(rank, text)


# Why scaled, not split: a paper reads a model's scores across one row (MM-Vet's 17
# integrations, MMBench's 20 abilities), and the papers print such tables scaled down.
LATEX_PREAMBLE = (
    "% \\usepackage{booktabs,graphicx}: a table wider than the line is scaled down to "
    "\\linewidth (graphicx's \\resizebox); a narrower one keeps its size"
)
# \width in \resizebox's arguments is the table's natural width (graphicx)
LATEX_FIT = r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%"


def to_latex(tables: list[Table], notes: list[Notes]) -> str:
    """booktabs tables (\\usepackage{booktabs}), one per breakdown, with a caption, each
    scaled down to the line's width where it is wider."""
    parts = [LATEX_PREAMBLE]
    for table in tables:
        if not table.rows:
            continue
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{_caption(table)}}}",
            LATEX_FIT,
            r"\begin{tabular}{l" + "r" * len(table.columns) + "}",
            r"\toprule",
            " & ".join(["Model", *(tex(c.title) for c in table.columns)]) + r" \\",
            r"\midrule",
        ]
        for label, *cells in _marked(table, _tex_mark, _half_width):
            lines.append(" & ".join([tex(label), *cells]) + r" \\")
        lines += [
            r"\midrule",
            " & ".join(["N", *(n.replace(DASH, "--") for n in counts_row(table))]) + r" \\",
            r"\bottomrule",
            r"\end{tabular}%",
            "}",
            r"\end{table}",
        ]
        parts.append("\n".join(lines))
    parts.append("\n".join(f"% {tex(line)}" for line in said(tables, notes, LATEX_INTERVALS_NOTE)))
    return "\n\n".join(parts) + "\n"


def _caption(table: Table) -> str:
    """The table's title and dataset; with intervals, what its ± means, so that the
    compiled table says it (the % lines under it are not typeset)."""
    caption = f"{tex(table.title)} ({tex(table.dataset)})"
    if not table.intervals:
        return caption
    return f"{caption}. " + tex(LATEX_INTERVALS_NOTE).replace("±", r"$\pm$")


# The formats people read, which leave out what holds nothing (engine.table_options.
# without_empty); CSV and JSON are data for scripts, which keep every row and column.
FOR_READERS = ("md", "latex")

RENDERERS: dict[str, Callable[[list[Table], list[Notes]], str]] = {
    "md": to_markdown,
    "csv": to_csv,
    "json": to_json,
    "latex": to_latex,
}
