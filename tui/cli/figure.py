"""`lmmreview figure DB KIND --out F.svg|png|pdf`: one figure for a paper, drawn with
matplotlib (the optional extra lmmreview[figures]): a capability radar (as the MM-Vet and
MMBench papers draw), grouped bars, a judge × human confusion matrix or a reliability
diagram. The data are those of `report` and `judges` (engine.charts picks the columns)."""

from __future__ import annotations

import math
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetOpt, DbArg, JudgeOpt, given_path
from lmmreview.tui.output import clear_errors, fail, say

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

    from lmmreview.db import Store
    from lmmreview.db.judges import JudgeReport
    from lmmreview.engine.tables import Table

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}  # --out's suffix -> its format
DPI = 200  # a PNG's resolution: sharp when printed a column wide
LEGEND_COLUMNS = 4  # a legend under the axes holds this many names a row
# Past the palette's colours, a model's bars are hatched, its radar line dashed (in turn).
HATCHES = ("", "//", "..", "xx")
LINES = ("-", "--", ":", "-.")


class Kind(StrEnum):
    radar = "radar"
    bars = "bars"
    confusion = "confusion"
    reliability = "reliability"


def figure(
    db: DbArg,
    kind: Annotated[Kind, typer.Argument(help="What to draw.")],
    output: Annotated[
        Path,
        typer.Option(
            "--out", metavar="FILE", help="The file: .svg, .png or .pdf.", parser=given_path
        ),
    ],
    dataset: DatasetOpt = None,
    judge_name: JudgeOpt = None,
    models: Annotated[
        list[str] | None,
        typer.Option(
            "--models",
            metavar="NAME",
            help="A model to draw (repeatable; default: every one), in this order.",
            show_default=False,
        ),
    ] = None,
    table: Annotated[
        str | None,
        typer.Option(
            "--table",
            metavar="NAME",
            help="The table to draw (radar, bars), by its name in `export --format json` "
            "or its title (default: the dataset's first with enough percentage columns).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw a figure for a paper: SVG, PNG or PDF.

    Needs the extra lmmreview[figures], which brings matplotlib.

    \b
    Kinds:
      radar        a table's percentages, an axis per column, a polygon per model
      bars         the same as grouped bars, a group per column
      confusion    the judge's levels against the human's (answers both graded)
      reliability  per bin of the judge's score, the mean human score (graded judges)

    The format comes from --out's suffix. --dataset is needed when the database holds
    several; --judge picks the judge (else the review.judge setting's, else the default).
    """
    fmt = FORMATS.get(output.suffix.lower())
    if fmt is None:
        raise fail(f"{output}: unknown suffix {output.suffix!r}; use .svg, .png or .pdf")
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        from lmmreview.db.optional import INSTALL_MATPLOTLIB

        raise fail(f"figure needs matplotlib: {INSTALL_MATPLOTLIB}") from None
    from lmmreview.db import Store
    from lmmreview.db.files import Export

    with clear_errors(db), Store.open(db, create=False) as store:
        name = _dataset(store, dataset)
    # Names are the data's: "$...$" in one is text, never mathtext to parse.
    with rc_context({"text.parse_math": False}):
        drawn = Figure(layout="constrained")
        if kind in (Kind.radar, Kind.bars):
            _draw_table(drawn, kind, _table(db, name, judge_name, table, kind), models)
        else:
            _draw_judge(drawn, kind, db, name, judge_name)
        with clear_errors(db), Export(db) as export:
            export.file(output, lambda path: drawn.savefig(path, format=fmt, dpi=DPI))
    say(f"wrote {output}")


def _dataset(store: Store, named: str | None) -> str:
    """The dataset named, else the only one."""
    if named is not None:
        store.require_datasets([named])
        return named
    names = [name for name, _ in store.datasets()]
    if len(names) != 1:
        listed = ", ".join(map(repr, names)) or "none"
        raise fail(f"{store.path}: name a dataset with --dataset (datasets: {listed})")
    return names[0]


def _table(db: Path, dataset: str, judge_name: str | None, named: str | None, kind: Kind) -> Table:
    """The table to draw: the one named, else the first with enough percentage columns."""
    from lmmreview.engine.charts import RADAR_AXES, percent_columns, radar_axes
    from lmmreview.tui.cli.report import for_paper, model_names, read_tables

    read, _ = read_tables(db, [dataset], False, judge_name)
    # as the paper's tables print them: the [models] order and names, no unscored model
    tables = for_paper(read, model_names(None), show_empty=False)
    least = RADAR_AXES if kind == Kind.radar else 1

    def drawable(t: Table) -> int:  # a radar leaves out summaries and values not all have
        return len(radar_axes(t) if kind == Kind.radar else percent_columns(t))

    fit = [t for t in tables if t.rows and drawable(t) >= least]
    if named is not None:
        found = [t for t in tables if named in (t.name, t.title, t.name.partition(".")[2])]
        if not found:
            listed = ", ".join(repr(t.name) for t in tables)
            raise fail(f"{dataset}: no table {named!r} (tables: {listed})")
        fit = [t for t in found if t in fit]
        if not fit:
            raise fail(f"{named}: {kind} needs {least} percentage columns or more, and a row")
    if not fit:
        raise fail(f"{dataset}: no table has {least} percentage columns or more to draw {kind}")
    return fit[0]


def _draw_table(drawn: Figure, kind: Kind, table: Table, models: list[str] | None) -> None:
    import numpy as np

    from lmmreview.engine.charts import (
        LABEL_CHARS,
        PALETTE,
        TITLE_CHARS,
        colour,
        percent_columns,
        radar_axes,
        series,
        short,
    )
    from lmmreview.engine.names import cut_names

    rows = series(table, models)
    missing = sorted(set(models or ()) - {r.name for r in table.rows})
    if missing:
        raise fail(f"{table.dataset}: no model {', '.join(map(repr, missing))} in {table.name}")
    cut = cut_names([c.title for c in percent_columns(table)], LABEL_CHARS)
    titles = [cut[c.title] for c in percent_columns(table)]
    # Given to the legend: it would skip a label starting "_".
    handles: list[Artist] = []
    if kind == Kind.bars:
        axes = drawn.add_subplot()
        width = 0.8 / max(len(rows), 1)
        for i, row in enumerate(rows):
            values = [np.nan if v is None else v for v in row.values]
            place = np.arange(len(titles)) + i * width
            hatch = HATCHES[i // len(PALETTE) % len(HATCHES)]
            bar = axes.bar(place, values, width, color=colour(i), hatch=hatch, edgecolor="white")
            handles.append(bar.patches[0])  # its look: colour and hatch
        axes.set_xticks(np.arange(len(titles)) + 0.4 - width / 2, titles, rotation=40, ha="right")
        axes.set_ylim(0, 100)
    else:
        kept = radar_axes(table, models)
        titles = [titles[k] for k in kept]
        axes = drawn.add_subplot(projection="polar")
        angles = np.linspace(0, 2 * np.pi, len(titles), endpoint=False)
        closed = np.append(angles, angles[0])
        for i, row in enumerate(rows):
            values = [row.values[k] or 0.0 for k in kept]  # none is None: radar_axes
            style = LINES[i // len(PALETTE) % len(LINES)]
            handles += axes.plot(closed, [*values, values[0]], style, color=colour(i))
            axes.fill(closed, [*values, values[0]], color=colour(i), alpha=0.12)
        axes.set_xticks(angles, titles)
        axes.set_ylim(0, 100)
    # Above the whole figure: over a radar, the title would sit on the top axis's label.
    drawn.suptitle(short(table.title, TITLE_CHARS))
    named = cut_names([row.label for row in rows], LABEL_CHARS)
    columns = min(len(rows), LEGEND_COLUMNS) or 1
    # Under the axes, in columns, the figure taller for each legend row: never off the page.
    drawn.set_figheight(drawn.get_figheight() + 0.2 * math.ceil(len(rows) / columns))
    drawn.legend(handles, [named[row.label] for row in rows], fontsize="small",
                 loc="outside lower center", ncols=columns)  # fmt: skip


def _judge_report(db: Path, dataset: str, judge_name: str | None) -> tuple[str, JudgeReport]:
    """The judge's name and its measures against the human verdicts of `dataset`."""
    from lmmreview.db import Store
    from lmmreview.db.flagged import has_human_verdicts
    from lmmreview.db.judges import read_judges, report
    from lmmreview.engine.scoring import judge_names
    from lmmreview.tui.settings import for_command

    choice = for_command(uses=["review.judge"]).judge_choice(judge_name)
    with clear_errors(db), Store.open(db, create=False) as store:
        if not has_human_verdicts(store, dataset):  # checked before reading every judgment
            raise fail(f"{dataset}: no answer has a human verdict to measure a judge against")
        judge = store.chosen_judge(dataset, choice)
        found = read_judges(store, dataset)
    if judge is None or judge not in found.calls:
        raise fail(f"{dataset}: no judge has judged it yet")
    return judge_names(found.calls)[judge], report(found, found.calls[judge])


def _draw_judge(drawn: Figure, kind: Kind, db: Path, dataset: str, judge_name: str | None) -> None:
    from lmmreview.engine.charts import BINNED, TITLE_CHARS, colour, short, shown_levels

    name, measured = _judge_report(db, dataset, judge_name)
    if not measured.confusion.n:  # nothing to compare, for either kind
        raise fail(f"{dataset}: no answer judged by {name} has a human verdict")
    axes = drawn.add_subplot()
    if kind == Kind.confusion:
        matrix, binned = shown_levels(measured.confusion)
        axes.imshow(matrix.counts, cmap="Blues")
        ticks = range(len(matrix.labels))
        axes.set_xticks(ticks, [short(label) for label in matrix.labels])
        axes.set_yticks(ticks, [short(label) for label in matrix.labels])
        most = max(max(row) for row in matrix.counts)
        for i, row in enumerate(matrix.counts):
            for j, n in enumerate(row):
                ink = "white" if n > 0.55 * most else "black"
                axes.text(j, i, str(n), ha="center", va="center", color=ink)
        said = BINNED if binned else ""
        axes.set_xlabel(f"human{said}")
        axes.set_ylabel(f"judge{said}")
        axes.set_title(short(f"{name} × human", TITLE_CHARS))
        return
    calibration = measured.calibration
    if calibration is None:
        raise fail(f"{dataset}: {name} gives no graded scores, so no reliability diagram")
    # (lower, width, mean human, mean judge) of the bins a human score falls in
    bars = [
        (b.lower, b.upper - b.lower, b.mean_human, b.mean_judge)
        for b in calibration.bins
        if b.mean_human is not None and b.mean_judge is not None
    ]
    lower, width, human, judged = zip(*bars, strict=True) if bars else ((), (), (), ())
    axes.bar(lower, human, width, align="edge", color=colour(0), alpha=0.6, edgecolor="white",
             label="mean human score")  # fmt: skip
    axes.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    axes.plot(judged, human, "o", color=colour(1), label="mean judge score")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("judge score")
    axes.set_ylabel("human score")
    ece = "–" if calibration.ece is None else f"{calibration.ece:.3f}"
    axes.set_title(short(f"{name}: ECE {ece}", TITLE_CHARS))
    axes.legend(fontsize="small")
