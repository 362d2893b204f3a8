"""HallusionBench: its Benchmark (tables, judge, offline rule) and `lmmreview import
hallusionbench`, on small files in the official format. No public per-sample outputs carry
official figures (research notes 3.4), so the figures are the worked example's, derived by
hand from the official code's rules (tianyi-lab/HallusionBench utils.py @ 67ba0de)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, first_rows, png_bytes, write_json, write_lines

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine import registry
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.benchmarks.hallusionbench.benchmark import HALLUSIONBENCH
from lmmreview.engine.benchmarks.hallusionbench.rules import judge_prompt
from lmmreview.engine.llm import Reply
from lmmreview.engine.scoring import Status


def _row(
    category: str, figure: str, question: str, visual_input: str, gt: str, prediction: str,
    verdict: str | None,
) -> dict[str, Any]:  # fmt: skip
    """A row of HallusionBench.json (set 0 of VD illusion or VS chart) with the model's
    prediction and, when given, the official judge's verdict."""
    subcategory = "illusion" if category == "VD" else "chart"
    row: dict[str, Any] = {
        "category": category, "subcategory": subcategory, "visual_input": visual_input,
        "set_id": "0", "figure_id": figure, "sample_note": "circle", "question_id": question,
        "question": f"Is statement {question} true of figure {figure}?",
        "gt_answer_details": f"Statement {question} is {'true' if gt == '1' else 'false'}.",
        "gt_answer": gt,
        "filename": None if visual_input == "0" else f"./{category}/{subcategory}/0_{figure}.png",
        "model_prediction": prediction,
    }  # fmt: skip
    if verdict is not None:
        row["gpt4v_output_gpt_check"] = verdict
    return row


# The worked example of the research notes (3.4): VD illusion set 0, figure 0 original and
# figure 1 edited, questions 0-2, verdicts (1,1,1) and (1,0,2); VS chart set 0 question 1 without
# a figure (verdict 2: right, no figure) and with the original one (verdict 1).
VD_ROWS = [
    ("VD", "0", "0", "1", "1", "Yes, it is.", "1"),
    ("VD", "0", "1", "1", "0", "No.", "1"),
    ("VD", "0", "2", "1", "1", "Yes", "1"),
    ("VD", "1", "0", "2", "0", "No, they differ.", "1"),
    ("VD", "1", "1", "2", "1", "No.", "0"),
    ("VD", "1", "2", "2", "0", "I cannot tell.", "2"),
]
VS_ROWS = [
    ("VS", "0", "1", "0", "1", "I do not know without the chart.", "2"),
    ("VS", "1", "1", "1", "1", "Yes.", "1"),
]
# By hand: questions VD 4/6, VS 2/2; pairs VD q0 only (1/3), VS q1 (1/1); figures VD fig 0 only
# (1/2), VS fig 1 (1/1), VS fig 0 in none; easy groups all right (VD 3, VS 1: its two questions
# are both easy); hard groups VD 1/3, VS none.
PAPER_TABLE = {"qacc": 50.0, "facc": 200 / 3, "easy": 100.0, "hard": 100 / 3, "aacc": 75.0}
PAPER_N = {"qacc": 4, "facc": 3, "easy": 4, "hard": 3, "aacc": 8}


def _judged_files(folder: Path, verdicts: bool = True, model: str = "m") -> tuple[Path, Path]:
    """The worked example as the official judge's VD and VS files (without the verdicts:
    the rows of a result file, split as the judge splits them)."""

    def rows(given: list[tuple[str, ...]]) -> list[dict[str, Any]]:
        return [_row(*r[:6], verdict=r[6] if verdicts else None) for r in given]

    return (
        write_json(folder / f"hallusion_output_vd_{model}.json", rows(VD_ROWS)),
        write_json(folder / f"hallusion_output_vs_{model}.json", rows(VS_ROWS)),
    )


