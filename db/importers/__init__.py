"""Importers: read a benchmark's files into an ImportBatch, then `load` it in one transaction.

Reading checks everything before the database is touched; loading is all or nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    GroupVerdict,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_batch,
    listed,
)
from lmmreview.db.importers.jsonl import read_generic
from lmmreview.db.importers.mmbench import read_mmbench
from lmmreview.db.importers.mmmu import read_mmmu
from lmmreview.db.importers.mmvet import read_mmvet
from lmmreview.db.review import ReviewStore
from lmmreview.db.store import Store, new_database
from lmmreview.engine.benchmark import Importer
from lmmreview.engine.scoring import Judgment, Verdict

IMPORT_ACTION = "import"  # the action of a verdict read back from a file

__all__ = [
    "GroupVerdict",
    "ImportBatch",
    "ImportFailure",
    "ImportRequest",
    "ImportSummary",
    "JudgmentRecord",
    "import_batch",
    "import_target",
    "load",
    "read_generic",
    "read_mmbench",
    "read_mmmu",
    "read_mmvet",
    "reader_of",
]


@dataclass(slots=True)
class ImportSummary:
    """What a load changed, and what the user should know about."""

    dataset: str
    samples_added: int = 0
    samples_total: int = 0
    images_added: int = 0
    answers_added: dict[str, int] = field(default_factory=dict)  # model -> new answers
    judgments_added: int = 0  # imported judgments (another tool's judge results)
    group_verdicts_added: int = 0
    verdicts_added: int = 0  # human verdicts read back from lmmreview's own export
    warnings: list[str] = field(default_factory=list)


def import_batch(path: Path, batch: ImportBatch) -> ImportSummary:
    """Load `batch` into the database file at `path`, all or nothing."""
    with import_target(path) as store:
        return load(store, batch)


@contextmanager
def import_target(path: Path) -> Iterator[Store]:
    """The store that imports into `path` write to.

    An existing file is brought to the current schema inside the first load's transaction
    (a failed load leaves it as it was); a new one appears only if the block succeeds.
    """
    if path.exists():
        with Store.open(path, migrate=False) as store:
            yield store
    else:
        with new_database(path) as store:
            yield store


def load(store: Store, batch: ImportBatch) -> ImportSummary:
    """Write a batch in one transaction; on any error the database is left as it was.

    Re-loading the same batch changes nothing. A model's answer that differs from the
    one already stored is an error (answers are never overwritten).
    """
    answers = check_batch(batch)
    summary = ImportSummary(batch.dataset, warnings=list(batch.warnings))
    reviewers = {v.reviewer: ReviewStore(store, v.reviewer) for v in batch.verdicts}
    with store.transaction():
        dataset_id = _dataset(store, batch)
        known = len(store.sample_ids(dataset_id))
        ids = store.upsert_samples(dataset_id, batch.samples)
        summary.samples_added, summary.samples_total = len(ids) - known, len(ids)
        changes = store.conn.total_changes
        store.add_images(batch.images.values())
        summary.images_added = store.conn.total_changes - changes
        store.link_images(
            (ids[key], position, image_hash)
            for key, hashes in batch.sample_images.items()
            for position, image_hash in enumerate(hashes, start=1)
        )
        by_model: dict[str, list[AnswerRecord]] = defaultdict(list)
        for record in answers:
            by_model[record.model].append(record)
        for model, records in by_model.items():
            summary.answers_added[model] = _load_answers(
                store, dataset_id, ids, model, records, summary
            )
        if batch.judgments or batch.group_verdicts:
            _load_judged(store, batch, summary)
        _load_verdicts(store, batch, reviewers, summary)
    return summary


def _load_verdicts(
    store: Store, batch: ImportBatch, reviewers: dict[str, ReviewStore], summary: ImportSummary
) -> None:
    """Add the human verdicts a file brings back; one already in force adds nothing."""
    answers = store.answer_ids(batch.dataset) if batch.verdicts else {}
    for v in batch.verdicts:
        answer = _answer_of(answers, v.model, v.key, v.source)
        summary.verdicts_added += reviewers[v.reviewer].put(answer, Verdict(v.score), IMPORT_ACTION)


def _load_judged(store: Store, batch: ImportBatch, summary: ImportSummary) -> None:
    """Add another tool's judgments and group verdicts to the answers they judge.

    Each must judge an answer in the file (imported now or before). One equal to what
    is already latest for its answer and run is left out, so importing a file again
    changes nothing.
    """
    answers = store.answer_ids(batch.dataset)
    latest = store.latest_judgments(batch.dataset)
    new: list[tuple[int, Judgment]] = []
    for record in batch.judgments:
        answer = _answer_of(answers, record.model, record.key, record.judgment.source)
        if _same(latest.get((answer, record.judgment.run)), record.judgment):
            continue
        latest[answer, record.judgment.run] = record.judgment
        new.append((answer, record.judgment))
    store.add_judgments(new)
    summary.judgments_added = len(new)
    if batch.judgments:
        _warn_of_other_runs(store, batch, summary)
    verdicts = [(_answer_of(answers, v.model, v.key, v.source), v) for v in batch.group_verdicts]
    summary.group_verdicts_added = store.add_group_verdicts(verdicts)


def _warn_of_other_runs(store: Store, batch: ImportBatch, summary: ImportSummary) -> None:
    """Say so when the dataset holds judge runs the imported file does not: the tables
    count every run, so a 1-run file imported over 3 runs still shows 3."""
    runs, held = store.judge_runs(batch.dataset), 1 + max(r.judgment.run for r in batch.judgments)
    if runs > held:
        summary.warnings.append(
            f"{batch.source} holds {held} judge run(s), and the dataset has {runs}: runs "
            f"{held + 1}-{runs} keep their earlier judgments and still count in the tables"
        )


def _answer_of(answers: dict[tuple[str, str], int], model: str, key: str, source: str) -> int:
    answer = answers.get((model, key))
    if answer is None:
        raise ImportFailure(
            source,
            f"a judgment of model {model!r}'s answer, and the file has no such answer: "
            "import the model's answers first (or name the model with --model)",
            f"id {key}",
        )
    return answer


def _same(stored: Judgment | None, new: Judgment) -> bool:
    """Whether a stored judgment says what `new` says (where it came from aside)."""
    return stored is not None and _said(stored) == _said(new)


def _said(j: Judgment) -> tuple[object, ...]:
    return (j.kind, j.judge_model, j.score, j.choice, j.status, j.reply, j.error)


def _dataset(store: Store, batch: ImportBatch) -> int:
    """The dataset's id; an answers-only batch must name a dataset already there."""
    if batch.samples:
        return store.dataset_id(batch.dataset, batch.kind, batch.source)
    row = store.conn.execute("SELECT id FROM datasets WHERE name = ?", (batch.dataset,)).fetchone()
    if row is None:
        raise ImportFailure(
            batch.source,
            f"only answers, and dataset {batch.dataset!r} is not in {store.path}: "
            "import its samples first, or name it with --dataset",
        )
    return int(row[0])


