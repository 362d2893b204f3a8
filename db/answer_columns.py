"""A dataset's answers read as columns (engine.columns.AnswerColumns), fast.

Each query here asks for whole columns (db.joined), restricted to the dataset by a
range of ids, and numpy keeps the rows that belong; a judgment's run, kind and score come
packed in one integer. The rows few answers have (verdicts, flags, causes) are read as rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple, cast

import numpy as np

from lmmreview.db.joined import cut, in_id_order, ints, read_text_columns
from lmmreview.db.schema import JUDGE_READS
from lmmreview.engine.columns import NONE, AnswerColumns, Ints
from lmmreview.engine.scoring import IMPORTED, MICRO, USABLE, Judge

# Which judgments a table's scores may come from: the deciding one per (answer, run).
# Its kind, in bits (never NULL: group_concat would skip it): usable, fallback, the offline
# rules', an imported 0.0 without reply, and whether it chose an option.
_USABLE, _FALLBACK, _OFFLINE, _NO_REPLY, _CHOSE = 1, 2, 4, 8, 16
_KIND_WIDTH = 5
_KIND_BITS = (  # CASE, not a sum of comparisons: it reads each column once
    "(CASE l.status "
    + " ".join(f"WHEN '{s}' THEN {_USABLE | (_FALLBACK * (s == 'fallback'))}" for s in USABLE)
    + f" ELSE 0 END + CASE l.judge_kind WHEN 'offline' THEN {_OFFLINE} WHEN '{IMPORTED}' "
    f"THEN {_NO_REPLY} * (l.score IS 0 AND COALESCE(l.raw_reply, '') = '') ELSE 0 END "
    f"+ {_CHOSE} * (l.choice IS NOT NULL))"
)
# A judgment `x` of the query below: its score in whole millionths, rounded half to even
# as the tables round it (engine.columns.micro; `score - whole` is exact), _NO_SCORE for none,
# with its run and kind bits above: one number per judgment to join and parse.
_SCORE_BITS, _NO_SCORE = 20, 2**20 - 1  # MICRO < 2**20 - 1
_RUN_SHIFT = _SCORE_BITS + _KIND_WIDTH
_PART = 1 << 18  # judgments put on the answers at a time (see _apply_judgments)
_RUN_KIND_SCORE = (
    f"((x.run_kind << {_SCORE_BITS}) + COALESCE(x.whole + (x.score - x.whole > 0.5 "
    f"OR (x.score - x.whole = 0.5 AND x.whole % 2 = 1)), {_NO_SCORE}))"
)
# Judgments in the order that puts each (answer, run)'s deciding one (its latest) last:
# the order of the index judgments_answer (answer_id, run, then id), so SQLite sorts nothing.
_JUDGMENTS = (
    f"SELECT l.answer_id, (l.run << {_KIND_WIDTH}) + {_KIND_BITS} AS run_kind, "
    f"l.score * {MICRO} AS score, "
    f"CAST(l.score * {MICRO} AS INTEGER) AS whole, l.choice FROM judgments l "
    "WHERE {where} ORDER BY l.answer_id, l.run, l.id"
)


class ColumnReader:
    """Reads one dataset's answers as columns from a connection (`only`: just these
    answers, for a few that another process changed)."""

    def __init__(
        self, conn: sqlite3.Connection, dataset_id: int, only: Sequence[int] | None = None
    ) -> None:
        self.conn = conn
        self.dataset_id = dataset_id
        self.only = sorted(only) if only is not None else None
        self._listed = ",".join(map(str, self.only or ()))  # for SQL: integers only

    def answers(self, keys: list[str] | None = None, head: int | None = None) -> AnswerColumns:
        """Every answer, by sample (the samples by id; their keys are read unless given)
        then model, with nothing judged or reviewed yet: enough for the list. A few
        answers (`only`) come with the keys of their own samples; `head`: only the
        answers to the first `head` samples, with their keys (the top of the list)."""
        sample_ids, keys = self._samples(keys if self.only is None else None, head)
        if not len(sample_ids):
            return AnswerColumns.empty(keys, [])
        scope, bounds = "sample_id BETWEEN ? AND ?", (int(sample_ids[0]), int(sample_ids[-1]))
        if self.only is not None:
            scope += f" AND id IN ({self._listed})"
        ids, models, samples = (
            ints(text)
            for text in self.conn.execute(
                "SELECT group_concat(id), group_concat(model_id), group_concat(sample_id) "
                f"FROM answers WHERE {scope}",
                bounds,
            ).fetchone()
        )
        place = np.searchsorted(sample_ids, samples)
        mine = sample_ids[np.minimum(place, len(sample_ids) - 1)] == samples
        ids, models, place = ids[mine], models[mine], place[mine]
        order = np.lexsort((models, place))  # by sample, then model (by id: import order)
        ids, models, place = ids[order], models[order], place[order]
        model_ids, model = np.unique(models, return_inverse=True)
        names = dict(self.conn.execute("SELECT id, name FROM models"))
        model_names = [names[int(m)] for m in model_ids]
        return AnswerColumns.of(ids, place, model.astype(np.int64), keys, model_names, 1)

    def _samples(self, keys: list[str] | None, head: int | None) -> tuple[Ints, list[str]]:
        """The dataset's sample ids in order (only those of the `only` answers, or the
        first `head`, if given) and their keys (read unless given)."""
        # `+`: a scan in id order, not a search of the (dataset, key) index and a sort
        rows, parameters = "FROM samples WHERE +dataset_id = ?", (self.dataset_id,)
        if self.only is not None:
            rows += f" AND id IN (SELECT sample_id FROM answers WHERE id IN ({self._listed}))"
        if head is not None:  # the scan stops after them
            rows = f"FROM (SELECT id, key {rows} ORDER BY id LIMIT {int(head)})"
        if keys is not None:
            (text,) = self.conn.execute(f"SELECT group_concat(id) {rows}", parameters).fetchone()
            return np.sort(ints(text)), keys
        ids, found = read_text_columns(self.conn, ("id", "key"), rows, parameters)
        sample_ids, (ordered,) = in_id_order(ids, [found])
        return sample_ids, cast(list[str], ordered)  # NOT NULL

    def _scope(self, answers: AnswerColumns | None, alias: str) -> tuple[str, list[object]]:
        """A WHERE condition keeping `alias`'s rows of these answers' range (or list);
        without answers, of the dataset's range of answer ids."""
        if self.only is not None:
            return f"{alias}.answer_id IN ({self._listed})", []
        if answers is None:
            lowest, highest = self.conn.execute(
                "SELECT min(id), max(id) FROM answers WHERE sample_id IN "
                "(SELECT id FROM samples WHERE dataset_id = ?)",
                (self.dataset_id,),
            ).fetchone()
            return f"{alias}.answer_id BETWEEN ? AND ?", [lowest or 0, highest or 0]
        lowest, highest = int(answers.ids.min()), int(answers.ids.max())
        return f"{alias}.answer_id BETWEEN ? AND ?", [lowest, highest]

    def fill(
        self, answers: AnswerColumns, judge: Judge | None, read: Judgments | None = None
    ) -> int:
        """Add `judge`'s deciding judgments (`read` already, if they are its: see
        `judgments`), the verdicts in force, flags, notes and error causes; returns the
        judge's runs (every run a judgment is for, failed ones too; at least one)."""
        runs = 1
        if judge and len(answers):
            if read is None or read.judge != judge:
                read = self.judgments(judge, answers)
            runs = _apply_judgments(answers, read)
        self._reviews(answers)
        return runs

    def judgments(self, judge: Judge, answers: AnswerColumns | None = None) -> Judgments:
        """The judgments `judge`'s tables read of these answers (without them: of the
        dataset's range of answer ids; `fill` keeps the dataset's own)."""
        scope, parameters = self._scope(answers, "l")
        row = self.conn.execute(
            "SELECT group_concat(x.answer_id), group_concat(" + _RUN_KIND_SCORE + "), "
            "group_concat(length(x.choice)), group_concat(x.choice, '') "
            f"FROM ({_JUDGMENTS.format(where=f'{scope} AND {JUDGE_READS}')}) x",
            [*parameters, *judge.parameters()],
        ).fetchone()
        return Judgments(judge, ints(row[0]), ints(row[1]), cut(ints(row[2]), row[3]))

    def _reviews(self, answers: AnswerColumns) -> None:
        """Verdicts in force, notes, flags and causes: rows in id order, the last one wins."""
        if not len(answers):
            return
        scope, parameters = self._scope(answers, "r")
        tables = (
            ("reviews", "r.score, r.choice, r.action"),
            ("flags", "r.flagged"),
            ("causes", "r.cause"),
        )
        for table, columns in tables:
            found = self.conn.execute(
                f"SELECT r.answer_id, {columns} FROM {table} r WHERE {scope} ORDER BY r.id",
                parameters,
            ).fetchall()
            if not found:
                continue
            rows, mine = answers.locate(np.array([f[0] for f in found], np.int64))
            for row, values in zip(rows[mine].tolist(), np.array(found, object)[mine], strict=True):
                _apply(answers, table, row, values[1:])


