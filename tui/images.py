"""The review screen's images: decoded and shrunk in worker threads, shown ready-made.

The UI thread never decodes: `ImagePipeline` reads the bytes and makes a `Thumbnail` in a
worker, and `SampleImages` only lays out what it is given.

Import this module before the Textual app starts: textual-image asks the terminal for its
cell size and graphics support when it is first imported, which no longer works once
Textual reads stdin.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.widget import Widget
from textual.widgets import Static
from textual_image.widget import HalfcellImage, SixelImage, TGPImage, UnicodeImage
from textual_image.widget import Image as AutoImage

from lmmreview.tui.safe_text import Wrapped, safe
from lmmreview.tui.styles import stylesheet
from lmmreview.tui.thumbnails import (
    MAX_PIXELS,
    MISSING,
    Decoded,
    ImageProblem,
    Thumbnail,
    broken,
    thumbnail,
)

IMAGES_OFF = 'images off (--images, or images = "..." in the settings, turns them on)'
# No bound but MAX_PIXELS: `thumbnail` at this size keeps every pixel (the zoom view's crop).
FULL_SIZE = (MAX_PIXELS, MAX_PIXELS)
Renderer = Callable[[PILImage.Image], Widget]
# `--images` choices: textual-image's widget classes; "auto" is the one it detected for
# this terminal, and "off" (None) shows the placeholder without decoding anything.
RENDERERS: dict[str, Renderer | None] = {
    "auto": AutoImage,
    "tgp": TGPImage,
    "sixel": SixelImage,
    "halfcell": HalfcellImage,
    "unicode": UnicodeImage,
    "off": None,
}


async def settled(futures: Iterable[Future[Decoded]]) -> list[Decoded]:
    """The decoded images, once every future is done: a problem in place of a failure."""
    results = await asyncio.gather(
        *(asyncio.wrap_future(f) for f in futures), return_exceptions=True
    )
    return [r if not isinstance(r, BaseException) else broken(r) for r in results]


@dataclass(frozen=True)
class ImageSet:
    """One sample's images as the zoom view and the system viewer get them."""

    key: str  # the sample id, named in messages and in temporary file names
    title: str  # what the zoom view's top line says, e.g. "v1_0 · llava-13b"
    hashes: list[str]
    load: Callable[[str], bytes | None]  # image hash -> its bytes; call in a worker thread


CacheKey = tuple[str, tuple[int, int]]  # (image hash, max size)


class ImageCache:
    """A thread-safe least-recently-used cache of thumbnails."""

    def __init__(self, capacity: int = 64) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[CacheKey, Thumbnail] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: CacheKey) -> Thumbnail | None:
        """The cached thumbnail, now the most recently used, or None."""
        with self._lock:
            thumbnail = self._entries.get(key)
            if thumbnail is not None:
                self._entries.move_to_end(key)
            return thumbnail

    def put(self, key: CacheKey, thumbnail: Thumbnail) -> None:
        """Cache `thumbnail`, dropping the least recently used entry when full."""
        with self._lock:
            self._entries[key] = thumbnail
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)


