"""`lmmreview judges`: each judge against the human verdicts, through the real CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES, dump, needs_fixture, write_tsv

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.agreement import kappa, mean_abs_difference
from lmmreview.engine.benchmarks.mmbench.rules import EXTRACTION_PROMPT_VERSION
from lmmreview.engine.benchmarks.mmvet.rules import FEW_SHOT, PROMPT_VERSION
from lmmreview.engine.scoring import Judgment, Status

REAL = FIXTURES / "mmvet-real"
REAL_MODEL = "llava-v1.5-7b"


def _llm(run: int, score: float | None, model: str, choice: str | None = None) -> Judgment:
    """An LLM judgment as `lmmreview judge` stores it; a None score is a failed call."""
    status = Status.OK if score is not None else Status.ERROR
    prompt = EXTRACTION_PROMPT_VERSION if choice else PROMPT_VERSION
    return Judgment(
        run=run,
        score=score,
        choice=choice,
        status=status,
        method="llm",
        kind="llm",
        judge_model=model,
        prompt_version=prompt,
        reply="reply",
    )


def _report(cli, db: Path, *args: str) -> dict[str, dict[str, dict]]:
    """dataset -> judge name -> its JSON row."""
    result = cli("judges", db, "--format", "json", *args)
    assert result.code == 0, result.stderr
    return {
        d["dataset"]: {j["judge"]: j for j in d["judges"]}
        for d in json.loads(result.stdout)["datasets"]
    }


@pytest.fixture
def mmvet_db(mmvet_two_models_db: Path) -> Path:
    """Two LLM judges, j1 (two runs, then a failed rerun) and j2 (one run, one failure),
    and human scores on three answers."""
    db = mmvet_two_models_db
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        a0, a1, b1 = ids["alpha", "v1_0"], ids["alpha", "v1_1"], ids["beta", "v1_1"]
        with store.transaction():
            store.add_judgments([
                (a0, _llm(0, 0.4, "j1")), (a0, _llm(1, 0.6, "j1")),
                (a1, _llm(0, 0.8, "j1")), (a1, _llm(1, 1.0, "j1")),
                (b1, _llm(0, 0.0, "j1")), (b1, _llm(1, 0.2, "j1")),
                (a0, _llm(0, 1.0, "j2")), (a1, _llm(0, 0.0, "j2")), (b1, _llm(0, None, "j2")),
            ])  # fmt: skip
            store.add_judgments([(a1, _llm(1, None, "j1"))])  # j1's own newer run 1 failed
        reviews = ReviewStore(store, "tester")
        reviews.grade(a0, score=0.5)
        reviews.grade(a1, score=1.0)
        reviews.grade(b1, score=1.0)
        reviews.grade(b1, score=0.0)  # the verdict in force is the latest
    return db


def test_each_judge_is_measured_on_its_own_latest_runs(cli, mmvet_db: Path) -> None:
    judges = _report(cli, mmvet_db)["mmvet"]
    j1, j2 = judges["j1"], judges["j2"]
    # j1: alpha v1_0 mean(.4, .6) = .5 vs .5; alpha v1_1 only run 0 (.8; run 1 failed)
    # vs 1; beta v1_1 mean(0, .2) = .1 vs 0 -> (0 + .2 + .1) / 3
    assert j1["delta"]["n"] == 3
    assert j1["delta"]["value"] == pytest.approx(0.1)
    assert j1["delta"]["low"] <= 0.1 <= j1["delta"]["high"]
    assert j1["run_std"] == pytest.approx(0.1)  # pstdev(.4, .6) and pstdev(0, .2)
    assert j1["kappa_correct"]["value"] == 1.0  # correct, correct, incorrect: both agree
    # j2: 1 vs .5 and 0 vs 1; its failure on beta leaves that answer out
    assert j2["delta"]["n"] == 2
    assert j2["delta"]["value"] == pytest.approx(0.75)
    assert j2["run_std"] is None
    assert j1["alignment"] is None  # no choices in MM-Vet


def test_combined_judges_are_scored_as_one(cli, mmvet_db: Path) -> None:
    judges = _report(cli, mmvet_db, "--combine", "j1", "--combine", "j2")["mmvet"]
    both = judges["combined: j1 + j2"]
    # answers both scored: (.5 + 1) / 2 = .75 vs .5 and (.8 + 0) / 2 = .4 vs 1
    assert both["delta"]["n"] == 2
    assert both["delta"]["value"] == pytest.approx((0.25 + 0.6) / 2)
    assert both["kind"] == "combined"


def test_run_std_is_over_the_n_reviewed_answers_of_its_row(cli, mmvet_db: Path) -> None:
    """j1's runs on an answer no human scored (alpha v1_2: 0 and 1) leave its Run std."""
    with Store.open(mmvet_db) as store, store.transaction():
        a2 = store.answer_ids("mmvet")["alpha", "v1_2"]
        store.add_judgments([(a2, _llm(0, 0.0, "j1")), (a2, _llm(1, 1.0, "j1"))])
    j1 = _report(cli, mmvet_db)["mmvet"]["j1"]
    assert j1["delta"]["n"] == 3
    assert j1["run_std"] == pytest.approx(0.1)  # pstdev(.4, .6) and pstdev(0, .2), not .5


