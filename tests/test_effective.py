"""One effective score: `info`, the exports' notes and the review screen count alike.

A database with a tricky history (two judges, failed judgments, a failure replaced and a
success replaced by a failure, verdicts undone, a chosen option on a question with no gold)
is read through every path a user meets, by either judge, and each must give the same
counts per model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_lines
from tui_harness import drive, until

from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import Judgment, Status, Verdict, effective

QUESTIONS = [
    {"id": "o1", "question": "1 + 1?", "answer": "2"},
    {"id": "o2", "question": "1 + 2?", "answer": "3"},
    {"id": "o3", "question": "1 + 3?", "answer": "4"},
    {"id": "o4", "question": "1 + 4?", "answer": "5"},
    {"id": "c1", "question": "Which barks?", "options": ["cat", "dog"], "answer": "B"},
    {"id": "c2", "question": "Which is nicer?", "options": ["cat", "dog"]},  # no gold
]
LLM = {"kind": "llm", "judge_model": "gpt-test"}
FAILED = {"status": Status.ERROR, "error": "500", **LLM}

# What each model's answers went through, and what must come of it, by each judge.
EXPECTED = {
    "gpt-test": {  # the default: the first LLM judge
        # judged: o3, c1, c2; reviewed: c1, c2; unscored: o1 (the LLM's run failed; the
        # rules' score is another judge's), o2, o4, and c2 (a choice with no gold scores
        # nothing, and neither does the judge's extraction of it)
        # offline: none (o1's rules score is another judge's)
        "m1": {"answers": 6, "judged": 3, "reviewed": 2, "unscored": 4, "offline": 0},
        # judged: o3, c1 (an option match counts for every judge); reviewed: o1, o2;
        # unscored: o4, c2 (its verdict undone); offline: c1
        "m2": {"answers": 6, "judged": 2, "reviewed": 2, "unscored": 2, "offline": 1},
    },
    "offline rules": {
        # judged, offline: o1; reviewed: c1, c2; unscored: o2, o3, o4, c2
        "m1": {"answers": 6, "judged": 1, "reviewed": 2, "unscored": 4, "offline": 1},
        # judged, offline: c1 (the match); reviewed: o1, o2; unscored: o3, o4, c2
        "m2": {"answers": 6, "judged": 1, "reviewed": 2, "unscored": 3, "offline": 1},
    },
}
PARTIAL = {"gpt-test": 3, "offline rules": 2}  # answers scored in one of the judge's 2 runs


def _history(db: Path) -> None:
    """Judgments and verdicts, written through the store and the review screen's writes."""
    with Store.open(db) as store:
        ids = {(m, k): a for a, m, k in store.answer_keys("bench")}
        judgments = [
            (
                ids["m1", "o1"],
                Judgment(run=0, score=1.0),
            ),  # offline, then run 1 fails: partly scored
            (ids["m1", "o1"], Judgment(run=1, score=None, **FAILED)),
            (ids["m1", "o2"], Judgment(run=0, score=None, **FAILED)),  # only a failure
            (ids["m1", "o3"], Judgment(run=0, score=None, **FAILED)),  # a failure replaced
            (ids["m1", "o3"], Judgment(run=0, score=0.5, **LLM)),
            (ids["m1", "o4"], Judgment(run=0, score=1.0, **LLM)),  # a success replaced by a failure
            (ids["m1", "o4"], Judgment(run=0, score=None, **FAILED)),
            (ids["m1", "c1"], Judgment(run=0, score=0.0, choice="A", method="llm", **LLM)),
            (ids["m1", "c2"], Judgment(run=0, score=None, choice="A", method="llm", **LLM)),
            (ids["m2", "o3"], Judgment(run=0, score=0.0, **LLM)),
            (
                ids["m2", "c1"],
                Judgment(run=1, score=1.0, choice="B", method="matched"),
            ),  # run 1 only
        ]
        with store.transaction():
            store.add_judgments(judgments)
        review = ReviewStore(store, "ada")
        review.grade(ids["m1", "o4"], 0.8)
        review.undo_last("bench")  # back to no verdict
        review.grade(ids["m1", "c1"], choice="B")
        review.grade(ids["m1", "c2"], choice="B")  # no gold: reviewed, yet no score
        review.grade(ids["m2", "o1"], 1.0)
        review.grade(ids["m2", "o2"], 0.2)
        review.grade(ids["m2", "o2"], 0.6)
        review.undo_last("bench")  # back to 0.2
        review.grade(ids["m2", "c2"], choice="A")
        review.undo_last("bench")


@pytest.fixture
def tricky_db(cli, tmp_path: Path) -> Path:
    db = tmp_path / "r.db"
    questions = write_lines(tmp_path / "bench.jsonl", QUESTIONS)
    assert cli("import", "jsonl", db, questions).code == 0
    for model in EXPECTED["gpt-test"]:
        answers = [{"id": q["id"], "prediction": "A"} for q in QUESTIONS]
        file = write_lines(tmp_path / f"{model}.jsonl", answers)
        result = cli("import", "jsonl", db, file, "--dataset", "bench", "--model", model)
        assert result.code == 0, result.stderr
    _history(db)
    return db