class ImagePipeline:
    """Reads and decodes images in worker threads, with a cache of the results.

    Callers asking for the same image share one decode but each get their own future, so
    cancelling one (as `asyncio.wrap_future` does when its task is cancelled) neither
    stops the decode, whose result is cached, nor fails the others. Callbacks run in a
    worker thread: hand results to the UI thread with `App.call_from_thread` or
    `post_message`.
    """

    def __init__(self, cache: ImageCache | None = None, workers: int = 2) -> None:
        self._cache = cache if cache is not None else ImageCache()
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="lmmreview-images"
        )
        self._pending: dict[CacheKey, Future[Decoded]] = {}
        self._lock = threading.Lock()

    def request(
        self,
        image_hash: str,
        load_bytes: Callable[[], bytes | None],
        max_size: tuple[int, int],
    ) -> Future[Decoded]:
        """The thumbnail of one image, at most `max_size`, as a future.

        Done at once on a cache hit. Otherwise `load_bytes` runs in a worker thread (None
        from it means the image is missing); an exception from it ends up in the future.
        """
        key = (image_hash, max_size)
        mine: Future[Decoded] = Future()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                mine.set_result(cached)
                return mine
            shared = self._pending.get(key)
            started = shared is None
            if shared is None:
                shared = self._executor.submit(self._decode, key, load_bytes)
                self._pending[key] = shared
        # Outside the lock: on a future that is already done, callbacks run right here.
        if started:
            shared.add_done_callback(lambda _: self._forget(key))
        shared.add_done_callback(lambda done: _settle(done, mine))
        return mine

    def prefetch(
        self,
        image_hash: str,
        load_bytes: Callable[[], bytes | None],
        max_size: tuple[int, int],
    ) -> None:
        """Start decoding an image that will probably be wanted soon, e.g. the next sample's."""
        self.request(image_hash, load_bytes, max_size)

    def shutdown(self) -> None:
        """Drop queued work and wait for the images being decoded now."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _decode(self, key: CacheKey, load_bytes: Callable[[], bytes | None]) -> Decoded:
        """Worker: read, decode and cache one image."""
        data = load_bytes()
        if data is None:
            return ImageProblem(MISSING)
        result = thumbnail(data, key[1])
        if isinstance(result, Thumbnail):
            # Cached before the future is done, so no request falls between the two.
            self._cache.put(key, result)
        return result

    def _forget(self, key: CacheKey) -> None:
        """A decode is over: the next request for it hits the cache or starts anew."""
        with self._lock:
            self._pending.pop(key, None)


def _settle(source: Future[Decoded], target: Future[Decoded]) -> None:
    """Give `target` the outcome of the shared `source`, unless its caller cancelled it."""
    if source.cancelled():  # by shutdown()
        target.cancel()
    # Also what moves a cancelled future on to the state that wakes `wait()`.
    if not target.set_running_or_notify_cancel():
        return
    error = source.exception()
    if error is None:
        target.set_result(source.result())
    else:
        target.set_exception(error)


class SampleImages(Widget):
    """A sample's images side by side, each with a caption, or a placeholder saying why not.

    `renderer` is the textual-image widget class to draw with (any class taking a PIL image
    as its first argument); None means images are off: one line says so.
    """

    DEFAULT_CSS = stylesheet("sample_images")

    def __init__(
        self,
        renderer: Renderer | None = AutoImage,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._renderer = renderer
        self.set_class(renderer is None, "off")
        self._items: list[Decoded | None] = []
        self._sample = ""

    @property
    def pending(self) -> bool:
        """Whether an image is still on its way."""
        return any(item is None for item in self._items)

    def show(self, items: Sequence[Decoded | None], sample: str = "") -> None:
        """Show these images in order: a `Thumbnail`, an `ImageProblem`, or None for loading.

        An empty list means the sample has no image: one line says so. A problem is told
        with the `sample` id. Call on the UI thread. With images off, the one-line
        placeholder stays.
        """
        self.display = True
        if self.off:
            return
        self._items, self._sample = list(items), sample
        self.set_class(not self._items, "empty")
        self.refresh(recompose=True)

    def clear(self) -> None:
        """No answer is shown: nothing about images either, not even "no image"."""
        self.display = False

    @property
    def off(self) -> bool:
        """Whether images are turned off: nothing is decoded or drawn."""
        return self._renderer is None

    def compose(self) -> ComposeResult:
        if self._renderer is None:
            yield Static(IMAGES_OFF, classes="placeholder", markup=False)
            return
        if not self._items:
            yield Static("no image", classes="placeholder", markup=False)
            return
        count, renderer = len(self._items), self._renderer
        for position, item in enumerate(self._items, start=1):
            caption = f"image {position}/{count}"
            with Vertical(classes="cell"):
                if isinstance(item, Thumbnail):
                    width, height = item.original_size
                    caption += f" · {width}×{height}"
                    with Container(classes="frame"):
                        yield renderer(item.image)
                elif isinstance(item, ImageProblem):
                    reason = safe(named(item, self._sample), one_line=True)
                    yield Static(Wrapped(reason), classes="placeholder")
                else:
                    yield Static("loading…", classes="placeholder", markup=False)
                yield Static(caption, classes="caption", markup=False)


def named(problem: ImageProblem, sample: str) -> str:
    """A problem's reason with the sample it belongs to, e.g. "v1_2: broken image: ..."."""
    return f"{sample}: {problem.reason}" if sample else problem.reason
