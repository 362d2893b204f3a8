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

from lmmreview.db.judges import OWN_LATEST_IDS
from lmmreview.db.schema import judge_model, judge_prompt
from lmmreview.db.store import Store, StoreError
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.judging import MATCHED
from lmmreview.engine.reconcile import (
    EXACT_MATCHING_MARK,
    RANDOM_MARK,
    Discrepancy,
    Reading,
    compare_all,
    same_score,
)
from lmmreview.engine.scoring import IMPORTED, USABLE, Judge, Status, judge_names

_REPLY = "COALESCE(j.raw_reply, '')"
# Per answer and judge, over its own latest judgment of each run: the mean score of the
# usable ones, run 0's choice, a random pick marked (lmmreview's fallback, VLMEvalKit's log),
# a judge failure (a failed call, an imported 0.0 without a reply, VLMEvalKit's exact
# matching), an imported choice, an offline option match.
_SUMMARIES = f"""
SELECT j.answer_id, j.judge_kind, {judge_model("j")}, {judge_prompt("j")},
       AVG(CASE WHEN j.status IN {USABLE} THEN j.score END),
       MAX(CASE WHEN j.run = 0 THEN j.choice END),
       MAX(j.status = '{Status.FALLBACK.value}' OR instr({_REPLY}, '{RANDOM_MARK}') > 0),
       MAX(j.status NOT IN {USABLE}
           OR (j.judge_kind = '{IMPORTED}' AND j.score = 0 AND {_REPLY} = '')
           OR instr({_REPLY}, '{EXACT_MATCHING_MARK}') > 0),
       MAX(j.judge_kind = '{IMPORTED}' AND j.choice IS NOT NULL),
       MAX(j.judge_kind = 'offline' AND j.method = '{MATCHED}' AND j.status IN {USABLE})
FROM judgments j JOIN ({OWN_LATEST_IDS}) USING (id)
GROUP BY j.answer_id, j.judge_kind, {judge_model("j")}, {judge_prompt("j")}
"""


class _Summary(NamedTuple):
    """What one judge's runs on one answer say (see _SUMMARIES)."""

    score: float | None
    choice: str | None
    marked_draw: bool
    failed: bool
    imported_choice: bool


# (model, judge) -> sample key -> (answer id, reading)
Readings = dict[tuple[str, Judge], dict[str, tuple[int, Reading]]]


def dataset_readings(
    store: Store, dataset: str, benchmark: Benchmark, pooled: bool = False
) -> Readings:
    """Every (model, judge) of a dataset with what the judge made of each of the model's
    answers; a judge with no judgment of a model's answers is no source of that model.
    An imported choice is checked for a random pick (the benchmark's rule, per answer)
    only where it can matter: where the answer's judges score it differently, or
    anywhere when the readings meet another model's or dataset's (`pooled`)."""
    samples = {s.key: s for s in store.samples(dataset)}
    golds = {key: frozenset(s.golds) for key, s in samples.items()}
    by_model: dict[str, list[tuple[int, str, str]]] = defaultdict(list)  # answer, key, text
    for answer, model, key, text in store.answer_rows(dataset):
        by_model[model].append((answer, key, text))
    summaries = _summaries(store, dataset)
    apart = None if pooled else _scored_apart(summaries)
    readings: Readings = {}
    for judge, by_answer in summaries.items():
        for model, answers in by_model.items():
            if not any(answer in by_answer for answer, _, _ in answers):
                continue
            keyed = readings[model, judge] = {}
            for answer, key, text in answers:
                found = by_answer.get(answer)
                if found is None:  # its judge judged no run of it
                    keyed[key] = (answer, Reading(text, golds[key], None))
                    continue
                drawn = found.marked_draw or (
                    found.imported_choice
                    and (apart is None or answer in apart)
                    and benchmark.draws_at_random(samples[key], text)
                )
                reading = Reading(text, golds[key], found.score, found.choice, drawn, found.failed)
                keyed[key] = (answer, reading)
    return dict(sorted(readings.items()))


def _summaries(store: Store, dataset: str) -> dict[Judge, dict[int, _Summary]]:
    """Each judge's summary of each answer it judged. An LLM judge judges only what option
    matching left (MMBench's step 1): an answer the offline rules settled by an option
    match counts as the LLM judge's too, where it judged none of that answer's runs."""
    found: dict[Judge, dict[int, _Summary]] = defaultdict(dict)
    matched: dict[int, _Summary] = {}
    judges: dict[tuple[str, str, str], Judge] = {}
    rows = store.conn.execute(_SUMMARIES, (dataset,))
    for answer, kind, model, prompt, score, choice, drawn, failed, chose, option_match in rows:
        judge = judges.get((kind, model, prompt)) or judges.setdefault(
            (kind, model, prompt), Judge(kind, model, prompt)
        )
        summary = _Summary(score, choice, bool(drawn), bool(failed), bool(chose))
        found[judge][answer] = summary
        if option_match:
            matched[answer] = summary
    for judge, by_answer in found.items():
        if judge.kind == "llm":
            for answer, summary in matched.items():
                by_answer.setdefault(answer, summary)
    return found


def _scored_apart(summaries: dict[Judge, dict[int, _Summary]]) -> set[int]:
    """The answers two judges score differently."""
    seen: dict[int, float] = {}
    apart: set[int] = set()
    for by_answer in summaries.values():
        for answer, found in by_answer.items():
            if found.score is None:
                continue
            if not same_score(seen.setdefault(answer, found.score), found.score):
                apart.add(answer)
    return apart


@dataclass(slots=True)
class Group:
    """One model's answers to one benchmark, from every source that scored them."""

    benchmark: str  # its name, the datasets' kind (as `lmmreview info` shows it)
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
    store.require_models(models)
    chosen = store.datasets(datasets or None)
    if len(datasets) > 1 and len({b.name for _, b in chosen}) > 1:
        raise StoreError(f"{store.path}: datasets of several benchmarks: reconcile one at a time")
    groups: list[Group] = []
    for pool in _pools(store, chosen, len(datasets) > 1, len(models) > 1):
        pooled = len(pool) > 1 or len(models) > 1
        readings = {name: dataset_readings(store, name, bench, pooled) for name, bench in pool}
        present = sorted({m for r in readings.values() for m, _ in r})
        wanted = [m for m in models if m in present] if models else present
        model_pools = [wanted] if len(models) > 1 else [[m] for m in wanted]
        groups.extend(_group(pool[0][1].name, readings, p) for p in model_pools if p)
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


def _group(benchmark: str, readings: dict[str, Readings], models: list[str]) -> Group:
    """One group's sources, named by judge, with the model and dataset before where the
    group has several."""
    group = Group(benchmark, list(readings), models)
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
