"""`lmmreview benchmarks` and `lmmreview info`: what is installed, and what a database
holds."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lmmreview.tui.options import DbArg, JsonOpt, JudgeOpt
from lmmreview.tui.output import clear_errors, out, say
from lmmreview.tui.safe_text import safe

if TYPE_CHECKING:
    from rich.text import Text


def list_benchmarks(
    as_json: JsonOpt = False,
) -> None:
    """List the installed benchmarks, plug-ins included.

    "rules: official" marks a benchmark whose offline rules (`lmmreview score`) are
    its official scoring: they are then the default judge, before imported verdicts.

    A plug-in is a package that declares a benchmark under the entry-point group
    "lmmreview.benchmarks"; one that cannot be loaded is listed with the reason.
    """
    from rich.table import Table as RichTable

    from lmmreview.engine.registry import OWN, benchmarks, origin, problems

    installed = benchmarks()
    if as_json:
        document = {
            "benchmarks": [
                {
                    "name": n,
                    "title": b.title,
                    "from": origin(n),
                    "import": list(b.importers()),
                    "export": [spec.name for spec in b.exports],
                    "official_rules": b.official_rules,
                }
                for n, b in installed.items()
            ],
            "problems": list(problems()),
        }
        out.print_json(json.dumps(document), ensure_ascii=True)
        return
    origins = {name: origin(name) for name in installed}
    plugged = set(origins.values()) != {OWN}  # else "from" says lmmreview on every row
    table = RichTable(box=None, pad_edge=False, collapse_padding=True)
    for column in ("name", "title", *(["from"] if plugged else []), "lmmreview import"):
        # the names a user types are kept whole; a title or origin folds to fit
        table.add_column(column, overflow="fold", no_wrap=column not in ("title", "from"))
    table.add_column("export --format", no_wrap=True)
    table.add_column("rules", no_wrap=True)  # official: the default judge
    for name, b in installed.items():
        commands = _lines(b.importers()) or "-"
        formats = _lines(spec.name for spec in b.exports) or "-"
        fields = [name, b.title, *([origins[name]] if plugged else [])]
        rules = "official" if b.official_rules else "-"
        table.add_row(*(safe(v, one_line=True) for v in fields), commands, formats, rules)
    out.print(table)  # the problems were warned of as the plug-ins loaded


def _lines(names: Iterable[str]) -> Text:
    """Names one per line, each made safe to show."""
    from rich.text import Text

    return Text("\n").join(safe(name, one_line=True) for name in names)


def info(
    db: DbArg,
    as_json: JsonOpt = False,
    judge_name: JudgeOpt = None,
) -> None:
    """Counts per dataset and model: answers, judged, reviewed.

    Per dataset: samples, images and the judge counted; per model: answers, judged (by that
    judge), reviewed, unscored, offline (scored by the offline rules).
    """
    from dataclasses import asdict

    from rich.table import Table as RichTable

    from lmmreview.db import Store
    from lmmreview.db.batches import batches_in_flight, in_flight_lines
    from lmmreview.tui.settings import for_command

    choice = for_command(uses=["review.judge"]).judge_choice(judge_name)
    with clear_errors(db), Store.open(db, create=False) as store:
        counts = store.counts(choice)
        version = store.schema_version
        flying = batches_in_flight(store)
    if as_json:
        document = {
            "database": str(db),
            "schema_version": version,
            "datasets": [asdict(c) for c in counts],
            "batches_in_flight": [asdict(b) for b in flying],
        }
        out.print_json(json.dumps(document), ensure_ascii=True)  # no raw control reaches it
        return
    if not counts:
        say(f"{db}: no datasets yet (see lmmreview import --help)")
    for dataset in counts:
        title = (
            f"{dataset.name} ({dataset.kind}): {dataset.samples} samples, {dataset.images} "
            f"images; judge {dataset.judge or 'none yet'}"
        )
        table = RichTable(
            title=safe(title, one_line=True), title_justify="left", title_style="bold"
        )
        table.add_column("model", overflow="fold")
        counted = ("answers", "judged", "reviewed", "unscored", "offline")
        for name in counted:
            table.add_column(name, justify="right")
        for model in dataset.models:
            table.add_row(
                safe(model.model, one_line=True), *(str(getattr(model, n)) for n in counted)
            )
        out.print(table)
    for line in in_flight_lines(flying):
        say(line)
