"""Ground-truth errata: how a corrected or ambiguous gold changes the scores (pure).

An erratum marks a sample's published gold 'wrong' (with a corrected gold) or
'ambiguous' (with further acceptable answers, or none). The tables "with errata" score
the answers to those samples again (SCORING.md's rules, against the corrected golds);
what no rule can score again leaves them, and the notes count it. The published tables
never read errata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lmmreview.engine.columns import AnswerColumns, GoldsOf, Ints, outcomes
from lmmreview.engine.history_values import (
    control_problem,
    name_problem,
    texts_of,
    time_problem,
)
from lmmreview.engine.scoring import choice_score
from lmmreview.engine.types import Sample

STATUSES = ("wrong", "ambiguous")


@dataclass(frozen=True, slots=True)
class Erratum:
    """The erratum in force on one sample (status None: cleared, as published)."""

    key: str
    status: str | None
    gold: str | None = None  # the corrected gold ('wrong')
    alternatives: tuple[str, ...] = ()  # further acceptable answers
    reason: str = ""
    reviewer: str = ""
    created_at: str = ""
    origin: str = ""  # the row of its circular group it was given on ("": this one)

    def same_state(self, other: Erratum | None) -> bool:
        """Whether `other` says the same of the gold (whoever wrote it, whenever)."""
        state = (self.status, self.gold, self.alternatives, self.reason)
        if other is None:
            return self.status is None
        return state == (other.status, other.gold, other.alternatives, other.reason)

    def golds(self, published: list[str]) -> list[str] | None:
        """The acceptable golds with this erratum; None: none (the sample leaves the
        tables with errata)."""
        if self.status == "wrong":
            return [g for g in (self.gold, *self.alternatives) if g is not None]
        if self.status == "ambiguous":
            return [*published, *self.alternatives] if self.alternatives else None
        return published


def problem(sample: Sample, erratum: Erratum) -> str | None:
    """Why `erratum` cannot stand on `sample` (None: it can): an unknown status, a 'wrong'
    gold missing or equal to the published one, or, for a choice question, an answer that
    is not one of its letters."""
    if erratum.status is not None and erratum.status not in STATUSES:
        return f"status {erratum.status!r} is not one of wrong, ambiguous (empty: clear)"
    if erratum.status is None:
        extra = erratum.gold is not None or erratum.alternatives
        return "a cleared erratum takes no gold or alternatives" if extra else None
    if erratum.status == "wrong" and not (erratum.gold or "").strip():
        return "a 'wrong' erratum needs the corrected gold"
    if erratum.status == "wrong" and (erratum.gold or "").strip() == (sample.answer or "").strip():
        return f"{erratum.gold!r} is the published gold of {sample.key}: nothing to correct"
    if erratum.status == "ambiguous" and erratum.gold is not None:
        return "an 'ambiguous' erratum keeps the published gold: give alternatives instead"
    given = [g for g in (erratum.gold, *erratum.alternatives) if g is not None]
    if any(not g.strip() for g in given):
        return "an alternative is blank"
    letters = list(sample.options)
    wrong = [g for g in given if letters and g not in letters]
    if wrong:
        return f"{wrong[0]!r} is not an option letter of {sample.key} ({', '.join(letters)})"
    return None


def spread(
    errata: Mapping[str, Erratum], samples: Sequence[Sample], group_field: str | None
) -> dict[str, Erratum]:
    """The errata in force, each row's. With `group_field` (MMBench's circular groups:
    the rotations hold the same options in another order), a group's latest erratum (the
    last of `errata`, which come in the order they were given) is on every row of the
    group, a corrected letter mapped by its option's text, so one gold scores the group.
    A letter whose text another row lacks leaves that row out (status 'ambiguous' without
    alternatives)."""
    found = dict(errata)
    if group_field is None:
        return found
    groups: dict[tuple[object, object], list[Sample]] = {}
    for sample in samples:
        if (number := sample.extra.get(group_field)) is not None:
            groups.setdefault((sample.split, number), []).append(sample)
    by_key = {s.key: s for s in samples}
    latest = {
        (source.split, group): source
        for key in errata
        if (source := by_key.get(key)) is not None
        and (group := source.extra.get(group_field)) is not None
    }  # the last given of each group stays
    for where, source in latest.items():
        erratum = errata[source.key]
        for mate in groups[where]:
            found[mate.key] = erratum if mate.key == source.key else _mapped(erratum, source, mate)
    return found


def _mapped(erratum: Erratum, source: Sample, mate: Sample) -> Erratum:
    """`erratum` of `source` as it reads on `mate`, another rotation of its question."""
    by_text = {text: letter for letter, text in mate.options.items()}

    def letter(given: str) -> str | None:
        return by_text.get(source.options.get(given, ""))

    gold = None if erratum.gold is None else letter(erratum.gold)
    alternatives = tuple(letter(a) for a in erratum.alternatives)
    if (erratum.gold is not None and gold is None) or None in alternatives:  # no rule maps it
        return Erratum(mate.key, "ambiguous", reason=erratum.reason, reviewer=erratum.reviewer,
                       created_at=erratum.created_at, origin=source.key)  # fmt: skip
    kept = tuple(a for a in alternatives if a is not None)
    return Erratum(mate.key, erratum.status, gold, kept, erratum.reason, erratum.reviewer,
                   erratum.created_at, source.key)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ErrataCount:
    """What the errata did to a dataset's answers, for the notes."""

    samples: int  # samples with an erratum in force (their rotations included)
    changed: int  # answers whose score differs from the published one
    left_judged: int  # left out: a judge's score against the published gold, not redone
    left_ambiguous: int  # left out: an ambiguous gold with no acceptable answer given

    def sentence(self, dataset: str) -> str:
        return (
            f"{dataset} with errata: {self.samples} sample(s) with an erratum in force; "
            f"{self.changed} answer(s) change score; "
            f"{self.left_judged + self.left_ambiguous} left out ({self.left_judged} whose "
            f"score a judge gave against the published gold, which no rule here can give "
            f"again, and not reviewed, {self.left_ambiguous} to an ambiguous question with no "
            f"acceptable answer given)."
        )


