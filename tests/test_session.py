"""The review session opened in two steps (tui/session.py, tui/database.py): the answers,
then the tables, with the judgments read beside the answers on a second connection."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from lmmreview.db.aside import Aside
from lmmreview.db.review import ReviewStore
from lmmreview.db.store import Store
from lmmreview.engine.blind import shuffled
from lmmreview.engine.review import Filter
from lmmreview.engine.scoring import DEFAULT_CHOICE, Verdict
from lmmreview.tui.database import read_dataset
from lmmreview.tui.session import Beside, Session, Tables

DATASETS = ("generic", "mmbench", "mmmu", "mmvet")


def _tables(review: ReviewStore, session: Session, beside: bool) -> Tables:
    reads = (
        Session.read_beside(review.store.path, session.dataset, None, DEFAULT_CHOICE)
        if beside
        else None
    )
    return Session.compute(
        review, session.dataset, session.benchmark, session.answers, None, DEFAULT_CHOICE, reads
    )


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_reads_beside_give_the_tables_read_in_line(demo_db: Path, dataset) -> None:
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        session = Session.open(review, dataset)
        inline, beside = _tables(review, session, False), _tables(review, session, True)
    assert beside.judge == inline.judge is not None
    assert beside.breakdown.tables() == inline.breakdown.tables()
    assert list(beside.answers.entries()) == list(inline.answers.entries())
    assert any(entry.judged for entry in beside.answers.entries())
    # once the tables are taken, the answers on screen and the samples hold one list of
    # keys, not a second one alike
    session.complete(beside)
    assert beside.samples.keys is session.answers.keys


def test_samples_read_beside_before_another_import_are_read_again(demo_db: Path) -> None:
    """The samples read beside the answers may be older than them: a sample another
    process added in between has answers on screen, so the tables read the samples again
    and count it."""
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        stale = Session.samples(store, "generic")
        with sqlite3.connect(demo_db) as other:
            sample = other.execute(
                "INSERT INTO samples (dataset_id, key, question, question_type, answer) "
                "SELECT id, 'added-late', 'Which?', 'open', 'cat' FROM datasets "
                "WHERE name = 'generic'"
            ).lastrowid
            other.execute(
                "INSERT INTO answers (sample_id, model_id, text, created_at) "
                "SELECT ?, min(id), 'cat', 'now' FROM models",
                (sample,),
            )
        session = Session.open(review, "generic")
        path = review.store.path
        beside = Beside(
            Aside(path, lambda s: Session.judgments(s, "generic", None, DEFAULT_CHOICE)),
            Aside(path, lambda _: stale),
        )
        tables = Session.compute(
            review, "generic", session.benchmark, session.answers, None, DEFAULT_CHOICE, beside
        )
    assert "added-late" not in stale.keys
    assert tables.samples.keys[-1] == "added-late"
    assert tables.breakdown.tables() == _tables_of(demo_db, "generic")


def _tables_of(db: Path, dataset: str) -> object:
    with Store.open(db) as store:
        review = ReviewStore(store, "me")
        return _tables(review, Session.open(review, dataset), False).breakdown.tables()


def test_a_verdict_given_while_the_tables_are_made_is_in_them(demo_db: Path) -> None:
    """The tables fill columns of their own; an answer changed on screen meanwhile is
    replayed on them when they come."""
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        session = Session.open(review, "mmvet")
        tables = _tables(review, session, True)  # read before the verdict is saved
        answer_id = session.listed(0).answer_id
        review.grade(answer_id, 0.3)  # as the screen saves it and reads it back
        (graded,) = review.refresh("mmvet", {answer_id})
        assert graded.verdict == Verdict(0.3) and graded.judged
        session.update(graded)  # on the answers shown before the tables
        assert tables.answers.entry(tables.answers.index_of(answer_id) or 0).verdict is None
        session.complete(tables)
        assert session.find(graded.answer_id) == graded
        assert session.reviewed == 1
        assert session.tables is not None
        assert list(session.tables.agreement.per_answer) == [graded.answer_id]


def test_a_judgment_written_while_the_answers_are_read_is_polled(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marks to poll from are taken before the answers are read: a judgment another
    process commits in between is newer than them, and the poll reads it."""
    opened = Session.open

    def open_while_another_writes(review: ReviewStore, *args: object) -> Session:
        session = opened(review, *args)  # type: ignore[arg-type]
        with sqlite3.connect(demo_db) as other:
            other.execute(
                "INSERT INTO judgments (answer_id, run, judge_kind, judge_model, score, "
                "status, created_at) VALUES (?, 0, 'llm', 'late', 1.0, 'ok', 'now')",
                (int(session.answers.ids[0]),),
            )
        return session

    monkeypatch.setattr(Session, "open", open_while_another_writes)
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        opening = read_dataset(review, "mmvet", None, DEFAULT_CHOICE)
        opening.beside.judgments.take(), opening.beside.samples.take()
        first = int(opening.session.answers.ids[0])
        assert first in review.touched_since(opening.marks)


