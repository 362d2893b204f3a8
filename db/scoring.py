"""Scores from the store: run the offline judge, and build a dataset's live breakdown."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.breakdown import Breakdown
from lmmreview.engine.causes import cause_table
from lmmreview.engine.export import ImportedCircular, Notes
from lmmreview.engine.layouts import layout_for
from lmmreview.engine.scoring import MICRO, OFFLINE, GroupVerdict, Judge, Outcome
from lmmreview.engine.tables import Table
from lmmreview.engine.types import Sample


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


def score_offline(store: Store, datasets: list[str] | None = None) -> Iterator[OfflineRun]:
    """Judge by rule every answer the rules have not scored yet (or whose latest offline
    judgment failed), whatever other judges said; one transaction each."""
    for name, benchmark in store.datasets(datasets or None):
        samples = {s.key: s for s in store.samples(name)}
        judged = store.deciding_judgments(name, OFFLINE)  # other judges' scores stand beside
        results = []
        for answer_id, _, key, text in store.answer_rows(name):
            judgment = None if answer_id in judged else benchmark.offline(samples[key], text)
            if judgment is not None:
                results.append((answer_id, judgment))
        with store.transaction():
            store.add_judgments(results)
        notes = dataset_scores(store, name, benchmark, OFFLINE).notes([])
        yield OfflineRun(
            name, len(results), notes.offline, notes.fallback, notes.unscored, notes.no_gold
        )


@dataclass(slots=True)
class DatasetScores:
    """A dataset's samples, the answer ids behind each (model, key), and its breakdown."""

    name: str
    benchmark: Benchmark
    samples: dict[str, Sample]
    answers: dict[tuple[str, str], int]  # (model, sample key) -> answer id
    breakdown: Breakdown
    no_reply: int = 0  # answers an imported 0.0 without a judge reply scores

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
        keyed = [kv for per_key in self.breakdown.outcomes.values() for kv in per_key.items()]
        outcomes = [o for _, o in keyed]
        return Notes(
            dataset=self.name,
            kind=self.benchmark.name,
            judges=tuple(judges),
            runs=self.breakdown.runs,
            answers=len(outcomes),
            reviewed=sum(o.reviewed for o in outcomes),
            unscored=sum(o.unscored for o in outcomes),
            fallback=sum(o.fallback for o in outcomes),
            unscored_as_zero=unscored_as_zero,
            partial=sum(o.partial for o in outcomes),
            offline=sum(o.offline for o in outcomes),
            no_gold=sum(o.unscored and not self.samples[k].golds for k, o in keyed),
            imported_circular=self._imported_circular(verdicts),
            no_reply=self.no_reply,
            other_judges=tuple(other_judges),
        )

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
        units = layout.units_of.get(key)
        if not units:
            return None
        unit = max(units, key=lambda u: len(u.members))  # the whole group, not the row alone
        per_key = self.breakdown.outcomes.get(model, {})
        missing = Outcome.of((None,) * self.breakdown.runs)
        micro = layout.combine(unit)([per_key.get(k, missing) for k in unit.members]).micro[0]
        return None if micro is None else micro / MICRO


def dataset_scores(
    store: Store, name: str, benchmark: Benchmark, judge: Judge | None
) -> DatasetScores:
    """Read a dataset's answers, `judge`'s judgments (see Store.chosen_judge) and the
    verdicts; compute every table."""
    samples = {s.key: s for s in store.samples(name)}
    runs = store.judge_runs(name, judge)  # the screen counts runs alike: failed ones included
    breakdown = Breakdown(layout_for(name, benchmark, list(samples.values())), runs)
    answers: dict[tuple[str, str], int] = {}
    outcomes: dict[str, dict[str, Outcome]] = {}
    no_reply = 0
    for entry in EntryReader(store, judge).entries(name):  # as the review screen reads them
        answers[(entry.model, entry.key)] = entry.answer_id
        no_reply += entry.no_reply and entry.verdict is None
        outcomes.setdefault(entry.model, {})[entry.key] = entry.outcome(
            runs, samples[entry.key].golds
        )
    breakdown.load(outcomes)
    return DatasetScores(name, benchmark, samples, answers, breakdown, no_reply)


def tables_and_notes(
    store: Store,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    judge_name: str | None,
    preferred: str | None,
    causes: Mapping[str, str],
) -> tuple[list[Table], list[Notes]]:
    """Each dataset's tables (every dataset's, without `datasets`) and notes, by the judge
    `judge_name` names, else the one `preferred` names, else the default; the error
    causes' table where a dataset has causes (`causes` titles them)."""
    tables: list[Table] = []
    notes: list[Notes] = []
    for name, benchmark in store.datasets(datasets):
        judge = store.chosen_judge(name, judge_name, preferred)
        scores = dataset_scores(store, name, benchmark, judge)
        tables += scores.breakdown.tables(unscored_as_zero)
        tagged = store.causes(name)
        if tagged:  # a dataset without error causes exports as it always did
            tables.append(cause_table(name, tagged, causes))
        verdicts = store.group_verdicts(name).values()
        judges, others = store.judge_names(name, judge)
        notes.append(scores.notes(judges, unscored_as_zero, verdicts, others))
    return tables, notes
