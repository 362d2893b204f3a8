"""`o`: a sample's images in the system's image viewer, or in temporary files it names.

Everything here blocks (file writes, starting a process), so the screens run it in a
worker thread; the viewer process is never waited on by the UI. The files are written to
one folder of the temporary folder, removed with them when the review screen closes.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from PIL import Image as PILImage
from textual.app import App

from lmmreview.tui.images import ImageSet
from lmmreview.tui.safe_text import plain_line, safe

# Characters a temporary file name may take from a sample id; the rest become "_".
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]")
_SUFFIXES = {"JPEG": ".jpg", "MPO": ".jpg", "TIFF": ".tif"}  # else ".<format>" in lower case


def system_viewer() -> str | None:
    """The command that shows a file in this session's image viewer, if there is one:
    `open` on macOS, `xdg-open` where a display is set (none over plain SSH or tmux)."""
    if sys.platform == "darwin":
        return shutil.which("open")
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return None
    return shutil.which("xdg-open")


def suffix(data: bytes) -> str:
    """The file name ending for an image's bytes, from the format Pillow reads in them."""
    try:
        with PILImage.open(io.BytesIO(data)) as image:
            found = image.format or ""
    except Exception:  # a broken image is written all the same, as bytes
        return ".bin"
    return _SUFFIXES.get(found, f".{found.lower()}" if found else ".bin")


class TemporaryImages:
    """The folder the images `o` hands over are written to: made at the first, removed
    with every file in it by `remove` (when the screen closes), after which none is made."""

    def __init__(self) -> None:
        self._folder: Path | None = None
        self._removed = False
        self._lock = threading.Lock()  # two `o` in a row: two worker threads, one folder

    def folder(self) -> Path:
        with self._lock:
            if self._removed:  # an `o` that ends as the screen closes leaves nothing behind
                raise OSError("the screen is closing")
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix="lmmreview-images-"))
            return self._folder

    def remove(self) -> None:
        with self._lock:
            self._removed = True
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)


def write_temporary(data: bytes, key: str, position: int, folder: Path) -> Path:
    """The image's bytes, unchanged, in a new file of `folder` named after it."""
    stem = _UNSAFE_IN_NAME.sub("_", key)[:40]
    handle, name = tempfile.mkstemp(
        prefix=f"lmmreview-{stem}-{position}-", suffix=suffix(data), dir=folder
    )
    with os.fdopen(handle, "wb") as file:
        file.write(data)
    return Path(name)


def launch(command: str, path: Path) -> None:
    """Start the viewer on `path` in a session of its own; a thread reaps it when it ends."""
    process = subprocess.Popen(
        [command, str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl+C in the screen does not reach it
    )
    threading.Thread(target=process.wait, name="lmmreview-viewer", daemon=True).start()


def hand_over(images: ImageSet, positions: Sequence[int], files: TemporaryImages) -> str:
    """Blocking: write the images at `positions` (0-based) to temporary files, open them in
    the system viewer if there is one, and say what happened and where the files are."""
    key = plain_line(images.key, 60)
    written, missing = [], []
    for position in positions:
        data = images.load(images.hashes[position])
        if data is None:
            missing.append(f"image {position + 1} is missing from the database")
        else:
            written.append(write_temporary(data, images.key, position + 1, files.folder()))
    where = ", ".join(safe(str(path), one_line=True).plain for path in written)
    command = system_viewer()
    if not written:
        told = f"Nothing to open for {key}"
    elif command is None:
        told = (
            f"No image viewer here (no display): wrote {key}'s image to {where} "
            "(removed when lmmreview closes)"
        )
    else:
        try:
            for path in written:
                launch(command, path)
            told = f"Opened {key}'s image with {Path(command).name}: {where}"
        except OSError as exc:
            told = f"Could not start {Path(command).name} ({exc}): wrote {key}'s image to {where}"
    return "; ".join([told, *missing]) + "."


async def open_outside(
    app: App[object], images: ImageSet, positions: Sequence[int], files: TemporaryImages
) -> None:
    """Hand images to the system viewer from a worker thread, then tell where they are."""
    try:
        told = await asyncio.to_thread(hand_over, images, positions, files)
    except OSError as exc:  # the temporary folder cannot be written
        app.notify(
            f"Could not write {images.key}'s image: {exc}",
            severity="error",
            timeout=12,
            markup=False,
        )
        return
    app.notify(told, title="Image", timeout=12, markup=False)
