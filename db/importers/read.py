"""Careful readers: every failure becomes an ImportFailure naming the file and line or id."""

from __future__ import annotations

import base64
import binascii
import csv
import datetime
import hashlib
import io
import json
import math
import os
import stat
import time
import warnings
import zipfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import ModuleType
from typing import Any

from PIL import Image, UnidentifiedImageError

from lmmreview.db.collector import collector_paused
from lmmreview.db.importers.batch import ImportFailure, listed
from lmmreview.db.optional import INSTALL_OPENPYXL
from lmmreview.db.store import StoredImage
from lmmreview.engine.official import from_workbook_text

csv.field_size_limit(2**31 - 1)  # base64 images make very long cells

MAX_IMAGE_BYTES = 64 * 2**20  # far above any benchmark image; refused before it is read
# A workbook is zipped XML, so its size on disk says little about the work of reading it:
# what it unpacks to is bounded (MiB, raised through this variable) and so are the cells its
# sheet spans (one per 8 bytes of that bound: empty rows and cells cost time too).
XLSX_LIMIT_VARIABLE = "LMMREVIEW_XLSX_MAX_MB"
XLSX_DEFAULT_MB = 128
_BYTES_PER_CELL = 8
PROGRESS_SECONDS = 0.1  # how often, at most, the readers say how far they are


@dataclass
class _Progress:
    """How far the readers are: the file being read, the images (or rows) read so far."""

    report: Callable[[str], None]
    file: str | Path = ""
    count: int = 0  # of `unit`, read for this file
    unit: str = ""
    last: float = float("-inf")  # when it was last reported

    def tell(self, file: str | Path, unit: str | None = None) -> None:
        """Report a new file at once, one more of `unit` ("images", "rows") at most every
        PROGRESS_SECONDS."""
        now, new_file = time.monotonic(), file != self.file
        self.file, self.count = file, (0 if new_file else self.count) + (unit is not None)
        self.unit = unit or self.unit
        if new_file or now - self.last >= PROGRESS_SECONDS:
            self.last = now
            self.report(f"Reading {file}" + (f": {self.count:,} {self.unit}" if self.count else ""))


_PROGRESS: ContextVar[_Progress | None] = ContextVar("import_progress", default=None)


@contextmanager
def reporting(report: Callable[[str], None]) -> Iterator[None]:
    """Within the block, the readers tell `report` which file they read and how many
    images (or workbook rows) they have read ("Reading mm-vet.json: 57 images"), for a
    progress line."""
    token = _PROGRESS.set(_Progress(report))
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def _tell(file: str | Path, unit: str | None = None) -> None:
    progress = _PROGRESS.get()
    if progress is not None:
        progress.tell(file, unit)


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


def read_text(path: Path, expected: str = "UTF-8 text") -> str:
    """The file as UTF-8 text (a BOM is allowed); `expected` names what it should be."""
    _tell(path)
    data = existing(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data.startswith(b"PK\x03\x04"):  # the zip signature .xlsx workbooks start with
            raise ImportFailure(
                path, f"looks like an Excel workbook (a zip file), not {expected}"
            ) from None
        if b"\x00" in data[:8192]:  # text holds no NUL bytes; binary formats do
            raise ImportFailure(path, f"a binary file, not {expected}") from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportFailure(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x})", f"line {line}"
        ) from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):  # a key given twice: name the first repeat
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


class _DuplicateKey(Exception):
    pass


class _NonFinite(Exception):
    """A NaN or an infinite number: parse_json's careful path says where."""


def _finite(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NonFinite
    return value


def _no_constant(token: str) -> float:
    raise _NonFinite  # NaN, Infinity, -Infinity


# What parse_json takes, in one decoder made once (json.loads with options makes one per
# call): it stops at the first non-finite number, for the careful path to say where.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicate_keys,
    parse_float=_finite,
    parse_constant=_no_constant,
    strict=False,
)


