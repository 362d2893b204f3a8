"""The zoom view (`z` on the review screen): one image full screen, cut from its pixels.

`+`/`-` zoom in and out on the original pixels, arrows or hjkl pan, `0` shows the whole
image again, `[`/`]` go to the sample's other images, `o` opens the one shown in the system
viewer, Esc, `q` or `z` close. The shown region is cut from the full-resolution image, so
a chart's small print becomes readable. Decoding and cutting run in worker threads: the
UI thread only mounts the finished picture.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from PIL import Image as PILImage
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static
from textual_image._terminal import get_cell_size  # textual-image has it nowhere public

from lmmreview.tui.images import (
    FULL_SIZE,
    MISSING,
    Decoded,
    ImageProblem,
    ImageSet,
    Renderer,
    Thumbnail,
    named,
    thumbnail,
)
from lmmreview.tui.safe_text import safe
from lmmreview.tui.styles import stylesheet
from lmmreview.tui.viewer import TemporaryImages, open_outside

ZOOM_STEP = 2.0  # `+` doubles the size of an original pixel, `-` halves it
MAX_ZOOM = 64.0
SHARP_FROM = 2.0  # from this scale on, a crop is enlarged pixel by pixel
PAN_SHARE = 0.25  # a pan key moves the region by this share of its width or height


@dataclass(frozen=True)
class Region:
    """The part of an image that is shown, in the image's own pixels."""

    left: int
    top: int
    width: int
    height: int

    @property
    def box(self) -> tuple[int, int, int, int]:
        """(left, top, right, bottom), as Pillow's crop takes it."""
        return (self.left, self.top, self.left + self.width, self.top + self.height)

    @property
    def centre(self) -> tuple[float, float]:
        return (self.left + self.width / 2, self.top + self.height / 2)

    def describe(self) -> str:
        left, top, right, bottom = self.box
        return f"x {left}–{right}, y {top}–{bottom} ({self.width}×{self.height} px)"


def region(
    image: tuple[int, int], area: tuple[int, int], zoom: float, centre: tuple[float, float]
) -> Region:
    """What `zoom` shows of an `image` (width, height in pixels) in an `area` (pixels): at
    1 the whole image fits, at 2 each original pixel is twice as large; the region is
    centred on `centre` as far as the image's edges allow."""
    width, height = image
    scale = min(area[0] / width, area[1] / height) * zoom
    shown_width = min(width, max(1, round(area[0] / scale)))
    shown_height = min(height, max(1, round(area[1] / scale)))
    left = min(max(round(centre[0] - shown_width / 2), 0), width - shown_width)
    top = min(max(round(centre[1] - shown_height / 2), 0), height - shown_height)
    return Region(left, top, shown_width, shown_height)


def cut(image: PILImage.Image, shown: Region, area: tuple[int, int]) -> PILImage.Image:
    """Blocking: the region of `image`, scaled to fill `area` pixels, keeping its shape."""
    scale = min(area[0] / shown.width, area[1] / shown.height)
    size = (max(1, round(shown.width * scale)), max(1, round(shown.height * scale)))
    # Blown up, original pixels stay sharp squares (small print reads best so); shrunk,
    # they are averaged.
    sharp = scale >= SHARP_FROM
    resample = PILImage.Resampling.NEAREST if sharp else PILImage.Resampling.LANCZOS
    return image.crop(shown.box).resize(size, resample)


def full_resolution(images: ImageSet, index: int) -> Decoded:
    """Blocking: one image of the set, decoded upright at its full size, or why not."""
    try:
        data = images.load(images.hashes[index])
    # The database can be busy or gone: the view says so rather than fail.
    except Exception as error:
        return ImageProblem(f"could not read the image: {error}")
    return ImageProblem(MISSING) if data is None else thumbnail(data, FULL_SIZE)


