"""What the benchmarks' official files have in common: model and dataset names as parts of
file names, and text as a workbook cell holds it. Each benchmark's own formats live in
its own package (engine/benchmarks/<name>/official.py) and are declared as its export
formats."""

from __future__ import annotations

import re

# What a file name must not hold: characters that would write control sequences or reverse
# the text when a terminal or a file manager shows it (cut to "_").
_NOT_IN_FILE_NAMES = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Folder separators, and "%" itself, are written as percent escapes, which the importers
# read back: "org/model-7b" round-trips as org%2Fmodel-7b_gpt-4-grade-1runs.json.
_ESCAPES = {"%": "%25", "/": "%2F", "\\": "%5C"}
_ESCAPED = re.compile("%(25|2F|5C)", re.IGNORECASE)


def file_part(name: str) -> str:
    """A model or dataset name as part of a file name: no folder separator, no "..", no
    control or direction character, so every file lands in the folder given and lists
    as what it is."""
    part = _NOT_IN_FILE_NAMES.sub("_", "".join(_ESCAPES.get(c, c) for c in name))
    return "_" if part in ("", ".", "..") else part


def name_of_file_part(part: str) -> str:
    """The name a file name's part stands for: file_part's percent escapes read back."""
    return _ESCAPED.sub(lambda escape: chr(int(escape[1], 16)), part)


# What a workbook cell cannot hold as it is: the C0 control characters but tab and newline
# (XML has none of them, and reads a carriage return back as a newline) and the code
# points XML forbids; and a "_" that starts what reads as such an escape ("_x0041_").
_WORKBOOK_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)"
)


def workbook_text(text: str) -> str:
    """Text as a workbook cell holds it exactly: what it cannot hold in OOXML's own escape,
    ``_xHHHH_`` (Excel reads it back as the character; "_" itself is ``_x005F_``)."""
    return _WORKBOOK_UNSAFE.sub(lambda m: f"_x{ord(m.group()):04X}_", text)


_WORKBOOK_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def from_workbook_text(text: str) -> str:
    """A workbook cell's text as Excel shows it: each ``_xHHHH_`` read back as its
    character, left to right (so ``_x005F_x0041_`` is the literal ``_x0041_``)."""
    return _WORKBOOK_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