class Judgments(NamedTuple):
    """A judge's judgments as read, in _JUDGMENTS' order: answer ids; run, kind and score
    packed (see _RUN_KIND_SCORE); the options chosen, in order."""

    judge: Judge
    answer_ids: Ints
    packed: Ints
    choices: list[str | None]


def _apply_judgments(answers: AnswerColumns, read: Judgments) -> int:
    """Put each (answer, run)'s deciding judgment of `read` on `answers` (the judgments of
    other answers are left out); the judge's runs."""
    ids, packed = read.answer_ids, read.packed
    # Each judgment's chosen option, as the answers' labels number it.
    chose = ((packed >> _SCORE_BITS) & _CHOSE) > 0
    choice = np.full(len(ids), NONE, np.int64)
    coded = {text: answers.labels.code(text) for text in set(read.choices)}  # a few texts
    choice[chose] = list(map(coded.__getitem__, read.choices))
    # A few hundred thousand judgments at a time (an answer's all in one part): the
    # temporary arrays stay small beside a million answers.
    bounds = [*np.unique(np.searchsorted(ids, ids[::_PART])).tolist(), len(ids)]
    runs = 1
    for start, end in pairwise(bounds):
        part = slice(start, end)
        runs = max(runs, _apply_part(answers, ids[part], packed[part], choice[part]))
    return runs


