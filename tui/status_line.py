"""The review screen's status line: the file and dataset, the counts, the filter, the judge
shown, and what is under way (changes not saved, a judge run, a file moved)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lmmreview.engine.ordering import LIST_ORDER
from lmmreview.tui import detail as render
from lmmreview.tui.file_watch import Moved
from lmmreview.tui.safe_text import safe
from lmmreview.tui.session import Session


class StatusLine(Static):
    """One line over the list and the answer."""

    def show(
        self,
        session: Session,
        file_name: str,
        *,
        advance: bool,
        unsaved: int,
        judging: bool,
        moved: Moved | None,
    ) -> None:
        total, reviewed, shown = session.counts()
        where = render.where(file_name, session.datasets, session.dataset, session.benchmark.name)
        text = Text.assemble(
            safe(where, one_line=True, style="bold"),
            f"{total} answers{' read so far' if session.partial else ''}, {reviewed} "
            f"reviewed · showing {shown}: ",
            safe(session.filter.describe(), one_line=True, style="italic"),
            " · judge ",
            safe(session.judge_name, one_line=True, style="bold"),
            f" (w: one of {len(session.judges)})" if len(session.judges) > 1 else "",
        )
        if session.order != LIST_ORDER:
            text.append(f" · sorted by {session.order_name}")
        if advance:
            text.append(" · advance after a grade")
        if unsaved:
            text.append(f"  · {unsaved} not saved yet", style="bold red")
        if judging:
            text.append("  · judge running", style="bold yellow")
        if moved is not None:  # first: it says where every change goes
            said = safe(f"{moved.status()} · ", one_line=True, style="bold red")
            text = Text.assemble(said, text)
        self.update(text)
