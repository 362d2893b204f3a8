"""The sources `lmmreview reconcile` compares, read from the store (engine/reconcile.py
classifies and splits their disagreements).

A source is one judge's own latest judgments (as `lmmreview judges` reads them) of one
model's answers in one dataset. Which answers are "the same model's": one model name in
one dataset, unless the user names several (--model A --model B: one model's answers
imported under two names; --dataset X --dataset Y: two datasets of one benchmark, their
samples matched by key). An LLM judge, which judges only what option matching left, takes
the offline rules' option matches as its own (as the tables count them).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from lmmreview.db.judges import own_latest
from lmmreview.db.store import Store, StoreError
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.judging import MATCHED
from lmmreview.engine.reconcile import (
    EXACT_MATCHING_MARK,
    RANDOM_MARK,
    Discrepancy,
    Reading,
    compare_all,
)
from lmmreview.engine.scoring import IMPORTED, USABLE, Judge, Status, judge_names
from lmmreview.engine.types import Sample

_QUERY = own_latest(", COALESCE(j.raw_reply, '')")


class _Call(NamedTuple):
    """One judge's latest judgment of one run, as stored."""

    score: float | None
    choice: str | None
    status: str
    method: str
    reply: str
    kind: str


# (model, judge) -> sample key -> (answer id, reading)
Readings = dict[tuple[str, Judge], dict[str, tuple[int, Reading]]]


def dataset_readings(store: Store, dataset: str, benchmark: Benchmark) -> Readings:
    """Every (model, judge) of a dataset with what the judge made of each of the model's
    answers; a judge with no judgment of a model's answers is no source of that model."""
    samples = {s.key: s for s in store.samples(dataset)}
    by_model: dict[str, list[tuple[int, str, str]]] = defaultdict(list)  # answer, key, text
    model_of = {}
    for answer, model, key, text in store.answer_rows(dataset):
        by_model[model].append((answer, key, text))
        model_of[answer] = model
    calls: dict[Judge, dict[int, dict[int, _Call]]] = defaultdict(lambda: defaultdict(dict))
    matched: dict[int, dict[int, _Call]] = defaultdict(dict)
    rows = store.conn.execute(_QUERY, (dataset,))
    for answer, run, kind, model, prompt, score, choice, status, method, reply in rows:
        call = _Call(score, choice, status, method, reply, kind)
        calls[Judge.of(kind, model, prompt)][answer][run] = call
        if call.status in USABLE and call.method == MATCHED:
            matched[answer][run] = call
    readings: Readings = {}
    for judge, by_answer in sorted(calls.items()):
        if judge.kind == "llm":  # it judged only what option matching left
            for answer, runs in matched.items():
                by_answer[answer] = {**runs, **by_answer.get(answer, {})}
        for model in sorted({model_of[a] for a in by_answer}):
            readings[model, judge] = {
                key: (answer, _reading(samples[key], text, by_answer.get(answer, {}), benchmark))
                for answer, key, text in by_model[model]
            }
    return readings


def _reading(sample: Sample, text: str, runs: dict[int, _Call], benchmark: Benchmark) -> Reading:
    """One judge's reading of one answer: the mean of its scored runs, the first run's
    choice, and whether a run drew at random or records a judge failure."""
    scores = [c.score for c in runs.values() if c.status in USABLE and c.score is not None]
    first = runs[min(runs)] if runs else None
    return Reading(
        text,
        frozenset(sample.golds),
        sum(scores) / len(scores) if scores else None,
        first.choice if first else None,
        any(_drawn(c, sample, text, benchmark) for c in runs.values()),
        any(map(_failed, runs.values())),
    )


def _drawn(call: _Call, sample: Sample, text: str, benchmark: Benchmark) -> bool:
    """A random pick: marked so, said so by VLMEvalKit's log, or an imported choice where
    the official rule finds no candidate (lmms-eval does not mark its draws)."""
    return (
        call.status == Status.FALLBACK
        or RANDOM_MARK in call.reply
        or (
            call.kind == IMPORTED
            and call.choice is not None
            and benchmark.draws_at_random(sample, text)
        )
    )


