"""The image pipeline: thumbnails, the cache, worker threads, and the SampleImages widget."""

from __future__ import annotations

import asyncio
import io
import struct
import threading
import zlib
from concurrent.futures import wait

import pytest
from PIL import Image as PILImage
from PIL import ImageFile
from textual.app import App, ComposeResult
from textual_image.widget import HalfcellImage

from lmmreview.tui.images import (
    MISSING,
    ImageCache,
    ImagePipeline,
    ImageProblem,
    SampleImages,
    Thumbnail,
    thumbnail,
)


def encoded(size: tuple[int, int], fmt: str = "PNG", mode: str = "RGB", **params: object) -> bytes:
    buffer = io.BytesIO()
    PILImage.new(mode, size, "red").save(buffer, format=fmt, **params)
    return buffer.getvalue()


def png_claiming(size: tuple[int, int]) -> bytes:
    """A small PNG whose header claims `size`, as a decompression bomb's does."""
    data = bytearray(encoded((1, 1)))
    header = struct.pack(">II", *size) + bytes(data[24:29])  # width, height, the rest of IHDR
    data[16:29] = header
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + header))
    return bytes(data)


def as_thumbnail(result: object) -> Thumbnail:
    assert isinstance(result, Thumbnail), result
    return result


def test_thumbnail_shrinks_to_fit_keeping_the_aspect_ratio() -> None:
    result = as_thumbnail(thumbnail(encoded((2000, 1000)), (160, 160)))
    assert result.image.size == (160, 80)
    assert result.original_size == (2000, 1000)
    assert result.image.mode == "RGB"
    # Fully decoded, in memory: nothing is left to read from the bytes later.
    assert type(result.image) is PILImage.Image
    assert not isinstance(result.image, ImageFile.ImageFile)


def test_thumbnail_never_enlarges() -> None:
    result = as_thumbnail(thumbnail(encoded((10, 10)), (160, 80)))
    assert result.image.size == (10, 10)
    assert result.original_size == (10, 10)


def test_thumbnail_turns_images_upright_from_exif() -> None:
    exif = PILImage.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to view
    data = encoded((400, 200), "JPEG", exif=exif.tobytes())
    result = as_thumbnail(thumbnail(data, (100, 100)))
    assert result.original_size == (200, 400)
    assert result.image.size == (50, 100)


def test_thumbnail_puts_transparency_on_white() -> None:
    clear = io.BytesIO()
    PILImage.new("RGBA", (4, 4), (0, 0, 0, 0)).save(clear, format="PNG")
    result = as_thumbnail(thumbnail(clear.getvalue(), (4, 4)))
    assert result.image.mode == "RGB"
    assert result.image.getpixel((0, 0)) == (255, 255, 255)
    opaque = as_thumbnail(thumbnail(encoded((4, 4), mode="RGBA"), (4, 4)))
    assert opaque.image.getpixel((0, 0)) == (255, 0, 0)


@pytest.mark.parametrize("mode", ["L", "P", "1", "I;16", "LA", "CMYK"])
def test_thumbnail_gives_rgb_for_any_mode(mode: str) -> None:
    fmt = "TIFF" if mode == "CMYK" else "PNG"
    result = as_thumbnail(thumbnail(encoded((30, 20), fmt, mode), (15, 15)))
    assert (result.image.mode, result.image.size) == ("RGB", (15, 10))


def test_thumbnail_reports_bytes_that_are_not_an_image() -> None:
    assert thumbnail(b"not an image", (10, 10)) == ImageProblem(
        "broken image: not a known image format"
    )
    assert thumbnail(b"", (10, 10)) == ImageProblem("broken image: not a known image format")