def test_combine_reads_a_judge_name_as_report_judge_does(cli, mmvet_db: Path) -> None:
    """`gpt-4` names the imported judge `gpt-4 (imported)` for --combine as for --judge."""
    with Store.open(mmvet_db) as store, store.transaction():
        a0 = store.answer_ids("mmvet")["alpha", "v1_0"]
        imported = Judgment(
            run=0,
            score=0.9,
            method="imported",
            kind="imported",
            judge_model="gpt-4",
            prompt_version="grader",
        )
        store.add_judgments([(a0, imported)])
    assert cli("report", mmvet_db, "--judge", "gpt-4").code == 0
    judges = _report(cli, mmvet_db, "--combine", "gpt-4", "--combine", "j1")["mmvet"]
    both = judges["combined: gpt-4 (imported) + j1"]
    assert both["delta"]["n"] == 1  # alpha v1_0: (.9 + .5) / 2 = .7 vs .5
    assert both["delta"]["value"] == pytest.approx(0.2)


def test_an_unknown_combine_name_lists_the_names_it_takes(cli, mmvet_db: Path) -> None:
    result = cli("judges", mmvet_db, "--combine", "j1", "--combine", "gpt-4")
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert "gpt-4" in line and "the judges: j1, j2" in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--combine", "j1", "--combine", "nobody"],
         "no dataset has every judge of --combine: j1, nobody"),
        (["--combine", "j1", "--combine", "j1"], "--combine needs at least two different judges"),
        (["--dataset", "nope"], "no dataset 'nope'"),
        (["--out", "DB"], "that is the database"),
    ],
)  # fmt: skip
def test_bad_arguments_are_one_line_and_exit_1_leaving_the_file_as_it_was(
    cli, mmvet_db: Path, args: list[str], message: str
) -> None:
    before = dump(mmvet_db)
    result = cli("judges", mmvet_db, *(mmvet_db if a == "DB" else a for a in args))
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and message in line
    assert dump(mmvet_db) == before


def test_markdown_and_latex_show_every_judge_and_no_control_character(
    cli, mmvet_db: Path, tmp_path: Path
) -> None:
    with Store.open(mmvet_db) as store, store.transaction():
        answer = store.answer_ids("mmvet")["alpha", "v1_0"]
        store.add_judgments([(answer, _llm(0, 1.0, "evil\x1b[31m|judge"))])
    markdown = cli("judges", mmvet_db).stdout
    assert "| j1 | " in markdown and "| 3 | 0.100 |" in markdown
    assert "\x1b" not in markdown and "evil␛\\[31m\\|judge" in markdown
    out = tmp_path / "judges.tex"
    assert cli("judges", mmvet_db, "--format", "latex", "--out", out).code == 0
    latex = out.read_text(encoding="utf-8")
    assert r"\begin{tabular}" in latex and "j1 & " in latex and "\x1b" not in latex


def test_the_offline_rules_are_labelled_the_keyword_matching_baseline(cli, mmvet_db: Path) -> None:
    assert cli("score", mmvet_db).code == 0
    markdown = cli("judges", mmvet_db).stdout
    assert "| offline rules (keyword-matching baseline) |" in markdown