def parse_json(text: str, path: Path, where: str | None = None) -> Any:
    """Parse JSON, refusing duplicate object keys (json.loads would keep the last), NaN and
    infinite numbers (they would be stored as "nan" and "inf"), integers too long to
    convert and nesting too deep to parse. Raw control characters inside strings are
    taken as they are."""
    try:
        # a collection deep in a nested document runs finalizers with no stack left
        with collector_paused():
            try:
                return _DECODER.decode(text)
            except _NonFinite:
                return _with_non_finite(text, path, where)
    except json.JSONDecodeError as exc:
        place = where or f"line {exc.lineno}, column {exc.colno}"
        raise ImportFailure(path, f"malformed JSON ({exc.msg})", place) from None
    except _DuplicateKey as exc:
        raise ImportFailure(path, f"duplicate key {exc.args[0]!r}", where) from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise ImportFailure(path, "a number with too many digits (over 4,300)", where) from None
    except RecursionError:
        raise ImportFailure(path, "JSON nested too deeply", where) from None


def _with_non_finite(text: str, path: Path, where: str | None) -> Any:
    """Parse text holding a non-finite number to the end (a malformed part or a repeated
    key later on is reported first, as it always was), then refuse it, saying where."""
    non_finite: list[str] = []

    def number(token: str) -> float:
        value = float(token)
        if not math.isfinite(value):
            non_finite.append(token)
        return value

    value = json.loads(
        text,
        object_pairs_hook=_no_duplicate_keys,
        parse_float=number,
        parse_constant=number,
        strict=False,
    )
    at = _non_finite(value)
    place = ", ".join(filter(None, (where, at and f"at {at}")))
    message = f"{non_finite[0]} is not a number lmmreview takes (NaN or infinite)"
    raise ImportFailure(path, message, place)


def _non_finite(document: Any) -> str | None:
    """Where the first NaN or infinite number in a parsed document is (keys joined by >)."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        place, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return place or "the top level"
        if isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value, start=1)
            children = [(f"{place} > {key}" if place else str(key), item) for key, item in items]
            stack.extend(reversed(children))  # depth first, in document order
    return None


def text_field(row: dict[str, Any], name: str, path: Path, where: str) -> str:
    """A record's text field that must be there (it may be empty)."""
    value = row.get(name)
    if not isinstance(value, str):
        raise ImportFailure(path, f"missing or non-text field {name!r}", where)
    return value


def nonblank_text_field(row: dict[str, Any], name: str, path: Path, where: str) -> str:
    """A record's text field that must be there and not be empty."""
    value = row.get(name)
    if not isinstance(value, str) or not value:
        raise ImportFailure(path, f"missing or non-text field {name!r}", where)
    return value


def optional_text_field(row: dict[str, Any], name: str, path: Path, where: str) -> str | None:
    """A record's text field that may be missing or null (None then)."""
    value = row.get(name)
    if value is not None and not isinstance(value, str):
        raise ImportFailure(path, f"{name} must be text or null, not {value!r}", where)
    return value


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), path)


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line.

    Lines end at "\\n" (or "\\r\\n") only: U+2028, U+0085 and the other separators
    str.splitlines knows may stand raw inside a JSON string.
    """
    _tell(path)
    # Streamed: a million lines are never all held at once.
    with existing(path).open(encoding="utf-8-sig", newline="\n") as handle, collector_paused():
        try:
            for number, line in enumerate(handle, start=1):
                line = line.removesuffix("\n").removesuffix("\r")
                if not line.strip():
                    continue
                value = parse_json(line, path, f"line {number}")
                if not isinstance(value, dict):
                    raise ImportFailure(path, "expected a JSON object", f"line {number}")
                yield number, value
        except UnicodeDecodeError:
            read_text(path)  # reads it whole to say why (and on which line); raises ImportFailure
            raise


def read_table(
    path: Path, required: tuple[str, ...], expected: str = "a text table (.tsv or .csv)"
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) of a TSV or CSV file (chosen by extension; .tsv is tab-separated).

    Streams the file (tables with base64 images are large). Empty cells become "".
    Raises on a missing or repeated column, a ragged row or text that is not UTF-8 (a
    workbook or binary file is named as such, and as not being `expected`).
    """
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    _tell(path)
    with existing(path).open(encoding="utf-8-sig", newline="") as handle:
        try:
            yield from _table_rows(table_records(handle, delimiter, path), path, required)
        except UnicodeDecodeError:
            read_text(path, expected)  # reads it whole to say why; raises ImportFailure
            raise