# An answer's row, golds -> the benchmark's rules' score (None: they cannot give one)
Rescore = Callable[[int, list[str]], float | None]


@dataclass(frozen=True, slots=True)
class WithErrata:
    """A dataset's answers as the tables with errata read them."""

    answers: AnswerColumns
    golds_of: GoldsOf
    count: ErrataCount


def with_errata(
    answers: AnswerColumns,
    runs: int,
    golds_of: GoldsOf,
    corrected: Mapping[int, list[str] | None],
    rescore: Rescore | None,
) -> WithErrata:
    """`answers` (unchanged) as they score with errata. `corrected`: sample index -> its
    golds with errata (None: it leaves). An answer to such a sample keeps its human
    verdict (a chosen option is scored against the new golds); else a judge's choice is
    scored against them; else `rescore` (the benchmark's rules, on its text or its stored
    extraction) scores it; else it leaves: a judge's score against the published gold no
    longer stands. An answer never scored stays as it is."""
    new = answers.take(np.arange(len(answers)))  # a copy: the published columns stay
    rows = np.flatnonzero(np.isin(answers.sample, np.fromiter(corrected, np.int64)))
    keep = np.ones(len(answers), np.bool_)
    judged = ambiguous = 0
    for row in rows.tolist():
        golds = corrected[int(answers.sample[row])]
        if golds is None:
            keep[row], ambiguous = False, ambiguous + 1
        elif not _rescored(new, row, golds, rescore):
            keep[row], judged = False, judged + 1

    def golds_with(index: int) -> list[str]:
        found = corrected.get(index, golds_of(index))
        return golds_of(index) if found is None else found

    stay = rows[keep[rows]]
    changed = _changed(answers, new, stay, runs, golds_of, golds_with)
    count = ErrataCount(len(corrected), changed, judged, ambiguous)
    return WithErrata(new.take(np.flatnonzero(keep)), golds_with, count)


