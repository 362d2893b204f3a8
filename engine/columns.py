"""A dataset's answers as columns: one array per field, not one object per answer.

A million answers then take tens of megabytes, and what the tables, the filters and the
list's sort need is computed over whole columns in C. One answer at a time (the answer
shown, a verdict) still goes through `Entry` and `engine.scoring.effective`: `entry` and
`put` convert a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from lmmreview.engine.review import AxesOf, Entry, Filter
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import MICRO, Verdict, human_score

NONE = -1  # an index column's "no value" (no choice, no cause)

Ints = npt.NDArray[np.int64]
# Label codes and run counts: small numbers, half the memory of Ints at a million answers.
Codes = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
GoldsOf = Callable[[int], list[str]]  # a sample index -> its golds


class Labels:
    """Strings stored as small integers in a column (choices, causes): each text once."""

    __slots__ = ("index", "texts")

    def __init__(self, texts: Sequence[str] = ()) -> None:
        self.texts: list[str] = []
        self.index: dict[str, int] = {}
        for text in texts:
            self.code(text)

    def code(self, text: str | None) -> int:
        """The text's number (given on first sight); NONE for None."""
        if text is None:
            return NONE
        number = self.index.get(text)
        if number is None:
            number = self.index[text] = len(self.texts)
            self.texts.append(text)
        return number

    def text(self, code: int) -> str | None:
        return None if code == NONE else self.texts[code]