def hallusionbench_files(folder: Path, model: str) -> None:
    """The worked example's result file (HallusionBench_result.json) and the official
    judge's two files of `model`, as the docs' examples import them."""
    rows = [_row(*r[:6], verdict=None) for r in VD_ROWS + VS_ROWS]
    write_json(folder / "HallusionBench_result.json", rows)
    for row in rows[:-1]:  # the figures, but one, in the release's folder
        if row["filename"]:
            figure = folder / "hallusion_bench" / row["filename"]
            figure.parent.mkdir(parents=True, exist_ok=True)
            figure.write_bytes(png_bytes())
    _judged_files(folder, model=model)
    lmms_eval_files(folder, "v0.4")


def _imported(cli, tmp_path: Path, verdicts: bool = True) -> Path:
    db = tmp_path / "h.db"
    for file in _judged_files(tmp_path, verdicts):
        result = cli("import", "hallusionbench", db, file)
        assert result.code == 0, result.stderr
    return db


def test_the_official_verdicts_give_the_worked_examples_figures(cli, tmp_path: Path) -> None:
    db = _imported(cli, tmp_path)
    tables = first_rows(cli, db)
    board = tables["hallusionbench.leaderboard"]
    assert board["model"] == "m"  # both judged files name one model
    assert board["values"] == pytest.approx(PAPER_TABLE)
    assert board["n"] == PAPER_N
    assert tables["hallusionbench.questions"]["values"] == pytest.approx(
        {"vd": 400 / 6, "vs": 100.0, "overall": 75.0}
    )
    pairs = tables["hallusionbench.pairs"]
    by_pairs = {"vd_easy": 100.0, "vd_hard": 100 / 3, "vd": 100 / 3, "vs_easy": 100.0,
                "vs": 100.0, "easy": 100.0, "hard": 100 / 3, "overall": 50.0}  # fmt: skip
    assert pairs["values"] == pytest.approx(by_pairs)  # VS has no hard question: no cell
    assert tables["hallusionbench.figures"]["values"] == pytest.approx(
        {"vd": 50.0, "vs": 100.0, "overall": 200 / 3}
    )
    assert tables["hallusionbench.subcategories"]["values"] == pytest.approx(
        {"VD_illusion": 400 / 6, "VS_chart": 100.0}
    )
    report = cli("report", db).stdout
    assert "│ m     │ 50.0 │ 66.7 │     100.0 │      33.3 │ 75.0 │" in report
    assert "judge gpt-4 (imported)" in report


def test_a_human_verdict_moves_each_group_of_its_question(cli, tmp_path: Path) -> None:
    """Graded wrong, VD figure 0's question 0 takes its pair, its easy group and its figure
    with it; the hard groups stay."""
    db = _imported(cli, tmp_path)
    with Store.open(db) as store:
        answer = store.answer_ids("hallusionbench")["m", "VD_illusion_0_0_0"]
        ReviewStore(store, "ada").grade(answer, 0.0)
    board = first_rows(cli, db)["hallusionbench.leaderboard"]
    moved = {"qacc": 25.0, "facc": 100 / 3, "easy": 75.0, "hard": 100 / 3, "aacc": 62.5}
    assert board["values"] == pytest.approx(moved)


def _official_bias(rows: list[tuple[str, ...]], wrong: set[int]) -> dict[str, float]:
    """The official yes/no bias (utils.py `yes_ratio_stats` after `assign_correctness`),
    restated: a question is right on a correct verdict, or an uncertain one without a
    figure; "answered yes" is right on gold yes, or wrong on gold no; Pct Diff is the share
    answered yes minus the share of gold yes, FP Ratio the share of gold no among the
    wrong. `wrong`: rows graded wrong by a human."""
    golds, right = [], []
    for i, (category, figure, _, _, gt, _, verdict) in enumerate(rows):
        no_figure = category == "VS" and figure == "0"
        golds.append(int(gt))
        right.append(0 if i in wrong else int(verdict == "1" or (no_figure and verdict == "2")))
    said_yes = [int(r == g) for r, g in zip(right, golds, strict=True)]
    wrong_golds = [g for r, g in zip(right, golds, strict=True) if r == 0]
    return {
        "pct_diff": 100 * (sum(said_yes) / len(rows) - sum(golds) / len(rows)),
        "fp_ratio": 100 * (len(wrong_golds) - sum(wrong_golds)) / len(wrong_golds),
    }


