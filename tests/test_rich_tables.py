"""`lmmreview report`'s terminal tables: a long model name is cut in the middle, so that the
values always show beside it."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console

from lmmreview.engine.tables import Cell, Column, Row, Table
from lmmreview.tui.cli.rich_tables import render

MODEL_MAX = 30  # cells a model name may take
COLUMNS = [Column(key, key.upper()) for key in ("rec", "ocr", "know", "gen", "spat", "math")]


def _shown(names: list[str], width: int) -> str:
    table = Table("d.t", "Capabilities", "d", COLUMNS)
    for index, name in enumerate(names):
        cells = {c.key: Cell(10.0 * index + i, 8) for i, c in enumerate(COLUMNS)}
        table.rows.append(Row(name, cells))
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(render([table], []))
    return console.export_text()


@pytest.mark.parametrize(
    ("width", "long"),
    [
        (160, "x" * 200 + "-model-" + "y" * 18),
        (80, "A display name of sixty-five characters, long as users write them"),
    ],
)
def test_a_long_model_name_is_cut_and_every_value_shows(width: int, long: str) -> None:
    """A 225-character name at 160 columns printed blocks of one column and no value; a
    65-character one at 80, one value per block: now one block, the name cut to MODEL_MAX."""
    text = _shown([long, "llava-v1.5-7b"], width)
    assert "columns" not in text  # one block: every column fits beside the names
    for value in ("10.0", "15.0", "0.0", "5.0"):
        assert value in text
    rows = [line for line in text.splitlines() if "…" in line]
    (label,) = [line.split("│")[1].strip() for line in rows]
    assert cell_len(label) <= MODEL_MAX and label.startswith(long[:5]) and label.endswith(long[-5:])
    assert "llava-v1.5-7b" in text  # a short name is shown whole
