"""Tables are read record by record as a strict csv.reader reads them: the same cells, the
same lines, the same errors, whatever quotes, line breaks and delimiters the text holds."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmmreview.db.importers.batch import ImportFailure
from lmmreview.db.importers.read import _table_error, table_records

PATH = Path("t.tsv")
Record = tuple[int, int, list[str]] | str  # a record, or the error's text


def as_csv_reads(text: str, delimiter: str) -> list[Record]:
    """What csv.reader over the whole text gives: each record with its first and last line,
    or the error ending it (as read_table words it)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[Record] = []
    while True:
        first = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return records
        except csv.Error as exc:
            return [*records, str(_table_error(PATH, first, reader.line_num, str(exc)))]
        records.append((first, reader.line_num, cells))


def as_read(text: str, delimiter: str) -> list[Record]:
    records: list[Record] = []
    try:
        records.extend(table_records(io.StringIO(text, newline=""), delimiter, PATH))
    except ImportFailure as failure:
        records.append(str(failure))
    return records


PIECES = ["a", "b", " ", "\t", ",", '"', "\n", "\r", "\r\n", "\x00", "é"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=400, derandomize=True, database=None)
@given(text=TEXT, delimiter=st.sampled_from(["\t", ","]))
def test_records_are_those_csv_reads(text: str, delimiter: str) -> None:
    assert as_read(text, delimiter) == as_csv_reads(text, delimiter)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n \n",
        "a\tb\r\nc\td\re\tf\n",
        'a\t"b\nc"\td\ne\tf',  # a quoted cell over two lines, then a plain line
        'a\t"b""c"\n"x"y\tz\n',  # a doubled quote; text after a closing quote is an error
        'a\t"open\nstill open\n',  # a quote never closed
    ],
)
def test_records_of_chosen_tables(text: str) -> None:
    assert as_read(text, "\t") == as_csv_reads(text, "\t")