def table_records(
    lines: Iterable[str], delimiter: str, path: Path
) -> Iterator[tuple[int, int, list[str]]]:
    """(first line, last line, cells) of each record of a table's lines (split as
    open(newline="") splits them), as a strict csv.reader reads them, but quicker: only a
    quoted cell spans lines, so a line with no quote character is a whole record, which
    splitting at the delimiter reads as csv does (cells of 40 KB are scanned once, not
    character by character). csv reads the others, from their first line on."""
    lines, last = iter(lines), 0
    for line in lines:
        first = last = last + 1
        if '"' not in line:
            text = line.removesuffix("\n").removesuffix("\r")
            yield first, last, text.split(delimiter) if text else []
            continue
        reader = csv.reader(chain((line,), lines), delimiter=delimiter, strict=True)
        try:
            cells = next(reader)
        except csv.Error as exc:
            raise _table_error(path, first, first + reader.line_num - 1, str(exc)) from None
        last = first + reader.line_num - 1
        yield first, last, cells


def _table_rows(
    records: Iterator[tuple[int, int, list[str]]], path: Path, required: tuple[str, ...]
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows by the line they start on (a quoted cell may span lines)."""
    header: list[str] | None = None
    for start, end, cells in records:
        if header is None:
            header = [name.strip() for name in cells]
            check_header(header, path, required)
            continue
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):  # a cell missing or extra: columns would shift
            problem = f"{len(cells)} cells but the header has {len(header)} columns"
            raise _table_error(path, start, end, problem)
        yield start, dict(zip(header, cells, strict=True))
    if header is None:
        raise ImportFailure(path, "the file is empty")


def check_header(header: list[str], path: Path, required: tuple[str, ...]) -> None:
    """Refuse a header without a required column, or naming a column twice (each row's
    later cell would silently win). Unnamed columns are never read, so they may repeat."""
    missing = [name for name in required if name not in header]
    if missing:
        columns = ", ".join(map(repr, missing))
        raise ImportFailure(path, f"missing column {columns} (header: {', '.join(header)})")
    named = [name for name in header if name]
    twice = next((name for name in named if named.count(name) > 1), None)
    if twice is not None:
        raise ImportFailure(path, f"column {twice!r} appears twice in the header", "line 1")


def _table_error(path: Path, start: int, end: int, problem: str) -> ImportFailure:
    """A bad row, named by the line it starts on; a row that reaches the end of the file
    inside quotes, or runs over several lines, points at a quote that is not closed."""
    if problem == "unexpected end of data":
        message = (
            f"a quoted cell starting on this line is not closed (it runs to line {end}, the end)"
        )
    elif end > start:
        message = f"{problem}; the row runs from here to line {end}: is a quote not closed?"
    else:
        message = f"malformed table ({problem})"
    return ImportFailure(path, message, f"line {start}")


def xlsx_rows(
    path: Path, required: tuple[str, ...], flags: tuple[str, ...] = ()
) -> list[tuple[int, dict[str, str]]]:
    """(row number, cells by column) of an .xlsx workbook with the `required` columns (see
    workbook_rows); openpyxl is an optional extra, and its absence is one clear line."""
    try:
        import openpyxl
    except ImportError:
        raise ImportFailure(
            path, f"reading .xlsx needs openpyxl: {INSTALL_OPENPYXL}; or save it as .tsv"
        ) from None
    if not path.is_file():
        raise ImportFailure(path, "no such file")
    return workbook_rows(openpyxl, path, required, flags)


def workbook_rows(
    openpyxl: ModuleType, path: Path, required: tuple[str, ...], flags: tuple[str, ...] = ()
) -> list[tuple[int, dict[str, str]]]:
    """(row number, cells by column) of the first sheet of an .xlsx workbook, empty rows left
    out. A cell reads as the text written in it: a formula's own text ("=A", as pandas saves
    an answer starting with "="), never a result cached or left out by the program that wrote
    it. The `flags` columns are the tool's own true/false values (True or False). A workbook
    beyond the size bound is refused before it is read."""
    _tell(path)
    limit = _xlsx_limit()
    _check_unpacked_size(path, limit)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    except Exception as exc:  # openpyxl raises zipfile, KeyError, InvalidFileException...
        raise ImportFailure(path, f"not a readable .xlsx workbook ({exc})") from None
    try:
        return _sheet_rows(book.worksheets[0], path, required, limit, flags)
    except ImportFailure:
        raise
    except Exception as exc:  # broken XML inside the zip, a workbook without a worksheet...
        raise ImportFailure(path, f"not a readable .xlsx workbook ({exc})") from None
    finally:
        book.close()


def _sheet_rows(
    sheet: Any, path: Path, required: tuple[str, ...], limit: int, flags: tuple[str, ...]
) -> list[tuple[int, dict[str, str]]]:
    """The rows below the header, each cut or padded to the header's width."""
    max_cells = limit // _BYTES_PER_CELL
    sheet.reset_dimensions()  # the size a sheet states is not checked: read the cells it has
    header = [
        xlsx_text(cell).strip() for cell in next(sheet.iter_rows(max_row=1, values_only=True), ())
    ]
    check_header(header, path, required)
    rows = []
    for number, values in enumerate(
        sheet.iter_rows(min_row=2, max_col=len(header), values_only=True), start=2
    ):
        if number * len(header) > max_cells:
            raise ImportFailure(
                path,
                f"the sheet reaches row {number:,} across {len(header):,} columns, over "
                f"{max_cells:,} cells, the limit for .xlsx files: {_beyond_limit(limit)}",
            )
        _tell(path, "rows")  # a large workbook takes seconds: say how far it is
        if any(value not in (None, "") for value in values):
            where = f"sheet {sheet.title!r}, row {number}"
            rows.append((number, _row_cells(header, values, path, where, flags)))
    return rows