def _apply_part(answers: AnswerColumns, ids: Ints, packed: Ints, choice: Ints) -> int:
    """`_apply_judgments` for every judgment of some answers: the runs they are for."""
    rows, mine = answers.locate(ids)
    run = packed >> _RUN_SHIFT
    # The deciding judgment of each (answer, run): the last of its run in this order.
    last = np.ones(len(packed), np.bool_)
    last[:-1] = (ids[1:] != ids[:-1]) | (run[1:] != run[:-1])
    kept = last & mine
    if not kept.any():
        return 1
    rows, run, packed, choice = rows[kept], run[kept], packed[kept], choice[kept]
    bits, micro = (packed >> _SCORE_BITS) & (2**_KIND_WIDTH - 1), packed & _NO_SCORE
    runs = int(run.max()) + 1
    answers.widen(runs)
    usable = (bits & _USABLE) > 0
    scores = np.where(micro == _NO_SCORE, np.nan, micro / MICRO)
    answers.judged[rows[usable], run[usable]] = scores[usable]
    answers.failed[rows[~usable]] = True
    np.maximum.at(answers.judged_runs, rows, run + 1)
    for bit, column in ((_FALLBACK, answers.fallback), (_OFFLINE, answers.offline),
                        (_NO_REPLY, answers.no_reply)):  # fmt: skip
        column[rows[usable & ((bits & bit) > 0)]] = True
    # The judge's chosen option: its lowest usable run's (none if that run chose none).
    rows, choice = rows[usable], choice[usable]
    lowest = np.ones(len(rows), np.bool_)
    lowest[1:] = rows[1:] != rows[:-1]  # runs come in order within an answer
    answers.judge_choice[rows[lowest]] = choice[lowest]
    return runs


def _apply(answers: AnswerColumns, table: str, row: int, values: Sequence[object]) -> None:
    """One review, flag or cause row on its answer."""
    if table == "reviews":
        score, choice, action = values
        answers.reviewed[row] = score is not None or choice is not None
        answers.verdict_score[row] = np.nan if score is None else float(score)  # type: ignore[arg-type]
        answers.verdict_choice[row] = answers.labels.code(choice)  # type: ignore[arg-type]
        answers.noted[row] |= action == "note"
    elif table == "flags":
        answers.flagged[row] = bool(values[0])
    else:
        answers.cause[row] = answers.labels.code(values[0])  # type: ignore[arg-type]