@pytest.mark.parametrize("graded", [False, True])
def test_the_yes_no_bias_is_the_official_scripts(cli, tmp_path: Path, graded: bool) -> None:
    """On the worked example (one wrong on each gold: no bias, FP Ratio 50), and with VD
    figure 0's question 0 (gold yes) graded wrong: Pct Diff -12.5 points, FP Ratio 1/3."""
    db = _imported(cli, tmp_path)
    if graded:
        with Store.open(db) as store:
            answer = store.answer_ids("hallusionbench")["m", "VD_illusion_0_0_0"]
            ReviewStore(store, "ada").grade(answer, 0.0)
    bias = first_rows(cli, db)["hallusionbench.bias"]
    expected = _official_bias(VD_ROWS + VS_ROWS, {0} if graded else set())
    assert expected == pytest.approx(
        {"pct_diff": -12.5, "fp_ratio": 100 / 3} if graded else {"pct_diff": 0.0, "fp_ratio": 50}
    )
    assert {k: bias["values"][k] for k in expected} == pytest.approx(expected)
    assert (bias["values"]["yes"], bias["values"]["no"]) == (5.0, 3.0)  # gold yes, gold no
    assert bias["n"]["pct_diff"] == 8  # each question once
    yes_acc, no_acc = (60.0, 200 / 3) if graded else (80.0, 200 / 3)
    assert (bias["values"]["yes_acc"], bias["values"]["no_acc"]) == pytest.approx((yes_acc, no_acc))


def _official_consistency(rows: list[tuple[str, ...]], wrong: set[int]) -> dict[str, float]:
    """The official consistency test (utils.py `get_eval_fig`), restated: per figure (the
    no-figure VS questions in none) its questions right of all; correct when all are,
    wrong when none, else inconsistent; each a share of the figures, in percent."""
    figures: dict[tuple[str, str], list[bool]] = {}
    for i, (category, figure, _, _, _, _, verdict) in enumerate(rows):
        if (category, figure) != ("VS", "0"):
            figures.setdefault((category, figure), []).append(i not in wrong and verdict == "1")
    kinds = ["correct" if all(r) else "wrong" if not any(r) else "inconsistent"
             for r in figures.values()]  # fmt: skip
    return {
        kind: 100 * kinds.count(kind) / len(kinds) for kind in ("correct", "inconsistent", "wrong")
    }


@pytest.mark.parametrize(
    ("graded", "expected"),
    [
        ("", {"correct": 200 / 3, "inconsistent": 100 / 3, "wrong": 0.0}),
        ("VD_illusion_0_1_0", {"correct": 200 / 3, "inconsistent": 0.0, "wrong": 100 / 3}),
        ("VD_illusion_0_0_0", {"correct": 100 / 3, "inconsistent": 200 / 3, "wrong": 0.0}),
    ],
)
def test_the_consistency_test_is_the_official_scripts(
    cli, tmp_path: Path, graded: str, expected: dict[str, float]
) -> None:
    """Figures VD 0 (all right), VD 1 (1 of 3) and VS 1 (all right); grading VD figure 1's
    one right question wrong makes it wrong, VD figure 0's first makes it inconsistent."""
    db = _imported(cli, tmp_path)
    if graded:
        with Store.open(db) as store:
            answer = store.answer_ids("hallusionbench")["m", graded]
            ReviewStore(store, "ada").grade(answer, 0.0)
    keys = [
        f"{r[0]}_{'illusion' if r[0] == 'VD' else 'chart'}_0_{r[1]}_{r[2]}"
        for r in VD_ROWS + VS_ROWS
    ]
    wrong = {keys.index(graded)} if graded else set()
    assert _official_consistency(VD_ROWS + VS_ROWS, wrong) == pytest.approx(expected)
    consistency = first_rows(cli, db)["hallusionbench.consistency"]
    assert consistency["values"] == pytest.approx(expected)
    assert consistency["n"] == {"correct": 3, "inconsistent": 3, "wrong": 3}


