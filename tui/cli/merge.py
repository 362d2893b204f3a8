"""`lmmreview merge` and `lmmreview reviewers`: several reviewers on one file."""

from __future__ import annotations

import dataclasses
import json
from enum import StrEnum
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lmmreview.tui.options import DatasetsOpt, DbArg, given_path
from lmmreview.tui.output import clear_errors, err, out, say, status_line

if TYPE_CHECKING:  # these load when a command runs: `--help` needs none of them
    from collections.abc import Collection

    from lmmreview.db.merge import FileMerge
    from lmmreview.engine.assign import Progress
    from lmmreview.engine.reviewers import Measure, ReviewerAgreement
    from lmmreview.engine.scoring import Verdict

EXAMPLES = 3  # answers named when a file holds rows on answers this one lacks


class ReviewersFormat(StrEnum):
    md = "md"
    json = "json"


def merge_command(
    db: DbArg,
    others: Annotated[
        list[Path],
        typer.Argument(
            metavar="OTHER.db...", help="Other reviewers' copies to bring in.", parser=given_path
        ),
    ],
) -> None:
    """Merge other reviewers' verdicts, notes, flags and causes.

    Their files' history rows that DB lacks are appended to DB, each with its reviewer.
    Answers are matched by dataset, sample key and model; rows on answers DB lacks are
    counted and left out. Their ground-truth errata come too, matched by dataset and
    sample key (left out, and counted, when DB lacks the sample or its question or gold
    differ). All files or none: a file that cannot be read leaves DB as it was. Merging
    the same file again adds nothing.
    """
    from lmmreview.db import Store
    from lmmreview.db.merge import merge
    from lmmreview.tui.settings import for_command

    causes = for_command().causes  # the taxonomy a merged cause must belong to
    try:
        with (
            clear_errors(db),
            Store.open(db, create=False, migrate=False) as store,
            status_line(f"Reading {others[0]}") as report,
        ):
            merged = merge(store, others, causes, report)
    except KeyboardInterrupt:
        say(f"Stopped: {db} was left as it was.", console=err)
        raise typer.Exit(130) from None
    for file in merged:
        _report(db, file)


def _report(db: Path, file: FileMerge) -> None:
    """One line per merged file, and a warning when some of its rows were left out."""
    added = ", ".join(f"{n} {table}" for table, n in file.added.items() if n) or "nothing new"
    present = sum(file.present.values())
    say(
        f"{file.path}: merged {added} into {db}"
        + (f" ({present} rows already there)" if present else "")
    )
    lacks = f"that {db} lacks"
    _warn_left_out(file, file.left_out, file.missing, f"answers {lacks}",
                   "import those answers first")  # fmt: skip
    _warn_left_out(
        file,
        file.left_changed,
        file.changed,
        f"answers whose answer text, question or ground truth differ from {db}'s",
        "they judge something else",
    )
    _warn_left_out(
        file,
        file.errata_left_out,
        file.errata_samples,
        f"samples {lacks}, or whose question or ground truth differ,",
        kind="errata rows",
    )


def _warn_left_out(
    file: FileMerge,
    rows: int,
    keys: Collection[tuple[object, ...]],
    which: str,
    why: str = "",
    kind: str = "rows",
) -> None:
    """A warning naming a few of the answers (or samples) whose rows were left out, and
    why."""
    if not rows:
        return
    examples = "; ".join(" / ".join(map(str, key)) for key in islice(keys, EXAMPLES))
    said_why = f" ({why})" if why else ""
    say(
        f"warning: {file.path}: {rows} {kind} on {len(keys)} {which} were left out{said_why}, "
        f"e.g. {examples}",
        style="yellow",
        console=err,
    )


