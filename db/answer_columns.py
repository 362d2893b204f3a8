"""A dataset's answers read as columns (engine.columns.AnswerColumns), fast.

A million rows fetched one tuple at a time cost about a second in Python; SQLite joins
a column into one text just as fast as it scans it, and numpy parses that text in C. So
each query here asks for whole columns (`group_concat`), restricted to the dataset by a
range of ids, and numpy keeps the rows that belong. The rows few answers have (verdicts,
flags, causes) are read as rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from lmmreview.db.schema import JUDGE_READS
from lmmreview.engine.columns import NONE, AnswerColumns, Ints
from lmmreview.engine.scoring import IMPORTED, USABLE, Judge

# Which judgments a table's scores may come from: the deciding one per (answer, run).
# Its kind, in bits: usable, fallback, the offline rules', an imported 0.0 without reply.
_USABLE, _FALLBACK, _OFFLINE, _NO_REPLY = 1, 2, 4, 8
_KIND_BITS = (
    f"((l.status IN {USABLE}) + 2 * (l.status = 'fallback') + 4 * (l.judge_kind = 'offline') "
    f"+ 8 * (l.judge_kind = '{IMPORTED}' AND l.score = 0 AND COALESCE(l.raw_reply, '') = ''))"
)


def _parsed(text: str | None, dtype: type) -> np.ndarray:
    """A group_concat of numbers as an array (empty for no rows), parsed in C."""
    if not text:
        return np.zeros(0, dtype)
    values: np.ndarray = np.fromstring(text, dtype=dtype, sep=",")
    if len(values) != text.count(",") + 1:  # numpy stops at what it cannot read
        raise ValueError(f"not a list of numbers: {text[:80]!r}")
    return values


def _ints(text: str | None) -> Ints:
    return _parsed(text, np.int64)


def _texts(lengths: Ints, joined: str | None) -> list[str]:
    """Texts joined with no separator, cut by their lengths (any character may be in them)."""
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]]
    return [(joined or "")[a:b] for a, b in zip(starts, ends, strict=True)]


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
        sample_ids = _ints(self.conn.execute(
            "SELECT group_concat(id) FROM (SELECT id FROM samples WHERE dataset_id = ? "
            "ORDER BY id)", (self.dataset_id,)
        ).fetchone()[0])  # fmt: skip
        if not len(sample_ids):
            return AnswerColumns.empty(keys, [])
        scope, parameters = "sample_id BETWEEN ? AND ?", [int(sample_ids[0]), int(sample_ids[-1])]
        if self.only is not None:
            scope += f" AND id IN ({','.join(map(str, self.only))})"
        ids, models, samples = (
            _ints(text)
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
        where = f"WHERE {scope} AND {JUDGE_READS}"
        parameters += judge.parameters()
        row = self.conn.execute(
            "SELECT group_concat(l.id), group_concat(l.answer_id), group_concat(l.run), "
            f"group_concat({_KIND_BITS}), group_concat(COALESCE(l.score, 'nan')) "
            f"FROM judgments l {where}",
            parameters,
        ).fetchone()
        ids, answer_ids, run, bits = (_ints(text) for text in row[:4])
        scores = _parsed(row[4], np.float64)
        rows, mine = answers.locate(answer_ids)
        ids, run, bits, scores, rows = ids[mine], run[mine], bits[mine], scores[mine], rows[mine]
        if not len(ids):
            return 1
        # The deciding judgment of each (answer, run): its latest.
        order = np.lexsort((ids, run, rows))
        last = np.ones(len(ids), np.bool_)
        last[:-1] = (rows[order][1:] != rows[order][:-1]) | (run[order][1:] != run[order][:-1])
        kept = order[last]
        ids, run, bits, scores, rows = ids[kept], run[kept], bits[kept], scores[kept], rows[kept]
        runs = int(run.max()) + 1
        answers.widen(runs)
        usable = (bits & _USABLE) > 0
        answers.judged[rows[usable], run[usable]] = scores[usable]
        answers.failed[rows[~usable]] = True
        np.maximum.at(answers.judged_runs, rows, run + 1)
        for bit, column in ((_FALLBACK, answers.fallback), (_OFFLINE, answers.offline),
                            (_NO_REPLY, answers.no_reply)):  # fmt: skip
            column[rows[usable & ((bits & bit) > 0)]] = True
        self._choices(answers, ids[usable], rows[usable], run[usable], where, parameters)
        return runs

    def _choices(
        self, answers: AnswerColumns, ids: Ints, rows: Ints, run: Ints, where: str,
        parameters: Sequence[object],
    ) -> None:  # fmt: skip
        """The judge's chosen option of each answer: its lowest usable run's (none if that
        run chose none)."""
        row = self.conn.execute(
            "SELECT group_concat(l.id), group_concat(length(l.choice)), "
            f"group_concat(l.choice, '') FROM judgments l {where} AND l.choice IS NOT NULL",
            parameters,
        ).fetchone()
        choice_ids = _ints(row[0])
        if not len(choice_ids):
            return
        codes = np.array([answers.labels.code(t) for t in _texts(_ints(row[1]), row[2])])
        order = np.argsort(choice_ids)
        place = np.minimum(np.searchsorted(choice_ids, ids, sorter=order), len(order) - 1)
        found = choice_ids[order[place]] == ids
        code = np.where(found, codes[order[place]], NONE)
        by_answer_then_run = np.lexsort((run, rows))
        _, first = np.unique(rows[by_answer_then_run], return_index=True)
        lowest = by_answer_then_run[first]  # each answer's lowest usable run decides
        answers.judge_choice[rows[lowest]] = code[lowest]

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
