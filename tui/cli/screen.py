"""`lmmreview open` and `lmmreview demo`: the commands that start the review screen, through
its entry points (tui/app.py's review_app, tui/crash.py's run_screen); pyproject.toml's
import contracts keep the other commands away from the screen."""

from __future__ import annotations

import gc
import importlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.engine.defaults import DISAGREEMENT, SPREAD
from lmmreview.tui.cli.info import info
from lmmreview.tui.crash import run_screen
from lmmreview.tui.options import (
    IMAGE_RENDERERS,
    MAX_RUNS,
    DatasetOpt,
    DbArg,
    JudgeUrlOpt,
    given_path,
)
from lmmreview.tui.output import clear_errors, err, fail, require_terminal, say

if TYPE_CHECKING:
    from lmmreview.tui.settings import Settings

Images = StrEnum("Images", {name: name for name in IMAGE_RENDERERS})  # type: ignore[misc]


def open_db(
    db: DbArg,
    reviewer: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Your name in the review history (default: the one reviewer a file of "
            "lmmreview assign is for, else the settings, else your user name).",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetOpt = None,
    judge_model: Annotated[
        str | None,
        typer.Option(
            metavar="MODEL",
            help="The LLM judge for runs started from the screen (J).",
            show_default=False,
        ),
    ] = None,
    judge_runs: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_RUNS,
            metavar="N",
            help="Runs per open answer for runs started from the screen.",
            show_default=False,
        ),
    ] = None,
    judge_base_url: JudgeUrlOpt = None,  # for runs started from the screen
    disagreement: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="X",
            help="The disagreement filter (v) shows reviewed answers whose |judge - human| "
            f"is above this (default: {DISAGREEMENT:g}).",
            show_default=False,
        ),
    ] = None,
    spread: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=0.5,
            metavar="X",
            help="The variance filter (v) shows answers whose judge runs' std is above this "
            f"(default: {SPREAD:g}).",
            show_default=False,
        ),
    ] = None,
    blind: Annotated[
        bool | None,
        typer.Option(
            "--blind/--no-blind",
            help="Blind review: models under aliases, judge scores hidden until your verdict "
            "on the answer is saved (default: the settings' review.blind, else off).",
            show_default=False,
        ),
    ] = None,
    shuffle_seed: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="N",
            help="List the answers in an order shuffled by this seed: the same seed, the "
            "same order (default: the settings' review.shuffle_seed, else as imported).",
            show_default=False,
        ),
    ] = None,
    images: Annotated[
        Images | None,
        typer.Option(
            help="How images are drawn: auto (detected), tgp, sixel, halfcell, unicode, or off "
            "(the README says which terminals show real pixels).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Review and grade answers in the terminal, with live tables."""
    if reviewer is not None and not reviewer.strip():  # `merge` would refuse its verdicts
        raise fail(
            f"--reviewer: {reviewer!r} is empty: give a name, or leave --reviewer out "
            "to take the settings' or your user name"
        )
    from lmmreview.db import Store
    from lmmreview.db.assign import assigned_dataset, sole_assignee
    from lmmreview.tui.settings import for_command

    require_terminal()  # checked before the file is touched
    settings = for_command(
        reviewer=reviewer,
        judge_model=judge_model,
        judge_runs=judge_runs,
        judge_base_url=judge_base_url,
        disagreement=disagreement,
        spread=spread,
        blind=blind,
        shuffle_seed=shuffle_seed,
        images=images.value if images else None,
    )
    with clear_errors(db), Store.open(db, create=False) as store:
        # fail here, with one line, rather than inside the screen
        store.require_datasets([dataset] if dataset is not None else [])
        assignee = sole_assignee(store) if reviewer is None else None
        if assignee is not None:  # a file `lmmreview assign` wrote for them: work as them
            settings = settings.merged(reviewer=assignee)
        dataset = dataset or assigned_dataset(store, settings.reviewer)  # theirs first
    with _loaded_for_good():
        _import_meanwhile("textual_image.renderable")
        from lmmreview.tui.allocator import give_back_large_buffers
        from lmmreview.tui.app import review_app

    check_screen(settings)
    give_back_large_buffers()  # the screen is held open: its peak memory counts
    screen = review_app(db, settings, dataset)
    run_screen(screen)  # an unexpected error is raised here, for the crash log
    if screen.failure is not None:  # it stopped itself, and says why
        raise fail(screen.failure)
    if screen.signalled is not None:  # ended by SIGTERM or SIGHUP: the shell's exit code
        raise typer.Exit(128 + screen.signalled)


def demo(
    db: Annotated[
        Path, typer.Argument(metavar="DB", help="Where to build it.", parser=given_path)
    ] = Path("lmmreview-demo.db"),
    no_open: Annotated[bool, typer.Option("--no-open", help="Build only; do not open.")] = False,
    data: Annotated[
        Path | None,
        typer.Option(
            metavar="FOLDER",
            help="A sample data folder laid out like sample_data/ "
            "(default: the one installed with lmmreview).",
            parser=given_path,
        ),
    ] = None,
) -> None:
    """Build a demo database from the sample data and open it."""
    from lmmreview.db.demo import build_demo, demo_batches, installed_demo_batches

    with clear_errors(db):
        with err.status("Reading the sample data"):
            batches = demo_batches(data) if data else installed_demo_batches()
        with err.status("Building the demo database"):
            summaries = build_demo(db, batches)
    added = sum(n for s in summaries for n in s.answers_added.values())
    say(f"{db}: demo database ready ({added} answers added)")
    info(db)
    if not no_open:
        open_db(db, dataset=batches[0].dataset)  # the first benchmark's demo


@contextmanager
def _loaded_for_good() -> Iterator[None]:
    """Around loading the screen's modules (Textual, numpy, the store, the screen): what
    they make lives as long as the process, so the garbage collector does not pass over it
    again and again as it loads, and is then told to leave it aside for good. Those passes
    took a fifth of the time to the first screen."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _import_meanwhile(module: str) -> None:
    """Import `module` in a thread of its own. For textual-image's renderers: as they are
    imported they ask the terminal which image protocols it speaks, and wait up to 0.1 s
    for each answer, which a terminal without them never sends; meanwhile the screen's
    other modules load. What fails there fails again, and is told, where the screen
    imports it."""

    def load() -> None:
        with suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=load, name=f"import {module}", daemon=True).start()


def check_screen(settings: Settings) -> None:
    """A keymap id or theme the review screen lacks ends the command, naming the file and
    the key. Imports the screen: call it where Textual may load."""
    from textual.theme import BUILTIN_THEMES

    from lmmreview.tui.app import binding_ids
    from lmmreview.tui.settings import SettingsError

    try:
        settings.check_screen(binding_ids(), BUILTIN_THEMES)
    except SettingsError as exc:
        raise fail(str(exc)) from None
