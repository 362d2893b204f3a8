"""What a paper table shows of the breakdown tables: the models in the order a user lists
them, under their display names, and without the rows and columns that hold nothing (an
unscored model, a column no answer counts in)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from lmmreview.engine.tables import Row, Table


@dataclass(frozen=True, slots=True)
class Named:
    """Tables with display names, and what of the names could not be used."""

    tables: list[Table]
    unknown: list[str]  # listed models no table has
    clashes: list[str]  # listed models kept under their own name: another row has the display


def model_of(label: str, names: Mapping[str, str]) -> str | None:
    """The listed model a row label belongs to: the label itself, or the longest listed
    name the label continues with its split, "model (split)" (engine.layouts.split_row)."""
    if label in names:
        return label
    found = [m for m in names if label.startswith(f"{m} (") and label.endswith(")")]
    return max(found, key=len, default=None)


def with_names(tables: list[Table], names: Mapping[str, str]) -> Named:
    """Each table's rows in the order `names` lists their models (the others after them,
    as they were), listed models under their display names (`names`: stored -> display).
    A display name that another row of a table already shows is not used there."""
    if not names:
        return Named(tables, [], [])
    order = {model: place for place, model in enumerate(names)}
    seen: set[str] = set()
    clashes: set[str] = set()
    named = []
    for table in tables:
        rows = sorted(
            table.rows, key=lambda r: order.get(model_of(r.label, names) or "", len(order))
        )
        labels = {r.label for r in rows}
        renamed = []
        for row in rows:
            model = model_of(row.label, names)
            if model is None:
                renamed.append(row)
                continue
            seen.add(model)
            shown = names[model] + row.label[len(model) :]
            if shown != row.label and shown in labels:
                clashes.add(model)
                shown = row.label
            labels.add(shown)
            renamed.append(Row(shown, row.cells, stored=row.label))
        named.append(replace(table, rows=renamed))
    unknown = [m for m in names if m not in seen]
    return Named(named, unknown, sorted(clashes))


def for_readers(tables: list[Table], names: Mapping[str, str], keep_empty: bool = False) -> Named:
    """The tables people read (the terminal, HTML, Markdown, LaTeX): `with_names`, then,
    unless `keep_empty`, `without_empty`."""
    found = with_names(tables, names)
    return found if keep_empty else replace(found, tables=without_empty(found.tables))


def without_empty(tables: list[Table]) -> list[Table]:
    """Each table without its unscored rows (every cell empty) and, where rows are left,
    its columns no unit counts in (N = 0); what was left out is kept on the table."""
    return [_without_empty(t) for t in tables]


def _without_empty(table: Table) -> Table:
    keys = [c.key for c in table.columns]
    empty = [r for r in table.rows if _unscored(r, keys)]
    rows = [r for r in table.rows if not _unscored(r, keys)]
    counted = {k for r in rows for k, c in r.cells.items() if c.n}
    dropped = [c for c in table.columns if rows and c.key not in counted]
    if not empty and not dropped:
        return table
    return replace(
        table,
        rows=rows,
        columns=[c for c in table.columns if c not in dropped],
        hidden_rows=tuple(empty),
        hidden_columns=tuple(dropped),
    )


def _unscored(row: Row, keys: list[str]) -> bool:
    """Whether every cell of the row is empty (shown as a dash)."""
    return all((c := row.cells.get(k)) is None or c.value is None for k in keys)