def _row_cells(
    header: list[str], values: tuple[object, ...], path: Path, where: str, flags: tuple[str, ...]
) -> dict[str, str]:
    """A row's cells as text. A true/false (outside the `flags` columns) or date cell is
    refused: Excel typed it (a model's "TRUE" or "1/2"), and its text is not what the cell
    held."""
    for name, value in zip(header, values, strict=True):
        if isinstance(value, bool) and name in flags:
            continue
        if isinstance(value, bool | datetime.date | datetime.time | datetime.timedelta):
            kind = "a true/false" if isinstance(value, bool) else "a date or time"
            raise ImportFailure(
                path,
                f"{kind} cell ({value}), not text the model wrote: save the column as text",
                f"{where}, column {name!r}",
            )
    return {name: _cell_text(value) for name, value in zip(header, values, strict=True)}


def _xlsx_limit() -> int:
    """The bound on what a workbook unpacks to, in bytes."""
    text = os.environ.get(XLSX_LIMIT_VARIABLE, str(XLSX_DEFAULT_MB))
    if not (text.isascii() and text.strip().isdigit()) or int(text) < 1:
        raise ImportFailure(XLSX_LIMIT_VARIABLE, f"{text[:40]!r} is not a whole number of MiB")
    return int(text) * 2**20


def _check_unpacked_size(path: Path, limit: int) -> None:
    """Refuse a workbook whose parts unpack to more than `limit` bytes, by the sizes its zip
    directory states (unpacking stops there, so a part cannot grow beyond them)."""
    try:
        with zipfile.ZipFile(path) as archive:
            size = sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # openpyxl says what is wrong with it
    if size > limit:
        raise ImportFailure(
            path,
            f"unpacks to {size / 2**20:,.0f} MiB, over the {limit // 2**20:,} MiB limit for "
            f".xlsx files: {_beyond_limit(limit)}",
        )


def _beyond_limit(limit: int) -> str:
    return (
        "save it as .tsv (read as a stream, with no bound), or raise the bound: "
        f"{XLSX_LIMIT_VARIABLE}=N (MiB; now {limit // 2**20})"
    )


