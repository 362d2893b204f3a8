"""The judges view: each judge against the human verdicts (MM-Vet Table 6), live.

It shows the tables `lmmreview judges` prints. The app keeps the dataset's judge calls
read once and moves only the human verdicts as they land, so a grade moves Δ̄ at once.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from lmmreview.db.judges import DatasetJudges, human_of
from lmmreview.engine.review import Entry
from lmmreview.engine.types import Sample
from lmmreview.tui.judges_cli import Grid, judge_grids, judge_section
from lmmreview.tui.safe_text import safe


class JudgesScreen(Screen[None]):
    """Every judge of the dataset measured against the human verdicts, kept live."""

    BINDINGS = [Binding("escape,W", "dismiss(None)", "Back", id="judges-back")]
    DEFAULT_CSS = """
    JudgesScreen DataTable { height: auto; max-height: 16; margin-bottom: 1; }
    JudgesScreen .title { text-style: bold; margin-top: 1; }
    JudgesScreen #about { color: $text-muted; }
    """

    def __init__(self, found: DatasetJudges, shown: str) -> None:
        super().__init__()
        self.found = found
        self.shown = shown  # the name of the judge the review screen shows
        self.grids = judge_grids(judge_section(found, []))

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(
                safe(
                    f"{self.found.dataset}: each judge against the human verdicts "
                    f"(the screen shows {self.shown}; w switches). Grading moves these at once.",
                    one_line=True,
                ),
                id="about",
            )
            for number, (title, _, _) in enumerate(self.grids):
                yield Static(safe(title.capitalize(), one_line=True), classes="title")
                yield DataTable(id=f"grid-{number}", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self._fill()

    def verdicts_changed(self, entries: list[Entry], samples: dict[str, Sample]) -> None:
        """Take the verdicts in force on these answers, and show the tables again."""
        humans = self.found.humans
        for entry in entries:
            if entry.verdict is None:
                humans.pop(entry.answer_id, None)
            elif entry.key in samples:
                humans[entry.answer_id] = human_of(entry.verdict, samples[entry.key].golds)
        self.grids = judge_grids(judge_section(self.found, []))
        self._fill()

    def _fill(self) -> None:
        for number, grid in enumerate(self.grids):
            tables = self.query(f"#grid-{number}")
            if tables:
                _show(tables.first(DataTable), grid)


def _show(view: DataTable[object], grid: Grid) -> None:
    _, headers, rows = grid
    view.clear(columns=True)
    view.add_columns(*(safe(h, one_line=True) for h in headers))
    for row in rows:
        view.add_row(*(safe(cell, one_line=True) for cell in row))
