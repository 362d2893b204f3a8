"""Images decoded and shrunk with Pillow, safely (no decompression bomb, EXIF orientation
honoured, transparency on white): the review screen's thumbnails (tui/images.py) and the
HTML report's pictures. No Textual here, so the command line may use it."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from PIL import ExifTags, ImageOps, UnidentifiedImageError
from PIL import Image as PILImage

MISSING = "image missing from the database"
# Far above any benchmark image; it bounds a worker's memory (~150 MB as RGB) and stops
# decompression bombs before Pillow's own, higher limit.
MAX_PIXELS = 50_000_000
# EXIF orientations that turn the picture a quarter, so width and height swap.
_QUARTER_TURNS = frozenset({5, 6, 7, 8})
# A Python object's repr in an error text, e.g. Pillow's "<_io.BytesIO object at 0x7f...>".
_OBJECT_REPR = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-fA-F]+>")


@dataclass(frozen=True, eq=False)  # eq=False: comparing Images would compare every pixel
class Thumbnail:
    """A decoded, upright, RGB image shrunk to fit, and the size of the image it came from."""

    image: PILImage.Image
    original_size: tuple[int, int]


@dataclass(frozen=True)
class ImageProblem:
    """Why an image cannot be shown; `reason` is what the placeholder says."""

    reason: str


def broken(error: BaseException) -> ImageProblem:
    """The problem an exception from decoding or reading an image stands for, in words:
    the object reprs Pillow puts in its messages (our in-memory file) are left out."""
    text = _OBJECT_REPR.sub("", str(error)) or type(error).__name__
    return ImageProblem(f"broken image: {text}")


Decoded = Thumbnail | ImageProblem


def thumbnail(data: bytes, max_size: tuple[int, int]) -> Decoded:
    """Decode `data`, turn it upright, flatten it to RGB and shrink it to fit `max_size`.

    Never enlarges. The pixels are decoded here, so rendering later only reads them.
    Bytes that are not an image, are truncated or claim too many pixels give an
    `ImageProblem` rather than an exception.
    """
    try:
        with PILImage.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                return ImageProblem(
                    f"broken image: {image.width:,}×{image.height:,} pixels is too large"
                )
            orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
            turned = orientation in _QUARTER_TURNS
            original_size = (image.height, image.width) if turned else image.size
            # Shrink before turning upright: for JPEG, thumbnail() decodes at a fraction of
            # the size, which exif_transpose() (a full decode) first would forbid.
            image.thumbnail((max_size[1], max_size[0]) if turned else max_size)
            return Thumbnail(_flatten(ImageOps.exif_transpose(image)), original_size)
    except UnidentifiedImageError:
        return ImageProblem("broken image: not a known image format")
    # Pillow's format plugins fail on malformed input with many exception types
    # (OSError, ValueError, SyntaxError, struct.error, DecompressionBombError, ...).
    except Exception as error:
        return broken(error)


def _flatten(image: PILImage.Image) -> PILImage.Image:
    """`image` as an in-memory RGB image, transparent parts on white as on a page.

    Every renderer then shows the same picture: the half-cell one would just drop alpha,
    leaving the colour under transparent pixels, often black.
    """
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = PILImage.new("RGBA", rgba.size, "white")
        return PILImage.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")
