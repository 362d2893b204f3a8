"""`lmmreview judges`: every judge of a database measured against the human verdicts.

The tables are made and rendered in tui/judges_tables.py, loaded when the command runs."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, OutOpt
from lmmreview.tui.output import clear_errors, deliver, fail, out

if TYPE_CHECKING:
    from lmmreview.db.judges import DatasetJudges
    from lmmreview.tui.judges_tables import Section


class JudgesFormat(StrEnum):
    md = "md"
    latex = "latex"
    json = "json"


def judges(
    db: DbArg,
    dataset: DatasetsOpt = None,
    combine_names: Annotated[
        list[str] | None,
        typer.Option(
            "--combine",
            metavar="JUDGE",
            help="A judge to average into a combined row, by its name in the Judge column "
            "(repeat: at least two).",
            show_default=False,
        ),
    ] = None,
    format: Annotated[
        JudgesFormat, typer.Option("--format", help="Output format.")
    ] = JudgesFormat.md,
    output: OutOpt = None,
    flips: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--flips",
            metavar="A B",
            help="List the answers whose verdict changes from judge A to judge B (names as "
            "in the Judge column), and what each flip does to the tables (md or json).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Measure each judge against the human verdicts.

    MM-Vet Tables 6 and 7, MMBench §4.2 and Table 2, on this database. Per dataset and
    judge: N answers with a human score that the judge scored, Δ̄ (the
    mean |judge score - human score|, the judge's score being the mean of its runs) with
    a bootstrap 95 % interval, Cohen's kappa on correct/incorrect (score >= 0.5), the mean
    std across runs; for choice benchmarks the alignment with human choices on answers
    option matching could not settle (Case I, Case II), kappa on choices, and per model
    the share settled by matching, by the LLM and by the seeded fallback.

    Then the judge papers' figures, each in its own table: Pearson, Spearman and Kendall
    (tau-b) between judge and human scores per answer and per model (mean scores),
    Cohen's kappa unweighted, linear and quadratic over the score levels (beside the
    reviewers' own kappas and alpha, where several graded the same answers), calibration
    of graded scores (ten reliability bins, ECE, Brier), order consistency (MMBench's
    circular groups, LLaVA-Bench's two orders), the evaluated models of the judge's own
    family (the settings' [families] map) and each judge's confusion matrix judge x
    human. An undefined figure is shown as "–".

    With --flips A B: the answers whose verdict changes between the two judges (each
    judge's score being the mean of its runs). On a dataset scored 0/1 a flip is an answer
    right under one judge and wrong under the other (right: a score of 0.5 or more), or
    with another option chosen; on a graded dataset (some score between 0 and 1, as
    MM-Vet's) any change of score is a flip. Each flip names the table cells it counts in
    and whether a human verdict overrides both judges (then it changes no table); then per
    cell: its value under A and under B, the difference and the flips in it. On a
    terminal, md is drawn as tables.
    """
    if flips is not None:
        if combine_names:
            raise fail("--flips and --combine are two reports: give one")
        _flips(db, dataset, flips, format, output)
        return
    from lmmreview.db import Store
    from lmmreview.db.judges import read_judges
    from lmmreview.tui.judges_tables import RENDERERS, judge_section
    from lmmreview.tui.settings import FAMILIES, for_command

    families = for_command(uses=[FAMILIES]).families
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        found = [read_judges(store, name) for name, _ in store.datasets(dataset or None)]
    for one in found:
        one.families = families
    sections = [judge_section(one, combine_names or []) for one in found]
    _check_combined(combine_names or [], sections, found)
    text = RENDERERS[format](sections)
    deliver(text, output, db)


def _flips(
    db: Path, datasets: list[str] | None, names: tuple[str, str], format: str, output: Path | None
) -> None:
    """`judges --flips A B`: every dataset given (else every one where both name a judge)."""
    import sys

    from lmmreview.db import Store
    from lmmreview.db.flips import has_judges, judge_flips, judge_pair, known_judges
    from lmmreview.tui.cli import flips_tables

    if format == JudgesFormat.latex:
        raise fail("--flips writes md or json")
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        named = [name for name, _ in store.datasets(datasets or None)]
        chosen = named if datasets else [d for d in named if has_judges(store, d, names)]
        if not chosen:
            known = ", ".join(map(repr, known_judges(store, named))) or "none yet"
            raise fail(
                f"no dataset has both judges {names[0]!r} and {names[1]!r} (judges: {known})"
            )
        found = [judge_flips(store, d, *judge_pair(store, d, names)) for d in chosen]
    if format == JudgesFormat.md and output is None and sys.stdout.isatty():
        out.print(flips_tables.to_rich(found))
        return
    render = flips_tables.to_json if format == JudgesFormat.json else flips_tables.to_markdown
    deliver(render(found), output, db)


def _check_combined(wanted: list[str], sections: list[Section], found: list[DatasetJudges]) -> None:
    """--combine needs two judges or more, and a dataset where all of them judged; else the
    error lists the names it takes."""
    if not wanted:
        return
    if len(set(wanted)) < 2:
        raise fail("--combine needs at least two different judges")
    if not any(line.judge is None for s in sections for line in s.lines):
        from lmmreview.engine.scoring import judge_names

        known = dict.fromkeys(name for one in found for name in judge_names(one.calls).values())
        raise fail(
            f"no dataset has every judge of --combine: {', '.join(wanted)} (each name must "
            f"name one judge, and two names never the same one; the judges: "
            f"{', '.join(known) or 'none yet'})"
        )