def _screen_counts(db: Path, judge: str) -> dict[str, dict[str, int]]:
    """Per model, what the review screen holds, showing `judge`: its entries and tables."""
    counts: dict[str, dict[str, int]] = {}

    async def read(app, pilot) -> None:
        if app.session.judge_name != judge:
            app.review_screen.show_judge(judge)
            await until(pilot, lambda: app.session.judge_name == judge and app.session.tables)
        session = app.session
        for model in session.answers.models:
            entries = [e for e in session.entries if e.model == model]
            outcomes = [session.outcome_of(model, e.key) for e in entries]
            counts[model] = {
                "answers": len(entries),
                "reviewed": sum(e.reviewed for e in entries),
                "unscored": sum(o.micro == (None,) * len(o.micro) for o in outcomes if o),
                "reviewed in the tables": sum(o.reviewed for o in outcomes if o),
            }
        counts["all"] = {"reviewed": session.counts()[1]}

    drive(db, read, dataset="bench")
    return counts


@pytest.mark.parametrize("judge", ["gpt-test", "offline rules"])
def test_info_the_export_notes_and_the_screen_count_alike(cli, tricky_db: Path, judge) -> None:
    chosen = [] if judge == "gpt-test" else ["--judge", judge]  # the default, or chosen
    info = json.loads(cli("info", tricky_db, "--json", *chosen).stdout)
    (dataset,) = info["datasets"]
    assert dataset["judge"] == judge
    by_model = {m.pop("model"): m for m in dataset["models"]}
    assert by_model == EXPECTED[judge]

    export = cli("export", tricky_db, "--format", "json", *chosen)
    notes = json.loads(export.stdout)["notes"]["bench"]
    for count in ("answers", "reviewed", "unscored", "offline"):
        assert notes[count] == sum(m[count] for m in EXPECTED[judge].values()), count
    assert notes["partial"] == PARTIAL[judge]
    if judge == "gpt-test":  # the rules' option match of c1 counts for it; nothing else
        assert (notes["judges"], "other_judges" in notes) == (["gpt-test", "offline rules"], False)
    else:
        assert (notes["judges"], notes["other_judges"]) == (["offline rules"], ["gpt-test"])

    screen = _screen_counts(tricky_db, judge)
    for model, expected in EXPECTED[judge].items():
        assert screen[model]["answers"] == expected["answers"]
        assert screen[model]["reviewed"] == expected["reviewed"]
        assert screen[model]["reviewed in the tables"] == expected["reviewed"]
        assert screen[model]["unscored"] == expected["unscored"]
    assert screen["all"]["reviewed"] == notes["reviewed"]


def test_every_query_takes_the_latest_judgment_of_a_run(tricky_db: Path) -> None:
    """The judge's plan, its claims, the judges named in the notes and the offline scorer
    all let a run's latest judgment (of their judge) decide it, a failure included."""
    with Store.open(tricky_db) as store:
        ids = {(m, k): a for a, m, k in store.answer_keys("bench")}
        gpt, rules = store.judges("bench")
        assert (gpt.model, rules.model) == ("gpt-test", "offline rules")  # the LLM first
        assert store.judge_names("bench", gpt) == (["gpt-test", "offline rules"], [])
        assert store.judge_names("bench", rules) == (["offline rules"], ["gpt-test"])
        assert set(store.deciding_judgments("bench", gpt)) == {
            ids[key] for key in [("m1", "o3"), ("m1", "c1"), ("m1", "c2")]
        } | {ids["m2", "o3"], ids["m2", "c1"]}
        assert set(store.deciding_judgments("bench", rules)) == {ids["m1", "o1"], ids["m2", "c1"]}
        judge = JudgeStore(store, "gpt-test")
        asked = {
            (item.answer_id, item.run) for c in judge.plan(2, models=["m1"]).chains for item in c
        }
        open_runs = {(ids["m1", k], r) for k in ("o1", "o2", "o3", "o4") for r in (0, 1)}
        assert asked & open_runs == open_runs - {(ids["m1", "o3"], 0)}  # the rules' o1 too
        assert (ids["m1", "c1"], 0) not in asked  # is not this judge's; c1's is
        (o4,) = [
            i
            for c in judge.plan(1, models=["m1"]).chains
            for i in c
            if i.answer_id == ids["m1", "o4"]
        ]
        assert judge.claim(o4)  # its success was replaced by a failure: asked again
        (o3,) = [
            i for c in judge.plan(2, models=["m1"]).chains for i in c
            if (i.answer_id, i.run) == (ids["m1", "o3"], 1)
        ]  # fmt: skip
        with store.transaction():
            store.add_judgments([(ids["m1", "o3"], Judgment(run=1, score=1.0, **LLM))])
        assert not judge.claim(o3)  # decided meanwhile


def test_a_choice_with_no_gold_is_reviewed_and_keeps_the_judges_scores() -> None:
    outcome = effective((0.5, None), Verdict(None, "B"), 2, [], fallback=True)
    assert outcome.micro == (500_000, None) and outcome.reviewed and outcome.fallback
    scored = effective((0.5, None), Verdict(None, "B"), 2, ["B"], fallback=True)
    assert scored.micro == (1_000_000,) * 2 and scored.reviewed and not scored.fallback


def test_a_judgment_is_built_by_keyword_only() -> None:
    """Its fifteen fields are named where it is made (a plug-in's included): a positional
    list of them was easy to get out of order."""
    with pytest.raises(TypeError):
        Judgment(0, 1.0)  # type: ignore[misc]
    assert Judgment(run=0, score=1.0).status is Status.OK