@dataclass(slots=True)
class AnswerColumns:
    """One row per answer, in list order (by sample, then model)."""

    ids: Ints  # answer ids
    sample: Ints  # index into `keys`
    model: Ints  # index into `models`
    judged: Floats  # (answers, runs): each run's deciding score; NaN: no usable one
    judged_runs: Codes  # the runs an answer has a deciding judgment for (failed ones too)
    judge_choice: Codes  # into `labels`
    verdict_score: Floats  # the verdict in force: its score (NaN: none) ...
    verdict_choice: Codes  # ... or its chosen option (into `labels`)
    reviewed: Bools  # a verdict is in force
    flagged: Bools
    failed: Bools  # some run's latest judgment failed
    fallback: Bools
    offline: Bools
    no_reply: Bools  # an imported 0.0 with no judge reply (see Entry.no_reply)
    noted: Bools
    cause: Codes  # into `labels`
    keys: list[str]
    models: list[str]
    labels: Labels
    _find: tuple[dict[str, int], dict[str, int], Ints, Ints] | None = None  # see row_of
    _by_id: tuple[Ints, Ints] | None = None  # see index_of

    @classmethod
    def empty(cls, keys: list[str], models: list[str], runs: int = 1) -> AnswerColumns:
        return cls.of(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                      keys, models, runs)  # fmt: skip

    @classmethod
    def of(
        cls, ids: Ints, sample: Ints, model: Ints, keys: list[str], models: list[str], runs: int
    ) -> AnswerColumns:
        """Answers with nothing judged, reviewed or marked yet."""
        n = len(ids)

        def none() -> Codes:
            return np.full(n, NONE, np.int32)

        def no() -> Bools:
            return np.zeros(n, np.bool_)

        return cls(
            ids, sample, model, np.full((n, max(runs, 1)), np.nan), np.zeros(n, np.int32),
            none(), np.full(n, np.nan),
            none(), no(), no(), no(), no(), no(), no(), no(), none(), keys, models, Labels(),
        )  # fmt: skip

    @classmethod
    def from_entries(cls, entries: Sequence[Entry], keys: list[str]) -> AnswerColumns:
        """Columns holding `entries` (their samples among `keys`), in their order."""
        models = list(dict.fromkeys(e.model for e in entries))
        sample = np.array([keys.index(e.key) for e in entries], np.int64)
        model = np.array([models.index(e.model) for e in entries], np.int64)
        ids = np.array([e.answer_id for e in entries], np.int64)
        answers = cls.of(ids, sample, model, keys, models, 1)
        for row, entry in enumerate(entries):
            answers.put(row, entry)
        return answers

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def runs(self) -> int:
        return int(self.judged.shape[1])

    def widen(self, runs: int) -> None:
        """Make room for `runs` judge runs (a new run appeared)."""
        if runs > self.runs:
            extra = np.full((len(self), runs - self.runs), np.nan)
            self.judged = np.hstack([self.judged, extra])

    def row_of(self, model: str, key: str) -> int | None:
        """The row of `model`'s answer to sample `key` (None: it has none)."""
        if self._find is None:  # sorted (model, sample) numbers: a search, not a dict of all
            numbers = self.model * len(self.keys) + self.sample
            order = np.argsort(numbers, kind="stable")
            self._find = (
                {name: i for i, name in enumerate(self.models)},
                {k: i for i, k in enumerate(self.keys)},
                order,
                numbers[order],
            )
        models, keys, order, numbers = self._find
        if model not in models or key not in keys:
            return None
        number = models[model] * len(self.keys) + keys[key]
        place = int(np.searchsorted(numbers, number))
        found = place < len(order) and numbers[place] == number
        return int(order[place]) if found else None

    def locate(self, answer_ids: Ints) -> tuple[Ints, Bools]:
        """The row of each of `answer_ids`, and which of them are among these answers (the
        others' rows mean nothing). The first call sorts the ids once: make it off the UI
        thread, where the answers are read."""
        if self._by_id is None:
            order = np.argsort(self.ids, kind="stable")
            self._by_id = (order, self.ids[order])
        order, ids = self._by_id
        if not len(ids):
            return np.zeros(len(answer_ids), np.int64), np.zeros(len(answer_ids), np.bool_)
        rows = order[np.minimum(np.searchsorted(ids, answer_ids), len(ids) - 1)]
        return rows, self.ids[rows] == answer_ids

    def index_of(self, answer_id: int) -> int | None:
        """The row of an answer (None: not among these)."""
        rows, found = self.locate(np.array([answer_id], np.int64))
        return int(rows[0]) if found[0] else None

    def key(self, row: int) -> str:
        return self.keys[self.sample[row]]

    def entry(self, row: int) -> Entry:
        """One answer as an Entry."""
        scores = self.judged[row, : self.judged_runs[row]]
        judged = tuple(None if np.isnan(s) else float(s) for s in scores)
        verdict = None
        if self.reviewed[row]:
            score = self.verdict_score[row]
            verdict = Verdict(
                None if np.isnan(score) else float(score),
                self.labels.text(int(self.verdict_choice[row])),
            )
        return Entry(
            int(self.ids[row]), self.models[self.model[row]], self.keys[self.sample[row]],
            judged, self.labels.text(int(self.judge_choice[row])), verdict,
            bool(self.flagged[row]), bool(self.failed[row]), bool(self.fallback[row]),
            bool(self.offline[row]), bool(self.no_reply[row]),
            self.labels.text(int(self.cause[row])), bool(self.noted[row]),
        )  # fmt: skip

    def causes(self) -> set[str]:
        """The error causes some answer has."""
        return {self.labels.texts[code] for code in np.unique(self.cause) if code != NONE}

    def entries(self) -> Iterator[Entry]:
        return (self.entry(row) for row in range(len(self)))

    # A sequence of entries, one made per access: for a few, not for a million.
    __getitem__ = entry
    __iter__ = entries

    def put(self, row: int, entry: Entry) -> None:
        """Store `entry` (the same answer, changed) in its row."""
        self.widen(len(entry.judged))
        self.judged[row] = np.nan
        self.judged[row, : len(entry.judged)] = [np.nan if s is None else s for s in entry.judged]
        self.judged_runs[row] = len(entry.judged)
        self.judge_choice[row] = self.labels.code(entry.judge_choice)
        verdict = entry.verdict
        self.reviewed[row] = verdict is not None
        score = None if verdict is None else verdict.score
        self.verdict_score[row] = np.nan if score is None else score
        self.verdict_choice[row] = self.labels.code(None if verdict is None else verdict.choice)
        self.flagged[row], self.failed[row] = entry.flagged, entry.failed
        self.fallback[row], self.offline[row] = entry.fallback, entry.offline
        self.no_reply[row], self.noted[row] = entry.no_reply, entry.noted
        self.cause[row] = self.labels.code(entry.cause)

    def take(self, rows: Ints) -> AnswerColumns:
        """The answers at `rows`, as columns of their own (sharing keys, models, labels)."""
        taken: dict[str, Any] = {  # the array columns, not the caches
            f.name: value[rows]
            for f in fields(self)
            if isinstance(value := getattr(self, f.name), np.ndarray)
        }
        return AnswerColumns(**taken, keys=self.keys, models=self.models, labels=self.labels)

    def unfilled(self) -> AnswerColumns:
        """The same answers with nothing judged, reviewed or marked: columns to fill
        beside these. Their ids, samples and models (never changed in place) and what is
        found by them are shared."""
        answers = AnswerColumns.of(self.ids, self.sample, self.model, self.keys, self.models, 1)
        answers._find, answers._by_id = self._find, self._by_id
        return answers

    def share_keys(self, samples: SampleSet) -> None:
        """Number samples as `samples` does, holding its list of keys (not a second one
        alike); it has every key of these answers, and more where some came since."""
        if self.keys != samples.keys:
            self.sample, self._find = self.samples_in(samples), None
        self.keys = samples.keys

    def samples_in(self, samples: SampleSet) -> Ints:
        """Each answer's sample as an index into `samples` (it has every key of these)."""
        if self.keys == samples.keys:
            return self.sample
        return np.array([samples.index[key] for key in self.keys], np.int64)[self.sample]

    def append(self, more: AnswerColumns) -> None:
        """Add answers read later (same keys and models lists; their labels are recoded)."""
        runs = max(self.runs, more.runs)
        self.widen(runs)
        more.widen(runs)
        for name in ("judge_choice", "verdict_choice", "cause"):
            codes = getattr(more, name)
            recode = np.array([self.labels.code(t) for t in more.labels.texts] + [NONE], np.int32)
            setattr(more, name, recode[codes])  # NONE (-1) picks the last: NONE again
        for f in fields(self):
            column = getattr(self, f.name)
            if isinstance(column, np.ndarray):
                setattr(self, f.name, np.concatenate([column, getattr(more, f.name)]))
        self._find = self._by_id = None

    # -- over every answer ---------------------------------------------------------------

    def human(self, golds_of: GoldsOf) -> Floats:
        """Each answer's human score (NaN: none), as `engine.scoring.human_score` gives it:
        a chosen option is scored against its sample's golds."""
        scores = np.where(self.reviewed, self.verdict_score, np.nan)
        for row in np.flatnonzero(self.reviewed & (self.verdict_choice != NONE)):
            verdict = Verdict(None, self.labels.text(int(self.verdict_choice[row])))
            score = human_score(verdict, golds_of(int(self.sample[row])))
            scores[row] = np.nan if score is None else score
        return scores

    def _run_sums(self) -> tuple[Ints, Ints, Ints]:
        """Per answer: scored runs, and the sum and sum of squares of their whole
        millionths (integers: runs that agree have a spread of exactly 0)."""
        whole, scored = micro(self.judged)
        return scored.sum(axis=1), whole.sum(axis=1), (whole * whole).sum(axis=1)

    def judge_mean(self) -> Floats:
        """The mean over scored runs (NaN: none), as Entry.judge_mean."""
        counts, sums, _ = self._run_sums()
        return np.where(counts > 0, sums / np.maximum(counts, 1) / MICRO, np.nan)

    def spread(self) -> Floats:
        """Population std across scored runs (NaN with fewer than two), as Entry.spread."""
        counts, sums, squares = self._run_sums()
        n = np.maximum(counts, 1)
        spread = np.sqrt(np.maximum(n * squares - sums * sums, 0)) / n / MICRO
        return np.where(counts > 1, spread, np.nan)

    def disagreement(self, golds_of: GoldsOf) -> Floats:
        """`judge_human_difference` of every answer (NaN: none)."""
        both_chose = self.reviewed & (self.verdict_choice != NONE) & (self.judge_choice != NONE)
        other_option = (self.verdict_choice != self.judge_choice).astype(np.float64)
        by_score = np.abs(self.judge_mean() - self.human(golds_of))
        return np.where(both_chose, other_option, np.where(self.reviewed, by_score, np.nan))


