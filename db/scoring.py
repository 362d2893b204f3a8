"""Scores from the store: run the offline judge, and build a dataset's live breakdown."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

import numpy as np

from lmmreview.db.aside import Aside
from lmmreview.db.collector import collector_paused
from lmmreview.db.errata import ErrataStore
from lmmreview.db.review import EntryReader
from lmmreview.db.schema import JUDGE_READS
from lmmreview.db.store import Store, StoreError, larger_cache
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.causes import cause_table
from lmmreview.engine.columns import AnswerColumns, GoldsOf, Outcomes
from lmmreview.engine.errata import (
    ErrataCount,
    Erratum,
    Rescore,
    WithErrata,
    spread,
    with_errata,
)
from lmmreview.engine.export import ImportedCircular, Notes
from lmmreview.engine.guarded import PluginFailure
from lmmreview.engine.layouts import layout_for
from lmmreview.engine.offline import forget_grades
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import (
    MICRO,
    OFFLINE,
    GroupVerdict,
    Judge,
    JudgeChoice,
    Outcome,
    judges_named,
)
from lmmreview.engine.tables import Table
from lmmreview.engine.types import Sample
from lmmreview.engine.uncertainty import (
    RESAMPLES,
    SEED,
    Difference,
    intervals,
    versus,
    with_intervals,
)


@dataclass(frozen=True, slots=True)
class OfflineRun:
    """What `score_offline` did for one dataset, and where the offline rules' scores stand
    after it: counted as their tables, notes and `info --judge "offline rules"` count."""

    dataset: str
    judged: int  # new offline judgments
    scored: int  # answers the offline rules' score decides (Notes.offline)
    fallback: int  # of which decided by the seeded fallback
    unscored: int  # answers with no score in any run (Notes.unscored)
    no_gold: int  # of which to questions with no gold: nothing can score them

    def summary(self) -> str:
        """The line `lmmreview score` prints."""
        no_gold = (
            f"; {self.no_gold} answer questions with no gold (a test split): their choices "
            "are read, never scored"
            if self.no_gold
            else ""
        )
        return (
            f"{self.dataset}: {self.scored} answers scored by the offline rules "
            f"({self.fallback} by the seeded fallback, marked); "
            f"{self.unscored - self.no_gold} left for a human or an LLM judge{no_gold}"
        )


GRADED_AT_ONCE = 20_000  # answers graded, then written, at a time: memory stays bounded


def score_offline(store: Store, datasets: list[str] | None = None) -> Iterator[OfflineRun]:
    """Judge by rule every answer the rules have not scored yet (or whose latest offline
    judgment failed), whatever other judges said; one transaction each (a plug-in that
    fails midway leaves the dataset as it was)."""
    for name, benchmark in store.datasets(datasets or None):
        judged = _judge_by_rules(store, name, benchmark)
        notes = dataset_scores(store, name, benchmark, OFFLINE).notes([])
        yield OfflineRun(name, judged, notes.offline, notes.fallback, notes.unscored, notes.no_gold)


def _judge_by_rules(store: Store, name: str, benchmark: Benchmark) -> int:
    """Add the offline rules' judgments of a dataset's answers they have not scored;
    returns how many. The samples are let go before the tables are read."""
    judged = 0
    with collector_paused():
        samples = store.samples_by_id(name)
        with larger_cache(store.conn), store.transaction(), store.judgments_counted_together():
            # other judges' scores stand beside
            for rows in store.unjudged_answers(name, OFFLINE, GRADED_AT_ONCE):
                try:
                    results = [
                        (answer_id, judgment)
                        for answer_id, sample, text in rows
                        if (judgment := benchmark.offline(samples[sample], text)) is not None
                    ]
                except PluginFailure as exc:
                    raise exc.within(name) from exc.__cause__
                store.add_judgments(results)
                judged += len(results)
    forget_grades()
    return judged


@dataclass(slots=True)
class DatasetScores:
    """A dataset's samples, its answers as columns, their outcomes and its breakdown."""

    name: str
    benchmark: Benchmark
    samples: SampleSet
    answers: AnswerColumns  # numbering samples as `samples` does (AnswerColumns.share_keys)
    outcomes: Outcomes
    breakdown: Breakdown
    errata_golds: GoldsOf | None = None  # the samples' golds with errata (None: published)
    errata: ErrataCount | None = None  # what errata changed (None: tables as published)
    judge: Judge | None = None  # whose judgments score the answers (None: the default)

    @property
    def golds_of(self) -> GoldsOf:
        """Each sample's golds as these tables score them."""
        return self.errata_golds or self.samples.golds

    @property
    def no_reply(self) -> int:
        """Answers an imported 0.0 without a judge reply scores (no verdict over it)."""
        return int(np.sum(self.answers.no_reply & ~self.answers.reviewed))

    def notes(
        self,
        judges: list[str],
        unscored_as_zero: bool = False,
        verdicts: Iterable[GroupVerdict] = (),
        other_judges: Iterable[str] = (),
    ) -> Notes:
        """What a reader must know; `verdicts` are circular verdicts another tool computed,
        summed per model and file beside lmmreview's own on the same groups;
        `other_judges` the file's judges these numbers leave out."""
        found, answers = self.outcomes, self.answers
        unscored = found.unscored
        no_gold = ~self.samples.gold_known[answers.sample]
        return Notes(
            dataset=self.name,
            kind=self.benchmark.name,
            judges=tuple(judges),
            runs=self.breakdown.runs,
            answers=len(answers),
            reviewed=int(found.reviewed.sum()),
            unscored=int(unscored.sum()),
            fallback=int(found.fallback.sum()),
            unscored_as_zero=unscored_as_zero,
            partial=int(np.sum(~found.complete & ~unscored)),
            offline=int(found.offline.sum()),
            no_gold=int(np.sum(unscored & no_gold)),
            imported_circular=self._imported_circular(verdicts),
            no_reply=self.no_reply,
            other_judges=tuple(other_judges),
            errata=self.errata,
        )

    def with_intervals(
        self, tables: list[Table], unscored_as_zero: bool, resamples: int, seed: int
    ) -> list[Table]:
        """This dataset's `tables` with each cell's bootstrap interval."""
        found = intervals(
            self.breakdown, self.answers, self.golds_of, unscored_as_zero, resamples, seed
        )
        return with_intervals(tables, found)

    def versus(
        self, a: str, b: str, unscored_as_zero: bool, resamples: int, seed: int
    ) -> list[Difference]:
        """Model `a` minus model `b`, cell by cell (engine.uncertainty.versus)."""
        return versus(
            self.breakdown, self.answers, self.golds_of, a, b, unscored_as_zero,
            resamples, seed,
        )  # fmt: skip

    def outcome_of(self, model: str, key: str) -> Outcome | None:
        """One answer's outcome (None: the model did not answer the sample)."""
        row = self.answers.row_of(model, key)
        if row is None:
            return None
        golds = self.golds_of(self.samples.index[key])
        return self.answers.entry(row).outcome(self.breakdown.runs, golds)

    def _imported_circular(self, verdicts: Iterable[GroupVerdict]) -> tuple[ImportedCircular, ...]:
        by_file: dict[tuple[str, str, str], list[GroupVerdict]] = {}
        for v in verdicts:
            by_file.setdefault((v.model, v.source, v.judge_model), []).append(v)
        return tuple(
            self._compared(model, source, judge, group)
            for (model, source, judge), group in sorted(by_file.items())
        )

    def _compared(
        self, model: str, source: str, judge: str, verdicts: list[GroupVerdict]
    ) -> ImportedCircular:
        """One file's verdicts for a model beside lmmreview's CircularEval of each group
        (its first run: MMBench extracts a choice once for all runs)."""
        ours = [self._group_score(model, v.key) for v in verdicts]
        scored = [(v.score, o) for v, o in zip(verdicts, ours, strict=True) if o is not None]
        return ImportedCircular(
            model, source, judge, len(verdicts),
            theirs=100 * sum(v.score for v in verdicts) / len(verdicts),
            ours=100 * sum(o for _, o in scored) / len(scored) if scored else None,
            unscored=len(verdicts) - len(scored),
            differ=sum(theirs != o for theirs, o in scored),
        )  # fmt: skip

    def _group_score(self, model: str, key: str) -> float | None:
        """lmmreview's score of the circular group whose main row is `key` (run 1)."""
        layout = self.breakdown.layout
        units = layout.units(key) if key in self.samples.index else []
        if not units:
            return None
        unit = max(units, key=lambda u: len(u.members))  # the whole group, not the row alone
        outcome = self.breakdown.group_outcome(model, unit, self.outcome_of)
        micro = None if outcome is None else outcome.micro[0]
        return None if micro is None else micro / MICRO


