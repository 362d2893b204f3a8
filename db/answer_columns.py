"""A dataset's answers read as columns (engine.columns.AnswerColumns), fast.

Each query here asks for whole columns (db.joined), restricted to the dataset by a
range of ids, and numpy keeps the rows that belong; a judgment's run, kind and score come
packed in one integer. The rows few answers have (verdicts, flags, causes) are read as rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from lmmreview.db.joined import cut, ints
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

    def answers(self, keys: list[str] | None = None) -> AnswerColumns:
        """Every answer, by sample (the samples by id; their keys are read unless given)
        then model, with nothing judged or reviewed yet: enough for the list."""
        if keys is None:
            keys = [row[0] for row in self.conn.execute(
                "SELECT key FROM samples WHERE dataset_id = ? ORDER BY id", (self.dataset_id,)
            )]  # fmt: skip
        sample_ids = ints(self.conn.execute(
            "SELECT group_concat(id) FROM (SELECT id FROM samples WHERE dataset_id = ? "
            "ORDER BY id)", (self.dataset_id,)
        ).fetchone()[0])  # fmt: skip
        if not len(sample_ids):
            return AnswerColumns.empty(keys, [])
        scope, parameters = "sample_id BETWEEN ? AND ?", [int(sample_ids[0]), int(sample_ids[-1])]
        if self.only is not None:
            scope += f" AND id IN ({','.join(map(str, self.only))})"
        ids, models, samples = (
            ints(text)
            for text in self.conn.execute(
                "SELECT group_concat(id), group_concat(model_id), group_concat(sample_id) "
                f"FROM answers WHERE {scope}",
                parameters,
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

    def _scope(self, answers: AnswerColumns, alias: str) -> tuple[str, list[object]]:
        """A WHERE condition keeping `alias`'s rows of these answers' range (or list)."""
        if self.only is not None:
            return f"{alias}.answer_id IN ({','.join(map(str, self.only))})", []
        lowest, highest = int(answers.ids.min()), int(answers.ids.max())
        return f"{alias}.answer_id BETWEEN ? AND ?", [lowest, highest]

    def fill(self, answers: AnswerColumns, judge: Judge | None) -> int:
        """Add `judge`'s deciding judgments, the verdicts in force, flags, notes and error
        causes; returns the judge's runs (every run a judgment is for, failed ones too; at
        least one)."""
        runs = self._judgments(answers, judge) if judge and len(answers) else 1
        self._reviews(answers)
        return runs

    def _judgments(self, answers: AnswerColumns, judge: Judge) -> int:
        scope, parameters = self._scope(answers, "l")
        answer_ids, packed, chosen, texts = self._read_judgments(
            f"{scope} AND {JUDGE_READS}", [*parameters, *judge.parameters()]
        )
        rows, mine = answers.locate(answer_ids)
        run = packed >> _RUN_SHIFT
        # The deciding judgment of each (answer, run): the last of its run in this order.
        last = np.ones(len(packed), np.bool_)
        last[:-1] = (answer_ids[1:] != answer_ids[:-1]) | (run[1:] != run[:-1])
        kept = last & mine
        if not kept.any():
            return 1
        rows, run, packed, chosen = rows[kept], run[kept], packed[kept], chosen[kept]
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
        rows, chosen = rows[usable], chosen[usable]
        lowest = np.ones(len(rows), np.bool_)
        lowest[1:] = rows[1:] != rows[:-1]  # runs come in order within an answer
        codes = np.array([*(answers.labels.code(t) for t in texts), NONE], np.int64)
        answers.judge_choice[rows[lowest]] = codes[chosen[lowest]]  # NONE: the last one
        return runs

    def _read_judgments(
        self, where: str, parameters: Sequence[object]
    ) -> tuple[Ints, Ints, Ints, list[str | None]]:
        """The judgments `where` keeps, in _JUDGMENTS' order: answer ids, run, kind and
        score packed (see _RUN_KIND_SCORE), and the chosen option (its place in the texts
        returned last; -1: none)."""
        row = self.conn.execute(
            "SELECT group_concat(x.answer_id), group_concat(" + _RUN_KIND_SCORE + "), "
            "group_concat(length(x.choice)), group_concat(x.choice, '') "
            f"FROM ({_JUDGMENTS.format(where=where)}) x",
            parameters,
        ).fetchone()
        answer_ids, packed = ints(row[0]), ints(row[1])
        chose = ((packed >> _SCORE_BITS) & _CHOSE) > 0
        chosen = np.where(chose, np.cumsum(chose) - 1, -1)
        return answer_ids, packed, chosen, cut(ints(row[2]), row[3])

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
