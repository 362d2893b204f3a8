"""`lmmreview assign`: split a file's answers among reviewers, one file each."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, given_path
from lmmreview.tui.output import clear_errors, fail, say, status_line

if TYPE_CHECKING:  # these load when the command runs: `--help` needs none of them
    from lmmreview.db.assign import Plan

SEEDS = 2**31  # a seed drawn when none is given: printed, to make the same split again


def assign_command(
    db: DbArg,
    reviewers: Annotated[
        str,
        typer.Option(
            metavar="NAME,NAME...",
            help="The reviewers, separated by commas; each gets DIR/<name>.db.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            metavar="DIR",
            help="The folder of the reviewers' files (made if new; a file there is never "
            "replaced).",
            parser=given_path,
            show_default=False,
        ),
    ],
    overlap: Annotated[
        float,
        typer.Option(
            metavar="X",
            help="The share of units every reviewer gets, to measure agreement on, in [0, 1).",
        ),
    ] = 0.0,
    seed: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="The seed of the split: the same seed, the same split (default: drawn, "
            "and printed).",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetsOpt = None,
    model: Annotated[
        str | None,
        typer.Option(metavar="MODEL", help="Only this model's answers.", show_default=False),
    ] = None,
) -> None:
    """Split answers among reviewers: a file each, with an overlap.

    The units are answers, but an MMBench circular group (one model's answers to every
    rotation) is one unit, never split between reviewers. A seeded shuffle gives the
    overlap (--overlap of the units, to every reviewer) and deals out the rest evenly.
    Units assigned before are skipped. Each reviewer's file is a copy of DB holding their
    assignments; DB records every one. Merge the files back with `lmmreview merge`.
    """
    import secrets

    from lmmreview.db import Store, StoreError
    from lmmreview.db.assign import files_for, plan, write_assignments
    from lmmreview.engine.assign import problem, thin

    names = [name.strip() for name in reviewers.split(",")]
    wrong = problem(names, overlap)
    if wrong is not None:
        raise fail(wrong)
    seed = secrets.randbelow(SEEDS) if seed is None else seed
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        store.require_models([model] if model else [])
        plans = [
            plan(store, name, benchmark, names, overlap, seed, model)
            for name, benchmark in store.datasets(dataset or None)
        ]
        if not any(p.units for p in plans):
            skipped = sum(p.skipped for p in plans)
            raise StoreError(f"{db}: nothing left to assign ({skipped} units assigned before)")
        for p in plans:
            if (wrong := thin(p.split, overlap)) is not None:
                raise StoreError(f"{db}: {p.dataset}: {wrong}; nothing was written")
        files = files_for(out, names)
        with status_line(f"Copying {db}") as report:
            write_assignments(store, plans, seed, files, report)
    for p in plans:
        _report(p, names)
    say(f"Seed {seed} (--seed {seed} splits the same units alike).")
    say("Next, each reviewer opens their file:")
    for path in files.values():
        say(f"  lmmreview open {shlex.quote(str(path))}")
    say("then bring their verdicts back into the database:")
    say(f"  lmmreview merge {shlex.quote(str(db))} {shlex.quote(str(out))}/*.db")


def _report(p: Plan, names: list[str]) -> None:
    """One line per dataset: its units, the overlap, each share, those skipped."""
    shares = "/".join(str(len(p.split.shares[name])) for name in names)
    skipped = f"; {p.skipped} units assigned before were skipped" if p.skipped else ""
    say(
        f"{p.dataset}: {p.units} units ({p.answers} answers): {len(p.split.overlap)} to every "
        f"reviewer, then {shares} to {'/'.join(names)}{skipped}"
    )
