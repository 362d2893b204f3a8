"""Every judge's own judgments beside the human verdicts, for `lmmreview judges`.

A judge is engine.scoring.Judge (its kind, model and prompt). Each judge keeps its own latest
judgment per (answer, run), whoever judged after it: this reading compares judges, it
decides no score. A failed judgment leaves that run unscored for its judge. An option
match (method 'matched') needs no LLM, so it counts for every judge of its dataset, as in
db/judging.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

from lmmreview.db.review import EntryReader
from lmmreview.db.reviewers import reviewer_verdicts
from lmmreview.db.schema import JUDGE_MODEL, JUDGE_PROMPT
from lmmreview.db.store import IN_DATASET, Store
from lmmreview.engine.agreement import (
    Alignment,
    Estimate,
    alignment,
    answer_score,
    combined,
    correct,
    kappa_estimate,
    mean_abs_difference,
    mean_run_std,
    settled_shares,
)
from lmmreview.engine.defaults import DEFAULT_FAMILIES
from lmmreview.engine.judge_stats import (
    NO_OPTION_TEXT,
    Calibration,
    Confusion,
    Correlation,
    Kappas,
    OrderConsistency,
    answered_alike,
    calibration,
    confusion,
    correlation,
    is_graded,
    kappas,
    levels,
    order_consistency,
    rotation_consistency,
    same_family,
    system_pairs,
)
from lmmreview.engine.judging import MATCHED
from lmmreview.engine.scoring import USABLE, Judge, Verdict, human_score

# The id of each judge's own latest judgment per (answer, run) of a dataset (one placeholder).
OWN_LATEST_IDS = f"""
    SELECT MAX(l.id) AS id FROM judgments l {IN_DATASET}
    GROUP BY l.answer_id, l.run, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}
"""
_OWN_LATEST = f"""
SELECT j.answer_id, j.run, j.judge_kind, COALESCE(j.judge_model, ''),
       COALESCE(j.prompt_hash, ''), j.score, j.choice, j.status, COALESCE(j.method, '')
FROM judgments j JOIN ({OWN_LATEST_IDS}) USING (id) ORDER BY j.answer_id, j.run
"""


@dataclass(frozen=True, slots=True)
class Call:
    """One judge's latest judgment of one run; score and choice are None when it failed."""

    score: float | None
    choice: str | None
    method: str


@dataclass(frozen=True, slots=True)
class Human:
    """The human verdict in force on an answer: the score it gives and the option chosen."""

    score: float | None
    choice: str | None


@dataclass(slots=True)
class DatasetJudges:
    """One dataset's judges, their calls per answer and run, and the human verdicts."""

    dataset: str
    models: dict[int, str]  # answer id -> model
    humans: dict[int, Human]
    calls: dict[Judge, dict[int, dict[int, Call]]] = field(default_factory=dict)
    # Answers of one model to one item asked in several orders (Benchmark.order_group).
    orders: list[tuple[int, ...]] = field(default_factory=list)
    # Where the orders rotate a question's options (MMBench's circular groups), the groups
    # answered alike (judge_stats.answered_alike), each answer with its sample's options
    # (letter -> text); None where the orders rotate no options (LLaVA-Bench's).
    rotations: list[tuple[tuple[int, dict[str, str]], ...]] | None = None
    # answer -> reviewer -> the score of that reviewer's own verdict (several reviewers).
    reviewers: dict[int, dict[str, float]] = field(default_factory=dict)
    families: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_FAMILIES))
    # judge -> what its calls alone say, worked out once per reading (calls_facts): the
    # judges view reports again on every verdict, over every answer's calls.
    facts: dict[Judge, CallFacts] = field(default_factory=dict)

    @property
    def choices(self) -> bool:
        """Whether judges extract choices here (MMBench, multiple choice)."""
        return any(
            c.choice is not None for runs in self.calls.values() for a in runs.values()
            for c in a.values()
        )  # fmt: skip

    @property
    def graded(self) -> bool:
        """Whether scores here are grades (some judge's run or human score strictly between
        0 and 1), else 0/1: the levels of the confusion matrix and the kappas."""
        humans = (h.score for h in self.humans.values() if h.score is not None)
        return any(f.graded for f in self.facts.values()) or is_graded(humans)


@dataclass(frozen=True, slots=True)
class CallFacts:
    """What one judge's calls say without the human verdicts."""

    graded: bool  # some run's score lies strictly between 0 and 1
    order: OrderConsistency | None  # None where no item was asked in several orders


def calls_facts(found: DatasetJudges, calls: dict[int, dict[int, Call]]) -> CallFacts:
    """A judge's grading and order consistency, from its calls: on rotated options, whether
    it picks the same option text wherever the option sits; else whether its verdict (score)
    is the same in every order."""
    scores = (c.score for runs in calls.values() for c in runs.values() if c.score is not None)
    if not found.orders:
        return CallFacts(is_graded(scores), None)
    if found.rotations is not None:
        picks = ([_picked(calls.get(a), options) for a, options in g] for g in found.rotations)
        return CallFacts(is_graded(scores), rotation_consistency(picks))
    verdicts = (
        [v for a in group if a in calls and (v := _verdict(calls[a])) is not None]
        for group in found.orders
    )
    return CallFacts(is_graded(scores), order_consistency(verdicts))


