"""The compare view's versus (v): two models' paired difference, cell by cell, with its
95 % bootstrap interval and, for accuracy benchmarks, McNemar's exact p (engine.uncertainty).
Computed in a worker thread; computed again when scores change while it is shown."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from lmmreview.engine.export import DASH, signed
from lmmreview.engine.tables import Table
from lmmreview.engine.uncertainty import Difference
from lmmreview.tui.fitted import FittedTable
from lmmreview.tui.safe_text import Wrapped, safe
from lmmreview.tui.styles import stylesheet

HEADERS = ["", "A", "B", "A-B", "95% CI", "n", "McNemar p"]
DROPPED_FIRST = ("n", "B", "A")  # on a small terminal; the difference and its CI stay

Versus = Callable[[str, str], Awaitable[list[Difference]]]


def _number(value: float | None, form: str = ".1f") -> str:
    return DASH if value is None else format(value, form)


def _interval(low: float | None, high: float | None) -> str:
    return DASH if low is None or high is None else f"[{low:.1f}, {high:.1f}]"


def _row(difference: Difference, title: str) -> list[Text]:
    d = difference
    diff = DASH if d.diff is None else signed(d.diff)  # as the CLI prints it
    cells = [_number(d.a), _number(d.b), diff, _interval(d.low, d.high)]
    cells += [str(d.n), _number(d.p_mcnemar, ".3g")]
    return [safe(title, one_line=True), *(Text(cell) for cell in cells)]


def versus_tables(differences: list[Difference], tables: list[Table]) -> list[RenderableType]:
    """One table per table (and split) of the dataset, a row per column, in their order;
    titles from `tables` (every name and title shown through `safe`)."""
    titles = {t.name: (t.title, {c.key: c.title for c in t.columns}) for t in tables}
    sections: dict[tuple[str, str], list[list[Text]]] = {}
    for d in differences:
        column = titles.get(d.table, ("", {}))[1].get(d.column, d.column)
        sections.setdefault((d.table, d.split), []).append(_row(d, column))
    shown: list[RenderableType] = []
    for (name, split), rows in sections.items():
        title = titles.get(name, (name, {}))[0] + (f" · {split}" if split else "")
        shown.append(FittedTable(safe(title, one_line=True, style="italic"), HEADERS, rows,
                                 DROPPED_FIRST, "right"))  # fmt: skip
    return shown


class VersusScreen(ModalScreen[None]):
    """Model A minus model B, over the samples both answered."""

    BINDINGS = [Binding("escape,v", "dismiss(None)", "Back", id="versus-back")]
    DEFAULT_CSS = stylesheet("versus_screen")

    def __init__(
        self,
        a: str,
        b: str,
        versus: Versus,
        tables: Callable[[], list[Table]],
        names: Mapping[str, str],
    ) -> None:
        super().__init__()
        self.a, self.b = a, b  # stored names: what the differences are computed for
        self.names = names  # the settings' [models]: the display names the tables show
        self._versus = versus
        self._tables = tables
        self.revision = 0  # scores changed this many times since it opened
        self.differences: list[Difference] | None = None  # None while computing

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="versus-body")
        yield Footer()

    def on_mount(self) -> None:
        self._compute("Computing the paired differences…")

    def verdicts_changed(self) -> None:
        """What was computed is dropped and computed again from the verdicts now."""
        self.revision += 1
        self._compute("The scores changed: computing the paired differences again…")

    @work(exclusive=True, group="versus")
    async def _compute(self, status: str) -> None:
        self.differences = None
        self._show(Text(status, style="italic"))
        revision = self.revision
        differences = await self._versus(self.a, self.b)
        if revision == self.revision:  # else a newer run shows its own
            self.differences = differences
            self._show(*versus_tables(differences, self._tables()))

    def _show(self, *body: RenderableType) -> None:
        a, b = (self.names.get(model, model) for model in (self.a, self.b))
        about = safe(f"A: {a}\nB: {b}", style="bold")
        note = Text(
            "A - B over the samples both answered; 95% paired bootstrap interval; McNemar's "
            "exact p where both are scored right or wrong in one run.",
            style="dim",
        )
        self.query_one("#versus-body", Static).update(Group(Wrapped(about), note, *body))
