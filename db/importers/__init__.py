"""Importers: read a benchmark's files into an ImportBatch, then `load` it in one transaction.

Reading checks everything before the database is touched; loading is all or nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    GroupVerdict,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_batch,
    first_answers,
    listed,
    quoted,
)
from lmmreview.db.importers.jsonl import read_generic
from lmmreview.db.imports import (
    Import,
    Judged,
    file_sha256,
    imports_judging,
    record_import,
    remove_import,
)
from lmmreview.db.parts import declared_file_function
from lmmreview.db.review import ReviewStore
from lmmreview.db.store import Store, larger_cache, new_database
from lmmreview.engine.benchmark import Importer
from lmmreview.engine.scoring import (
    IMPORTED,
    Judge,
    Judgment,
    Verdict,
    judge_label,
)

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
    import_id: int | None = None  # the import its judgments were recorded as
    already_imported: int | None = None  # the earlier import of the same file and judgments
    replaced: list[int] = field(default_factory=list)  # imports removed by --replace


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
    reviewers = {v.reviewer: ReviewStore(store, v.reviewer) for v in batch.verdicts}
    with larger_cache(store.conn), store.transaction():
        return _write(store, batch, answers, reviewers)


def load_within(store: Store, batch: ImportBatch) -> ImportSummary:
    """`load` inside a transaction the caller holds (several batches, all or nothing)."""
    reviewers = {v.reviewer: ReviewStore(store, v.reviewer) for v in batch.verdicts}
    return _write(store, batch, check_batch(batch), reviewers)


def _write(
    store: Store,
    batch: ImportBatch,
    answers: dict[str, list[AnswerRecord]],
    reviewers: dict[str, ReviewStore],
) -> ImportSummary:
    summary = ImportSummary(batch.dataset, warnings=list(batch.warnings))
    dataset_id = _dataset(store, batch)
    known = len(store.sample_ids(dataset_id))
    _refuse_changed_samples(store, dataset_id, batch)
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
    for model, records in answers.items():
        summary.answers_added[model] = _load_answers(
            store, dataset_id, ids, model, first_answers(records), summary, batch.answers_for
        )
    if batch.judgments or batch.group_verdicts:
        _load_judged(store, dataset_id, batch, summary)
    _load_verdicts(store, batch, reviewers, summary)
    _refuse_unknown_check_rows(store, batch)
    return summary


def _refuse_unknown_check_rows(store: Store, batch: ImportBatch) -> None:
    """A --check row naming a model the dataset does not hold would check nothing."""
    models = {model for model, _ in store.answer_ids(batch.dataset)} if batch.checks else set()
    for expected in batch.checks:
        if expected.row not in models:
            raise ImportFailure(
                expected.file,
                f"no model {expected.row!r} in dataset {batch.dataset!r}: the row checks nothing",
                f"row {expected.row!r}",
            )


def _refuse_changed_samples(store: Store, dataset_id: int, batch: ImportBatch) -> None:
    """A known sample whose question or ground truth the file gives otherwise is another
    benchmark's (or version's): its answers would land on the wrong question."""
    held = {
        key: (question, answer)
        for key, question, answer in store.conn.execute(
            "SELECT key, question, answer FROM samples WHERE dataset_id = ?", (dataset_id,)
        )
    }
    for sample in batch.samples:
        known = held.get(sample.key)
        if known is None:
            continue
        for what, given, kept in (
            ("question", sample.question, known[0]),
            ("ground truth", sample.answer, known[1]),
        ):
            if given and kept and given != kept:
                raise ImportFailure(
                    batch.source,
                    f"sample {sample.key!r}: its {what} differs from the one {batch.dataset!r} "
                    f"holds ({quoted(given)} here, {quoted(kept)} there): another version of "
                    "the benchmark? Import it as another dataset with --dataset NAME",
                )


def _load_verdicts(
    store: Store, batch: ImportBatch, reviewers: dict[str, ReviewStore], summary: ImportSummary
) -> None:
    """Add the human verdicts a file brings back; one already in force adds nothing."""
    answers = store.answer_ids(batch.dataset) if batch.verdicts else {}
    for v in batch.verdicts:
        answer = _answer_of(answers, v.model, v.key, v.source)
        summary.verdicts_added += reviewers[v.reviewer].put(answer, Verdict(v.score), IMPORT_ACTION)


def _load_judged(store: Store, dataset_id: int, batch: ImportBatch, summary: ImportSummary) -> None:
    """Record the import and add its judgments and group verdicts to the answers they
    judge (each must judge an answer in the file, imported now or before). A judgment
    equal to what is already latest for its answer and run (a line repeated in the file)
    is left out."""
    answers = store.answer_ids(batch.dataset)
    judgments = [
        (_answer_of(answers, r.model, r.key, r.judgment.source), r.judgment)
        for r in batch.judgments
    ]
    verdicts = [(_answer_of(answers, v.model, v.key, v.source), v) for v in batch.group_verdicts]
    summary.import_id = _record_import(store, dataset_id, batch, judgments, verdicts, summary)
    if summary.import_id is None:
        return
    latest = store.latest_judgments(batch.dataset)
    new: list[tuple[int, Judgment]] = []
    for answer, judgment in judgments:
        if _same(latest.get((answer, judgment.run)), judgment):
            continue
        latest[answer, judgment.run] = judgment
        new.append((answer, judgment))
    store.add_judgments(new, summary.import_id)
    summary.judgments_added = len(new)
    if batch.judgments:
        _warn_of_other_runs(store, batch, summary)
    summary.group_verdicts_added = store.add_group_verdicts(verdicts, summary.import_id)


def _record_import(
    store: Store,
    dataset_id: int,
    batch: ImportBatch,
    judgments: list[tuple[int, Judgment]],
    verdicts: list[tuple[int, GroupVerdict]],
    summary: ImportSummary,
) -> int | None:
    """The id of the import recorded for the batch; None when the same file already
    brought these judgments. An earlier import of the same judge on the same answers is
    refused, unless --replace removes it first."""
    judges = sorted({j.judge_model for _, j in judgments} | {v.judge_model for _, v in verdicts})
    sha256 = batch.sha256 or batch_sha256(batch)
    earlier = imports_judging(store, dataset_id, _judged(judgments, verdicts))
    if len(earlier) == 1 and earlier[0].sha256 == sha256:
        summary.already_imported = earlier[0].id
        return None
    if earlier and not batch.replace:
        raise ImportFailure(batch.source, _refusal(earlier, batch.one_judge))
    for found in earlier:
        summary.replaced.append(remove_import(store, found.id).id)
    runs = 1 + max((j.run for _, j in judgments), default=0)
    run = batch.run.recorded() if batch.run else None
    return record_import(store, dataset_id, batch.source, sha256, ", ".join(judges), runs, run)


def _judged(
    judgments: list[tuple[int, Judgment]], verdicts: list[tuple[int, GroupVerdict]]
) -> set[Judged]:
    """What a batch judges, as `imports_judging` compares it."""
    return {(a, "judgment", j.judge_model, j.prompt_version) for a, j in judgments} | {
        (a, "circular", v.judge_model, "") for a, v in verdicts
    }


def batch_sha256(batch: ImportBatch) -> str:
    """The sha256 of the batch's file; of a folder (MMMU-Pro's, a file per model), of the
    names and sha256s of the files its judgments came from, so the same folder again is the
    same import."""
    source = batch.source
    try:
        if not Path(source).is_dir():
            return file_sha256(source)
        judged = {r.judgment.source for r in batch.judgments} | {
            v.source for v in batch.group_verdicts
        }
        listing = "".join(f"{Path(file).name}\t{file_sha256(file)}\n" for file in sorted(judged))
        return hashlib.sha256(listing.encode("utf-8")).hexdigest()
    except OSError as exc:
        raise ImportFailure(source, f"cannot read it again to record the import ({exc})") from None


def _refusal(earlier: list[Import], renamable: bool) -> str:
    """Why an import of judgments stops, and the ways on (--judge where one name can be
    given to the file's judgments)."""
    named = "; ".join(
        f"judge {judge_label(IMPORTED, i.judge)} from import {i.id} ({i.file})" for i in earlier
    )
    rename = ", or --judge NAME to keep both under another judge name" if renamable else ""
    return (
        f"these answers already have judgments of the same judge: {named}. Give --replace "
        f"to remove that import's judgments and import this file{rename} (`lmmreview "
        "imports DB` lists the imports)"
    )


def _warn_of_other_runs(store: Store, batch: ImportBatch, summary: ImportSummary) -> None:
    """Say so when the file's judge has more runs in the dataset than the file holds (it
    judged other answers more often): its tables count every run, so these answers stay
    unscored in the others."""
    first = batch.judgments[0].judgment
    judge = Judge.of(first.kind, first.judge_model, first.prompt_version)
    runs = store.judge_runs(batch.dataset, judge)
    held = 1 + max(r.judgment.run for r in batch.judgments)
    if runs > held:
        summary.warnings.append(
            f"{batch.source} holds {held} judge run(s), and judge {judge.label} has {runs} "
            f"in dataset {batch.dataset!r}: runs {held + 1}-{runs} of these answers are unscored"
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
    records: dict[str, AnswerRecord],
    summary: ImportSummary,
    answers_for: Callable[[str], bool],
) -> int:
    """Add a model's answers (by sample key); returns how many were new. A sample it has
    no answer to is warned of if it is one `answers_for` its answers are for."""
    model_id = store.model_id(model)
    stored = store.answer_texts(model_id, dataset_id)
    unknown = [key for key in records if key not in ids]
    if unknown:
        summary.warnings.append(
            f"{next(iter(records.values())).source}: {len(unknown)} id(s) not in dataset "
            f"{summary.dataset!r}, skipped: {listed(unknown)}"
        )
    added = store.conn.total_changes
    store.add_answers(model_id, _new_answers(model, records, ids, stored))
    added = store.conn.total_changes - added
    missing = [
        key for key, i in ids.items() if key not in records and i not in stored and answers_for(key)
    ]
    if missing:
        summary.warnings.append(
            f"model {model!r} has no answer for {len(missing)} sample(s): {listed(missing)}"
        )
    return added


def _new_answers(
    model: str, records: dict[str, AnswerRecord], ids: dict[str, int], stored: dict[int, str]
) -> Iterator[tuple[int, str, str]]:
    """(sample id, text, source) of each answer not stored yet (streamed into the insert:
    an ImportFailure on the way rolls the whole import back). Ids not in the dataset are
    left out (a warning names them)."""
    for record in records.values():
        sample_id = ids.get(record.key)
        if sample_id is None:
            continue
        if sample_id not in stored:
            yield sample_id, record.text, record.source
        elif stored[sample_id] != record.text:
            raise ImportFailure(
                record.source,
                f"model {model!r} already has a different answer to this sample; "
                "answers are never overwritten: import under another --model name",
                f"id {record.key}",
            )


def reader_of(importer: Importer, origin: str) -> Callable[[ImportRequest], ImportBatch]:
    """The function that reads an importer's files, declared by `origin`, the package of
    the importer's benchmark (registry.origin)."""
    reader: Callable[[ImportRequest], ImportBatch] = declared_file_function(importer.reader, origin)
    return reader


def demo_of(importer: Importer, origin: str) -> Callable[[Path], list[ImportRequest]] | None:
    """The function that lists an importer's demo imports, if it has one."""
    demo: Callable[[Path], list[ImportRequest]] | None = (
        declared_file_function(importer.demo, origin) if importer.demo else None
    )
    return demo