def test_the_official_verdicts_are_stored_as_the_official_judges(cli, tmp_path: Path) -> None:
    db = _imported(cli, tmp_path)
    with Store.open(db) as store:
        (sample,) = [s for s in store.samples("hallusionbench") if s.key == "VS_chart_0_0_1"]
        rows = store.conn.execute(
            "SELECT judge_kind, judge_model, score, raw_reply FROM judgments ORDER BY answer_id"
        ).fetchall()
    assert sample.golds == ["Statement 1 is true."]  # what the judge compares with
    assert sample.extra["gt_answer"] == "1" and sample.extra["visual_input"] == "0"
    assert sample.axes == {"category": ("VS",), "subcategory": ("chart",)}
    assert {r[:2] for r in rows} == {("imported", "gpt-4")}
    assert [r[2:] for r in rows][-3:] == [(0.0, "2 (uncertain)"), (1.0, "2 (uncertain)"),
                                          (1.0, "1 (correct)")]  # fmt: skip


def test_the_figures_come_from_the_official_folder_by_filename(cli, tmp_path: Path) -> None:
    """The folder of hallusion_bench.zip: `filename` ./VD/illusion/0_1.png lies there; a
    figure missing is a warning; a question without a figure has none."""
    figures = tmp_path / "hallusion_bench"
    (figures / "VD" / "illusion").mkdir(parents=True)
    (figures / "VD" / "illusion" / "0_1.png").write_bytes(png_bytes("blue"))
    vd, vs = _judged_files(tmp_path)
    db = tmp_path / "h.db"
    missing = []
    for file in (vd, vs):
        result = cli("import", "hallusionbench", db, file, "--images", figures)
        assert result.code == 0, result.stderr
        missing.append(result.stderr.split("missing: ", 1)[1].split()[0])
    assert missing == ["./VD/illusion/0_0.png,", "./VS/chart/0_1.png"]
    with Store.open(db) as store:
        shown = {
            s.key: len(store.image_hashes("hallusionbench", s.key))
            for s in store.samples("hallusionbench")
        }
    assert shown == {"VD_illusion_0_0_0": 0, "VD_illusion_0_0_1": 0, "VD_illusion_0_0_2": 0,
                     "VD_illusion_0_1_0": 1, "VD_illusion_0_1_1": 1, "VD_illusion_0_1_2": 1,
                     "VS_chart_0_0_1": 0, "VS_chart_0_1_1": 0}  # fmt: skip


def test_without_verdicts_the_offline_rule_scores_what_says_yes_or_no(cli, tmp_path) -> None:
    """VLMEvalKit's yes/no rule, not the official judge: the two answers that say neither
    stay unscored (the official judge would find them uncertain)."""
    db = _imported(cli, tmp_path, verdicts=False)
    scored = cli("score", db)
    assert "6 answers scored by the offline rules" in scored.stdout
    assert "2 left for a human or an LLM judge" in scored.stdout
    board = first_rows(cli, db, "--judge", "offline rules")["hallusionbench.leaderboard"]
    # VD fig 1 q1 says no to a yes: wrong; q2 says neither: unscored. So the hard group of
    # q2 is unknown and that of q1 wrong.
    assert board["values"]["aacc"] == pytest.approx(500 / 6)
    assert board["unscored"]["aacc"] == 2


def test_the_llm_judge_counts_uncertain_right_only_without_a_figure(
    cli, judge_env, fake_judge, tmp_path: Path
) -> None:
    """The fake judge replies "0.5" to a prompt it does not know: no "correct" in it, so
    every verdict is uncertain, right only for VS's question without its figure."""
    db = _imported(cli, tmp_path, verdicts=False)
    result = cli("judge", db, "--dataset", "hallusionbench", "--runs", "1")
    assert result.code == 0, result.stderr
    assert fake_judge.requests == 8
    board = first_rows(cli, db, "--judge", "gpt-4-0613")["hallusionbench.questions"]
    assert board["values"] == pytest.approx({"vd": 0.0, "vs": 50.0, "overall": 12.5})