def _rescored(answers: AnswerColumns, row: int, golds: list[str], rescore: Rescore | None) -> bool:
    """Score one answer again against `golds`, in place; False: nothing can."""
    if answers.reviewed[row]:
        return True  # a human verdict stands
    runs = int(answers.judged_runs[row])
    if np.all(np.isnan(answers.judged[row, :runs])):
        return True  # never scored (unjudged, or every run failed): it stays as it is
    choice = answers.labels.text(int(answers.judge_choice[row]))
    if choice is not None:
        score = choice_score(choice, golds)
    elif rescore is None or (score := rescore(row, golds)) is None:
        return False
    scored = ~np.isnan(answers.judged[row, :runs])
    answers.judged[row, :runs] = np.where(scored, np.nan if score is None else score, np.nan)
    return True


def _changed(
    before: AnswerColumns, after: AnswerColumns, rows: Ints, runs: int, golds_of: GoldsOf,
    golds_with: GoldsOf,
) -> int:  # fmt: skip
    """How many of `rows` score otherwise with errata than as published."""
    if not len(rows):
        return 0
    old = outcomes(before.take(rows), runs, golds_of)
    new = outcomes(after.take(rows), runs, golds_with)
    same = np.all((old.micro == new.micro) & (old.scored == new.scored), axis=1)
    return int(np.sum(~same))


# -- the file sent upstream ------------------------------------------------------------

FIELDS = (
    "dataset", "sample", "question", "published_gold", "gold", "alternatives", "status",
    "reason", "reviewer", "created_at",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Record:
    """One erratum as the errata file holds it: where it stands, and the published
    question and gold it corrects (an import checks they are the file's)."""

    dataset: str
    question: str
    published: str | None
    erratum: Erratum

    def fields(self) -> dict[str, object]:
        e = self.erratum
        return {
            "dataset": self.dataset, "sample": e.key, "question": self.question,
            "published_gold": self.published, "gold": e.gold,
            "alternatives": list(e.alternatives), "status": e.status, "reason": e.reason,
            "reviewer": e.reviewer, "created_at": e.created_at,
        }  # fmt: skip


class BadRecord(ValueError):
    """An errata file's row that cannot be read (the message says why)."""


def record_of(fields: Mapping[str, object]) -> Record:
    """A Record from a row of an errata file (JSON object, or CSV row whose alternatives
    cell holds a JSON list); BadRecord says what is wrong."""
    unknown = sorted(str(name) for name in set(fields) - set(FIELDS))
    if unknown:
        raise BadRecord(f"unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
    text = {name: _text(fields, name) for name in FIELDS if name != "alternatives"}
    for name in ("dataset", "sample", "status", "reviewer", "created_at"):
        if not text[name]:
            raise BadRecord(f"{name} is missing")
    for name, check in (("reviewer", name_problem), ("created_at", time_problem)):
        wrong = check(text[name])  # as a merge checks them: the history is ordered by time
        if wrong:
            raise BadRecord(f"{name} {text[name]!r} {wrong}")
    alternatives = _alternatives(fields.get("alternatives"))
    given = {"reviewer": text["reviewer"], "reason": text["reason"], "gold": text["gold"]}
    for name, value in (*given.items(), *(("alternatives", a) for a in alternatives)):
        wrong = control_problem(value or "")
        if wrong:
            raise BadRecord(f"{name} {value!r} {wrong}")
    erratum = Erratum(
        str(text["sample"]), text["status"], text["gold"] or None, alternatives,
        text["reason"] or "", str(text["reviewer"]), str(text["created_at"]),
    )  # fmt: skip
    return Record(str(text["dataset"]), text["question"] or "", text["published_gold"], erratum)


def _text(fields: Mapping[str, object], name: str) -> str | None:
    value = fields.get(name)
    if value is None or isinstance(value, str):
        return value
    raise BadRecord(f"{name} must be text, not {type(value).__name__}")


def _alternatives(value: object) -> tuple[str, ...]:
    """A list of texts, or a CSV cell holding one as JSON ('' or absent: none)."""
    if value is None or value == "":
        return ()
    found = texts_of(value)
    if found is None:
        raise BadRecord("alternatives must be a JSON list of texts")
    return found