def dataset_scores(
    store: Store, name: str, benchmark: Benchmark, judge: Judge | None
) -> DatasetScores:
    """Read a dataset's answers, `judge`'s judgments (see Store.chosen_judge) and the
    verdicts, as the review screen reads them; compute every table (with the errata in
    force: with_errata_scores on them)."""
    reader = EntryReader(store, judge)
    # The judgments and the samples come on connections of their own meanwhile.
    judgments = Aside(store.path, lambda beside: EntryReader(beside, judge).judgments(name))
    read = Aside(store.path, lambda beside: EntryReader(beside).table_samples(name, benchmark))
    answers = reader.bare_columns(name)
    samples = reader.samples_of(name, benchmark, answers, read.take())
    answers.share_keys(samples)
    # failed runs count: a failed run is unscored
    runs = reader.fill(name, answers, judgments.take())
    layout = layout_for(name, benchmark, samples)
    breakdown, found = Breakdown.of(layout, answers, runs, samples.golds)
    return DatasetScores(
        name, benchmark, samples, answers, found, breakdown, judge=reader.judge_of(name)
    )


def with_errata_scores(store: Store, scores: DatasetScores) -> DatasetScores:
    """`scores` (as published, left as they are) with the errata in force: the answers to
    samples with an erratum scored again or left out (engine.errata), every table anew;
    `scores` itself (errata None) when none is in force."""
    errata = ErrataStore(store, "").in_force(scores.name)
    if not errata:  # the same tables: nothing copied, nothing computed again
        return scores
    changed = _with_errata(store, scores, errata)
    breakdown, found = Breakdown.of(
        scores.breakdown.layout, changed.answers, scores.breakdown.runs, changed.golds_of
    )
    return replace(
        scores, answers=changed.answers, outcomes=found, breakdown=breakdown,
        errata_golds=changed.golds_of, errata=changed.count,
    )  # fmt: skip