def test_the_judge_asks_with_the_details_and_a_failure_is_no_verdict(tmp_path: Path) -> None:
    from lmmreview.db.benchmarks.hallusionbench.files import read_results

    vd, vs = _judged_files(tmp_path)
    samples = {s.key: s for path in (vd, vs) for s in read_results(path).samples}
    for key, uncertain_scores in (("VS_chart_0_0_1", 1.0), ("VS_chart_0_1_1", 0.0)):
        sample = samples[key]
        work = HALLUSIONBENCH.judge_work(sample)
        assert work is not None
        item = JudgeItem(1, 0, work, sample.question, tuple(sample.golds), "Maybe.")
        (call,) = work.ladder(item, "gpt-4")
        prompt = call.messages[0][1]
        assert "\nReference answer: Statement 1 is true.\nPrediction answer:Maybe.\n" in prompt
        assert (call.temperature, call.model) == (1.0, "gpt-4")
        replies = ("Unclear", "Incorrect.", "correct")
        judged = [work.interpret(item, call, Reply(text)) for text in replies]
        assert [j.score for j in judged if j] == [uncertain_scores, 0.0, 1.0]
        failed = work.exhausted(item, "gpt-4", "")
        assert (failed.score, failed.status) == (None, Status.UNPARSEABLE)


def test_the_groups_are_units_that_count_once(tmp_path: Path) -> None:
    from lmmreview.db.benchmarks.hallusionbench.files import read_results

    vd, vs = _judged_files(tmp_path)
    samples = [s for path in (vd, vs) for s in read_results(path).samples]
    _, units = HALLUSIONBENCH.tables("h", samples, [1] * len(samples))
    members = {u.key: u.members for us in units.values() for u in us}
    assert members["pair:VD_illusion_0_1"] == ("VD_illusion_0_0_1", "VD_illusion_0_1_1")
    assert members["easy:VS_chart_0_1"] == ("VS_chart_0_0_1", "VS_chart_0_1_1")
    assert "hard:VS_chart_0_1" not in members
    assert members["figure:VD_illusion_0_1"] == tuple(f"VD_illusion_0_1_{q}" for q in "012")
    assert members["figure:VS_chart_0_1"] == ("VS_chart_0_1_1",)
    assert not any(key.startswith("figure:VS_chart_0_0") for key in members)


