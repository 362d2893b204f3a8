"""The column reader (db/answer_columns.py) reads, per answer and run, the judgment that
decides it, as the rule says one answer at a time: checked against that rule written out
in Python over every judgment row of real SQLite files."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from lmmreview.db import answer_columns
from lmmreview.db.review import EntryReader
from lmmreview.db.store import Store
from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import MICRO, USABLE, Judge, Judgment, Outcome, Status
from lmmreview.engine.types import QuestionType, Sample

JUDGES = (
    ("llm", "judge-a", "v1"),
    ("llm", "judge-a", "v1+shots=1"),
    ("llm", "judge-b", "v1"),
    ("offline", "offline rules", "rules-1"),
    ("imported", "gpt-4", "official grader"),
)
# Scores on a millionth's tie, beside one, and with more digits than SQLite writes as text.
SCORES = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 0.5, 2.5e-06, 3.5e-06, 2.5000000000000006e-06, 1 / 3]),
    st.floats(0, 1),
)
JUDGMENTS = st.lists(
    st.tuples(
        st.integers(0, 5),  # the answer
        st.integers(0, 2),  # the run
        st.sampled_from(JUDGES),
        st.sampled_from([*Status]),
        SCORES,
        st.sampled_from([None, "A", "B", "", "long option text"]),
        st.sampled_from(["matched", "rules", "llm"]),
        st.sampled_from(["", "a reply"]),
    ),
    max_size=40,
)


def _database(path: Path, judgments: list[tuple]) -> list[int]:
    """Six answers (three samples by two models) and `judgments` of them; the answer ids."""
    with Store.open(path) as store, store.transaction():
        dataset = store.dataset_id("d", "generic")
        ids = store.upsert_samples(
            dataset, [Sample(f"k{i}", "Q?", QuestionType.OPEN, "a") for i in range(3)]
        )
        for model in ("m1", "m2"):
            store.add_answers(store.model_id(model), [(i, "x", "f") for i in ids.values()])
        answers = [a for a, _, _ in store.answer_keys("d")]
        rows = []
        for answer, run, (kind, model, prompt), status, score, choice, method, reply in judgments:
            usable = status.value in USABLE
            score = score if usable or score is None else None  # a failure has no score
            rows.append((answers[answer], Judgment(run=run, score=score, choice=choice, status=status, method=method, kind=kind, judge_model=model, prompt_version=prompt, reply=reply)))  # fmt: skip
        store.add_judgments(rows)
    return answers


def _expected(path: Path, judge: Judge) -> dict[int, tuple]:
    """Each answer's judge fields, by the rule: per run, the latest of the judge's own
    judgments and option matches decides; a failed one leaves the run unscored."""
    deciding: dict[int, dict[int, tuple]] = {}
    with Store.open(path) as store:
        for answer, *row in store.conn.execute(
            "SELECT answer_id, run, judge_kind, judge_model, prompt_hash, status, method, "
            "score, choice, raw_reply FROM judgments ORDER BY id"
        ):
            if Judge.of(row[1], row[2] or "", row[3] or "") == judge or row[5] == "matched":
                deciding.setdefault(answer, {})[row[0]] = row
    return {answer: _fields(runs) for answer, runs in deciding.items()}


def _fields(deciding: dict[int, tuple]) -> tuple:
    """An answer's judge fields from its deciding judgments, by run."""
    usable = {run: r for run, r in deciding.items() if r[4] in USABLE}
    micro = tuple(
        None if run not in usable else Outcome.of((usable[run][6],)).micro[0]
        for run in range(max(deciding) + 1)
    )
    lowest = usable[min(usable)] if usable else None
    return (
        micro,
        None if lowest is None else lowest[7],
        len(usable) < len(deciding),
        any(r[4] == "fallback" for r in usable.values()),
        any(r[1] == "offline" for r in usable.values()),
        any(r[1] == "imported" and r[6] == 0 and not r[8] for r in usable.values()),
    )


NOT_JUDGED = ((), None, False, False, False, False)


