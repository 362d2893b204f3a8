"""`lmmreview errata`: the ground-truth errata in force, written to send upstream, or an
errata file (the same formats) imported."""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, OutOpt, given_path
from lmmreview.tui.output import clear_errors, deliver, err, fail, say

if TYPE_CHECKING:
    from lmmreview.engine.errata import Record


class ErrataFormat(StrEnum):
    json = "json"
    csv = "csv"


def errata_command(
    db: DbArg,
    dataset: DatasetsOpt = None,
    format: Annotated[
        ErrataFormat | None,
        typer.Option(
            "--format",
            help="json (a list of objects) or csv (alternatives as a JSON list); when not "
            "given, from the file's name: --out *.csv is csv, else json; --import needs "
            ".csv or .json.",
            show_default=False,
        ),
    ] = None,
    output: OutOpt = None,
    imported: Annotated[
        Path | None,
        typer.Option(
            "--import",
            metavar="FILE",
            help="Import an errata file instead: every row checked first, all or none.",
            parser=given_path,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write the ground-truth errata in force, or import them.

    Each erratum: dataset, sample key, question, published gold, corrected gold,
    alternatives, status (wrong or ambiguous), reason, reviewer and time. An import
    checks every row (the sample must be in DB with the same question and published
    gold); a bad row ends it naming the file and the row, leaving DB as it was.
    Importing the same file again adds nothing.
    """
    from lmmreview.db import Store
    from lmmreview.db.errata import ErrataStore

    if imported is not None:
        if output is not None or dataset:
            raise fail("--import reads a file into DB: --out and --dataset are for writing")
        records = read_records(imported, format or _format_of(imported))
        with clear_errors(db), Store.open(db, create=False) as store:
            added = ErrataStore(store, "").add_records(records)
        say(f"{imported}: {len(records)} errata read, {added} new", console=err)
        return
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        found = ErrataStore(store, "").upstream(dataset or None)
    shown = output is None and sys.stdout.isatty()
    as_csv = output is not None and output.suffix.lower() == ".csv"  # as --import reads it
    given = format or (ErrataFormat.csv if as_csv else ErrataFormat.json)
    deliver(write_records(found, given, shown), output, db)


def write_records(records: list[Record], format: ErrataFormat, shown: bool = False) -> str:
    """The errata file's text; `shown`: for a terminal, where a CSV cell's unsafe code
    points (an escape sequence in a name) show as stand-ins, as `export` shows them (a file
    or a pipe gets them exact, so that an import reads back the same question). A CSV text
    cell a spreadsheet would run as a formula gets a "'" before it, which import drops."""
    from lmmreview.engine.export import json_text, not_a_formula

    rows = [record.fields() for record in records]
    if format == ErrataFormat.json:
        return json_text(rows)  # exact, and safe to print
    from lmmreview.engine.errata import FIELDS
    from lmmreview.engine.visible import visible

    text = io.StringIO()
    writer = csv.DictWriter(text, FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        cells = {**row, "alternatives": json.dumps(row["alternatives"])}
        writer.writerow({k: not_a_formula(visible(v) if shown else v) if isinstance(v, str)
                         else v for k, v in cells.items()})  # fmt: skip
    return text.getvalue()


def read_records(path: Path, format: ErrataFormat) -> list[tuple[str, Record]]:
    """Each row of an errata file, named "FILE row N" (N from 1, the CSV header not
    counted); a file or row that cannot be read ends the command naming it."""
    from lmmreview.engine.errata import BadRecord, record_of

    text = _text_of(path)
    rows = _json_rows(path, text) if format == ErrataFormat.json else _csv_rows(text)
    records = []
    for number, row in enumerate(rows, 1):
        where = f"{path} row {number}"
        if not isinstance(row, dict):
            raise fail(f"{where}: not an object")
        try:
            records.append((where, record_of(row)))
        except BadRecord as exc:
            raise fail(f"{where}: {exc}") from None
    return records


def _text_of(path: Path) -> str:
    """The file's text: line ends as they are (a CSV cell may hold a CR LF); a file that is
    not UTF-8 ends the command naming it."""
    try:
        with clear_errors(), path.open(encoding="utf-8", newline="") as file:
            return file.read()
    except UnicodeDecodeError as exc:
        raise fail(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _json_rows(path: Path, text: str) -> list[object]:
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(f"{path}: not JSON ({exc})") from None
    if not isinstance(rows, list):
        raise fail(f"{path}: an errata file holds a list of objects")
    return rows


def _csv_rows(text: str) -> list[object]:
    from lmmreview.engine.export import csv_name

    # an empty cell is no value: a CSV file cannot tell it from an empty text
    return [
        {
            name: (csv_name(value) if isinstance(value, str) else value) or None
            for name, value in row.items()
        }
        for row in csv.DictReader(io.StringIO(text))
    ]


def _format_of(path: Path) -> ErrataFormat:
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in ErrataFormat.__members__:
        raise fail(f"{path}: give --format json or csv (the extension does not say)")
    return ErrataFormat(suffix)