def _failed(call: _Call) -> bool:
    """A judge failure: a failed call, an imported 0.0 with no reply (lmms-eval's MM-Vet
    grade when the API failed), or VLMEvalKit's exact matching in the judge's place."""
    return (
        call.status not in USABLE
        or (call.kind == IMPORTED and call.score == 0 and not call.reply)
        or EXACT_MATCHING_MARK in call.reply
    )


@dataclass(slots=True)
class Group:
    """One model's answers to one benchmark, from every source that scored them."""

    benchmark: str  # its title
    datasets: list[str]
    models: list[str]
    sources: dict[str, dict[str, Reading]] = field(default_factory=dict)  # name -> key -> ...


def read_groups(
    store: Store, datasets: Sequence[str] = (), models: Sequence[str] = ()
) -> list[Group]:
    """The groups to reconcile: each dataset, or the several named as one; in each, every
    model, or the several named as one. StoreError, naming the file, for a dataset or
    model the database lacks, or datasets of several benchmarks named together."""
    store.require_datasets(datasets)
    for model in models:
        if store.conn.execute("SELECT 1 FROM models WHERE name = ?", (model,)).fetchone() is None:
            raise StoreError(f"{store.path}: no model {model!r} in this database")
    chosen = store.datasets(datasets or None)
    if len(datasets) > 1 and len({b.name for _, b in chosen}) > 1:
        raise StoreError(f"{store.path}: datasets of several benchmarks: reconcile one at a time")
    groups: list[Group] = []
    for pool in _pools(store, chosen, len(datasets) > 1, len(models) > 1):
        readings = {name: dataset_readings(store, name, bench) for name, bench in pool}
        present = sorted({m for r in readings.values() for m, _ in r})
        wanted = [m for m in models if m in present] if models else present
        model_pools = [wanted] if len(models) > 1 else [[m] for m in wanted]
        groups.extend(_group(pool[0][1].title, readings, p) for p in model_pools if p)
    return groups


def _pools(
    store: Store,
    chosen: list[tuple[str, Benchmark]],
    datasets_together: bool,
    models_together: bool,
) -> list[list[tuple[str, Benchmark]]]:
    """The datasets read together: every one chosen, when several were named; else each on
    its own, but one whose single judge can give no pair of sources (its models not named
    together) is not read at all."""
    if datasets_together:
        return [chosen]
    return [[one] for one in chosen if models_together or len(store.judges(one[0])) > 1]


def _group(title: str, readings: dict[str, Readings], models: list[str]) -> Group:
    """One group's sources, named by judge, with the model and dataset before where the
    group has several."""
    group = Group(title, list(readings), models)
    names = judge_names({judge for r in readings.values() for _, judge in r})
    for dataset, by_source in readings.items():
        for (model, judge), keyed in by_source.items():
            if model not in models:
                continue
            name = names[judge]
            name = f"{model}: {name}" if len(models) > 1 else name
            name = f"{dataset}/{name}" if len(readings) > 1 else name
            group.sources[name] = {key: reading for key, (_, reading) in keyed.items()}
    return group


def disagreeing_answers(
    store: Store, dataset: str, benchmark: Benchmark, kind: Discrepancy | None = None
) -> frozenset[int]:
    """The screen's filter: the answers on which two sources of their model disagree (for
    `kind` only, when given)."""
    if len(store.judges(dataset)) < 2:
        return frozenset()
    readings = dataset_readings(store, dataset, benchmark)
    ids: set[int] = set()
    for model in {m for m, _ in readings}:
        sources = {str(judge): r for (m, judge), r in readings.items() if m == model}
        keyed = {name: {k: reading for k, (_, reading) in r.items()} for name, r in sources.items()}
        answer_of = {k: answer for r in sources.values() for k, (answer, _) in r.items()}
        for pair in compare_all(keyed):
            ids.update(answer_of[s.key] for s in pair.shares if kind in (None, s.kind))
    return frozenset(ids)
