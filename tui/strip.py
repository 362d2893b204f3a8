"""The review screen's strip under the answer: where the answer shown counts in the
tables, and the judge-human agreement."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lmmreview.engine.review import Entry
from lmmreview.tui import detail as render
from lmmreview.tui.blind import HIDDEN
from lmmreview.tui.session import Session


class TablesStrip(Static):
    """The breakdown cells of one answer; a word while the tables are computed."""

    def show(self, session: Session, entry: Entry, hidden: bool = False) -> None:
        """`hidden`: blind review hides the tables all session (after one verdict, a model's
        totals are often its published score, which names it)."""
        if hidden:
            self.update(Text(f"The tables: {HIDDEN}.", style="italic"))
            return
        tables = session.tables
        if tables is None:
            self.update(Text("computing the tables…", style="italic"))
            return
        strip = render.breakdown_strip(
            session.strip(entry),
            tables.breakdown.layout.titles,
            tables.agreement.delta,
            tables.agreement.count,
        )
        self.update(strip)
