"""A database's results as two tidy Arrow tables (`lmmreview export --format parquet`):
scores, one row per answer, judge and run, and verdicts, one row per review.

Scores are read as the tables read them (db.scoring.dataset_scores, one judge at a time),
so the effective scores of a judge's rows average to its tables' cells. Needs pyarrow
(`lmmreview[parquet]`): import this module only where it is installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from lmmreview.db.scoring import DatasetScores, dataset_scores
from lmmreview.db.store import Store
from lmmreview.engine.columns import NONE, Labels
from lmmreview.engine.review import in_force
from lmmreview.engine.scoring import ANY_PROMPT, MICRO, Judge, judge_names

AXIS = "axis_"  # an axis's column is named by it: axis_capability, axis_subject...

# The columns every scores table has, in order; then one list column per axis.
SCORES = pa.schema([
    ("dataset", pa.string()), ("benchmark", pa.string()), ("split", pa.string()),
    ("question_type", pa.string()), ("sample", pa.string()), ("model", pa.string()),
    ("answer_id", pa.int64()), ("judge", pa.string()), ("judge_kind", pa.string()),
    ("judge_model", pa.string()), ("judge_prompt", pa.string()), ("run", pa.int64()),
    ("judge_score", pa.float64()), ("judge_choice", pa.string()), ("fallback", pa.bool_()),
    ("human_score", pa.float64()), ("human_choice", pa.string()),
    ("effective_score", pa.float64()),
])  # fmt: skip

VERDICTS = pa.schema([
    ("dataset", pa.string()), ("benchmark", pa.string()), ("sample", pa.string()),
    ("model", pa.string()), ("answer_id", pa.int64()), ("review_id", pa.int64()),
    ("action", pa.string()), ("reviewer", pa.string()),
    ("created_at", pa.timestamp("ms", tz="UTC")), ("score", pa.float64()),
    ("choice", pa.string()), ("previous_score", pa.float64()), ("previous_choice", pa.string()),
    ("note", pa.string()), ("in_force", pa.bool_()),
])  # fmt: skip


def scores_table(store: Store, datasets: list[str] | None = None) -> pa.Table:
    """Every answer of each dataset (of every one, without `datasets`) under each of its
    judges and each of that judge's runs; a dataset with no judge yet has one row per
    answer, its judge null and its run 0 (its tables' one run: human verdicts only)."""
    parts = [
        _judge_rows(store, dataset_scores(store, name, benchmark, judge), judge)
        for name, benchmark in store.datasets(datasets)
        for judge in _judges_or_none(store, name)
    ]
    if not parts:
        return SCORES.empty_table()
    # a dataset lacks the axes of other benchmarks: their columns are null in its rows
    return pa.concat_tables(parts, promote_options="default")


def _judges_or_none(store: Store, dataset: str) -> list[Judge | None]:
    """A dataset's judges; [None] for one with none yet."""
    return [*store.judges(dataset)] or [None]


def _judge_rows(store: Store, scores: DatasetScores, judge: Judge | None) -> pa.Table:
    """One dataset's answers, each in every run of `judge`'s tables."""
    answers, samples, runs = scores.answers, scores.samples, scores.breakdown.runs
    n = len(answers)
    row = np.repeat(np.arange(n), runs)  # answer by answer, run by run
    run = np.tile(np.arange(runs), n)
    sample = answers.samples_in(samples)[row]
    profile = samples.profile[sample]
    profiles = samples.profiles
    judged = answers.judged[row, run] if n else np.zeros(0)
    human = answers.human(samples.golds)[row]
    effective = np.where(scores.outcomes.scored, scores.outcomes.micro / MICRO, np.nan)[row, run]
    name = judge_names(store.judges(scores.name))[judge] if judge else None
    columns = {
        "dataset": _same(scores.name, len(row)),
        "benchmark": _same(scores.benchmark.name, len(row)),
        "split": _by_profile([p.split or None for p in profiles], profile),
        "question_type": _by_profile([p.question_type.value for p in profiles], profile),
        "sample": pa.array(samples.keys).take(sample),
        "model": pa.array(answers.models).take(answers.model[row]),
        "answer_id": answers.ids[row],
        "judge": _same(name, len(row)),
        "judge_kind": _same(judge.kind if judge else None, len(row)),
        "judge_model": _same(judge.model if judge else None, len(row)),
        "judge_prompt": _same(_prompt(judge), len(row)),
        "run": run,
        "judge_score": pa.array(judged, from_pandas=True),  # NaN: null
        "judge_choice": _labels(answers.labels, answers.judge_choice[row]),
        "fallback": scores.outcomes.fallback[row],
        "human_score": pa.array(human, from_pandas=True),
        "human_choice": _labels(answers.labels, answers.verdict_choice[row]),
        "effective_score": pa.array(effective, from_pandas=True),
    }
    table = pa.table(columns, schema=SCORES)
    for axis in sorted({a for p in profiles for a in p.axes}):
        values = [list(p.axes[axis]) if axis in p.axes else None for p in profiles]
        column = pa.array(values, pa.list_(pa.string())).take(profile)
        table = table.append_column(AXIS + axis, column)
    return table


def _same(text: str | None, rows: int) -> pa.Array:
    """One text (or null) in every row: made in C, not from a million Python strings."""
    return pa.repeat(pa.scalar(text, pa.string()), rows)


def _prompt(judge: Judge | None) -> str | None:
    """A judge's prompt version: "" for an LLM's reference prompts, null for the offline
    rules (any version) or no judge."""
    return None if judge is None or judge.prompt == ANY_PROMPT else judge.prompt


def _by_profile(values: list[str | None], profile: np.ndarray) -> pa.Array:
    """Each row's value of its sample's profile."""
    return pa.array(values, pa.string()).take(profile)


def _labels(labels: Labels, codes: np.ndarray) -> pa.Array:
    """Label codes as their texts (NONE: null)."""
    texts = pa.array([*labels.texts, None], pa.string())
    return texts.take(np.where(codes == NONE, len(labels.texts), codes))


_REVIEWS = """
SELECT d.name, d.kind, s.key, m.name, r.answer_id, r.id, r.action, r.reviewer, r.created_at,
       r.score, r.choice, r.previous_score, r.previous_choice, r.note
FROM reviews r JOIN answers a ON a.id = r.answer_id JOIN samples s ON s.id = a.sample_id
JOIN datasets d ON d.id = s.dataset_id JOIN models m ON m.id = a.model_id
{where} ORDER BY r.answer_id, r.id
"""


def verdicts_table(store: Store, datasets: list[str] | None = None) -> pa.Table:
    """Every review row of each dataset (of every one, without `datasets`), oldest first
    per answer; `in_force` marks the row in force (engine.review.in_force: the latest
    verdict not undone; notes are never in force)."""
    where, parameters = "", list(datasets or [])
    if datasets is not None:
        where = f"WHERE d.name IN ({', '.join('?' * len(datasets))})"
    rows = []
    for _, history in groupby(store.conn.execute(_REVIEWS.format(where=where), parameters),
                              key=itemgetter(4)):  # fmt: skip
        reviews = [_Review(*row) for row in history]
        kept = in_force(reviews)
        rows += [(*r, bool(kept) and r is kept[-1]) for r in reviews]
    columns: list[tuple[Any, ...]] = list(zip(*rows, strict=True)) if rows else [()] * len(VERDICTS)
    columns[8] = tuple(datetime.fromisoformat(stamp) for stamp in columns[8])
    return pa.table(dict(zip(VERDICTS.names, columns, strict=True)), schema=VERDICTS)


class _Review(NamedTuple):
    """A review row as _REVIEWS reads it (and engine.review.in_force reads its action)."""

    dataset: str
    benchmark: str
    sample: str
    model: str
    answer_id: int
    id: int
    action: str
    reviewer: str
    created_at: str
    score: float | None
    choice: str | None
    previous_score: float | None
    previous_choice: str | None
    note: str | None


def tables(store: Store, datasets: list[str] | None = None) -> Iterator[tuple[str, pa.Table]]:
    """(file name, table) of each Parquet file the export writes."""
    yield "scores.parquet", scores_table(store, datasets)
    yield "verdicts.parquet", verdicts_table(store, datasets)