# -- acceptance (c): MMBench alignment -----------------------------------------------------


def test_mmbench_alignment_and_case_split_as_computed_by_hand(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    db = tmp_path / "b.db"
    predictions = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [
        [7, "hard to say"], [1000007, "B"], [9, "the star, not the square"],
        [1000009, "a shape"], [2000009, "a star or a circle"],
    ])  # fmt: skip
    assert cli("import", "mmbench", db, mmbench_tsv, "--answers", predictions,
               "--model", "m").code == 0  # fmt: skip
    assert cli("score", db).code == 0  # step 1 matches 1000007 only; the rest fall back
    # (judge choice, human choice): 7 X/X aligned, 9 B/C Case II, 1000009 X/A Case I,
    # 2000009 A/A aligned; 1000007 was matched in step 1, so it is not in the alignment.
    llm = {"7": "X", "9": "B", "1000009": "X", "2000009": "A"}
    human = {"7": "X", "1000007": "B", "9": "C", "1000009": "A", "2000009": "A"}
    gold = {"7": "A", "9": "C", "1000009": "B", "2000009": "A"}
    with Store.open(db) as store:
        ids = store.answer_ids("mmbench")
        with store.transaction():
            store.add_judgments(
                (ids["m", key], _llm(0, float(choice == gold[key]), "gpt-x", choice))
                for key, choice in llm.items()
            )
        reviews = ReviewStore(store, "tester")
        for key, choice in human.items():
            reviews.grade(ids["m", key], choice=choice)
    judge = _report(cli, db)["mmbench"]["gpt-x"]
    assert judge["alignment"] == {"n": 4, "aligned": 2, "case_one": 1, "case_two": 1}
    assert judge["alignment_rate"] == 0.5
    # kappa on choices also counts the matched row for this judge: five pairs
    pairs = [("X", "X"), ("B", "B"), ("B", "C"), ("X", "A"), ("A", "A")]
    assert judge["kappa_choice"]["n"] == 5
    assert judge["kappa_choice"]["value"] == pytest.approx((3 / 5 - 6 / 25) / (1 - 6 / 25))
    assert judge["kappa_choice"]["value"] == pytest.approx(kappa(pairs))
    # Table 2: one answer of five settled by matching, four by the LLM
    assert judge["settled"] == {"m": {"matched": 0.2, "llm": 0.8, "fallback": 0.0}}
    markdown = cli("judges", db).stdout
    assert "| gpt-x | 4 | 50.0 | 1 | 1 |" in markdown


# -- acceptance (a): the real MM-Vet files ---------------------------------------------------


