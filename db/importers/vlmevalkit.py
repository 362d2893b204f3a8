"""VLMEvalKit's files as every benchmark's reader meets them (each benchmark reads its own
in db/benchmarks/<name>/vlmevalkit.py): a file name's parts, and the rows of a prediction
or result file (.xlsx, .tsv/.csv, or pandas' .json).

VLMEvalKit names a prediction file `{model}_{dataset}.xlsx` (or .tsv, .json), a judge's
workbook `{model}_{dataset}_{judge}.xlsx` and a result workbook
`{model}_{dataset}_{judge}_result.xlsx`; the model and judge default to those parts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lmmreview.db.importers.batch import (
    ImportFailure,
    ImportRequest,
    check_model_argument,
)
from lmmreview.db.importers.read import (
    parse_json,
    read_table,
    read_text,
    xlsx_rows,
    xlsx_text,
)
from lmmreview.engine.official import name_of_file_part
from lmmreview.engine.scoring import IMPORTED, Judgment

KEY_COLUMNS = ("index", "prediction")
# A multiple-choice result workbook's verdict (1 or 0) and its reason, as mcq_vanilla_eval
# writes them (vlmeval/dataset/utils/multiple_choice.py @ e8e78f0, lines 503-504).
HIT, LOG = "hit", "log"

PROMPT_VERSION = "vlmevalkit"  # the imported judge used VLMEvalKit's own prompt
# pandas' json.dump writes an empty cell as a bare NaN; with VLMEvalKit's indent every value
# ends its line, and a JSON string holds no raw newline, so this finds only such cells.
_NAN_CELL = re.compile(r"(:[ \t]*)NaN(?=,?\r?\n)")

Rows = list[tuple[str, dict[str, str]]]  # (where, cells by column), in file order


@dataclass(frozen=True, slots=True)
class Names:
    """What a VLMEvalKit file name says: the model, the dataset and the judge."""

    model: str
    dataset: str | None
    judge: str | None


def names_of(request: ImportRequest, file: Path, dataset_pattern: str) -> Names:
    """The model and judge (--model, --judge, else from the file name) and the dataset part
    of the name; a name VLMEvalKit did not write needs --model."""
    model, judge = request.text("model"), request.text("judge")
    check_model_argument(model)
    match = re.fullmatch(
        rf"(.+?)_({dataset_pattern})(?:_(.+?))?(?:_result)?", file.stem, re.IGNORECASE
    )
    if match is None and model is None:
        raise ImportFailure(
            file, "the model is not in the file name (MODEL_DATASET.xlsx): give --model"
        )
    if match is None:
        return Names(model or "", None, judge)
    return Names(model or name_of_file_part(match[1]), match[2], judge or match[3])


def _rows(path: Path, flags: tuple[str, ...]) -> Rows:
    """The rows of a prediction file: an .xlsx workbook (its `flags` columns true/false
    values), a .tsv/.csv table, or a .json list of records; every cell as text ("" when
    empty)."""
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return [(f"line {line}", row) for line, row in xlsx_rows(path, KEY_COLUMNS, flags)]
    if suffix == ".json":
        return _json_rows(path)
    return [(f"line {line}", row) for line, row in read_table(path, KEY_COLUMNS)]


def _json_rows(path: Path) -> Rows:
    records = parse_json(_NAN_CELL.sub(r"\1null", read_text(path)), path)
    if not isinstance(records, list):
        raise ImportFailure(path, "expected a JSON list of records (one per row)")
    rows: Rows = []
    for number, record in enumerate(records, start=1):
        where = f"record {number}"
        if not isinstance(record, dict):
            raise ImportFailure(path, "expected an object with index and prediction", where)
        missing = [name for name in KEY_COLUMNS if name not in record]
        if missing:
            raise ImportFailure(path, f"missing field {missing[0]!r}", where)
        if rows:  # a table: every record has the first one's columns, and only those
            _same_columns(record, rows[0][1], path, where)
        if any(isinstance(v, dict | list) for v in record.values()):
            raise ImportFailure(path, "a cell holds a list or an object, not a value", where)
        rows.append((where, {name: xlsx_text(value) for name, value in record.items()}))
    return rows


def _same_columns(record: dict[str, object], first: dict[str, str], path: Path, where: str) -> None:
    """Refuse a record whose fields differ from the first's: the columns are the first's."""
    missing = [name for name in first if name not in record]
    extra = [name for name in record if name not in first]
    if missing or extra:
        what = f"missing field {missing[0]!r}" if missing else f"field {extra[0]!r}"
        other = "has" if missing else "lacks"
        raise ImportFailure(
            path, f"{what}, which record 1 {other} (every record needs the same fields)", where
        )


def read_rows(path: Path, flags: tuple[str, ...] = ()) -> Rows:
    rows = _rows(path, flags)
    if not rows:
        raise ImportFailure(path, "holds no rows")
    return rows


def has(rows: Rows, *columns: str) -> bool:
    return all(name in rows[0][1] for name in columns)


def require(rows: Rows, file: Path, columns: tuple[str, ...], why: str) -> None:
    missing = [name for name in columns if name not in rows[0][1]]
    if missing:
        raise ImportFailure(file, f"missing column {missing[0]!r} ({why})")


def refuse_repeated(indices: Iterable[tuple[str, str]], file: Path) -> None:
    """Refuse an index met twice; `indices` are (index, where), in file order."""
    seen: dict[str, str] = {}
    for index, where in indices:
        if index in seen:
            raise ImportFailure(file, f"duplicate index {index} (also at {seen[index]})", where)
        seen[index] = where


def unit_number(cell: str, column: str, file: Path, where: str) -> float:
    """A number from 0 to 1 in a score column."""
    try:
        value = float(cell)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ImportFailure(file, f"{column} {cell[:40]!r} is not a number from 0 to 1", where)
    return value


def hit_judgment(row: dict[str, str], judge: str, file: Path, where: str) -> Judgment:
    """VLMEvalKit's verdict on a row of a multiple-choice result workbook, its log as the
    reply."""
    return Judgment(
        run=0,
        score=unit_number(row[HIT], HIT, file, where),
        method=IMPORTED,
        kind=IMPORTED,
        judge_model=judge,
        prompt_version=PROMPT_VERSION,
        reply=row.get(LOG) or f"hit {row[HIT]}",
        source=str(file),
    )


def literal(cell: str, column: str, file: Path, where: str) -> object:
    """A cell's Python literal (literal_eval runs no code, where VLMEvalKit evaluates it)."""
    try:
        return ast.literal_eval(cell.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ImportFailure(file, f"{column} {cell[:60]!r} is no Python literal", where) from None
