"""The review screen's right-hand pane: the answer shown and everything about it (title,
images, question, ground truth, answer, the judges' runs, the verdict, the history).

It renders itself from what the screen hands it (an entry, its details, the session), and
repaints a panel only when what that panel shows changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from lmmreview.db.review import Detail
from lmmreview.engine.review import Entry
from lmmreview.tui import detail as render
from lmmreview.tui.images import Decoded, Renderer, SampleImages, settled
from lmmreview.tui.session import Session

PANELS = ("title", "question", "gold", "answer", "judges", "verdict", "history")


class DetailPane(VerticalScroll):
    """One answer's panels and images, each repainted only when what it shows changed."""

    def __init__(self, renderer: Renderer | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._renderer = renderer
        self._shown: dict[str, object] = {}  # panel -> what it shows, to skip repeats
        self._imaged: int | None = None  # the answer whose images are shown or awaited

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield SampleImages(self._renderer, id="images")
        for name in PANELS[1:]:
            yield Static(id=name)

    def forget(self) -> None:
        """Another dataset: every panel is painted anew."""
        self._shown.clear()

    def _panel(self, name: str) -> Static:
        return self.query_one(f"#{name}", Static)

    def show_loading(self, entry: Entry | None) -> None:
        """Name the answer the keys now act on at once; its details follow (None: no
        answer, every panel empty)."""
        title = render.loading_title(entry)
        for name in PANELS:
            self._shown.pop(name, None)  # repainted when the details come
            self._panel(name).update(title if name == "title" else Text(""))
        images = self.query_one(SampleImages)
        self._imaged = None if entry is None else entry.answer_id
        if entry is None:
            images.clear()
        else:
            images.show([None])

    def show(
        self,
        entry: Entry,
        detail: Detail,
        session: Session,
        unsaved: tuple[str, ...],
        problem: str,
        causes: Mapping[str, str],
    ) -> None:
        """Paint the panels of `entry` whose content changed (the same sample with another
        model's answer keeps its question and gold)."""
        sample, benchmark = detail.sample, session.benchmark
        judged = (detail.answer_id, len(detail.judgments), len(detail.history))
        panels: list[tuple[str, object, Callable[[], RenderableType]]] = [
            ("title", detail.answer_id, lambda: render.title(detail, benchmark)),
            ("question", sample.key, lambda: render.question(sample, benchmark)),
            (
                "gold",
                sample.key,
                lambda: Text.assemble(("Ground truth: ", "bold"), render.ground_truth(sample)),
            ),
            ("answer", detail.answer_id, lambda: render.answer(detail.text)),
            (
                "judges",
                (*judged, detail.group_verdict, session.judge, tuple(session.judges.values())),
                lambda: render.judge_runs(detail, benchmark, session.judges, session.judge),
            ),
            (
                "verdict",
                (judged, entry.verdict, unsaved, problem),
                lambda: render.verdict_line(entry.verdict, unsaved, problem),
            ),
            (
                "history",
                (judged, detail.causes, detail.flags),
                lambda: render.history(detail.history, detail.causes, causes, detail.flags),
            ),
        ]
        for name, key, make in panels:
            if self._shown.get(name) != key:
                self._shown[name] = key
                self._panel(name).update(make())

    def show_images(
        self, entry: Entry, hashes: list[str], request: Callable[[str], Future[Decoded]]
    ) -> None:
        """The answer's images (`request` starts decoding one): those decoded now at once,
        the others as they come."""
        widget = self.query_one(SampleImages)
        self._imaged = entry.answer_id
        if widget.off:
            widget.show([])  # the line saying images are off, again after an empty list
            return
        futures = [request(h) for h in hashes]
        shown = [f.result() if f.done() and not f.exception() else None for f in futures]
        widget.show(shown, entry.key)
        if any(not f.done() for f in futures):
            self._await_images(entry.answer_id, entry.key, futures)

    @work(exclusive=True, group="images")
    async def _await_images(self, answer_id: int, key: str, futures: list[Future[Decoded]]) -> None:
        shown = await settled(futures)
        if self._imaged != answer_id:  # another answer is shown now
            return
        for widget in self.query(SampleImages):  # none once the app is closing
            widget.show(shown, key)
