"""`lmmreview report --format html`: everything a reader without a terminal needs, read from
the database into one self-contained page (tui/cli/report_page.py): each dataset's tables
with their intervals, charts, the judges against the human verdicts, and the flagged
answers (db/flagged.py) with their images, question, gold, answer and every verdict."""

from __future__ import annotations

import io
from base64 import b64encode
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.flagged import flagged_answers, has_human_verdicts
from lmmreview.db.judges import JudgeReport, disagreeing_judges, read_judges
from lmmreview.db.review import ReviewStore
from lmmreview.engine import charts
from lmmreview.engine.export import Notes
from lmmreview.engine.scoring import JudgeChoice, judge_names
from lmmreview.engine.tables import Table
from lmmreview.tui.cli.report import for_paper, read_tables
from lmmreview.tui.cli.report_page import Card, DatasetPage, Picture, page
from lmmreview.tui.judges_tables import judge_grids, judge_section
from lmmreview.tui.output import clear_errors, deliver, status_line
from lmmreview.tui.settings import for_command
from lmmreview.tui.thumbnails import MISSING, ImageProblem, thumbnail

MAX_SIDE = 480  # pixels: an image is shrunk to fit this square (the page stays small)
REVIEWER = "report"  # the reader's name, as the review store wants one: nothing is written


def write_html(
    db: Path,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    judge_name: str | None,
    output: Path,
    max_answers: int,
    names: dict[str, str],
    show_empty: bool,
) -> None:
    """Write the report page to `output`, its tables as `for_paper` arranges them."""
    settings = for_command(uses=["review.judge", "review.disagreement"])
    choice = settings.judge_choice(judge_name)
    # A million answers take half a minute: say what is being read (on a terminal only).
    with status_line("Reading the tables and their intervals") as show:
        read = read_tables(db, datasets, unscored_as_zero, judge_name, intervals=True)
        tables, notes = for_paper(read[0], names, show_empty), read[1]
        pages = []
        with clear_errors(db), Store.open(db, create=False) as store:
            for name, _ in store.datasets(datasets or None):
                show(f"{name}: judges and flagged answers")
                pages.append(
                    _dataset_page(
                        store,
                        name,
                        [t for t in tables if t.dataset == name],
                        next((n for n in notes if n.dataset == name), None),
                        choice,
                        settings.disagreement,
                        max_answers,
                    )
                )
    deliver(page(f"lmmreview report: {db.name}", pages), output, db)


def _dataset_page(
    store: Store,
    name: str,
    tables: list[Table],
    notes: Notes | None,
    choice: JudgeChoice,
    limit: float,
    max_answers: int,
) -> DatasetPage:
    judges, humans = store.judges(name), has_human_verdicts(store, name)
    # Every judgment is read (half a minute for a million answers) only where a human
    # verdict measures the judges or two judges may disagree.
    found = read_judges(store, name) if humans or len(judges) > 1 else None
    # Without a human verdict nothing measures a judge: its section would be N=0 and dashes.
    section = judge_section(found, []) if found and humans else None
    disagreeing = disagreeing_judges(found, limit) if found else frozenset[int]()
    listed = flagged_answers(store, name, disagreeing, choice, limit)
    reader, uris = ReviewStore(store, REVIEWER), _Pictures(store)
    cards = []
    for one in listed[:max_answers]:
        detail = reader.detail(one.answer_id)
        cards.append(Card(one, detail, [uris.of(h) for h in detail.image_hashes]))
    judge_charts = [
        chart
        for line in (section.lines if section else [])
        for chart in _judge_charts(f"{name}: {line.name}", line.report)
    ]
    grids = judge_grids(section) if section and judges else []
    return DatasetPage(
        name, tables, notes, _table_charts(tables), grids,
        judge_charts, judge_names(judges), cards, max(len(listed) - max_answers, 0),
    )  # fmt: skip


def _table_charts(tables: list[Table]) -> list[str]:
    """Bars for each table with percentages, a radar for those with enough capabilities."""
    shown = [t for t in tables if t.rows and charts.percent_columns(t)]
    radars = [t for t in shown if len(charts.radar_axes(t)) >= charts.RADAR_AXES]
    return [charts.bars(t) for t in shown] + [charts.radar(t) for t in radars]


def _judge_charts(title: str, report: JudgeReport) -> list[str]:
    """The judge × human confusion matrix where humans graded what it judged, and its
    reliability diagram where it also gives graded scores."""
    if not report.confusion.n:
        return []
    found = [charts.confusion(report.confusion, f"{title} × human")]
    if report.calibration is not None:
        found.append(charts.reliability(report.calibration, f"{title}: reliability"))
    return found


class _Pictures:
    """Images as data: URIs, shrunk to MAX_SIDE; each made once per page."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.made: dict[str, Picture] = {}

    def of(self, image_hash: str) -> Picture:
        if image_hash not in self.made:
            self.made[image_hash] = picture(self.store.image_bytes(image_hash))
        return self.made[image_hash]


def picture(data: bytes | None) -> Picture:
    """An image as a JPEG data: URI at most MAX_SIDE a side, or why it cannot be shown."""
    if data is None:
        return Picture(None, MISSING)
    found = thumbnail(data, (MAX_SIDE, MAX_SIDE))
    if isinstance(found, ImageProblem):
        return Picture(None, found.reason)
    buffer = io.BytesIO()
    found.image.save(buffer, "JPEG", quality=85)
    return Picture("data:image/jpeg;base64," + b64encode(buffer.getvalue()).decode("ascii"))
