"""The flips between two judges of a dataset (`lmmreview judges --flips A B`, and the
review screen's filter): each judge's scores, the human verdicts and the tables read as
the tables read them (db.scoring.dataset_scores), compared by engine.flips."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmmreview.db.scoring import DatasetScores, dataset_scores
from lmmreview.db.store import Store, StoreError
from lmmreview.engine.columns import NONE, Bools, Codes, Floats
from lmmreview.engine.flips import CellShift, Flip, cell_shifts, flipped, graded
from lmmreview.engine.scoring import Judge, JudgeChoice, judge_names, judges_named


@dataclass(frozen=True, slots=True)
class DatasetFlips:
    """One dataset's flips from judge A to judge B, and the cells they count in."""

    dataset: str
    a: str  # judge A's name, as `lmmreview judges` names it
    b: str
    graded: bool  # any change of score is a flip (else: right/wrong, or another option)
    flips: list[Flip]
    cells: list[CellShift]
    labels: dict[str, str]  # "table/column" -> "table: the column's title"


def judge_pair(store: Store, dataset: str, names: tuple[str, str]) -> tuple[Judge, Judge]:
    """The two judges `names` name in a dataset (as --judge reads a name); StoreError,
    naming the file and dataset, when one names none or several, or both the same."""
    a, b = (store.chosen_judge(dataset, JudgeChoice(named=name)) for name in names)
    if a is None or b is None:  # no judge at all: chosen_judge said so for a name given
        raise StoreError(f"{store.path}: dataset {dataset!r} has no judge yet")
    if a == b:
        raise StoreError(f"{store.path}: dataset {dataset!r}: {names[0]!r} and {names[1]!r} "
                         "name the same judge")  # fmt: skip
    return a, b


def has_judges(store: Store, dataset: str, names: tuple[str, str]) -> bool:
    """Whether each of `names` names one of a dataset's judges."""
    judges = store.judges(dataset)
    return all(len(judges_named(judges, name)) == 1 for name in names)


def known_judges(store: Store, datasets: list[str]) -> list[str]:
    """Every judge's name in these datasets, once each: what --flips takes."""
    names = (n for d in datasets for n in judge_names(store.judges(d)).values())
    return list(dict.fromkeys(names))


@dataclass(slots=True)
class _Compared:
    """A dataset read under judge A and under judge B, B's scores and choices in A's rows."""

    first: DatasetScores
    second: DatasetScores
    mean_a: Floats
    mean_b: Floats
    choice_b: Codes  # in A's labels
    graded: bool
    changed: Bools  # the flips


def _compare(store: Store, dataset: str, a: Judge, b: Judge) -> _Compared:
    benchmark = dict(store.datasets([dataset]))[dataset]
    first = dataset_scores(store, dataset, benchmark, a)
    second = dataset_scores(store, dataset, benchmark, b)
    answers, other = first.answers, second.answers
    rows, present = other.locate(answers.ids)  # an answer added between the reads: none in B
    mean_a, mean_b = answers.judge_mean(), np.where(present, other.judge_mean()[rows], np.nan)
    # B's chosen options in A's labels (NONE, -1, picks the last: NONE again)
    recode = np.array([answers.labels.code(t) for t in other.labels.texts] + [NONE], np.int32)
    choice_b = np.where(present, recode[other.judge_choice[rows]], NONE)
    in_grades = graded(answers.judged, other.judged)
    changed = flipped(mean_a, mean_b, answers.judge_choice, choice_b, in_grades)
    return _Compared(first, second, mean_a, mean_b, choice_b, in_grades, changed)


def flip_ids(store: Store, dataset: str, a: Judge, b: Judge) -> frozenset[int]:
    """The answers of `dataset` whose verdict changes from judge `a` to judge `b`."""
    compared = _compare(store, dataset, a, b)
    return frozenset(compared.first.answers.ids[compared.changed].tolist())


def judge_flips(store: Store, dataset: str, a: Judge, b: Judge) -> DatasetFlips:
    """The answers of `dataset` whose verdict changes from judge `a` to judge `b`, each with
    the cells it counts in, and those cells under each judge."""
    found = _compare(store, dataset, a, b)
    first, answers = found.first, found.first.answers
    human = ~np.isnan(answers.human(first.samples.golds))
    flips: list[Flip] = []
    values: dict[tuple[str, str, str], tuple[float | None, float | None]] = {}
    for row in np.flatnonzero(found.changed).tolist():
        model, key = answers.models[answers.model[row]], answers.key(row)
        cells_a = first.breakdown.row_cells(model, key)
        cells_b = found.second.breakdown.row_cells(model, key)
        counted_in = first.breakdown.layout.row(model, key)
        flips.append(Flip(
            int(answers.ids[row]), dataset, key, model, float(found.mean_a[row]),
            float(found.mean_b[row]), answers.labels.text(int(answers.judge_choice[row])),
            answers.labels.text(int(found.choice_b[row])), bool(human[row]), counted_in,
            tuple(cells_a),
        ))  # fmt: skip
        for cell, under_a in cells_a.items():
            under_b = cells_b.get(cell)
            values[dataset, counted_in, cell] = (
                under_a.value,
                None if under_b is None else under_b.value,
            )
    names = judge_names(store.judges(dataset))
    return DatasetFlips(
        dataset, names[a], names[b], found.graded, flips, cell_shifts(flips, values),
        {  # split here: a table's name holds the dataset's, which may hold a "/"
            f"{spec.name}/{c.key}": f"{spec.name}: {c.title}"
            for spec in first.breakdown.layout.tables
            for c in spec.columns
        },
    )  # fmt: skip