def _cell_text(value: object) -> str:
    """A workbook cell's text, its OOXML escapes read back (as Excel shows it, and as
    lmmreview's own workbooks write what a cell cannot hold)."""
    return from_workbook_text(xlsx_text(value))


def xlsx_text(value: object) -> str:
    """A workbook cell (or a JSON value of VLMEvalKit's records) as text: "" when empty, a
    whole float without ".0" (pandas writes ints of a column with gaps as floats)."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    formula = getattr(value, "text", None)  # openpyxl's ArrayFormula: the text is inside
    return formula if isinstance(formula, str) else str(value)


def image_from_bytes(
    data: bytes, file: str | Path, where: str, name: str = "the image"
) -> StoredImage:
    """Check that `data` is an image Pillow can decode (every pixel, not only the header);
    keep its format and size. Images above Pillow's decompression-bomb limit are refused.
    Failures name the data `file`, the row (`where`) and the image (`name`)."""
    _tell(file, "images")
    with _bombs_refused():
        return _checked_image(data, file, where, name)


@contextmanager
def _bombs_refused() -> Iterator[None]:
    """Within the block, Pillow's warning of a possible decompression bomb is an error.
    The filters are the process's, not the thread's: image checks on other threads are
    covered only while they run inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        yield


def _checked_image(data: bytes, file: str | Path, where: str, name: str) -> StoredImage:
    """image_from_bytes's check, safe on any thread; inside _bombs_refused."""
    limit = Image.MAX_IMAGE_PIXELS or 0
    try:
        with Image.open(io.BytesIO(data)) as image:
            fmt, (width, height) = image.format or "unknown", image.size
            image.load()  # verify() alone reads no pixels
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        message = f"{name} is too large to decode safely (over {limit:,} pixels); make it smaller"
        raise ImportFailure(file, message, where) from None
    except UnidentifiedImageError:  # its text holds the repr of our BytesIO
        message = f"{name} is not an image Pillow can read (no image format it knows)"
        raise ImportFailure(file, message, where) from None
    except Exception as exc:  # Pillow raises many types for broken data
        raise ImportFailure(file, f"{name} is not a readable image ({exc})", where) from None
    return StoredImage(hashlib.sha256(data).hexdigest(), data, fmt, width, height)