def _picked(runs: dict[int, Call] | None, options: dict[str, str]) -> str | None:
    """The option text of the judge's choice (NO_OPTION_TEXT: no option matches; None: it
    extracted no choice)."""
    call = _choice(runs) if runs else None
    return None if call is None else options.get(str(call.choice), NO_OPTION_TEXT)


def _verdict(runs: dict[int, Call]) -> float | None:
    """A judge's score of one answer (the mean of its scored runs; None: none), a lone
    run's score taken as it is (most answers have one: read once per answer per reading)."""
    if len(runs) == 1:
        (call,) = runs.values()
        return call.score
    scores = [c.score for c in runs.values() if c.score is not None]
    return answer_score(scores) if scores else None


def read_judges(store: Store, dataset: str) -> DatasetJudges:
    """Every judge's latest judgment per (answer, run) of a dataset, the human verdict in
    force per answer (the review screen's own reading), and each answer's model."""
    samples = store.samples(dataset)
    golds = {s.key: s.golds for s in samples}
    (_, bench), *_ = store.datasets([dataset])
    items = {s.key: item for s in samples if (item := bench.order_group(s)) is not None}
    entries = EntryReader(store).entries(dataset)
    groups: dict[tuple[str, Hashable], list[tuple[int, str]]] = defaultdict(list)
    for e in entries if items else ():
        if (item := items.get(e.key)) is not None:
            groups[e.model, item].append((e.answer_id, e.key))
    grouped = [group for group in groups.values() if len(group) > 1]
    verdicts = reviewer_verdicts(store, dataset)
    keys = {e.answer_id: e.key for e in entries if e.answer_id in verdicts}
    found = DatasetJudges(
        dataset,
        {e.answer_id: e.model for e in entries},
        {e.answer_id: human_of(e.verdict, golds[e.key]) for e in entries if e.verdict is not None},
        orders=[tuple(answer for answer, _ in group) for group in grouped],
        rotations=_rotations(store, dataset, grouped, {s.key: s.options for s in samples}),
        reviewers=_reviewer_scores(verdicts, keys, golds),
    )
    matched: dict[int, dict[int, Call]] = defaultdict(dict)
    calls: dict[Judge, dict[int, dict[int, Call]]] = defaultdict(lambda: defaultdict(dict))
    for answer, run, kind, model, prompt, score, choice, status, method in store.conn.execute(
        _OWN_LATEST, (dataset,)
    ):
        usable = status in USABLE
        call = Call(score if usable else None, choice if usable else None, method)
        calls[Judge.of(kind, model, prompt)][answer][run] = call
        if usable and method == MATCHED:
            matched[answer][run] = call
    for judge, answers in calls.items():
        for answer, runs in matched.items():
            answers[answer] = {**runs, **answers.get(answer, {})}
        found.calls[judge] = dict(answers)
    found.calls = dict(sorted(found.calls.items()))
    found.facts = {judge: calls_facts(found, calls) for judge, calls in found.calls.items()}
    return found


_TEXTS = (
    "SELECT a.id, a.text FROM answers a JOIN samples s ON s.id = a.sample_id "
    "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = ?"
)


def _rotations(
    store: Store,
    dataset: str,
    grouped: list[list[tuple[int, str]]],
    options: dict[str, dict[str, str]],
) -> list[tuple[tuple[int, dict[str, str]], ...]] | None:
    """Of the order groups ((answer, sample key) each), those answered alike, each answer
    with its sample's options; None where the groups' samples have no options (the orders
    rotate none: LLaVA-Bench's)."""
    if not grouped or not options[grouped[0][0][1]]:
        return None
    texts = dict(store.conn.execute(_TEXTS, (dataset,)))
    return [
        tuple((answer, options[key]) for answer, key in group)
        for group in grouped
        if answered_alike([texts[answer] for answer, _ in group])
    ]


def _reviewer_scores(
    verdicts: Mapping[int, Mapping[str, Verdict]],
    keys: Mapping[int, str],
    golds: Mapping[str, list[str]],
) -> dict[int, dict[str, float]]:
    """answer -> reviewer -> the score of the reviewer's own verdict, on the answers two
    reviewers or more scored (human-human agreement needs no other)."""
    scores = {
        answer: {
            reviewer: score
            for reviewer, verdict in by.items()
            if (score := human_score(verdict, golds[keys[answer]])) is not None
        }
        for answer, by in verdicts.items()
        if answer in keys
    }
    return {answer: by for answer, by in scores.items() if len(by) > 1}


def human_of(verdict: Verdict, golds: list[str]) -> Human:
    """What a verdict says to the judges measure: its score and the option chosen."""
    return Human(human_score(verdict, golds), verdict.choice)


