"""The review screen's right-hand pane: the answer shown and everything about it (title,
images, question, ground truth, answer, the judges' runs, the verdict, the history).

It renders itself from what the screen hands it (an entry, its details, the session), and
repaints a panel only when what that panel shows changed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Future
from functools import partial

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from lmmreview.db.review import Detail, ReviewStore
from lmmreview.engine.review import Entry
from lmmreview.tui import detail as render
from lmmreview.tui.blind import HIDDEN_UNTIL
from lmmreview.tui.errata_dialog import erratum_line
from lmmreview.tui.images import Decoded, ImagePipeline, Renderer, SampleImages, settled
from lmmreview.tui.messages import DetailLoaded
from lmmreview.tui.session import Session

PANELS = ("title", "question", "gold", "answer", "judges", "verdict", "history")
IMAGE_BOX = (480, 240)  # thumbnails are made to fit this many pixels
DETAIL_CACHE = 128
Read = Callable[[Callable[[ReviewStore], Detail]], Awaitable[Detail | None]]


class DetailPane(VerticalScroll):
    """One answer's panels and images, each repainted only when what it shows changed;
    the details of the answers shown and about to be, read ahead and kept."""

    def __init__(
        self,
        renderer: Renderer | None,
        read: Read,
        image_bytes: Callable[[str], bytes | None],
        *,
        id: str | None = None,
    ) -> None:
        """`read` runs a read in the database thread (None: it failed, and was told)."""
        super().__init__(id=id)
        self._renderer = renderer
        self._read = read
        self._image_bytes = image_bytes
        self._images = ImagePipeline()
        self.details: OrderedDict[int, Detail] = OrderedDict()  # the newest DETAIL_CACHE
        self.showing: int | None = None  # the answer the panels are for
        self._shown: dict[str, object] = {}  # panel -> what it shows, to skip repeats
        self._imaged: int | None = None  # the answer whose images are shown or awaited

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield SampleImages(self._renderer, id="images")
        for name in PANELS[1:]:
            yield Static(id=name)

    def on_unmount(self) -> None:
        self._images.shutdown()

    def forget(self) -> None:
        """Another dataset: every detail is read and every panel painted anew."""
        self.details.clear()
        self._shown.clear()
        self.showing = None

    def keep(self, detail: Detail) -> None:
        """Keep an answer's details, the oldest kept going first."""
        self.details[detail.answer_id] = detail
        while len(self.details) > DETAIL_CACHE:
            self.details.popitem(last=False)

    def image_request(self, image_hash: str) -> Future[Decoded]:
        """Decode one image of the file, as a thumbnail (at once if it is decoded already)."""
        return self._images.request(image_hash, partial(self._image_bytes, image_hash), IMAGE_BOX)

    def prefetch_images(self, detail: Detail) -> None:
        """Start decoding an answer's images, unless images are off."""
        if self._renderer is None:
            return
        for image_hash in detail.image_hashes:
            load = partial(self._image_bytes, image_hash)
            self._images.prefetch(image_hash, load, IMAGE_BOX)

    # A description of its own: by default a worker's holds the repr of its arguments, and
    # a session's is every answer.
    @work(exclusive=True, group="detail", description="the details of the answer shown")
    async def fetch(self, session: Session, answer_id: int) -> None:
        """Read the details of the answer to show; the screen is told (DetailLoaded)."""
        detail = await self._read(lambda r: r.detail(answer_id))
        if detail is not None:
            self.screen.post_message(DetailLoaded(session, detail))

    # A newer key press makes older prefetches moot.
    @work(exclusive=True, group="prefetch", description="the details of the answers near")
    async def prefetch(self, session: Session, cursor: int) -> None:
        """Read the details of the answers next to the one under the `cursor` and start
        decoding their images."""
        for index in (cursor + 1, cursor + 2, cursor - 1):
            if not 0 <= index < len(session.visible):
                continue
            answer_id = session.listed(index).answer_id
            cached = self.details.get(answer_id)
            if cached is not None:
                self.prefetch_images(cached)
                continue
            detail = await self._read(partial(ReviewStore.detail, answer_id=answer_id))
            if detail is None:
                return  # told already; the answer shows the problem when it is reached
            self.screen.post_message(DetailLoaded(session, detail, ahead=True))

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
        hidden: bool = False,
    ) -> None:
        """Paint the panels of `entry` whose content changed (the same sample with another
        model's answer keeps its question and gold); `hidden`: the judges' (blind review)."""
        sample, benchmark = detail.sample, session.benchmark
        judged = (detail.answer_id, len(detail.judgments), len(detail.history))
        panels: list[tuple[str, object, Callable[[], RenderableType]]] = [
            ("title", detail.answer_id, lambda: render.title(detail, benchmark)),
            ("question", sample.key, lambda: render.question(sample, benchmark)),
            (
                "gold",
                (sample.key, detail.row_erratum),
                lambda: Text.assemble(
                    ("Ground truth: ", "bold"),
                    render.ground_truth(sample),
                    erratum_line(detail.row_erratum),
                ),
            ),
            ("answer", detail.answer_id, lambda: render.answer(detail.text)),
            (
                "judges",
                (*judged, detail.group_verdict, session.judge, (*session.judges.values(), hidden)),
                lambda: (
                    Text(HIDDEN_UNTIL, style="italic")
                    if hidden  # blind review
                    else render.judge_runs(detail, benchmark, session.judges, session.judge)
                ),
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

    def show_images(self, entry: Entry, hashes: list[str]) -> None:
        """The answer's images: those decoded now at once, the others as they come."""
        widget = self.query_one(SampleImages)
        self._imaged = entry.answer_id
        if widget.off:
            widget.show([])  # the line saying images are off, again after an empty list
            return
        futures = [self.image_request(h) for h in hashes]
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