def _read(entry: Entry) -> tuple:
    micro = tuple(None if s is None else Outcome.of((s,)).micro[0] for s in entry.judged)
    flags = (entry.failed, entry.fallback, entry.offline, entry.no_reply)
    return (micro, entry.judge_choice, *flags)


def _columns(path: Path, judge: Judge) -> AnswerColumns:
    with Store.open(path) as store:
        return EntryReader(store, judge).columns("d")


def _columns_read_first(path: Path, judge: Judge) -> AnswerColumns:
    """As `_columns`, with the judgments read before the answers (as a second connection
    reads them beside the screen's) and put on them a part of one or two at a time."""
    with Store.open(path) as store, patch.object(answer_columns, "_PART", 2):
        reader = EntryReader(store, judge)
        read = reader.judgments("d")
        answers = reader.bare_columns("d")
        reader.fill("d", answers, read)
        return answers


@settings(max_examples=40, deadline=None)
@given(judgments=JUDGMENTS, judge=st.sampled_from(JUDGES))
def test_every_answers_judge_fields_follow_the_deciding_rule(judgments, judge) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.db"
        answers = _database(path, judgments)
        chosen = Judge.of(*judge)
        expected = _expected(path, chosen)
        for columns in (_columns(path, chosen), _columns_read_first(path, chosen)):
            assert sorted(columns.ids.tolist()) == answers
            for entry in columns.entries():
                assert _read(entry) == expected.get(entry.answer_id, NOT_JUDGED)


def test_a_score_counts_as_stored_not_as_its_fifteen_digit_text(tmp_path: Path) -> None:
    """SQLite writes a score as text with 15 digits: 2.5000000000000006e-06 becomes 2.5e-06,
    and rounding that to millionths gives 2 (half to even), where the score stored is a
    little over 2.5 millionths: 3, as Outcome.of counts it."""
    score = 2.5000000000000006e-06
    _database(tmp_path / "r.db", [(0, 0, JUDGES[3], Status.OK, score, None, "rules", "")])
    columns = _columns(tmp_path / "r.db", Judge.of(*JUDGES[3]))
    assert Outcome.of((score,)).micro == (3,)
    assert math.isclose(columns.judged[0, 0] * MICRO, 3)
    assert columns.entry(0).outcome(1, ["a"]).micro == (3,)


def test_the_reads_use_the_narrow_indexes_and_sort_nothing(tmp_path: Path) -> None:
    """The answers come from the (sample_id, model_id) index alone, never the wide table;
    the judgments in the order of their (answer_id, run) index, with no sort of their own."""
    _database(tmp_path / "r.db", [(0, 0, JUDGES[3], Status.OK, 1.0, None, "rules", "")])
    with Store.open(tmp_path / "r.db") as store:
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        EntryReader(store, Judge.of(*JUDGES[3])).columns("d")
        store.conn.set_trace_callback(None)
        plans = {
            statement: [row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + statement)]
            for statement in statements
        }
    (answers,) = [p for s, p in plans.items() if "FROM answers" in s]
    (judgments,) = [p for s, p in plans.items() if "FROM judgments" in s]
    assert any("COVERING INDEX sqlite_autoindex_answers_1" in step for step in answers)
    assert any("INDEX judgments_answer" in step for step in judgments)
    assert not any("TEMP B-TREE" in step for step in answers + judgments)


def test_a_few_answers_read_again_read_only_their_own_samples(tmp_path: Path) -> None:
    """Reading back one answer (after a verdict, or a poll) looks its sample up by id: at a
    million answers a scan of every sample costs a tenth of a second per verdict."""
    answers = _database(tmp_path / "r.db", [])
    with Store.open(tmp_path / "r.db") as store:
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        (entry,) = EntryReader(store).refresh("d", {answers[4]})
        store.conn.set_trace_callback(None)
        plans = [
            [row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + statement)]
            for statement in statements
            if "FROM samples" in statement
        ]
    assert (entry.answer_id, entry.key, entry.model) == (answers[4], "k1", "m2")
    assert plans and all(
        any(step.startswith("SEARCH samples USING INTEGER PRIMARY KEY") for step in plan)
        for plan in plans
    )