def test_it_is_listed_among_lmmreviews_own(cli) -> None:
    assert registry.benchmark("hallusionbench").title == "HallusionBench"
    listed = [b["name"] for b in json.loads(cli("benchmarks", "--json").stdout)["benchmarks"]]
    assert listed.index("mmmu-pro") < listed.index("hallusionbench") < listed.index("generic")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category": "VX"}, "row 2: category 'VX': HallusionBench's are VD and VS"),
        ({"visual_input": "3"}, "row 2: visual_input '3': expected 0, 1 or 2"),
        ({"gt_answer": "yes"}, "row 2: gt_answer 'yes': expected 1 (yes) or 0 (no)"),
        ({"figure_id": "a"}, "row 2: figure_id 'a' is not a number"),
        ({"figure_id": "\u00b2"}, "row 2: figure_id '²' is not a number"),  # isdigit(), no int()
        ({"figure_id": "00"}, "row 2: figure_id '00' is not a number"),  # 0 or not, by the rule
        ({"gpt4v_output_gpt_check": "3"}, "row 2: gpt4v_output_gpt_check '3': expected 0, 1 or 2"),
        ({"model_prediction": None}, "row 2: missing or non-text field 'model_prediction'"),
        ({"question_id": "0"}, "row 2: duplicate question 'VD_illusion_0_0_0' (also row 1)"),
    ],
)
def test_bad_input_names_file_and_row_and_leaves_the_database(
    cli, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    db = _imported(cli, tmp_path)
    before = dump(db)
    rows = [_row(*r[:6], verdict=r[6]) for r in VD_ROWS]
    rows[1] |= change
    bad = write_json(tmp_path / "bad.json", rows)
    result = cli("import", "hallusionbench", db, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before


# -- lmms-eval's samples files --------------------------------------------------------------


def hallusionbench_line(number: int, row: dict[str, Any], layout: str) -> dict[str, Any]:
    """A line of lmms-eval's hallusion_bench_image samples file: the row (without image)
    and the model's answer in each metric dict, and, in v0.3, as the doc."""
    answer = row["model_prediction"]
    doc = {k: v for k, v in row.items() if k not in ("model_prediction", "gpt4v_output_gpt_check")}
    line: dict[str, Any] = {"doc_id": number, "target": row["gt_answer_details"]}
    line |= {metric: {**doc, "model_prediction": answer} for metric in ("aAcc", "fAcc", "qAcc")}
    if layout == "v0.3":
        return line | {"doc": doc, "arguments": {}, "resps": [[answer]], "filtered_resps": [answer]}
    return line | {"input": row["question"], "filtered_resps": [answer]}


def lmms_eval_files(folder: Path, layout: str) -> Path:
    """The worked example as lmms-eval writes it for a model llava: the samples file
    (logs/llava/{date}_samples_hallusion_bench_image.jsonl, returned) and its judge's
    files (logs/gpt_response/hallusion_output_vd_model.json and _vs_model.json)."""
    vd, vs = _judged_files(folder / "logs" / "gpt_response", model="model")
    rows = []
    for file in (vd, vs):  # lmms-eval's judge keeps its prompt and reply as gpt_answer
        judged = [row | {"gpt_answer": _gpt_answer(row)} for row in json.loads(file.read_text())]
        write_json(file, judged)
        rows += judged
    lines = [hallusionbench_line(i, row, layout) for i, row in enumerate(rows)]
    name = "20250101_120000_samples_hallusion_bench_image.jsonl"
    return write_lines(folder / "logs" / "llava" / name, lines)


def _gpt_answer(row: dict[str, Any]) -> str:
    reply = {"0": "Incorrect.", "1": "Correct.", "2": "Unclear."}[row["gpt4v_output_gpt_check"]]
    question, details = row["question"], row["gt_answer_details"]
    return judge_prompt(question, details, row["model_prediction"]) + reply


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_lmms_eval_samples_then_its_judge_files_give_the_figures(
    cli, tmp_path: Path, layout: str
) -> None:
    """lmms-eval's samples give questions and answers under the model's folder name; its
    gpt_response files (the official judge's format, named ..._model.json) the verdicts."""
    samples = lmms_eval_files(tmp_path, layout)
    db = tmp_path / "h.db"
    result = cli("import", "hallusionbench-lmms-eval", db, samples)
    assert result.code == 0, result.stderr
    for file in sorted((tmp_path / "logs" / "gpt_response").iterdir()):
        result = cli("import", "hallusionbench", db, file, "--model", "llava")
        assert result.code == 0, result.stderr
    board = first_rows(cli, db)["hallusionbench.leaderboard"]
    assert board["model"] == "llava"
    assert board["values"] == pytest.approx(PAPER_TABLE)
    with Store.open(db) as store:
        replies = [r for (r,) in store.conn.execute("SELECT raw_reply FROM judgments")]
    assert sorted(set(replies)) == ["Correct.", "Incorrect.", "Unclear."]


def test_a_lmms_eval_line_without_the_row_names_file_and_line(cli, tmp_path: Path) -> None:
    line = {"doc_id": 0, "target": "x", "input": "Is it?", "filtered_resps": ["Yes"]}
    samples = write_lines(tmp_path / "s_samples_hallusion_bench_image.jsonl", [line])
    result = cli("import", "hallusionbench-lmms-eval", tmp_path / "h.db", samples)
    assert result.code != 0
    assert f"{samples}: line 1: neither doc nor aAcc, fAcc, qAcc" in result.stderr
    assert not (tmp_path / "h.db").exists()