def _with_errata(store: Store, scores: DatasetScores, errata: dict[str, Erratum]) -> WithErrata:
    """A dataset's answers as they score with `errata`, those in force (engine.errata)."""
    name, benchmark, samples = scores.name, scores.benchmark, scores.samples
    # only the samples of the errata and their groups' others (MMBench's rotations) are
    # read whole: every sample's options and question took 2.9 s at 200,000 samples
    groups = [samples.group[samples.index[key]] for key in errata if key in samples.index]
    mates = np.flatnonzero(np.isin(samples.group, groups))
    full = ErrataStore(store, "").samples(name, [samples.keys[i] for i in mates])
    found = spread(errata, list(full.values()), benchmark.rotation_field)
    corrected = {
        samples.index[key]: erratum.golds(full[key].golds)
        for key, erratum in found.items()
        if key in samples.index
    }
    (rules_first,) = store.conn.execute(
        "SELECT rules_first FROM datasets WHERE name = ?", (name,)
    ).fetchone()
    answers, runs = scores.answers, scores.breakdown.runs
    judge = scores.judge or store.chosen_judge(name)
    rescore = _rules(store, benchmark, full, answers, bool(rules_first), judge)
    return with_errata(answers, runs, samples.golds, corrected, rescore)


def _rules(
    store: Store,
    benchmark: Benchmark,
    samples: dict[str, Sample],
    answers: AnswerColumns,
    rules_first: bool,
    judge: Judge | None,
) -> Rescore:
    """The benchmark's rules scoring an answer again against other golds: its text, where
    they are the official scoring (`rules_first`) and can; else what `judge`'s judgment
    stored, where they read it (Benchmark.rescored: MathVista's extraction)."""

    def rescore(row: int, golds: list[str]) -> float | None:
        answer_id = int(answers.ids[row])
        sample = replace(samples[answers.key(row)], answer=golds[0], alt_answers=tuple(golds[1:]))
        if rules_first:
            (text,) = store.conn.execute(
                "SELECT text FROM answers WHERE id = ?", (answer_id,)
            ).fetchone()
            judgment = benchmark.offline(sample, text)
            if judgment is not None:
                return judgment.score
        reply = None if judge is None else _reply(store, answer_id, judge)
        return None if reply is None else benchmark.rescored(sample, reply)

    return rescore


def _reply(store: Store, answer_id: int, judge: Judge) -> str | None:
    """The reply `judge`'s scored judgment of an answer stored (its first run's)."""
    row = store.conn.execute(
        f"SELECT l.raw_reply FROM judgments l WHERE l.answer_id = ? AND {JUDGE_READS} "
        "AND l.score IS NOT NULL ORDER BY l.run, l.id DESC LIMIT 1",
        (answer_id, *judge.parameters()),
    ).fetchone()
    return None if row is None else row[0]