def reviewers_command(
    db: DbArg,
    dataset: DatasetsOpt = None,
    format: Annotated[
        ReviewersFormat, typer.Option("--format", help="Output format.")
    ] = ReviewersFormat.md,
    listed: Annotated[
        bool, typer.Option("--list", help="List the answers on which reviewers disagree.")
    ] = False,
    progress: Annotated[
        bool,
        typer.Option(
            "--progress",
            help="Per reviewer: answers assigned (lmmreview assign), done, in the overlap.",
        ),
    ] = False,
) -> None:
    """Agreement between reviewers: kappa, alpha, disagreements.

    Per dataset: answers reviewed, Cohen's kappa per pair, Krippendorff's alpha (interval
    on scores, nominal on chosen options), the answers on which reviewers disagree.

    Each reviewer's own verdict in force counts (their undo takes it back). JSON output
    always lists the disagreements. With --progress, first each reviewer's assignments:
    answers assigned, done (their own verdict in force), and of those in the overlap.
    """
    from lmmreview.db import Store
    from lmmreview.db.assign import reviewer_progress
    from lmmreview.db.reviewers import given_blind, reviewer_rows
    from lmmreview.engine.reviewers import agreement, verdicts_of

    documents, progresses = [], []
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(dataset or [])
        for name, _ in store.datasets(dataset or None):
            tops = reviewer_rows(store, name)  # one read of the reviews for both
            verdicts = verdicts_of(tops)
            found = agreement(verdicts)
            keys = {answer: (key, model) for answer, model, key in store.answer_keys(name)}
            disagreeing = [
                {"answer_id": a, "sample_key": keys[a][0], "model": keys[a][1],
                 "verdicts": {r: _verdict(v) for r, v in sorted(verdicts[a].items())}}
                for a in found.disagreements
            ]  # fmt: skip
            documents.append((name, found, disagreeing, given_blind(tops)))
            progresses.append(reviewer_progress(store, name, verdicts) if progress else None)
    if format is ReviewersFormat.json:
        datasets = [
            _json(*document) | _progress_json(done)
            for document, done in zip(documents, progresses, strict=True)
        ]
        out.print_json(json.dumps({"datasets": datasets}), ensure_ascii=True)
        return
    for (name, found, disagreeing, blind), done in zip(documents, progresses, strict=True):
        for line in _progress_markdown(name, done) + _markdown(
            name, found, disagreeing if listed else None, blind
        ):
            say(line)


def _verdict(verdict: Verdict) -> dict[str, float | str | None]:
    return {"score": verdict.score, "choice": verdict.choice}


def _measure_json(measure: Measure) -> dict[str, object]:
    return {
        "answers": measure.answers,
        "alpha": measure.alpha,
        "pairs": [
            {"first": p.first, "second": p.second, "answers": p.answers, "kappa": p.kappa}
            for p in measure.pairs
        ],
    }


def _json(
    name: str, found: ReviewerAgreement, disagreeing: list[dict], blind: dict[str, int]
) -> dict[str, object]:
    return {
        "dataset": name,
        "reviewers": found.reviewed,
        "given_blind": {reviewer: blind.get(reviewer, 0) for reviewer in found.reviewed},
        "scores": _measure_json(found.scores),
        "choices": _measure_json(found.choices),
        "disagreements": disagreeing,
    }


def _progress_json(progress: list[Progress] | None) -> dict[str, object]:
    """The "progress" key of a dataset, with --progress."""
    if progress is None:
        return {}
    return {"progress": [dataclasses.asdict(p) for p in progress]}


def _progress_markdown(name: str, progress: list[Progress] | None) -> list[str]:
    """With --progress, a dataset's assignments: per reviewer, assigned and done."""
    if progress is None:
        return []
    lines = [f"## Assignments of {name}", ""]
    if not progress:
        return [*lines, "Nothing assigned (see lmmreview assign).", ""]
    lines += [
        "| reviewer | assigned | done | overlap | overlap done |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {p.reviewer} | {p.assigned} | {p.done} | {p.overlap} | {p.overlap_done} |"
        for p in progress
    ]
    return [*lines, ""]


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _markdown(
    name: str, found: ReviewerAgreement, disagreeing: list[dict] | None, blind: dict[str, int]
) -> list[str]:
    """One dataset's section: reviewers (and how many verdicts each gave blind), kappa per
    pair, alpha, disagreements."""
    lines = [f"## Reviewers of {name}", ""]
    if not found.reviewed:
        return [*lines, "No reviewer's verdict yet.", ""]
    lines += ["| reviewer | answers reviewed | given blind |", "|---|---:|---:|"]
    lines += [f"| {r} | {n} | {blind.get(r, 0)} |" for r, n in found.reviewed.items()]
    lines += ["", "| verdicts | reviewers | answers | Cohen's kappa |", "|---|---|---:|---:|"]
    for measure in (found.scores, found.choices):
        for p in measure.pairs:
            lines.append(
                f"| {measure.kind} | {p.first} / {p.second} | {p.answers} | {_number(p.kappa)} |"
            )
    lines += [
        "",
        f"Krippendorff's alpha: scores {_number(found.scores.alpha)} (interval, "
        f"{found.scores.answers} answers), choices {_number(found.choices.alpha)} (nominal, "
        f"{found.choices.answers} answers).",
        f"Reviewers disagree on {len(found.disagreements)} answers"
        + ("." if disagreeing is not None or not found.disagreements else " (--list names them)."),
    ]
    for row in disagreeing or []:
        said = ", ".join(f"{r} {_shown(v)}" for r, v in row["verdicts"].items())
        lines.append(f"- {row['sample_key']} / {row['model']}: {said}")
    return [*lines, ""]


def _shown(verdict: dict[str, float | str | None]) -> str:
    return str(verdict["choice"]) if verdict["choice"] is not None else f"{verdict['score']:g}"