def _load_answers(
    store: Store,
    dataset_id: int,
    ids: dict[str, int],
    model: str,
    records: list[AnswerRecord],
    summary: ImportSummary,
) -> int:
    model_id = store.model_id(model)
    stored = store.answer_texts(model_id, dataset_id)
    unknown = [r.key for r in records if r.key not in ids]
    if unknown:
        summary.warnings.append(
            f"{records[0].source}: {len(unknown)} id(s) not in dataset "
            f"{summary.dataset!r}, skipped: {listed(unknown)}"
        )
    new = []
    for record in records:
        sample_id = ids.get(record.key)
        if sample_id is None:
            continue
        if sample_id not in stored:
            new.append((sample_id, record.text, record.source))
        elif stored[sample_id] != record.text:
            raise ImportFailure(
                record.source,
                f"model {model!r} already has a different answer to this sample; "
                "answers are never overwritten: import under another --model name",
                f"id {record.key}",
            )
    store.add_answers(model_id, new)
    answered = {r.key for r in records} | {k for k, i in ids.items() if i in stored}
    missing = [key for key in ids if key not in answered]
    if missing:
        summary.warnings.append(
            f"model {model!r} has no answer for {len(missing)} sample(s): {listed(missing)}"
        )
    return len(new)


def reader_of(importer: Importer) -> Callable[[ImportRequest], ImportBatch]:
    """The function that reads an importer's files."""
    reader: Callable[[ImportRequest], ImportBatch] = _named(importer.reader)
    return reader


def demo_of(importer: Importer) -> Callable[[Path], list[ImportRequest]] | None:
    """The function that lists an importer's demo imports, if it has one."""
    demo: Callable[[Path], list[ImportRequest]] | None = (
        _named(importer.demo) if importer.demo else None
    )
    return demo


def _named(reference: str) -> Any:
    """The object a "package.module:name" reference names."""
    module, _, name = reference.partition(":")
    return getattr(import_module(module), name)