@needs_fixture("mmvet-real")
def test_real_mmvet_official_grades_and_offline_rules_against_30_human_verdicts(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "real.db"
    answers = REAL / REAL_MODEL / f"{REAL_MODEL}.json"
    assert cli("import", "mmvet", db, REAL / "mm-vet.json", "--images", REAL / "images",
               "--answers", answers).code == 0  # fmt: skip
    # The offline rules first: `score` leaves answers another judge has judged alone.
    assert cli("score", db).code == 0  # the offline rules grade the short answers
    grades = REAL / REAL_MODEL / f"{REAL_MODEL}_gpt-4-grade-3runs.json"
    assert cli("import", "mmvet-grades", db, grades).code == 0
    with sqlite3.connect(db) as conn:
        offline = dict(conn.execute(
            "SELECT answer_id, score FROM judgments WHERE judge_kind = 'offline' "
            "AND status = 'ok' ORDER BY answer_id LIMIT 30"
        ).fetchall())  # fmt: skip
        gpt4 = dict(conn.execute(
            "SELECT answer_id, AVG(score) FROM judgments WHERE judge_kind = 'imported' "
            "AND status IN ('ok', 'fallback') GROUP BY answer_id"
        ).fetchall())  # fmt: skip
    assert len(offline) == 30
    human = {answer: (0.0, 0.5, 1.0)[i % 3] for i, answer in enumerate(offline)}
    with Store.open(db) as store:
        reviews = ReviewStore(store, "tester")
        for answer, score in human.items():
            reviews.grade(answer, score=score)
    judges = _report(cli, db)["mmvet"]
    for name, scores in (("gpt-4 (imported)", gpt4), ("offline rules", offline)):
        pairs = [(scores[a], h) for a, h in human.items() if a in scores]
        assert len(pairs) == 30, name
        row = judges[name]["delta"]
        assert row["n"] == 30
        assert row["value"] == pytest.approx(sum(abs(j - h) for j, h in pairs) / 30)
        expected = mean_abs_difference(pairs)
        assert (row["low"], row["high"]) == pytest.approx((expected.low, expected.high))
        assert row["low"] < row["value"] < row["high"]
    assert judges["offline rules"]["baseline"] is True


# -- prompt variants (MM-Vet Table 8) --------------------------------------------------------


def test_a_prompt_variant_is_asked_with_its_rows_only_and_is_a_judge_of_its_own(
    cli, judge_env, fake_judge, mmvet_files, tmp_path: Path
) -> None:
    db = tmp_path / "v.db"
    files = mmvet_files
    assert cli("import", "mmvet", db, files["questions"], "--answers", files["alpha"]).code == 0
    result = cli("judge", db, "--runs", "1", "--model", "judge-x",
                 "--prompt-variant", "shots=5,1,2")  # fmt: skip
    assert result.code == 0, result.stderr
    assert fake_judge.requests == 3
    rows = [" | ".join(example) + "\n" for example in FEW_SHOT]
    for prompt in fake_judge.prompts:
        assert [row in prompt for row in rows] == [True, True, False, False, True, False, False]
    variant = f"{PROMPT_VERSION}+shots=1,2,5"
    with Store.open(db) as store, store.transaction():
        with sqlite3.connect(db) as conn:
            assert {row[0] for row in conn.execute("SELECT prompt_hash FROM judgments")} == {
                variant
            }
        answer = store.answer_ids("mmvet")["alpha", "v1_1"]
        store.add_judgments([(answer, _llm(0, 1.0, "judge-x"))])  # the reference prompt
    judges = _report(cli, db)["mmvet"]
    assert judges["judge-x [shots=1,2,5]"]["prompt"] == "shots=1,2,5"
    assert judges["judge-x"]["prompt"] == "reference"  # the reference prompts: no suffix


@pytest.mark.parametrize("name", ["shots=0,2", "shots=8", "shots=", "rows=1", "shots=1;2"])
def test_an_unknown_prompt_variant_is_one_line_and_exit_1(
    cli, judge_env, fake_judge, mmvet_files, tmp_path: Path, name: str
) -> None:
    db = tmp_path / "v.db"
    assert cli("import", "mmvet", db, mmvet_files["questions"],
               "--answers", mmvet_files["alpha"]).code == 0  # fmt: skip
    before = dump(db)
    result = cli("judge", db, "--prompt-variant", name)
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: prompt variant {name!r}")
    assert fake_judge.requests == 0 and dump(db) == before


def test_a_variant_no_dataset_has_is_told_by_a_benchmark_that_has_variants(
    cli, judge_env, fake_judge, demo_db: Path
) -> None:
    """The demo holds five benchmarks, three without prompt variants: the line says what a
    valid MM-Vet variant is, not that MMBench has none."""
    before = dump(demo_db)
    result = cli("judge", demo_db, "--prompt-variant", "shots=9")
    assert result.code == 1
    assert result.stderr.splitlines() == [
        "error: prompt variant 'shots=9': the prompt has few-shot rows 1 to 7"
    ]
    assert fake_judge.requests == 0 and dump(demo_db) == before


def test_the_generic_formats_open_answers_take_mm_vets_variants(
    cli, judge_env, fake_judge, demo_db: Path
) -> None:
    """The generic format grades open answers as MM-Vet does, and so with its variants."""
    result = cli("judge", demo_db, "--dataset", "generic", "--model", "judge-x",
                 "--prompt-variant", "shots=1,2")  # fmt: skip
    assert result.code == 0, result.stderr
    rows = [" | ".join(example) + "\n" for example in FEW_SHOT]
    graded = [prompt for prompt in fake_judge.prompts if rows[0] in prompt]
    assert graded  # the open answers, asked with rows 1 and 2 only
    for prompt in graded:
        assert [row in prompt for row in rows] == [True, True, False, False, False, False, False]