def tables_and_notes(
    store: Store,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    choice: JudgeChoice,
    causes: Mapping[str, str],
    intervals: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    errata: bool = False,
) -> tuple[list[Table], list[Notes]]:
    """Each dataset's tables (every dataset's, without `datasets`) and notes, by the judge
    `choice` chooses; the error causes' table where a dataset has causes (`causes` titles
    them). With `intervals`, each cell carries its bootstrap interval (engine.uncertainty).
    With `errata`, each table as published is followed by the same table with the errata
    in force (see with_errata_tables), and the notes say what the errata changed."""
    tables: list[Table] = []
    notes: list[Notes] = []
    for name, benchmark in store.datasets(with_judge(store, datasets, choice)[0]):
        judge = store.chosen_judge(name, choice)
        scores = dataset_scores(store, name, benchmark, judge)
        found = scores.breakdown.tables(unscored_as_zero)
        if intervals:
            found = scores.with_intervals(found, unscored_as_zero, resamples, seed)
        corrected = with_errata_scores(store, scores) if errata else None
        if corrected is not None and corrected.errata:  # else no twin and no notes line
            beside = corrected.breakdown.tables(unscored_as_zero)
            if intervals:
                beside = corrected.with_intervals(beside, unscored_as_zero, resamples, seed)
            found = with_errata_tables(found, beside)
            scores.errata = corrected.errata
        tables += found
        tagged = store.causes(name)
        if tagged:  # a dataset without error causes exports as it always did
            tables.append(cause_table(name, tagged, causes))
        verdicts = store.group_verdicts(name).values()
        judges, others = store.judge_names(name, judge)
        notes.append(scores.notes(judges, unscored_as_zero, verdicts, others))
    return tables, notes


ERRATA_SUFFIX = "+errata"  # a table with errata: its published table's name, then this


def with_errata_tables(published: list[Table], corrected: list[Table]) -> list[Table]:
    """Each published table followed by its twin with errata, named and titled so: the
    published tables stay as they are."""
    paired: list[Table] = []
    for table, twin in zip(published, corrected, strict=True):
        paired += [table, replace(twin, name=table.name + ERRATA_SUFFIX,
                                  title=f"{table.title} (with errata)")]  # fmt: skip
    return paired


@dataclass(frozen=True, slots=True)
class Versus:
    """Two models compared on one dataset (engine.uncertainty.versus), with the titles of
    the cells: "table/column" -> "Table title: Column title"."""

    dataset: str
    differences: list[Difference]
    titles: dict[str, str]


def versus_of(
    store: Store,
    datasets: list[str] | None,
    models: tuple[str, str],
    choice: JudgeChoice,
    unscored_as_zero: bool,
    resamples: int,
    seed: int,
) -> list[Versus]:
    """Model A minus model B on each dataset (every dataset both answered, without
    `datasets`), by the judge `choice` chooses. StoreError, naming the file, for a model
    a named dataset lacks, a named dataset where the two share no sample both scored, or
    models no dataset has both of (with a shared sample)."""
    a, b = models
    known = _models(store)
    for model in models:
        if model not in known:
            listed = ", ".join(repr(m) for m in sorted(known)) or "none yet"
            raise StoreError(f"{store.path}: no model {model!r} has answers; models: {listed}")
    found, disjoint = [], []
    for name, benchmark in store.datasets(with_judge(store, datasets, choice)[0]):
        missing = [m for m in models if m not in _models(store, name)]
        if missing and datasets:
            raise StoreError(
                f"{store.path}: dataset {name!r} has no answers of model {missing[0]!r}"
            )
        if missing:
            continue
        scores = dataset_scores(store, name, benchmark, store.chosen_judge(name, choice))
        differences = scores.versus(*models, unscored_as_zero, resamples, seed)
        if not differences:  # no unit both scored
            disjoint.append(name)
            continue
        titles = {
            f"{spec.name}/{column.key}": f"{spec.title}: {column.title}"
            for spec in scores.breakdown.layout.tables
            for column in spec.columns
        }
        found.append(Versus(name, differences, titles))
    if disjoint and (datasets or not found):
        where = ", ".join(repr(name) for name in disjoint)
        raise StoreError(f"{store.path}: {a!r} and {b!r} share no sample both scored in {where}")
    if not found:
        raise StoreError(f"{store.path}: no dataset has answers of both {a!r} and {b!r}")
    return found


def with_judge(
    store: Store, datasets: list[str] | None, choice: JudgeChoice
) -> tuple[list[str] | None, list[str]]:
    """The datasets to read, and those left out: `datasets` as named; without them, when
    `choice` names a judge some dataset has, those that have it (the others left out),
    else all (so that Store.chosen_judge names the judges of one that lacks it)."""
    if datasets or not choice.named:
        return datasets, []
    names = [name for name, _ in store.datasets(None)]
    kept = [name for name in names if judges_named(store.judges(name), choice.named)]
    if not kept:
        return None, []
    return kept, [name for name in names if name not in kept]


def _models(store: Store, dataset: str | None = None) -> set[str]:
    """The models with answers in a dataset (in any, without one)."""
    query = (
        "SELECT DISTINCT m.name FROM answers a JOIN models m ON m.id = a.model_id "
        "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id "
        "WHERE d.name = coalesce(?, d.name)"
    )
    return {name for (name,) in store.conn.execute(query, (dataset,))}
