"""Base64 images of a table are checked on threads: the same images, the same order and the
same first error as checking each one when its row is read."""

from __future__ import annotations

import base64
import time
import warnings
from pathlib import Path

import pytest
from conftest import MMBENCH_HEADER, png_bytes, write_tsv
from PIL import Image
from test_hardening_import import corrupt_pixels_png

from lmmreview.db.benchmarks.mmbench.files import read_mmbench
from lmmreview.db.importers import read
from lmmreview.db.importers.batch import ImportFailure
from lmmreview.db.store import StoredImage


def mmbench_row(index: int, image: bytes | str, question: str = "Q") -> list[object]:
    """A row; bytes become a base64 cell, text is written as it is (a reference)."""
    cell = base64.b64encode(image).decode() if isinstance(image, bytes) else image
    cells: dict[str, object] = {
        "index": index, "question": question, "hint": "", "A": "a", "B": "b", "C": "", "D": "",
        "answer": "A", "category": "OCR", "image": cell, "source": "", "l2-category": "x",
        "comment": "", "split": "dev",
    }  # fmt: skip
    return [cells[c] for c in MMBENCH_HEADER]


@pytest.fixture
def first_checked_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of the first row's image (line 2) finishes after the others: it waits."""
    check = read._checked_image

    def late(data: bytes, file: str | Path, where: str, name: str) -> StoredImage:
        if where == "line 2":
            time.sleep(0.1)
        return check(data, file, where, name)

    monkeypatch.setattr(read, "_checked_image", late)


NOT_AN_IMAGE = b"just some text, not a picture" * 5


def read_rows(tmp_path: Path, rows: list[list[object]]) -> Path:
    return write_tsv(tmp_path / "d.tsv", MMBENCH_HEADER, rows)


def refusal(data: Path) -> ImportFailure:
    with pytest.raises(ImportFailure) as raised:
        read_mmbench(data)
    return raised.value


@pytest.mark.usefixtures("first_checked_last")
def test_of_two_bad_images_the_earlier_row_is_named(tmp_path: Path) -> None:
    colours = ("red", "green", "blue", "white", "black", "gray")
    good = [mmbench_row(i, png_bytes(c)) for i, c in enumerate(colours, start=3)]
    rows = [mmbench_row(1, corrupt_pixels_png()), *good, mmbench_row(2, NOT_AN_IMAGE)]
    failure = refusal(read_rows(tmp_path, rows))
    assert (failure.where, failure.message.split(" (")[0]) == (
        "line 2",
        "the image is not a readable image",
    )


@pytest.mark.parametrize(
    "later_row",
    [
        mmbench_row(1, png_bytes()),  # index 1 again
        mmbench_row(2, "@@not base64@@" * 10),
        mmbench_row(2, "99"),  # a reference to no row: checked after the last row
        mmbench_row(1000001, png_bytes(), question="another question"),  # after the last row
    ],
)
@pytest.mark.usefixtures("first_checked_last")
def test_a_bad_image_comes_before_any_later_error(tmp_path: Path, later_row: list[object]) -> None:
    failure = refusal(read_rows(tmp_path, [mmbench_row(1, corrupt_pixels_png()), later_row]))
    assert failure.where == "line 2" and "not a readable image" in failure.message


@pytest.mark.parametrize("size", [(40, 30), (100, 100)])  # Pillow's warning, then its error
def test_a_decompression_bomb_among_other_images_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    rows = [mmbench_row(i, png_bytes(size=(8, 6 + i))) for i in range(1, 9)]
    rows.insert(5, mmbench_row(9, png_bytes(size=size)))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        failure = refusal(read_rows(tmp_path, rows))
    assert failure.where == "line 7" and "too large to decode safely" in failure.message
    assert shown == []  # an error, not a warning printed


def test_an_image_with_broken_pixels_among_others_is_refused(tmp_path: Path) -> None:
    rows = [mmbench_row(i, png_bytes(size=(8, 6 + i))) for i in range(1, 9)]
    rows.insert(3, mmbench_row(9, corrupt_pixels_png()))
    failure = refusal(read_rows(tmp_path, rows))
    assert failure.where == "line 5" and "is not a readable image" in failure.message


def test_the_images_are_those_checked_one_by_one_in_order(tmp_path: Path) -> None:
    images = [png_bytes(c) for c in ("red", "green", "red", "blue", "green")]
    rows = [mmbench_row(i, data) for i, data in enumerate(images)]
    rows += [mmbench_row(1_000_000, "0"), mmbench_row(1_000_001, "3")]  # references
    batch = read_mmbench(read_rows(tmp_path, rows))
    one_by_one = [read.image_from_bytes(data, "d.tsv", "") for data in images]
    distinct = [one_by_one[i] for i in (0, 1, 3)]  # red, green, blue, as first met
    assert list(batch.images.items()) == [(image.hash, image) for image in distinct]
    assert batch.sample_images == {
        **{str(i): [image.hash] for i, image in enumerate(one_by_one)},
        "1000000": [one_by_one[0].hash],
        "1000001": [one_by_one[3].hash],
    }


def test_an_image_on_many_rows_is_decoded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[str] = []
    check = read._checked_image

    def counted(data: bytes, file: str | Path, where: str, name: str) -> StoredImage:
        checked.append(where)
        return check(data, file, where, name)

    monkeypatch.setattr(read, "_checked_image", counted)
    rows = [mmbench_row(i, png_bytes("red" if i % 2 else "blue")) for i in range(6)]
    batch = read_mmbench(read_rows(tmp_path, rows))
    assert sorted(checked) == ["line 2", "line 3"] and len(batch.images) == 2


def test_the_progress_line_counts_the_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "PROGRESS_SECONDS", 0.0)
    data = read_rows(tmp_path, [mmbench_row(i, png_bytes(size=(8, 6 + i))) for i in range(3)])
    lines: list[str] = []
    with read.reporting(lines.append):
        read_mmbench(data)
    assert lines == [f"Reading {data}", *(f"Reading {data}: {n} images" for n in (1, 2, 3))]


@pytest.mark.usefixtures("first_checked_last")  # still being checked when the block ends
def test_an_image_added_is_checked_even_if_its_result_is_never_asked_for() -> None:
    refused = pytest.raises(ImportFailure, match="line 2: the image is not an image Pillow can")
    with refused, read.base64_images("d.tsv") as images:
        images.add("1", base64.b64encode(NOT_AN_IMAGE).decode(), "line 2")
