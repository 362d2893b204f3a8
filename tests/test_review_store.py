"""Verdicts, undo, notes, flags and entries, on a real database."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.db.review import EntryReader, ReviewStore
from lmmreview.db.scoring import dataset_scores, score_offline
from lmmreview.engine.columns import AnswerColumns, matching
from lmmreview.engine.registry import benchmark
from lmmreview.engine.review import Entry, Filter
from lmmreview.engine.samples import SampleSet
from lmmreview.engine.scoring import OFFLINE, Judge, Judgment, Status, Verdict
from lmmreview.engine.types import QuestionType, Sample

MMVET_AXES = benchmark("mmvet").filter_axes


@pytest.fixture
def review(cli, tmp_path: Path):
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    with Store.open(db) as store:
        yield ReviewStore(store, "ada")


def _entry(review: ReviewStore, model: str = "demo-alpha", key: str = "v1_0") -> Entry:
    return next(e for e in review.entries("mmvet") if (e.model, e.key) == (model, key))


def test_entries_carry_offline_scores_and_nothing_reviewed(review) -> None:
    entries = review.entries("mmvet")
    assert len(entries) == 58
    first = entries[0]
    assert (first.key, first.model) == ("v1_0", "demo-alpha")  # by sample, then model
    assert first.judged and first.offline and not first.reviewed


def test_the_answers_of_one_sample_share_one_key_string(review) -> None:
    # 100,000 answers of 20,000 samples would otherwise hold 80,000 copies of their keys.
    entries = [e for e in review.entries("mmvet") if e.key == "v1_0"]
    assert len(entries) > 1
    assert all(e.key is entries[0].key for e in entries)


def test_grade_undo_undo_and_history(review) -> None:
    answer = _entry(review).answer_id
    assert review.grade(answer, 0.3) == Verdict(0.3)
    assert review.grade(answer, 0.8) == Verdict(0.8)
    assert review.undo_last("mmvet") == answer
    assert _entry(review).verdict == Verdict(0.3)
    assert review.undo_last("mmvet") == answer
    assert _entry(review).verdict is None  # back to no verdict at all
    assert review.undo_last("mmvet") is None  # nothing left to undo: no row added
    history = review.history(answer)
    assert [h.action for h in history] == ["grade", "grade", "undo", "undo"]
    assert (history[1].previous_score, history[1].score) == (0.3, 0.8)
    assert all(h.reviewer == "ada" for h in history)
    assert not _entry(review).reviewed


def test_the_verdict_already_in_force_adds_no_row(review) -> None:
    """Pressing 5 three times is one verdict: one undo takes it back."""
    answer = _entry(review).answer_id
    for _ in range(3):
        assert review.grade(answer, 0.5) == Verdict(0.5)
    assert review.grade(answer, 0.5, action="accept") == Verdict(0.5)
    assert [h.action for h in review.history(answer)] == ["grade"]
    assert review.undo_last("mmvet") == answer
    assert _entry(review).verdict is None
    choice = _entry(review, key="v1_1").answer_id
    review.grade(choice, choice="B")
    review.grade(choice, choice="B")
    review.grade(choice, score=0.5)  # another verdict: a row of its own
    assert [(h.score, h.choice) for h in review.history(choice)] == [(None, "B"), (0.5, None)]


def test_undo_last_takes_back_the_reviewers_verdicts_newest_first(review) -> None:
    """Across answers, skipping notes and verdicts another reviewer has since replaced."""
    first, second, third = (_entry(review, model).answer_id for model in
                            ("demo-alpha", "demo-beta", "demo-gamma"))  # fmt: skip
    other = ReviewStore(review.store, "bob")
    review.grade(first, 0.2)
    review.grade(second, 0.5)
    review.grade(third, 0.9)
    review.note(first, "a note is not a verdict")
    other.grade(third, 0.1)  # bob's verdict now decides the third answer: not ada's to undo
    assert review.undo_last("mmvet") == second
    assert review.undo_last("mmvet") == first
    assert review.undo_last("mmvet") is None  # nothing of ada's left in force
    assert other.undo_last("mmvet") == third
    assert review.undo_last("mmvet") == third  # bob's undo put ada's 0.9 back on top
    assert review.undo_last("mmmu") is None
    assert [_entry(review, m).verdict for m in ("demo-alpha", "demo-beta", "demo-gamma")] == [
        None, None, None
    ]  # fmt: skip


def test_a_note_keeps_the_verdict_and_flags_toggle(review) -> None:
    answer = _entry(review).answer_id
    review.grade(answer, choice=None, score=1.0, action="accept")
    review.note(answer, "judge was right; [bold]literal[/bold]")
    assert _entry(review).verdict == Verdict(1.0)
    assert review.history(answer)[-1].note == "judge was right; [bold]literal[/bold]"
    review.set_flag(answer, True)
    assert _entry(review).flagged
    review.set_flag(answer, False)
    assert not _entry(review).flagged


@pytest.mark.parametrize("text", ["city street", "CITY", "monthly sales", '": "', "A", "%", "zzzz"])
def test_search_looks_in_answers_questions_hints_and_option_texts(review, text) -> None:
    """As a plain scan finds them (ASCII case aside): an option's text, never the JSON's
    letters or quotes."""
    rows = review.store.conn.execute(
        "SELECT a.id, a.text, s.question, s.hint, s.options FROM answers a "
        "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id "
        "WHERE d.name = 'mmbench'"
    ).fetchall()
    wanted = text.lower()
    expected = {
        answer
        for answer, *texts, options in rows
        if any(wanted in t.lower() for t in [*texts, *json.loads(options or "{}").values()] if t)
    }
    assert review.search("mmbench", text) == expected
    assert text != "city street" or len(expected) > 4  # options alone hold it: every rotation


def test_search_finds_non_ascii_option_text_escaped_or_not(review) -> None:
    conn = review.store.conn
    for key, options in (("0", '{"A": "caf\\u00e9 au lait"}'), ("1", '{"A":"café noir"}')):
        conn.execute(  # json.dumps writes the first, SQLite's JSON functions the second
            "UPDATE samples SET options = ? WHERE key = ? AND dataset_id = "
            "(SELECT id FROM datasets WHERE name = 'mmbench')",
            (options, key),
        )
    found = {
        e.key for e in review.entries("mmbench") if e.answer_id in review.search("mmbench", "café")
    }
    assert found == {"0", "1"}


def test_search_and_filters(review) -> None:
    found = review.search("mmvet", "apples")
    assert found and all(e.key == "v1_0" for e in review.entries("mmvet") if e.answer_id in found)
    listed = SampleSet.of(review.store.samples("mmvet"))
    samples = {s.key: s for s in listed.samples}
    answers = review.columns("mmvet")
    only_math = Filter(axis=("capability", "math"), model="demo-beta")
    chosen = [
        answers.entry(int(r))
        for r in np.flatnonzero(matching(only_math, answers, listed, MMVET_AXES))
    ]
    assert chosen and all(
        "math" in samples[e.key].axis("capability") and e.model == "demo-beta" for e in chosen
    )
    assert only_math.describe() == "capability=math & model=demo-beta"
    review.grade(chosen[0].answer_id, 0.0)
    unreviewed = Filter(unreviewed=True)
    fresh = review.columns("mmvet")
    assert matching(unreviewed, fresh, listed, MMVET_AXES).sum() == len(fresh) - 1


def test_changes_by_another_connection_are_found(review, tmp_path: Path) -> None:
    marks = review.marks()
    version = review.data_version()
    with Store.open(review.store.path) as other:
        ReviewStore(other, "bob").grade(_entry(review).answer_id, 0.5)
    assert review.data_version() != version
    touched = review.touched_since(marks)
    assert touched == {_entry(review).answer_id}
    (fresh,) = review.refresh("mmvet", touched)
    assert fresh.verdict == Verdict(0.5)


def test_disagreement_and_spread_filters_compare_with_their_thresholds() -> None:
    """|judge mean - human| for reviewed answers; the population std of the judge runs."""
    sample = Sample("s", "q", QuestionType.OPEN, "gold")
    agree = Entry(1, "m", "s", judged=(0.8, 1.0), verdict=Verdict(0.9))  # mean 0.9: Δ 0
    apart = Entry(2, "m", "s", judged=(0.2, 0.4), verdict=Verdict(0.7))  # mean 0.3: Δ 0.4
    unreviewed = Entry(3, "m", "s", judged=(0.0, 1.0))  # std 0.5, no Δ
    entries = [agree, apart, unreviewed]

    def shown(**limits: float) -> list[int]:
        answers = AnswerColumns.from_entries(entries, ["s"])
        return answers.ids[
            matching(Filter(**limits), answers, SampleSet.of([sample]), MMVET_AXES)
        ].tolist()

    assert shown(disagreement=0.3) == [2]
    assert shown(disagreement=0.5) == []
    assert shown(spread=0.15) == [3]  # stds: 0.1, 0.1, 0.5
    assert shown(spread=0.05) == [1, 2, 3]
    assert shown(disagreement=0.3, spread=0.05) == [2]


def test_an_llm_failure_leaves_its_own_run_unscored_and_the_rules_score_standing(review) -> None:
    """Judges side by side: an LLM failure on an answer the offline rules scored leaves the
    LLM's run unscored and marked failed (its screen, report and notes alike) until a new
    judgment of its own; the rules' score stands in the rules' tables, and they are not
    asked again."""
    store = review.store
    entry = _entry(review)
    assert entry.judged == (1.0,) and entry.offline  # the demo's offline rules
    answer = entry.answer_id
    llm = {"kind": "llm", "judge_model": "gpt-test"}
    gpt = Judge("llm", "gpt-test", "")

    def tables_cell(judge: Judge) -> tuple[float | None, int]:
        scores = dataset_scores(store, "mmvet", benchmark("mmvet"), judge)
        outcome = scores.outcome_of("demo-alpha", "v1_0")
        assert outcome is not None
        return outcome.micro[0], scores.notes(store.judge_names("mmvet", judge)[0]).unscored

    rules_cell = tables_cell(OFFLINE)
    with store.transaction():
        store.add_judgments(
            [(answer, Judgment(run=0, score=None, status=Status.ERROR, error="500", **llm))]
        )
    review.judge = gpt
    failed = _entry(review)
    assert (failed.judged, failed.failed, failed.offline) == ((None,), True, False)
    answers = len(review.entries("mmvet"))
    assert tables_cell(gpt) == (None, answers)  # every answer unscored for this judge
    assert store.judge_names("mmvet", gpt) == ([], ["offline rules"])
    assert tables_cell(OFFLINE) == rules_cell  # the rules' score stands beside
    assert [r.judged for r in score_offline(store, ["mmvet"])] == [0]  # nothing to redo
    with store.transaction():
        store.add_judgments([(answer, Judgment(run=0, score=0.4, **llm))])
    judged = _entry(review)
    assert (judged.judged, judged.failed, judged.offline) == ((0.4,), False, False)
    assert tables_cell(gpt) == (400_000, answers - 1)
    assert store.judge_names("mmvet", gpt) == (["gpt-test"], ["offline rules"])
    assert tables_cell(OFFLINE) == rules_cell
    review.judge = None  # the default: the first LLM judge
    assert _entry(review).judged == (0.4,)
    review.judge = OFFLINE
    assert _entry(review).judged == (1.0,)


def test_verdicts_are_synced_to_disk_at_each_commit(review) -> None:
    assert review.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_info_and_the_notes_count_unscored_alike_and_name_partly_scored(review) -> None:
    """Unscored: no score in any run (info's "neither judged nor reviewed"); an answer
    scored in some runs only is counted apart, in the notes."""
    store = review.store
    answer = _entry(review).answer_id
    with store.transaction():  # a second run for one answer: the others now have one of two
        store.add_judgments([(answer, Judgment(run=1, score=0.5, judge_model=OFFLINE.model))])
    scores = dataset_scores(store, "mmvet", benchmark("mmvet"), OFFLINE)
    notes = scores.notes(store.judge_names("mmvet", OFFLINE)[0])
    (mmvet,) = [d for d in store.counts() if d.name == "mmvet"]
    unscored = sum(m.unscored for m in mmvet.models)
    assert unscored > 0 and notes.unscored == unscored
    assert notes.partial == notes.answers - unscored - 1
    assert f"{notes.partial} scored in only some runs" in notes.sentence()


def test_a_run_that_failed_everywhere_is_still_a_run_on_screen_and_in_the_report(review) -> None:
    store = review.store
    llm = {"kind": "llm", "judge_model": "gpt-test"}
    answers = [e.answer_id for e in review.entries("mmvet")]
    with store.transaction():
        store.add_judgments(
            [(a, Judgment(run=0, score=0.5, **llm)) for a in answers]
            + [
                (a, Judgment(run=1, score=None, status=Status.ERROR, error="500", **llm))
                for a in answers
            ]
        )
    gpt = store.chosen_judge("mmvet")  # the LLM, first of the judges now
    assert gpt == Judge("llm", "gpt-test", "")
    scores = dataset_scores(store, "mmvet", benchmark("mmvet"), gpt)
    on_screen = {len(e.judged) for e in review.entries("mmvet")}
    assert scores.breakdown.runs == 2 and on_screen == {2}
    assert all(e.failed for e in review.entries("mmvet"))
    notes = scores.notes(store.judge_names("mmvet", gpt)[0])
    assert notes.partial + notes.unscored == notes.answers  # no answer has both runs


def test_only_this_judges_own_newer_failure_makes_a_run_worth_asking_again(review) -> None:
    store = review.store
    answer = _entry(review).answer_id

    def planned() -> set[tuple[int, int]]:
        chains = JudgeStore(store, "a").plan(1, ["mmvet"]).chains
        return {(item.answer_id, item.run) for chain in chains for item in chain}

    before = planned()
    with store.transaction():
        store.add_judgments([(answer, Judgment(run=0, score=0.5, kind="llm", judge_model="a"))])
    assert (answer, 0) in before and (answer, 0) not in planned()  # judged by "a": settled
    with store.transaction():
        store.add_judgments(
            [
                (
                    answer,
                    Judgment(run=0, score=None, status=Status.ERROR, kind="llm", judge_model="b"),
                )
            ]
        )
    assert (answer, 0) not in planned()  # another judge's failure: "a"'s score stands
    with store.transaction():
        store.add_judgments(
            [
                (
                    answer,
                    Judgment(run=0, score=None, status=Status.ERROR, kind="llm", judge_model="a"),
                )
            ]
        )
    assert (answer, 0) in planned()  # its own run is unscored now: worth asking again


def test_the_judges_choice_is_its_lowest_runs_even_when_that_run_chose_none(review) -> None:
    """A later run's option does not stand in for the first run's lack of one."""
    store = review.store
    answer = _entry(review).answer_id
    judge = Judge("llm", "judge-x", "")
    with store.transaction():
        store.add_judgments(
            (answer, Judgment(run=run, score=0.5, choice=choice, kind="llm", judge_model="judge-x"))
            for run, choice in ((0, None), (1, "B"))
        )
    (entry,) = [e for e in EntryReader(store, judge).entries("mmvet") if e.answer_id == answer]
    assert entry.judged == (0.5, 0.5) and entry.judge_choice is None


def test_another_reviewers_equal_verdict_is_recorded_once(review) -> None:
    """bob grading as ada did is his own verdict (human-human agreement counts it); his
    repeat adds nothing, his undo takes back his row only, and ada's repeat adds nothing."""
    from lmmreview.db.reviewers import reviewer_verdicts

    answer = _entry(review).answer_id
    bob = ReviewStore(review.store, "bob")
    review.grade(answer, 0.5)
    bob.grade(answer, 0.5)
    bob.grade(answer, 0.5)
    assert [h.reviewer for h in review.history(answer)] == ["ada", "bob"]
    assert reviewer_verdicts(review.store, "mmvet")[answer] == {
        "ada": Verdict(0.5), "bob": Verdict(0.5)
    }  # fmt: skip
    review.grade(answer, 0.5)  # ada's own verdict, in force: a repeat
    assert len(review.history(answer)) == 2
    assert review.undo_last("mmvet") is None  # bob's row is on top: not ada's to undo
    assert bob.undo_last("mmvet") == answer
    assert _entry(review).verdict == Verdict(0.5)  # ada's, back on top
    assert reviewer_verdicts(review.store, "mmvet")[answer] == {"ada": Verdict(0.5)}
    assert review.undo_last("mmvet") == answer
    assert _entry(review).verdict is None


def test_a_blind_reviewer_writes_blind_rows_and_reviewers_counts_them(
    review, cli, tmp_path: Path
) -> None:
    store = review.store
    blind = ReviewStore(store, "bo")
    first, second = _entry(review).answer_id, _entry(review, key="v1_1").answer_id
    blind.grade(first, 0.4, blind=True)
    blind.note(first, "blind note", blind=True)
    blind.grade(second, 1.0, blind=True)
    blind.undo_last("mmvet")  # takes back the verdict on second, the judges seen
    review.grade(first, 0.4)  # ada, not blind
    rows = store.conn.execute("SELECT reviewer, action, blind FROM reviews ORDER BY id").fetchall()
    assert rows == [("bo", "grade", 1), ("bo", "note", 1), ("bo", "grade", 1), ("bo", "undo", 0),
                    ("ada", "grade", 0)]  # fmt: skip
    # Given a verdict: an undo does not hide the answer again; in force: it no longer counts.
    assert blind.own_answers("mmvet") == ({first, second}, {first})
    assert review.own_answers("mmvet") == ({first}, {first})
    assert blind.own_answers("mmmu") == (set(), set())  # another dataset's answers
    assert {"demo-alpha", "demo-beta"} <= set(blind.model_names())
    db = store.path
    store.conn.commit()
    found = cli("reviewers", db, "--dataset", "mmvet", "--format", "json")
    (mmvet,) = json.loads(found.stdout)["datasets"]
    assert mmvet["reviewers"] == {"ada": 1, "bo": 1}
    assert mmvet["given_blind"] == {"ada": 0, "bo": 1}
    markdown = cli("reviewers", db, "--dataset", "mmvet").stdout
    assert "| reviewer | answers reviewed | given blind |" in markdown
    assert "| bo | 1 | 1 |" in markdown and "| ada | 1 | 0 |" in markdown