def micro(scores: Floats) -> tuple[Ints, Bools]:
    """Scores as whole millionths, rounded as `Outcome.of` rounds (half to even), and
    where there is one."""
    scored = ~np.isnan(scores)
    whole = np.where(scored, scores, 0.0)
    whole *= MICRO  # in place: a million answers' columns are tens of megabytes each
    return np.rint(whole, out=whole).astype(np.int64), scored


@dataclass(frozen=True, slots=True)
class Outcomes:
    """Every answer's effective outcome (`engine.scoring.effective`, over whole columns):
    whole millionths per run where `scored`, and the outcome's flags."""

    micro: Ints  # (answers, runs)
    scored: Bools  # (answers, runs)
    reviewed: Bools
    fallback: Bools
    offline: Bools

    @property
    def complete(self) -> Bools:
        return np.all(self.scored, axis=1)

    @property
    def unscored(self) -> Bools:
        return ~np.any(self.scored, axis=1)


def outcomes(answers: AnswerColumns, runs: int, golds_of: GoldsOf) -> Outcomes:
    """The effective outcome of every answer, as `effective` gives it one at a time: a
    human score holds for every run; else the judge's runs (the first `runs`), with the
    fallback and offline flags only where some run has a score."""
    answers.widen(runs)
    human = answers.human(golds_of)
    by_human = ~np.isnan(human)
    scores = np.where(by_human[:, None], human[:, None], answers.judged[:, :runs])
    del human
    whole, scored = micro(scores)
    del scores
    any_scored = np.any(scored, axis=1)
    judge_flag = ~by_human & any_scored
    return Outcomes(
        whole, scored, answers.reviewed.copy(), answers.fallback & judge_flag,
        answers.offline & judge_flag,
    )  # fmt: skip