def test_the_top_of_the_list_comes_first_and_every_answer_after_it(demo_db: Path) -> None:
    """A first screen that does not wait for a million answers: the answers to the first
    samples, then all of them, with a verdict given meanwhile kept."""
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        whole = Session.open(review, "mmvet")
        top = Session.open(review, "mmvet", head=2)
        assert top.partial and not whole.partial
        assert top.answers.keys == whole.answers.keys[:2]
        assert list(top.answers.entries()) == list(whole.answers.entries())[: len(top.answers)]
        answer_id = top.listed(1).answer_id
        review.grade(answer_id, 0.3)
        (graded,) = review.refresh("mmvet", {answer_id})
        top.update(graded)
        top.take_answers(Session.every_answer(review, "mmvet"))
        assert not top.partial
        assert top.counts() == (len(whole.answers), 1, len(whole.answers))
        assert top.find(answer_id) == graded
        assert Session.open(review, "mmvet", head=10_000).partial is False  # all were read


def test_every_answer_read_beside_is_the_one_read_in_line(demo_db: Path) -> None:
    """With the top of the list first, every answer is read on a connection of its own
    from the start; the screen takes that read, the same answers as its own would be."""
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        opening = read_dataset(review, "mmvet", None, DEFAULT_CHOICE, head=2)
        assert opening.session.partial and opening.beside.answers is not None
        every = Session.every_answer(review, "mmvet", opening.beside)
        assert opening.beside.answers.take() is None  # taken: not held a second time
        inline = Session.every_answer(review, "mmvet")
        assert every is not inline
        assert list(every.entries()) == list(inline.entries())
        assert every.keys == inline.keys and len(every) > len(opening.session.answers)
        whole = read_dataset(review, "mmvet", None, DEFAULT_CHOICE)  # no top first: no read beside
        assert whole.beside.answers is None


def test_the_reads_beside_read_the_dataset_the_screen_opens(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no dataset named, the first by name is chosen once: another process importing
    a dataset that sorts first, as the reads beside start, does not change theirs."""
    started = Session.read_beside

    def another_import_first(*args: object) -> Beside:
        with sqlite3.connect(demo_db) as other:
            other.execute("UPDATE datasets SET name = 'aaa' WHERE name = 'mmmu'")
        return started(*args)  # type: ignore[arg-type]

    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        first = Session.name_of(store, None)
        monkeypatch.setattr(Session, "read_beside", staticmethod(another_import_first))
        opening = read_dataset(review, None, None, DEFAULT_CHOICE, head=1)
        session = opening.session
        every = Session.every_answer(review, session.dataset, opening.beside)
        samples = opening.beside.samples.take()
        own = Session.every_answer(review, first)
    assert session.dataset == first != "aaa"
    assert every.keys == samples.keys == own.keys


def test_a_seeded_list_keeps_its_order_through_filters_sorts_and_every_answer_read(
    demo_db: Path,
) -> None:
    with Store.open(demo_db) as store:
        review = ReviewStore(store, "me")
        session = Session.open(review, "mmvet", head=5)  # the top of the list first
        session.shuffle(11)
        top = [session.listed(i).answer_id for i in range(len(session.visible))]
        session.take_answers(Session.every_answer(review, "mmvet"))
        session.complete(_tables(review, session, False))
    listed = [session.listed(i).answer_id for i in range(len(session.visible))]
    rows = np.arange(len(session.answers))
    assert listed == session.answers.ids[shuffled(rows, session.answers.ids, 11)].tolist()
    assert listed != sorted(listed)
    assert [a for a in listed if a in top] == top  # the answers read first keep their order
    flagged = [a for a in listed if a % 2]
    session.apply(Filter(cell_ids=frozenset(flagged)))
    assert [session.listed(i).answer_id for i in range(len(session.visible))] == flagged
    session.apply(Filter())
    session.sort("score")
    session.sort("list")  # back to the seeded order, not the import order
    assert [session.listed(i).answer_id for i in range(len(session.visible))] == listed