@dataclass(frozen=True, slots=True)
class JudgeReport:
    """One judge measured against the human verdicts of a dataset."""

    delta: Estimate  # MM-Vet Table 6's Δ̄
    kappa_correct: Estimate  # correct/incorrect, the judge's mean score against the human's
    kappa_choice: Estimate  # the option chosen (choice benchmarks only; else n = 0)
    run_std: float | None
    alignment: Alignment | None  # None where judges extract no choices
    settled: dict[str, dict[str, float]]  # model -> step -> share (choice benchmarks)
    # engine.judge_stats: as the judge-reliability papers measure a judge, on the N answers.
    answer_level: Correlation  # judge vs human score per answer
    system_level: Correlation  # per model: mean judge vs mean human score
    kappas: Kappas  # over the score levels (wrong/right on a 0/1 dataset)
    confusion: Confusion  # judge level x human level
    calibration: Calibration | None  # None where this judge gives no graded score
    order: OrderConsistency | None  # None where no item was asked in several orders
    same_family: tuple[str, ...]  # evaluated models of the judge's own family


def _scores(runs: dict[int, Call]) -> list[float]:
    return [c.score for _, c in sorted(runs.items()) if c.score is not None]


def _choice(runs: dict[int, Call]) -> Call | None:
    """The judge's call that gave a choice, in its first run that did."""
    return next((c for _, c in sorted(runs.items()) if c.choice is not None), None)


def report(
    found: DatasetJudges, calls: dict[int, dict[int, Call]], judge: Judge | None = None
) -> JudgeReport:
    """Δ̄, kappas, run std, alignment and Table 2 shares of one judge's calls, and the
    judge-reliability figures (engine.judge_stats); `judge` names its model for the
    self-preference flag (None: a combination, no flag)."""
    scored = {answer: s for answer, runs in calls.items() if (s := _scores(runs))}
    humans = found.humans
    graded = {  # the N answers: (the judge's score, the human's)
        a: (answer_score(scored[a]), h.score)
        for a, h in humans.items()
        if h.score is not None and a in scored
    }
    chosen = {a: c for a, runs in calls.items() if (c := _choice(runs)) is not None}
    picked = [(chosen[a], h.choice) for a, h in humans.items() if h.choice and a in chosen]
    choices = found.choices
    return JudgeReport(
        mean_abs_difference(list(graded.values())),
        kappa_estimate([(correct(j), correct(h)) for j, h in graded.values()]),
        kappa_estimate([(c.choice, human) for c, human in picked]),
        mean_run_std(scored[a] for a in graded),  # over the same N answers as Δ̄
        alignment((str(c.choice), human) for c, human in picked if c.method != MATCHED)
        if choices
        else None,
        _settled(found.models, chosen) if choices else {},
        *_reliability(found, graded, found.facts.get(judge) if judge else None, calls),
        same_family(judge.model, found.models.values(), found.families) if judge else (),
    )


_Reliability = tuple[
    Correlation, Correlation, Kappas, Confusion, Calibration | None, OrderConsistency | None
]


def _reliability(
    found: DatasetJudges,
    graded: dict[int, tuple[float, float]],
    facts: CallFacts | None,
    calls: dict[int, dict[int, Call]],
) -> _Reliability:
    """Correlations, kappas over levels, confusion, calibration and order consistency of
    one judge on the N answers (`graded`: answer -> (judge, human)); `facts`, its calls'
    own, when already worked out."""
    pairs = list(graded.values())
    in_grades = found.graded
    table = confusion(levels(pairs, in_grades), in_grades)
    facts = facts or calls_facts(found, calls)
    return (
        correlation(pairs),
        correlation(system_pairs(graded, found.models)),
        kappas(table),
        table,
        calibration(pairs) if facts.graded else None,
        facts.order,
    )


def _settled(models: dict[int, str], chosen: dict[int, Call]) -> dict[str, dict[str, float]]:
    """Per model, the share of its answers with a choice settled by each step."""
    methods: dict[str, list[str]] = defaultdict(list)
    for answer, call in chosen.items():
        methods[models[answer]].append(call.method)
    return {model: settled_shares(methods[model]) for model in sorted(methods)}


def combine(found: DatasetJudges, judges: list[Judge]) -> dict[int, dict[int, Call]]:
    """MM-Vet Table 7: the judges' scores averaged per answer, as one judge with one run,
    on the answers every one of them scored."""
    per_judge = [
        {a: answer_score(s) for a, runs in found.calls[j].items() if (s := _scores(runs))}
        for j in judges
    ]
    common = set.intersection(*(set(scores) for scores in per_judge)) if per_judge else set()
    return {
        a: {0: Call(combined([scores[a] for scores in per_judge]), None, "combined")}
        for a in sorted(common)
    }


def disagreeing_judges(found: DatasetJudges, limit: float) -> frozenset[int]:
    """The answers whose judges' scores (each judge's mean over its runs) spread by more
    than `limit`: the highest minus the lowest, among two judges or more."""
    per_answer: dict[int, list[float]] = defaultdict(list)
    for calls in found.calls.values():
        for answer, runs in calls.items():
            if scores := _scores(runs):
                per_answer[answer].append(answer_score(scores))
    return frozenset(
        answer
        for answer, scores in per_answer.items()
        if len(scores) > 1 and max(scores) - min(scores) > limit
    )
