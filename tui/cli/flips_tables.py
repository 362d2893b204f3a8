"""The tables of `lmmreview judges --flips A B`: the answers whose verdict changes from
judge A to judge B, and what those flips do to the tables; as Markdown, JSON, or Rich
tables on a terminal."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table as RichTable

from lmmreview.engine.export import DASH
from lmmreview.tui.judges_tables import Grid, grids_markdown
from lmmreview.tui.safe_text import safe

if TYPE_CHECKING:
    from lmmreview.db.flips import DatasetFlips

GRADED = "any change of score is a flip"
RIGHT_WRONG = "right/wrong flips, or another option chosen"
NUMBERS = {"A", "B", "B - A", "Flips", "Overridden"}  # columns aligned right


def _number(value: float | None, digits: int) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _cell_title(found: DatasetFlips, cell: str) -> str:
    """A cell as "table: column title"."""
    return found.labels.get(cell, cell)


def flip_grids(found: DatasetFlips) -> list[Grid]:
    """One dataset's two tables: its flips, and the cells they count in."""
    choices = any(f.choice_a is not None or f.choice_b is not None for f in found.flips)
    chose = ["A chose", "B chose"] if choices else []
    how = GRADED if found.graded else RIGHT_WRONG
    flips = (
        f"{len(found.flips)} flips from {found.a} (A) to {found.b} (B); {how}",
        ["Sample", "Model", "A", "B", *chose, "Human verdict overrides", "Cells"],
        [
            [
                f.key, f.model, _number(f.a, 3), _number(f.b, 3),
                *([f.choice_a or DASH, f.choice_b or DASH] if choices else []),
                "yes" if f.overridden else "no",
                "; ".join(_cell_title(found, cell) for cell in f.cells),
            ]
            for f in found.flips
        ],
    )  # fmt: skip
    cells = (
        f"what the flips from {found.a} (A) to {found.b} (B) do to the tables",
        ["Row", "Cell", "A", "B", "B - A", "Flips", "Overridden"],
        [
            [
                c.row, _cell_title(found, c.cell), _number(c.a, 2), _number(c.b, 2),
                _number(c.difference, 2), str(c.flips), str(c.overridden),
            ]
            for c in found.cells
        ],
    )  # fmt: skip
    return [flips, cells] if found.flips else [flips]  # no flips: no cells to list


def to_markdown(found: list[DatasetFlips]) -> str:
    return grids_markdown((one.dataset, grid) for one in found for grid in flip_grids(one))


def to_json(found: list[DatasetFlips]) -> str:
    """Every dataset's flips and cells, values unrounded; non-ASCII text as \\u escapes."""
    document = {
        "datasets": [
            {
                "dataset": one.dataset,
                "a": one.a,
                "b": one.b,
                "graded": one.graded,
                "flips": [asdict(f) for f in one.flips],
                "cells": [
                    {**asdict(c), "title": _cell_title(one, c.cell), "difference": c.difference}
                    for c in one.cells
                ],
            }
            for one in found
        ]
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def to_rich(found: list[DatasetFlips]) -> Group:
    """The Markdown's tables as Rich tables, for a terminal; every text shown literally."""
    views = []
    for one in found:
        for title, headers, rows in flip_grids(one):
            view = RichTable(title=safe(f"{one.dataset}: {title}", one_line=True),
                             title_justify="left")  # fmt: skip
            for header in headers:
                view.add_column(header, justify="right" if header in NUMBERS else "left")
            for row in rows:
                view.add_row(*(safe(text, one_line=True) for text in row))
            views.append(view)
    return Group(*views)