class ZoomScreen(Screen[None]):
    """One image of a sample full screen, zoomed and panned on its full-resolution pixels."""

    BINDINGS = [
        Binding("escape,q,z", "dismiss", "close", id="zoom-close"),
        Binding("plus,equals_sign", f"zoom({ZOOM_STEP})", "zoom in", key_display="+",
                id="zoom-in"),
        Binding("minus", f"zoom({1 / ZOOM_STEP})", "zoom out", key_display="-", id="zoom-out"),
        Binding("0", "fit", "whole image", id="zoom-fit"),
        Binding("left,h", "pan(-1, 0)", "pan left", show=False, id="pan-left"),
        Binding("right,l", "pan(1, 0)", "pan right", show=False, id="pan-right"),
        Binding("up,k", "pan(0, -1)", "pan up", show=False, id="pan-up"),
        Binding("down,j", "pan(0, 1)", "pan down", show=False, id="pan-down"),
        Binding("left_square_bracket", "step(-1)", "previous image", key_display="[",
                id="zoom-previous"),
        Binding("right_square_bracket", "step(1)", "next image", key_display="]",
                id="zoom-next"),
        Binding("o", "open_image", "open in viewer", id="zoom-open"),
    ]  # fmt: skip
    DEFAULT_CSS = stylesheet("zoom_screen")

    def __init__(self, images: ImageSet, renderer: Renderer, files: TemporaryImages) -> None:
        """`files`: where `o` writes the image for the system viewer."""
        super().__init__()
        self.images = images
        self._renderer = renderer
        self._files = files
        self.index = 0  # which of the sample's images is shown
        self.zoom = 1.0
        self._centre: tuple[float, float] | None = None  # None: the image's centre
        self._picture: PILImage.Image | None = None  # the full-resolution image shown
        self._aimed: Region | None = None  # what the keys asked for last
        self.shown: Region | None = None  # what is on screen now, once it is

    def compose(self) -> ComposeResult:
        yield Static(safe(self.images.title, one_line=True, style="bold"), id="zoom-title")
        yield Container(id="zoom-frame")
        yield Static(id="zoom-status")
        yield Footer()

    def on_mount(self) -> None:
        self._load()

    def on_resize(self) -> None:
        self._aim()

    # -- showing ---------------------------------------------------------------------------

    def _position(self) -> str:
        return f"image {self.index + 1}/{len(self.images.hashes)}"

    async def _put(self, shown: Widget) -> None:
        """Replace what the frame holds."""
        frame = self.query_one("#zoom-frame", Container)
        await frame.remove_children()
        await frame.mount(shown)

    async def _say(self, text: str, status: str) -> None:
        """A line in the frame instead of a picture, and the status line."""
        self.shown = None
        await self._put(Static(safe(text), classes="placeholder"))
        self.query_one("#zoom-status", Static).update(safe(status, one_line=True))

    @work(exclusive=True, group="zoom-load")
    async def _load(self) -> None:
        """Decode the image at full resolution in a worker thread, then draw it."""
        self._picture = self._aimed = None
        await self._say("loading…", f"{self._position()} · loading…")
        decoded = await asyncio.to_thread(full_resolution, self.images, self.index)
        if isinstance(decoded, Thumbnail):
            self._picture = decoded.image
            self._aim()
        else:
            problem = named(decoded, self.images.key)
            await self._say(problem, f"{self._position()} · {problem}")

    def _aim(self) -> None:
        """Work out the region the zoom and centre ask for, at once (the next key moves on
        from it), and have it drawn."""
        picture, frame = self._picture, self.query_one("#zoom-frame", Container)
        if picture is None or not frame.size.area:
            return
        cell = get_cell_size()
        area = (frame.size.width * cell.width, frame.size.height * cell.height)
        centre = self._centre or (picture.width / 2, picture.height / 2)
        self._aimed = region(picture.size, area, self.zoom, centre)
        self._centre = self._aimed.centre  # at an edge, further presses do not pile up
        self._draw(picture, self._aimed, area)

    @work(exclusive=True, group="zoom-draw")
    async def _draw(self, picture: PILImage.Image, shown: Region, area: tuple[int, int]) -> None:
        """Cut the region out in a worker thread and show it."""
        cropped = await asyncio.to_thread(cut, picture, shown, area)
        await self._put(self._renderer(cropped))
        self.shown = shown
        width, height = picture.size
        status = (
            f"{self._position()} · {width}×{height} px · zoom {self.zoom:g}× · "
            f"showing {shown.describe()}"
        )
        self.query_one("#zoom-status", Static).update(Text(status))

    # -- keys ------------------------------------------------------------------------------

    def action_zoom(self, factor: float) -> None:
        self.zoom = min(max(self.zoom * factor, 1.0), MAX_ZOOM)
        self._aim()

    def action_fit(self) -> None:
        self.zoom, self._centre = 1.0, None
        self._aim()

    def action_pan(self, across: int, down: int) -> None:
        shown = self._aimed
        if shown is None:
            return
        x, y = shown.centre
        step = (shown.width * PAN_SHARE, shown.height * PAN_SHARE)
        self._centre = (x + across * step[0], y + down * step[1])
        self._aim()

    def action_step(self, step: int) -> None:
        count = len(self.images.hashes)
        if count > 1:
            self.index = (self.index + step) % count
            self.zoom, self._centre = 1.0, None
            self._load()

    @work(group="viewer")
    async def action_open_image(self) -> None:
        await open_outside(self.app, self.images, [self.index], self._files)
