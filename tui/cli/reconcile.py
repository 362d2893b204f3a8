"""`lmmreview reconcile`: why one model's sources (judges, imported verdicts) disagree.

The tables are made and rendered in tui/cli/reconcile_tables.py, loaded when the command runs."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, JsonOpt, given_path
from lmmreview.tui.output import clear_errors, deliver, fail, out


class ReconcileFormat(StrEnum):
    table = "table"
    md = "md"
    json = "json"


def reconcile(
    db: DbArg,
    dataset: DatasetsOpt = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            metavar="NAME",
            help="Only this model (repeatable; several: one model's answers imported under "
            "several names, compared as one; default: each model on its own).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
    format: Annotated[
        ReconcileFormat,
        typer.Option("--format", help="Output format (table: Rich tables on the terminal)."),
    ] = ReconcileFormat.table,
    output: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write here instead of standard output (md for the tables, or json).",
            parser=given_path,
        ),
    ] = None,
) -> None:
    """Say why a model's sources disagree, answer by answer.

    Its sources are the judges that scored its answers: the offline rules, imported
    verdicts (the official script's, VLMEvalKit's, lmms-eval's), LLM judges. Per source its
    overall figure (100 x the mean answer score); per pair of sources the difference and
    the points each cause explains (they add up to the whole difference); per answer on
    which two disagree, who agrees and why: item missing on one side, different response
    text, different gold, judge failure, random fallback, different extraction or parse.
    Several --dataset names (of one benchmark) are compared as one, their samples matched
    by key.
    """
    from lmmreview.db import Store
    from lmmreview.db.reconcile import read_groups
    from lmmreview.tui.cli.reconcile_tables import RENDERERS, compared, to_rich

    if as_json and format not in (ReconcileFormat.table, ReconcileFormat.json):
        raise fail(f"--json and --format {format.value} ask for two formats: give one")
    with clear_errors(db), Store.open(db, create=False) as store:
        groups = compared(read_groups(store, dataset or [], model or []))
    chosen = ReconcileFormat.json if as_json else format
    if chosen is ReconcileFormat.table and output is None:
        out.print(to_rich(groups))
        return
    renderer = RENDERERS[chosen if chosen is not ReconcileFormat.table else ReconcileFormat.md]
    deliver(renderer(groups), output, db)
