"""Whole columns read as one joined text each, and cut apart again.

A million rows fetched one tuple at a time cost about a second in Python; SQLite joins a
column into one text (`group_concat`) about as fast as it scans it, and numpy or
`str.split` cut that text in C.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]

# ASCII's unit and record separators, which benchmark text does not hold; a value that
# does is read again by length, exactly (see `_text_column`).
SEPARATOR, NULL = "\x1f", "\x1e"


def parsed(text: str | None, dtype: type) -> np.ndarray:
    """A group_concat of numbers as an array (empty for no rows), parsed in C."""
    if not text:
        return np.zeros(0, dtype)
    values: np.ndarray = np.fromstring(text, dtype=dtype, sep=",")
    if len(values) != text.count(",") + 1:  # numpy stops at what it cannot read
        raise ValueError(f"not a list of numbers: {text[:80]!r}")
    return values


def ints(text: str | None) -> Ints:
    return parsed(text, np.int64)


def cut(lengths: Ints, joined: str | None) -> list[str | None]:
    """Texts joined with no separator, cut by their lengths (any character may be in
    them); a negative length stands for NULL."""
    text = joined or ""
    if len(text) == len(lengths) and np.all(lengths == 1):  # letters, the usual choices
        return list(text)
    ends = np.cumsum(np.maximum(lengths, 0)).tolist()
    return [
        None if size < 0 else text[end - size : end]
        for size, end in zip(lengths.tolist(), ends, strict=True)
    ]


def read_text_columns(
    conn: sqlite3.Connection,
    columns: Sequence[str],
    rows: str,
    parameters: Sequence[object],
    once: Collection[str] = (),
) -> list[list[str | None]]:
    """Text columns of the rows the query `rows` gives (a FROM clause and what follows),
    one list each, joined with SEPARATOR and NULL as NULL; the equal values of a column
    in `once` (one of few values) held as one."""
    parts = ", ".join(
        f"group_concat(COALESCE({c}, '{NULL}'), '{SEPARATOR}'), max({c} = '{NULL}')"
        for c in columns
    )
    found = list(conn.execute(f"SELECT count(*), {parts} {rows}", parameters).fetchone())
    count, read = found[0], []
    for at, column in enumerate(columns):
        # each joined text let go once cut, and each column held once as it is cut: a
        # million-row read does not hold every column twice at its peak
        joined, ambiguous, found[1 + 2 * at] = found[1 + 2 * at], found[2 + 2 * at], None
        values: list[str | None] = joined.split(SEPARATOR) if count else []
        if len(values) != count or ambiguous:
            values = _text_column(conn, column, rows, parameters)
        elif values.count(NULL) == count:
            values = [None] * count
        elif NULL in joined:
            values = [None if v == NULL else v for v in values]
        if column in once:
            held: dict[str | None, str | None] = {}
            values = list(map(held.setdefault, values, values))
        read.append(values)
    return read


def _text_column(
    conn: sqlite3.Connection, column: str, rows: str, parameters: Sequence[object]
) -> list[str | None]:
    """One text column cut by each value's length, whatever characters it holds."""
    lengths, joined = conn.execute(
        f"SELECT group_concat(COALESCE(length({column}), -1)), group_concat({column}, '') {rows}",
        parameters,
    ).fetchone()
    return cut(ints(lengths), joined)


def in_id_order(
    ids: list[str | None], columns: list[list[str | None]]
) -> tuple[Ints, list[list[str | None]]]:
    """The ids (read as text) as numbers in order, and the columns with their rows in the
    same order (a scan gives them so; SQLite promises no order)."""
    numbers = np.array(list(map(int, cast(list[str], ids))), np.int64)
    if np.all(numbers[1:] > numbers[:-1]):
        return numbers, columns
    order = np.argsort(numbers, kind="stable")
    return numbers[order], [[column[i] for i in order.tolist()] for column in columns]
