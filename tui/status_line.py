"""The review screen's status line: the file and dataset, the counts, the filter, the judge
shown, and what is under way (changes not saved, a judge run, a file moved)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.widgets import Static

from lmmreview.engine.ordering import LIST_ORDER
from lmmreview.tui import detail as render
from lmmreview.tui.file_watch import Moved
from lmmreview.tui.safe_text import safe
from lmmreview.tui.session import Session

AND = " & "


class StatusLine(Static):
    """One line over the list and the answer. Where the line is too long for the width,
    the filter's conditions are shortened ("+N more", or their count) and then the file
    and counts are said briefly, so the judge shown after them stays on screen."""

    # the starts (whole, then brief), the filter's conditions and what follows them
    _shown: tuple[list[Text], list[Text], Text] | None = None

    def show(
        self,
        session: Session,
        file_name: str,
        *,
        advance: bool,
        unsaved: int,
        judging: bool,
        moved: Moved | None,
        hide: Callable[[str], str] = str,
    ) -> None:
        """`hide`: what names models in the filter's conditions (blind review: aliases)."""
        conditions = [safe(hide(c), one_line=True) for c in session.filter.conditions()]
        tail = _tail(session, advance=advance, unsaved=unsaved, judging=judging)
        self._shown = (_starts(session, file_name, moved), conditions, tail)
        self._fit()

    def on_resize(self, _: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """The longest start and filter that fit the width with what follows (the whole
        line until the width is known)."""
        if self._shown is None:
            return
        starts, conditions, tail = self._shown
        width = self.content_size.width
        for start in starts:
            room = width - start.cell_len - tail.cell_len if width else None
            said = fitted(conditions, room)
            if room is None or said.cell_len <= room:
                break
        said.stylize("italic")
        self.update(Text.assemble(start, said, tail))


def _starts(session: Session, file_name: str, moved: Moved | None) -> list[Text]:
    """What comes before the filter: the file, its datasets, the dataset open and the
    counts; then briefly, the dataset and the counts."""
    total, reviewed, shown = session.counts()
    where = render.where(file_name, session.datasets, session.dataset, session.benchmark.name)
    whole = Text.assemble(
        safe(where, one_line=True, style="bold"),
        f"{total} answers{' read so far' if session.partial else ''}, {reviewed} reviewed",
        _assigned(session, " assigned done"),
        f" · showing {shown}: ",
    )
    brief = Text.assemble(
        safe(session.dataset, one_line=True, style="bold"),
        f" · {reviewed}/{total}{'…' if session.partial else ''} reviewed",
        _assigned(session, ""),
        f" · showing {shown}: ",
    )
    if moved is None:
        return [whole, brief]
    said = safe(f"{moved.status()} · ", one_line=True, style="bold red")  # where changes go
    return [Text.assemble(said, whole), Text.assemble(said, brief)]


def _assigned(session: Session, said: str) -> Text:
    """Whose the screen works as and how far they are, when answers are assigned to them
    (lmmreview assign): " · ana: 3 / 12" and what is `said` after."""
    assignment = session.assignment
    if assignment is None:
        return Text()
    done, assigned = assignment.counts()
    return Text.assemble(
        " · ", safe(assignment.reviewer, one_line=True, style="bold"),
        f": {done} / {assigned}{said}",
    )  # fmt: skip


def _tail(session: Session, *, advance: bool, unsaved: int, judging: bool) -> Text:
    """What follows the filter: the judge shown, the order, and what is under way."""
    tail = Text.assemble(
        " · judge ",
        safe(session.judge_name, one_line=True, style="bold"),
        f" (w: one of {len(session.judges)})" if len(session.judges) > 1 else "",
    )
    if session.order != LIST_ORDER:
        tail.append(f" · sorted by {session.order_name}")
    if advance:
        tail.append(" · advance after a grade")
    if unsaved:
        tail.append(f"  · {unsaved} not saved yet", style="bold red")
    if judging:
        tail.append("  · judge running", style="bold yellow")
    return tail


def fitted(conditions: list[Text], room: int | None) -> Text:
    """The filter's conditions in at most `room` cells where they can be: as many as fit,
    then how many more; else how many there are. Whole where `room` is None."""
    whole = Text(AND).join(conditions) if conditions else Text("all answers")
    if room is None or whole.cell_len <= room or len(conditions) < 2:
        return whole
    for kept in range(len(conditions) - 1, 0, -1):
        shortened = Text.assemble(
            Text(AND).join(conditions[:kept]), f" +{len(conditions) - kept} more"
        )
        if shortened.cell_len <= room:
            return shortened
    return Text(f"{len(conditions)} conditions")