def test_thumbnail_reports_truncated_images() -> None:
    png = encoded((300, 200))
    problem = thumbnail(png[: len(png) // 2], (10, 10))
    assert isinstance(problem, ImageProblem)
    assert problem.reason.startswith("broken image: ")
    jpeg = encoded((300, 200), "JPEG")
    assert isinstance(thumbnail(jpeg[: len(jpeg) // 2], (10, 10)), ImageProblem)


def test_thumbnail_refuses_decompression_bombs() -> None:
    assert thumbnail(png_claiming((8000, 8000)), (10, 10)) == ImageProblem(
        "broken image: 8,000×8,000 pixels is too large"
    )
    # Past Pillow's own limit, Pillow refuses before we look.
    problem = thumbnail(png_claiming((20000, 20000)), (10, 10))
    assert isinstance(problem, ImageProblem)
    assert "decompression bomb" in problem.reason


def test_cache_returns_the_same_object_and_evicts_the_least_recently_used() -> None:
    cache = ImageCache(capacity=2)
    a, b, c = (Thumbnail(PILImage.new("RGB", (1, 1)), (1, 1)) for _ in range(3))
    cache.put(("a", (8, 8)), a)
    cache.put(("b", (8, 8)), b)
    assert cache.get(("a", (8, 8))) is a  # now "b" is the least recently used
    cache.put(("c", (8, 8)), c)
    assert cache.get(("b", (8, 8))) is None
    assert cache.get(("a", (8, 8))) is a
    assert cache.get(("c", (8, 8))) is c
    assert cache.get(("a", (16, 16))) is None  # another size is another entry


def test_pipeline_loads_in_a_worker_and_caches() -> None:
    pipeline = ImagePipeline()
    calls: list[int] = []
    data = encoded((2000, 1000))

    def load() -> bytes:
        calls.append(threading.get_ident())
        return data

    try:
        first = as_thumbnail(pipeline.request("h1", load, (160, 80)).result(timeout=10))
        assert first.image.size == (160, 80)
        assert calls and calls[0] != threading.get_ident()

        second = pipeline.request("h1", load, (160, 80))
        assert second.done()
        assert second.result() is first
        assert len(calls) == 1

        pipeline.request("h1", load, (40, 40)).result(timeout=10)
        assert len(calls) == 2  # another size is decoded anew
    finally:
        pipeline.shutdown()


def test_pipeline_reports_missing_and_broken_images() -> None:
    pipeline = ImagePipeline()
    try:
        missing = pipeline.request("gone", lambda: None, (10, 10)).result(timeout=10)
        assert missing == ImageProblem(MISSING)
        assert missing.reason == "image missing from the database"
        broken = pipeline.request("bad", lambda: b"junk", (10, 10)).result(timeout=10)
        assert broken == ImageProblem("broken image: not a known image format")
    finally:
        pipeline.shutdown()


def test_pipeline_passes_on_errors_from_load_bytes() -> None:
    pipeline = ImagePipeline()

    def fail() -> bytes:
        raise RuntimeError("database is locked")

    try:
        with pytest.raises(RuntimeError, match="locked"):
            pipeline.request("h", fail, (10, 10)).result(timeout=10)
    finally:
        pipeline.shutdown()


def test_prefetch_and_request_share_one_decode() -> None:
    pipeline = ImagePipeline()
    release = threading.Event()
    calls: list[str] = []

    def slow_load() -> bytes:
        calls.append("load")
        release.wait(timeout=10)
        return encoded((20, 20))

    try:
        pipeline.prefetch("h", slow_load, (10, 10))
        future = pipeline.request("h", slow_load, (10, 10))
        release.set()
        assert as_thumbnail(future.result(timeout=10)).image.size == (10, 10)
        assert calls == ["load"]
        assert pipeline.request("h", slow_load, (10, 10)).done()
    finally:
        pipeline.shutdown()


def test_one_caller_cancelling_does_not_fail_the_others() -> None:
    pipeline = ImagePipeline()
    release = threading.Event()

    def slow_load() -> bytes:
        release.wait(timeout=10)
        return encoded((20, 20))

    async def leave_early() -> None:
        # What a cancelled Textual worker awaiting the image does to its future.
        waiting = asyncio.ensure_future(asyncio.wrap_future(first))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    try:
        first = pipeline.request("h", slow_load, (10, 10))
        second = pipeline.request("h", slow_load, (10, 10))
        asyncio.run(leave_early())
        assert first.cancelled()
        release.set()
        assert as_thumbnail(second.result(timeout=10)).image.size == (10, 10)
        assert pipeline.request("h", slow_load, (10, 10)).done()  # and it was cached
    finally:
        pipeline.shutdown()


def test_shutdown_cancels_queued_requests() -> None:
    pipeline = ImagePipeline(workers=1)
    started, release = threading.Event(), threading.Event()

    def blocking_load() -> bytes:
        started.set()
        release.wait(timeout=10)
        return encoded((4, 4))

    running = pipeline.request("a", blocking_load, (4, 4))
    assert started.wait(timeout=10)
    queued = pipeline.request("b", blocking_load, (4, 4))
    stopping = threading.Thread(target=pipeline.shutdown)
    stopping.start()
    wait([queued], timeout=10)  # shutdown() cancels the queue before it waits
    release.set()
    stopping.join(timeout=10)
    assert queued.cancelled()
    assert isinstance(running.result(timeout=10), Thumbnail)


class ImagesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SampleImages(renderer=HalfcellImage)


def screen_text(app: App[None]) -> str:
    """The characters on the (headless) screen, row by row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def test_sample_images_shows_images_and_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    picture = as_thumbnail(thumbnail(encoded((640, 480)), (200, 150)))
    # The widget gets decoded pixels only: any decode on the UI thread fails the test.
    decodes: list[int] = []
    real_open = PILImage.open

    def counting_open(*args: object, **kwargs: object) -> PILImage.Image:
        decodes.append(threading.get_ident())
        return real_open(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PILImage, "open", counting_open)

    async def run() -> None:
        app = ImagesApp()
        async with app.run_test(size=(120, 30)) as pilot:
            images = app.query_one(SampleImages)
            await pilot.pause()
            assert "no image" in screen_text(app)

            images.show([picture, ImageProblem("broken image: x"), None])
            await pilot.pause()
            text = screen_text(app)
            for expected in (
                "image 1/3 · 640×480",
                "broken image: x",
                "image 2/3",
                "loading…",
                "image 3/3",
            ):
                assert expected in text
            assert "no image" not in text
            drawn = app.query_one(HalfcellImage)
            assert drawn.image is picture.image
            assert drawn.region.width > 0 and drawn.region.height > 0
            assert "▀" in text  # the half-cell renderer drew it

            images.show([ImageProblem(MISSING)])
            await pilot.pause()
            text = screen_text(app)
            assert "image missing from the database" in text
            assert "image 1/1" in text
            assert not app.query(HalfcellImage)

            images.show([])
            await pilot.pause()
            assert "no image" in screen_text(app)

    asyncio.run(run())
    assert decodes == []


def test_sample_images_shows_problem_text_literally() -> None:
    async def run() -> None:
        app = ImagesApp()
        async with app.run_test(size=(80, 10)) as pilot:
            app.query_one(SampleImages).show([ImageProblem("broken image: [bold]\x1b[2J")])
            await pilot.pause()
            assert "broken image: [bold]␛[2J" in screen_text(app)

    asyncio.run(run())


def test_a_sample_id_too_wide_for_its_image_cell_draws_no_line_of_its_own() -> None:
    """A sample id of spaces then a fake verdict: the problem's line wraps onto a line
    marked "↪", so that no line of the cell starts with the fake text."""
    fake = "human verdict: 1.00"

    async def run() -> str:
        app = ImagesApp()
        async with app.run_test(size=(60, 20)) as pilot:
            app.query_one(SampleImages).show(
                [ImageProblem("broken image: x")], f"k{' ' * 80}{fake}"
            )
            await pilot.pause()
            return screen_text(app)

    drawn = [line.strip() for line in asyncio.run(run()).splitlines()]
    assert not [line for line in drawn if line.startswith(fake)], drawn
    assert f"↪ {fake}: broken image: x" in drawn, drawn
