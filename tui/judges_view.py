"""The judges view: each judge against the human verdicts (MM-Vet Table 6), live.

A panel of the review screen, shown and hidden with W. It shows the tables `lmmreview
judges` prints. The judges' calls are read once when it opens; the human verdicts move as
they land, so grading an answer moves Δ̄ at once, right under the reviewer's eyes.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from lmmreview.db.judges import DatasetJudges, human_of
from lmmreview.engine.review import Entry
from lmmreview.tui.charts import ReliabilityDiagram, confusion_matrix
from lmmreview.tui.fitted import FittedTable
from lmmreview.tui.judges_tables import Grid, Section, judge_grids, judge_section
from lmmreview.tui.safe_text import Wrapped, safe
from lmmreview.tui.styles import stylesheet

DROPPED_FIRST = ("95% CI", "Prompt")  # on a small terminal, before a name is cut
PAGES = ("tables", "confusion", "reliability")  # what P turns through (see `turn_page`)


class JudgesPanel(Static):
    """Every judge of the dataset measured against the human verdicts, kept live."""

    DEFAULT_CSS = stylesheet("judges_panel")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.found: DatasetJudges | None = None
        self.shown = ""  # the name of the judge the list and the tables show
        self.page = PAGES[0]

    @property
    def is_open(self) -> bool:
        return self.has_class("open")

    def open(self, found: DatasetJudges, shown: str) -> None:
        self.found, self.shown = found, shown
        self.add_class("open")
        self._render_tables()

    def close(self) -> None:
        self.found, self.page = None, PAGES[0]
        self.remove_class("open")

    def turn_page(self) -> None:
        """Show the next page: the tables, the shown judge's confusion matrix, its
        reliability diagram (one at a time: each fits the panel on a small terminal)."""
        self.page = PAGES[(PAGES.index(self.page) + 1) % len(PAGES)]
        if self.found is not None:
            self._render_tables()

    def verdicts_changed(
        self, entries: list[Entry], golds_of: Callable[[str], list[str] | None]
    ) -> None:
        """Take the verdicts now in force on these answers, and show the tables again if
        one changed (a poll brings judgments too: the bootstraps are not redone for them)."""
        if self.found is None:
            return
        humans = self.found.humans
        before = dict(humans)
        for entry in entries:
            if entry.verdict is None:
                humans.pop(entry.answer_id, None)
            elif (golds := golds_of(entry.key)) is not None:
                humans[entry.answer_id] = human_of(entry.verdict, golds)
        if humans != before:
            self._render_tables()

    def _render_tables(self) -> None:
        assert self.found is not None
        section = judge_section(self.found, [])
        if self.page != PAGES[0]:
            self.update(self._picture(section))
            return
        grids = judge_grids(section)
        about = safe(
            f"Judges against the human verdicts ({len(self.found.humans)} reviewed; the list "
            f"shows {self.shown}, w switches; W hides this)",
            one_line=True,
            style="bold",
        )
        self.update(Group(Wrapped(about), *(_table(grid) for grid in grids)))

    def _picture(self, section: Section) -> RenderableType:
        """The page's picture of the judge the list shows (else the first)."""
        line = next((line for line in section.lines if line.name == self.shown), None)
        line = line or section.lines[0]
        about = safe(
            f"{line.name} against the human verdicts (P: the next page; W hides this)",
            one_line=True,
            style="bold",
        )
        report = line.report
        if self.page == "confusion":
            return Group(Wrapped(about), confusion_matrix(report.confusion))
        if report.calibration is None:
            return Group(Wrapped(about), Text("No graded score from this judge: no diagram."))
        return Group(Wrapped(about), ReliabilityDiagram(report.calibration))


def _table(grid: Grid) -> RenderableType:
    """A table of `lmmreview judges` that fits the panel: the intervals and the prompt
    give way first, then the judge's name; a number is never cut."""
    title, headers, rows = grid
    cells = [[safe(cell, one_line=True) for cell in row] for row in rows]
    return FittedTable(Text(title, style="italic"), headers, cells, DROPPED_FIRST)
