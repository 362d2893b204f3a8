"""`lmmreview versus`: two models compared cell by cell, over the units both answered."""

from __future__ import annotations

import json
from dataclasses import asdict
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, JudgeOpt, ZeroOpt
from lmmreview.tui.output import clear_errors, fail, out

if TYPE_CHECKING:
    from lmmreview.db.scoring import Versus
    from lmmreview.engine.uncertainty import Difference


# Fewer resamples than this make the 2.5th and 97.5th percentiles rest on a handful of
# draws each: an interval that moves with the seed.
MIN_RESAMPLES = 100


class VersusFormat(StrEnum):
    md = "md"
    json = "json"


def versus(
    db: DbArg,
    model_a: Annotated[str, typer.Argument(metavar="MODEL_A", help="The first model.")],
    model_b: Annotated[str, typer.Argument(metavar="MODEL_B", help="The model subtracted.")],
    dataset: DatasetsOpt = None,
    judge_name: JudgeOpt = None,
    format: Annotated[
        VersusFormat, typer.Option("--format", help="Output format.")
    ] = VersusFormat.md,
    seed: Annotated[int, typer.Option("--seed", help="The bootstrap's seed.", min=0)] = 0,
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", help="Bootstrap resamples per cell.", min=MIN_RESAMPLES, max=100_000
        ),
    ] = 1_000,
    unscored_as_zero: ZeroOpt = False,
) -> None:
    """Compare two models cell by cell, with intervals.

    Model A minus model B in every table cell, over the samples (or groups) both
    answered: the difference, its paired 95 % bootstrap interval, and McNemar's exact p
    where every score is 0 or 1 in one judge run."""
    from lmmreview.db import Store
    from lmmreview.db.scoring import versus_of
    from lmmreview.tui.cli.report import warn_left_out
    from lmmreview.tui.settings import for_command

    if model_a == model_b:
        raise fail(f"MODEL_A and MODEL_B are the same model ({model_a!r}): name two models")
    choice = for_command(uses=["review.judge"]).judge_choice(judge_name)
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        warn_left_out(store, dataset, choice)
        found = versus_of(
            store, dataset or None, (model_a, model_b), choice, unscored_as_zero, resamples, seed
        )
    if format == VersusFormat.json:
        document = {"a": model_a, "b": model_b, "seed": seed, "resamples": resamples,
                    "datasets": [_as_json(v) for v in found]}  # fmt: skip
        out.print_json(json.dumps(document, ensure_ascii=False))
        return
    out.print(_markdown(found, model_a, model_b), markup=False, highlight=False, soft_wrap=True)


def _as_json(found: Versus) -> dict[str, object]:
    return {
        "dataset": found.dataset,
        "cells": [
            {**asdict(d), "title": found.titles[f"{d.table}/{d.column}"]} for d in found.differences
        ],
    }


def _markdown(found: list[Versus], a: str, b: str) -> str:
    """A Markdown table per dataset."""
    from lmmreview.engine.export import md_escape

    parts = []
    for each in found:
        lines = [
            f"### {md_escape(each.dataset)}: {md_escape(a)} - {md_escape(b)}",
            "",
            "| Cell | Split | A | B | A - B | 95 % interval | N | McNemar p |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for d in each.differences:
            title = md_escape(each.titles[f"{d.table}/{d.column}"])
            lines.append(f"| {title} | {md_escape(d.split) or '–'} | {_row(d)} |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _row(d: Difference) -> str:
    from lmmreview.engine.export import signed

    interval = "–" if d.low is None or d.high is None else f"[{d.low:.1f}, {d.high:.1f}]"
    p = "–" if d.p_mcnemar is None else f"{d.p_mcnemar:.3g}"
    diff = "–" if d.diff is None else signed(d.diff)
    return " | ".join([_number(d.a), _number(d.b), diff, interval, str(d.n), p])


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"