def matching(
    flt: Filter, answers: AnswerColumns, samples: SampleSet, axes_of: AxesOf,
    reviewed: Bools | None = None,
) -> Bools:  # fmt: skip
    """Which answers the filter lets through: every condition set, over whole columns;
    `samples` are the answers' samples (by sample index); `reviewed`: which count as
    reviewed (default: those with a verdict in force)."""
    keep = np.ones(len(answers), np.bool_)
    reviewed = answers.reviewed if reviewed is None else reviewed
    for wanted, column in (
        (flt.unreviewed, ~reviewed), (flt.flagged, answers.flagged),
        (flt.failed, answers.failed), (flt.fallback, answers.fallback),
        (flt.no_reply, answers.no_reply),
    ):  # fmt: skip
        if wanted:
            keep &= column
    if flt.model is not None:
        number = answers.models.index(flt.model) if flt.model in answers.models else NONE
        keep &= answers.model == number
    if flt.cause is not None:
        keep &= answers.cause == answers.labels.index.get(flt.cause, -2)
    listed = (flt.reviewers_disagree, flt.judges_disagree, flt.flips, flt.sources_disagree)
    for ids in (flt.text_ids, flt.cell_ids, flt.assigned, *listed):
        if ids is not None:
            keep &= np.isin(answers.ids, np.fromiter(ids, np.int64, len(ids)))
    if flt.disagreement is not None:
        keep &= np.nan_to_num(answers.disagreement(samples.golds), nan=0.0) > flt.disagreement
    if flt.spread is not None:
        keep &= np.nan_to_num(answers.spread(), nan=0.0) > flt.spread
    if flt.axis is not None:
        name, value = flt.axis
        # axes are alike within a profile (engine.samples)
        found = [value in axes_of(p).get(name, ()) for p in samples.profiles]
        keep &= np.array(found, np.bool_)[samples.profile][answers.sample]
    return keep