def _base64_bytes(cell: str, file: str | Path, where: str) -> bytes:
    """The bytes of a base64 image cell (line breaks and spaces inside it allowed)."""
    if len(cell) * 3 // 4 > MAX_IMAGE_BYTES:
        raise ImportFailure(file, f"the image {_too_big(len(cell) * 3 // 4)}", where)
    try:
        return base64.b64decode("".join(cell.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImportFailure(file, f"image is not valid base64 ({exc})", where) from None


# Pillow decodes without holding the GIL, so threads check images side by side while the
# reader parses the next rows. A few checks waiting ahead keep every thread busy.
_CHECK_THREADS = min(4, os.cpu_count() or 1)
_CHECKS_AHEAD = 64


class Base64Images:
    """The base64 images of one table, checked as image_from_bytes checks them but on worker
    threads, and given back in the order they were added. Made by `base64_images`."""

    def __init__(self, file: str | Path, pool: ThreadPoolExecutor) -> None:
        self.file, self._pool = file, pool
        self._checks: dict[bytes, Future[StoredImage]] = {}  # by the image's bytes
        self._waiting: deque[tuple[str, Future[StoredImage]]] = deque()
        self._checked: list[tuple[str, StoredImage]] = []

    def add(self, key: str, cell: str, where: str) -> None:
        """Check the image in `cell`, row `where`; an image met before is not decoded again."""
        data = _base64_bytes(cell, self.file, where)
        check = self._checks.get(data)
        if check is None:
            check = self._pool.submit(_checked_image, data, self.file, where, "the image")
            self._checks[data] = check
        self._waiting.append((key, check))
        while self._waiting and (len(self._waiting) > _CHECKS_AHEAD or self._waiting[0][1].done()):
            self._take_oldest()  # a bad image stops the import as soon as it is found

    def checked(self) -> list[tuple[str, StoredImage]]:
        """(key, image) of every image added, in order; the first bad one raises."""
        while self._waiting:
            self._take_oldest()
        return self._checked

    def _take_oldest(self) -> None:
        key, check = self._waiting.popleft()
        try:
            self._checked.append((key, check.result()))
        except ImportFailure:
            self._waiting.clear()  # later rows' failures must not replace this one
            raise
        _tell(self.file, "images")


@contextmanager
def base64_images(file: str | Path) -> Iterator[Base64Images]:
    """Base64 images of `file`, checked on threads while the block reads the next rows.

    Errors keep file order: when the block fails on a row (ImportFailure), a bad image on
    an earlier row is the one raised, as if every image had been checked as its row was read.
    """
    pool = ThreadPoolExecutor(_CHECK_THREADS, thread_name_prefix="image-check")
    images = Base64Images(file, pool)
    with _bombs_refused():  # until every thread has stopped
        try:
            yield images
            images.checked()  # none goes unchecked, even if the block did not ask for them
        except ImportFailure:
            images.checked()  # raises an earlier row's bad image, which comes first
            raise
        finally:
            pool.shutdown(cancel_futures=True)


def image_from_file(path: Path, file: str | Path, where: str) -> StoredImage | None:
    """The image at `path`, named by the data `file` and row `where`; None when nothing is
    there (a warning, not an error).

    Something that is there but is no image file (a folder, a FIFO, a link to nothing,
    a file over MAX_IMAGE_BYTES) is refused, by what it is, before it is read.
    """
    name = f"image {path}"

    def refused(problem: str) -> ImportFailure:
        return ImportFailure(file, f"{name}: {problem}", where)

    try:
        info = path.stat()
    except ValueError as exc:  # a NUL, or a lone surrogate no file name can hold
        message = f"image path {str(path)!r} is not a possible file name ({exc})"
        raise ImportFailure(file, message, where) from None
    except (FileNotFoundError, NotADirectoryError):
        if path.is_symlink():
            raise refused(f"a symbolic link to {os.readlink(path)}, which does not exist") from None
        return None
    except OSError as exc:
        raise refused(f"cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise refused(f"is {_file_kind(info.st_mode)}, not an image file")
    if info.st_size > MAX_IMAGE_BYTES:
        raise refused(_too_big(info.st_size))
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)  # it may have grown since stat
    except OSError as exc:
        raise refused(f"cannot be read ({exc.strerror})") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise refused(_too_big(len(data)))
    return image_from_bytes(data, file, where, name)


def _too_big(size: int) -> str:
    return f"is {size / 2**20:,.0f} MiB, over the {MAX_IMAGE_BYTES // 2**20} MiB limit"


def _file_kind(mode: int) -> str:
    """What a path that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def outside(path: Path, folder: Path) -> bool:
    """Whether `path` (after `..`, an absolute path or symbolic links) leaves `folder`."""
    return not path.resolve().is_relative_to(folder.resolve())


@dataclass(slots=True)
class ImageFiles:
    """Reads the image files a data file names, relative to `folder`, and keeps what the
    user should hear about: images that are missing, and paths that leave the folder."""

    folder: Path
    missing: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def read(self, name: str, file: str | Path, where: str) -> StoredImage | None:
        """The image `name` (relative to the folder), or None when it is missing."""
        path = self.folder / name
        image = image_from_file(path, file, where)
        if image is None:
            self.missing.append(name)
        elif outside(path, self.folder):
            self.outside.append(name)
        return image

    def warnings(self) -> list[str]:
        """One line for the missing images, one for those outside the folder."""
        lines = []
        if self.missing:
            lines.append(
                f"{self.folder}: {len(self.missing)} image(s) missing: {listed(self.missing)}"
            )
        if self.outside:
            lines.append(
                f"{len(self.outside)} image path(s) lead outside {self.folder}, read anyway: "
                f"{listed(self.outside)}"
            )
        return lines
