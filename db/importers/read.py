"""Careful readers: every failure becomes an ImportFailure naming the file and line or id."""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image

from db.importers.batch import ImportFailure
from db.store import StoredImage

csv.field_size_limit(2**31 - 1)  # base64 images make very long cells


def existing(path: str | Path, what: str = "file") -> Path:
    """The path, if it exists as a `what` ("file" or "folder")."""
    path = Path(path)
    if not path.exists():
        raise ImportFailure(path, f"no such {what}")
    if what == "file" and not path.is_file():
        raise ImportFailure(path, "is a folder, expected a file")
    if what == "folder" and not path.is_dir():
        raise ImportFailure(path, "is a file, expected a folder")
    return path


def read_text(path: Path) -> str:
    """The file as UTF-8 text (a BOM is allowed)."""
    data = existing(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportFailure(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x})", f"line {line}"
        ) from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


class _DuplicateKey(Exception):
    pass


def parse_json(text: str, path: Path, where: str | None = None) -> Any:
    """Parse JSON, refusing duplicate object keys (json.loads would keep the last)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        place = where or f"line {exc.lineno}, column {exc.colno}"
        raise ImportFailure(path, f"malformed JSON ({exc.msg})", place) from None
    except _DuplicateKey as exc:
        raise ImportFailure(path, f"duplicate key {exc.args[0]!r}", where) from None


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), path)


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line."""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        value = parse_json(line, path, f"line {number}")
        if not isinstance(value, dict):
            raise ImportFailure(path, "expected a JSON object", f"line {number}")
        yield number, value


def read_table(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) of a TSV or CSV file (chosen by extension; .tsv is tab-separated).

    Streams the file (tables with base64 images are large). Empty cells become "".
    Raises on a missing required column, a ragged row or text that is not UTF-8.
    """
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    with existing(path).open(encoding="utf-8-sig", newline="") as handle:
        try:
            yield from _table_rows(csv.reader(handle, delimiter=delimiter), path, required)
        except UnicodeDecodeError:
            read_text(path)  # reads it whole to name the line; raises ImportFailure
            raise


def _table_rows(
    reader: Any, path: Path, required: tuple[str, ...]
) -> Iterator[tuple[int, dict[str, str]]]:
    header: list[str] | None = None
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            where = f"line {reader.line_num}"
            raise ImportFailure(path, f"malformed table ({exc})", where) from None
        if header is None:
            header = [name.strip() for name in cells]
            missing = [name for name in required if name not in header]
            if missing:
                columns = ", ".join(map(repr, missing))
                raise ImportFailure(path, f"missing column {columns} (header: {', '.join(header)})")
            continue
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(header):
            raise ImportFailure(
                path,
                f"{len(cells)} cells but the header has {len(header)} columns",
                f"line {reader.line_num}",
            )
        padded = cells + [""] * (len(header) - len(cells))
        yield reader.line_num, dict(zip(header, padded, strict=True))
    if header is None:
        raise ImportFailure(path, "the file is empty")


def image_from_bytes(data: bytes, file: str | Path, where: str) -> StoredImage:
    """Check that `data` is an image Pillow can read; keep its format and size."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            fmt, (width, height) = image.format or "unknown", image.size
            image.verify()
    except Exception as exc:  # Pillow raises many types for broken data
        raise ImportFailure(file, f"not a readable image ({exc})", where) from None
    return StoredImage(hashlib.sha256(data).hexdigest(), data, fmt, width, height)


def image_from_base64(cell: str, file: str | Path, where: str) -> StoredImage:
    try:
        data = base64.b64decode("".join(cell.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImportFailure(file, f"image is not valid base64 ({exc})", where) from None
    return image_from_bytes(data, file, where)


def image_from_file(path: Path, file: str | Path, where: str) -> StoredImage | None:
    """The image at `path`, or None when the file is missing (a warning, not an error)."""
    if not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFailure(path, f"cannot read image ({exc.strerror})", where) from None
    return image_from_bytes(data, path, where)
