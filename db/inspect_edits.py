"""`lmmreview export --format inspect`: each imported Inspect AI log again, as a copy with
every human verdict in force written as a score edit on its sample and scorers, through
inspect_ai's API, with its provenance (reviewer, time, note), so that `inspect view` shows
them and the log stays the Inspect user's record. The original is only read, and only if
it is still the file imported (its sha256)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from lmmreview.db.importers.inspect_logs import (
    CHUNKED,
    EPOCH,
    ID,
    LETTERS,
    TOOL,
    inspect_log_api,
    inspect_version,
)
from lmmreview.db.imports import Import, file_sha256, imports
from lmmreview.db.official import InForce, verdicts_in_force
from lmmreview.db.store import Store, StoreError
from lmmreview.engine.scoring import human_score
from lmmreview.engine.types import Sample

REASON = "reviewed in lmmreview"  # an edit's reason when the verdict has no note
_LETTER_OF = {1.0: "C", 0.5: "P", 0.0: "I"}  # a score as Inspect's letters say it

# Each answer an import judged, by each of its scorers (the judges named after them).
_JUDGED = """
SELECT DISTINCT j.answer_id, j.judge_model, a.sample_id FROM judgments j
JOIN answers a ON a.id = j.answer_id WHERE j.import_id = ? ORDER BY j.answer_id, j.judge_model
"""


@dataclass(frozen=True, slots=True)
class Edit:
    """One verdict for one scorer's score of one sample (an epoch of it)."""

    sample_id: int | str
    epoch: int
    key: str  # the sample's key here, for messages
    scorer: str
    score: float
    choice: str | None  # the option the verdict chose, if it chose one
    verdict: InForce


@dataclass(frozen=True, slots=True)
class LogEdits:
    """An imported log and the edits its copy gets."""

    record: Import
    edits: list[Edit]

    @property
    def file(self) -> Path:
        return Path(self.record.file)


def log_edits(store: Store, datasets: list[str] | None) -> list[LogEdits]:
    """Every Inspect log imported into `datasets` (None: all), with its edits."""
    return [
        LogEdits(record, _edits(store, record))
        for record in imports(store)
        if record.run.get("tool") == TOOL and (not datasets or record.dataset in datasets)
    ]


def _edits(store: Store, record: Import) -> list[Edit]:
    """An edit for each scorer's score of each answer the import judged that has a human
    verdict giving a score (a chosen option is scored against the golds)."""
    verdicts = verdicts_in_force(store, record.dataset)
    edits = []
    for answer, scorer, sample_id in store.conn.execute(_JUDGED, (record.id,)):
        verdict = verdicts.get(answer)
        if verdict is None:
            continue
        sample = store.sample(sample_id)
        score = human_score(verdict.verdict, sample.golds)
        if score is not None:
            inspect_id, epoch = _inspect_id(sample, record)
            choice = verdict.verdict.choice
            edits.append(Edit(inspect_id, epoch, sample.key, scorer, score, choice, verdict))
    return edits


def _inspect_id(sample: Sample, record: Import) -> tuple[int | str, int]:
    """The Inspect id and epoch the sample was imported with."""
    inspect_id, epoch = sample.extra.get(ID), sample.extra.get(EPOCH)
    if isinstance(inspect_id, int | str) and type(epoch) is int and type(inspect_id) is not bool:
        return inspect_id, epoch
    raise StoreError(
        f"{record.file}: sample {sample.key!r} of {record.dataset!r} has no Inspect id and "
        f"epoch ({ID}, {EPOCH}): it was not imported from an Inspect log"
    )


def check_unchanged(log: LogEdits) -> None:
    """Refuse a log that is not where it was imported from, or not the same file."""
    name = f"the Inspect log of import {log.record.id} ({log.record.dataset})"
    if not log.file.is_file():
        raise StoreError(f"{log.file}: {name} is not there any more (moved or removed)")
    if file_sha256(log.file) != log.record.sha256:
        raise StoreError(
            f"{log.file}: {name} has changed since it was imported (its sha256 differs): "
            "import it again (--replace) to edit this one"
        )


def write_edited(log: LogEdits, target: Path) -> None:
    """Read the log (whole), apply its edits, recompute its metrics, write it to `target`."""
    api = inspect_log_api(log.file)
    check_unchanged(log)
    try:
        inspect_log = api.read_eval_log(str(log.file))
    except Exception as exc:  # inspect_ai's reader raises many kinds
        message = f"{log.file}: {inspect_version()} cannot read it ({exc}); {CHUNKED}"
        raise StoreError(message) from None
    samples = {(s.id, s.epoch): s for s in inspect_log.samples or []}
    for edit in log.edits:
        original = _original(samples, edit, log.file)
        api.edit_score(
            inspect_log, edit.sample_id, edit.scorer, _score_edit(api, edit, original, log),
            recompute_metrics=False, epoch=edit.epoch,
        )  # fmt: skip
    api.recompute_metrics(inspect_log)
    api.write_eval_log(inspect_log, str(target))


def _original(samples: dict[tuple[int | str, int], Any], edit: Edit, file: Path) -> object:
    """The value the edit's scorer gave the sample, as the log holds it."""
    sample = samples.get((edit.sample_id, edit.epoch))
    if sample is None or edit.scorer not in (sample.scores or {}):
        raise StoreError(
            f"{file}: no score {edit.scorer!r} of sample {edit.sample_id!r} "
            f"(epoch {edit.epoch}) in the log, which lmmreview imported as {edit.key!r}"
        )
    return sample.scores[edit.scorer].value


def _score_edit(api: ModuleType, edit: Edit, original: object, log: LogEdits) -> Any:
    """The ScoreEdit of a verdict: its value, the option it chose, its provenance."""
    from inspect_ai.scorer import ScoreEdit

    return ScoreEdit(
        value=inspect_value(edit.score, original),
        answer=edit.choice if edit.choice is not None else "UNCHANGED",
        provenance=api.ProvenanceData(**provenance(edit, log.record.dataset)),
    )


def inspect_value(score: float, original: object) -> Any:
    """A verdict's score as the scorer wrote its values: C, P or I where it wrote letters,
    true or false where it wrote those, else the number."""
    if isinstance(original, str) and original in LETTERS and score in _LETTER_OF:
        return _LETTER_OF[score]
    if isinstance(original, bool) and score in (0.0, 1.0):
        return score == 1.0
    return score


def provenance(edit: Edit, dataset: str) -> dict[str, Any]:
    """Who gave the verdict, when, why, and that lmmreview wrote it (ProvenanceData)."""
    from lmmreview import __version__

    verdict = edit.verdict
    return {
        "author": verdict.reviewer,
        "timestamp": datetime.fromisoformat(verdict.created_at),
        "reason": verdict.note or REASON,
        "metadata": {
            "tool": "lmmreview",
            "version": __version__,
            "dataset": dataset,
            "sample": edit.key,
        },
    }
