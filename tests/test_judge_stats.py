"""Judges as the judge papers measure them (engine/judge_stats.py), against references:
scipy's correlations and sklearn's kappas on the real MM-Vet files (acceptance a of issue
30), small constructed cases (ties, a constant judge), order consistency on MMBench's
circular copies and LLaVA-Bench's two orders, the family map, `lmmreview judges` and the
review screen's judges panel."""

from __future__ import annotations

import io
import json
import math
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from statistics import fmean

import pytest
from conftest import FIXTURES, needs_fixture, write_tsv
from rich.console import Console
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from test_import_llava_bench import llava_bench_files
from tui_harness import drive, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine import judge_stats
from lmmreview.engine.benchmarks.mmbench.rules import EXTRACTION_PROMPT_VERSION
from lmmreview.engine.defaults import DEFAULT_FAMILIES
from lmmreview.engine.judge_stats import (
    Confusion,
    calibration,
    confusion,
    kendall,
    levels,
    pearson,
    spearman,
    weighted_kappa,
)
from lmmreview.engine.scoring import Judgment
from lmmreview.tui.judges_view import JudgesPanel

REAL = FIXTURES / "mmvet-real"
REAL_MODEL = "llava-v1.5-7b"
MODELS = ("alpha", "beta", "gamma")  # the real answers imported under three names
HUMAN_LEVELS = (0.0, 0.3, 0.5, 0.8, 1.0)
DIGITS = judge_stats.LEVEL_DIGITS


def _judges(cli, db: Path, *args: str) -> dict:
    result = cli("judges", db, "--format", "json", *args)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def _rows(document: dict) -> dict[str, dict[str, dict]]:
    """dataset -> judge name -> its JSON row."""
    return {d["dataset"]: {j["judge"]: j for j in d["judges"]} for d in document["datasets"]}


def _llm(run: int, score: float, model: str = "gpt-x", choice: str | None = None) -> Judgment:
    return Judgment(
        run=run,
        score=score,
        choice=choice,
        method="llm",
        kind="llm",
        judge_model=model,
        prompt_version=EXTRACTION_PROMPT_VERSION if choice else "p",
        reply="reply",
    )


# -- acceptance (a): the real MM-Vet files against scipy and sklearn -------------------------


@pytest.fixture
def real_db(cli, tmp_path: Path) -> tuple[Path, dict[str, dict[int, float]], dict[int, float]]:
    """The real MM-Vet answers under three model names, scored by the offline rules and
    graded by the official GPT-4 grades (3 runs); humans score 40 answers per model that
    both judges scored, on five levels, each model's verdicts shifted so the models' means
    differ. Returns the database, each judge's mean score per answer, and the humans'."""
    db = tmp_path / "real.db"
    answers = []
    for model in MODELS:
        shutil.copy(REAL / REAL_MODEL / f"{REAL_MODEL}.json", tmp_path / f"{model}.json")
        answers += ["--answers", tmp_path / f"{model}.json"]
    assert cli("import", "mmvet", db, REAL / "mm-vet.json", "--images", REAL / "images",
               *answers).code == 0  # fmt: skip
    assert cli("score", db).code == 0
    for model in MODELS:
        grades = tmp_path / f"{model}_gpt-4-grade-3runs.json"
        shutil.copy(REAL / REAL_MODEL / f"{REAL_MODEL}_gpt-4-grade-3runs.json", grades)
        assert cli("import", "mmvet-grades", db, grades).code == 0
    with sqlite3.connect(db) as conn:
        judged = {
            kind: dict(conn.execute(
                "SELECT answer_id, AVG(score) FROM judgments WHERE judge_kind = ? "
                "AND status = 'ok' GROUP BY answer_id", (kind,)
            ).fetchall())
            for kind in ("offline", "imported")
        }  # fmt: skip
        model_of = dict(conn.execute(
            "SELECT a.id, m.name FROM answers a JOIN models m ON m.id = a.model_id"
        ).fetchall())  # fmt: skip
    both = sorted(set(judged["offline"]) & set(judged["imported"]))
    humans: dict[int, float] = {}
    for shift, model in enumerate(MODELS):
        mine = [a for a in both if model_of[a] == model][15 * shift : 15 * shift + 40]
        assert len(mine) == 40
        for i, answer in enumerate(mine):
            humans[answer] = HUMAN_LEVELS[(i * 7 + shift * (i % 3)) % 5]
    with Store.open(db) as store:
        reviews = ReviewStore(store, "tester")
        for answer, score in humans.items():
            reviews.grade(answer, score=score)
    return db, judged, humans


def _pairs(judge: dict[int, float], humans: dict[int, float]) -> list[tuple[float, float]]:
    return [(judge[a], h) for a, h in sorted(humans.items())]


def _ranked(*columns: list[float]) -> list[list[int]]:
    """Each score as its level's rank among every column's levels: sklearn takes ordinal
    labels, not fractional scores (it would call them continuous)."""
    rank = {level: i for i, level in enumerate(sorted({v for c in columns for v in c}))}
    return [[rank[v] for v in column] for column in columns]


def _close(value: float | None, reference: float) -> None:
    """Equal to the reference; undefined (None) where the reference is NaN."""
    if math.isnan(reference):
        assert value is None
    else:
        assert value is not None and value == pytest.approx(float(reference), abs=1e-9)


@needs_fixture("mmvet-real")
def test_real_mmvet_statistics_equal_scipy_sklearn_and_hand_counts(cli, real_db) -> None:
    db, judged, humans = real_db
    rows = _rows(_judges(cli, db))["mmvet"]
    model_of = dict.fromkeys(humans, "")
    with sqlite3.connect(db) as conn:
        model_of |= dict(conn.execute(
            "SELECT a.id, m.name FROM answers a JOIN models m ON m.id = a.model_id"
        ).fetchall())  # fmt: skip
    for name, kind in (("gpt-4 (imported)", "imported"), ("offline rules", "offline")):
        row, pairs = rows[name], _pairs(judged[kind], humans)
        judge, human = [j for j, _ in pairs], [h for _, h in pairs]
        assert row["answer_level"]["n"] == len(pairs) == 120
        _close(row["answer_level"]["pearson"], stats.pearsonr(judge, human).statistic)
        _close(row["answer_level"]["spearman"], stats.spearmanr(judge, human).statistic)
        _close(row["answer_level"]["kendall"], stats.kendalltau(judge, human).statistic)
        # system level: per model, the mean judge and mean human score
        means = {
            m: (fmean(judged[kind][a] for a in humans if model_of[a] == m),
                fmean(h for a, h in humans.items() if model_of[a] == m))
            for m in MODELS
        }  # fmt: skip
        system = row["system_level"]
        judge_means, human_means = [means[m][0] for m in MODELS], [means[m][1] for m in MODELS]
        assert system["n"] == 3
        _close(system["pearson"], stats.pearsonr(judge_means, human_means).statistic)
        _close(system["spearman"], stats.spearmanr(judge_means, human_means).statistic)
        _close(system["kendall"], stats.kendalltau(judge_means, human_means).statistic)
        # the levels: MM-Vet is graded, so each distinct score value is a level
        judge_levels = [round(j, DIGITS) for j in judge]
        human_levels = [round(h, DIGITS) for h in human]
        judge_ranks, human_ranks = _ranked(judge_levels, human_levels)
        for key, weights in (("unweighted", None), ("linear", "linear"),
                             ("quadratic", "quadratic")):  # fmt: skip
            reference = cohen_kappa_score(judge_ranks, human_ranks, weights=weights)
            _close(row["kappas"][key], reference)
        # the confusion matrix, counted by hand
        counted = Counter(zip(judge_levels, human_levels, strict=True))
        labels = [float(label) for label in row["confusion"]["labels"]]
        assert labels == sorted(set(judge_levels) | set(human_levels))
        assert row["confusion"]["counts"] == [[counted[j, h] for h in labels] for j in labels]
        _check_calibration(row["calibration"], pairs)


def _check_calibration(found: dict, pairs: list[tuple[float, float]]) -> None:
    """The bins, ECE and Brier computed by hand (both judges give some graded score: the
    offline rules give 0.5 for a half-matched answer)."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(10)]
    for j, h in pairs:
        bins[min(math.floor(round(j * 10, DIGITS)), 9)].append((j, h))
    ece = sum(abs(sum(j for j, _ in b) - sum(h for _, h in b)) for b in bins if b) / len(pairs)
    brier = sum((j - h) ** 2 for j, h in pairs) / len(pairs)
    _close(found["ece"], ece)
    _close(found["brier"], brier)
    assert [b["count"] for b in found["bins"]] == [len(b) for b in bins]
    for drawn, inside in zip(found["bins"], bins, strict=True):
        if inside:
            _close(drawn["mean_judge"], fmean(j for j, _ in inside))
            _close(drawn["mean_human"], fmean(h for _, h in inside))
        else:
            assert drawn["mean_judge"] is None and drawn["mean_human"] is None


# -- small constructed cases -----------------------------------------------------------------


def test_ties_follow_scipy_tau_b_and_mean_ranks() -> None:
    x, y = [1, 2, 2, 3, 3, 3], [1, 3, 2, 2, 3, 3]
    _close(kendall(x, y), stats.kendalltau(x, y).statistic)
    _close(spearman(x, y), stats.spearmanr(x, y).statistic)
    # by hand: 15 pairs; concordant 7, discordant 1, tied in x 4, tied in y 4
    assert kendall(x, y) == pytest.approx((7 - 1) / math.sqrt((15 - 4) * (15 - 4)))


@pytest.mark.parametrize(
    ("levels_x", "levels_y"),
    [(11, 11), (2, 5), (5, 10**6), (10**6, 10**6)],  # few levels: the table; many: merging
)
def test_kendall_is_scipys_tau_b_on_random_data_with_ties(levels_x: int, levels_y: int) -> None:
    import numpy as np

    rng = np.random.default_rng(levels_x + levels_y)
    for n in (2, 3, 17, 300):
        x = rng.integers(0, levels_x, n) / 10
        y = x * (levels_y > 5) + rng.integers(0, levels_y, n) / 10
        _close(kendall(list(x), list(y)), stats.kendalltau(x, y).statistic)


def test_a_constant_judge_has_no_correlation_and_no_crash() -> None:
    constant, human = [0.5, 0.5, 0.5], [0.0, 0.5, 1.0]
    assert pearson(constant, human) is None
    assert spearman(constant, human) is None
    assert kendall(constant, human) is None
    assert pearson([1.0], [1.0]) is None  # one pair: undefined
    for value in (0.1, 0.3, 0.7):  # a float mean of equal values leaves a residue
        assert pearson([value] * 7, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) is None
        assert pearson([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [value] * 7) is None
    table = confusion(levels(list(zip(constant, [0.5] * 3, strict=True)), True), True)
    assert weighted_kappa(table, None) is None  # both constant: no chance disagreement


def test_weighted_kappa_by_hand() -> None:
    # levels 0, 0.5, 1; judge rows, human columns
    table = Confusion(("0", "0.5", "1"), ((2, 1, 0), (0, 2, 1), (1, 0, 3)))
    n = 10
    rows, cols = (3, 3, 4), (3, 3, 4)
    for power in (None, 1, 2):

        def weight(i: int, j: int, power: int | None = power) -> float:
            return float(i != j) if power is None else abs(i - j) ** power

        observed = sum(weight(i, j) * table.counts[i][j] for i in range(3) for j in range(3))
        chance = sum(weight(i, j) * rows[i] * cols[j] / n for i in range(3) for j in range(3))
        assert weighted_kappa(table, power) == pytest.approx(1 - observed / chance)


def test_binary_levels_are_wrong_and_right() -> None:
    pairs = [(1.0, 1.0), (0.0, 1.0), (0.5, 0.0), (0.0, 0.0)]  # 0.5 counts as right
    assert confusion(levels(pairs, False), False) == Confusion(("wrong", "right"), ((1, 1), (1, 1)))


def test_calibration_bins_and_edges() -> None:
    found = calibration([(0.0, 0.0), (0.1, 1.0), (0.95, 1.0), (1.0, 0.0)])
    assert [b.count for b in found.bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert found.bins[9].mean_judge == pytest.approx(0.975)
    assert found.ece == pytest.approx((0 + 0.9 + 2 * abs(0.975 - 0.5)) / 4)
    assert found.brier == pytest.approx((0 + 0.81 + 0.0025 + 1) / 4)
    assert calibration([]).ece is None


def test_the_family_map_and_self_preference() -> None:
    assert judge_stats.family("GPT-4o-2024-05-13", DEFAULT_FAMILIES) == "openai"
    assert judge_stats.family("openai/o3-mini", DEFAULT_FAMILIES) == "openai"
    assert judge_stats.family("InternVL2-8B", DEFAULT_FAMILIES) == "internvl"  # longest start
    assert judge_stats.family("shikra-7b", DEFAULT_FAMILIES) is None
    # at a token boundary only
    assert judge_stats.family("o10-x", DEFAULT_FAMILIES) is None
    assert judge_stats.family("phind-codellama", DEFAULT_FAMILIES) is None
    assert judge_stats.family("EleutherAI/gpt-neox-20b", DEFAULT_FAMILIES) == "eleutherai"
    assert judge_stats.family("gpt4", DEFAULT_FAMILIES) == "openai"
    assert judge_stats.family("o1", DEFAULT_FAMILIES) == "openai"
    assert judge_stats.family("o1-mini", DEFAULT_FAMILIES) == "openai"
    assert judge_stats.family("phi-3-vision", DEFAULT_FAMILIES) == "microsoft"
    assert judge_stats.family("internvl2-8b", DEFAULT_FAMILIES) == "internvl"
    models = ["gpt-4o-mini", "llava-v1.5-7b", "GPT-4V"]
    assert judge_stats.same_family("gpt-4-0613", models, DEFAULT_FAMILIES) == (
        "GPT-4V",
        "gpt-4o-mini",
    )
    assert judge_stats.same_family("", models, DEFAULT_FAMILIES) == ()


# -- through the CLI -------------------------------------------------------------------------


@pytest.fixture
def two_reviewers_db(mmvet_two_models_db: Path) -> Path:
    """Judge gpt-4o-mini (graded, two runs) on four answers, a constant judge c on the same,
    and two reviewers: ann's verdicts, then bob's other ones on three (the last verdict is
    in force; a verdict equal to the one in force adds no row)."""
    db = mmvet_two_models_db
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        answers = [ids["alpha", "v1_0"], ids["alpha", "v1_1"], ids["alpha", "v1_2"],
                   ids["beta", "v1_1"]]  # fmt: skip
        runs = [(0.2, 0.4), (1.0, 1.0), (0.7, 0.9), (0.0, 0.0)]
        with store.transaction():
            store.add_judgments(
                [(a, _llm(run, s, "gpt-4o-mini")) for a, scores in zip(answers, runs, strict=True)
                 for run, s in enumerate(scores)]
                + [(a, _llm(0, 0.5, "c")) for a in answers]
            )  # fmt: skip
        ReviewStore(store, "ann").grade(answers[0], score=0.3)
        for answer, score in zip(answers[1:], (1.0, 0.8, 0.0), strict=True):
            ReviewStore(store, "ann").grade(answer, score=score)
        for answer, score in zip(answers[:3], (0.5, 0.5, 0.3), strict=True):
            ReviewStore(store, "bob").grade(answer, score=score)
    return db


def test_the_json_holds_every_new_figure(cli, two_reviewers_db: Path) -> None:
    document = _judges(cli, two_reviewers_db)
    (section,) = document["datasets"]
    rows = {j["judge"]: j for j in section["judges"]}
    mini, constant = rows["gpt-4o-mini"], rows["c"]
    # the verdicts in force: ann's on beta v1_1, bob's (the latest) on alpha's three
    judge, human = [0.3, 1.0, 0.8, 0.0], [0.5, 0.5, 0.3, 0.0]
    _close(mini["answer_level"]["pearson"], stats.pearsonr(judge, human).statistic)
    assert mini["system_level"]["n"] == 2  # alpha and beta
    assert set(mini["kappas"]) == {"n", "unweighted", "linear", "quadratic"}
    assert mini["confusion"]["labels"] == ["0", "0.3", "0.5", "0.8", "1"]
    assert [b["count"] for b in mini["calibration"]["bins"]][3] == 1
    assert mini["order"] is None and mini["order_rate"] is None  # MM-Vet: one order
    assert mini["same_family"] == []  # alpha and beta: no family of gpt's
    assert constant["answer_level"] == {"n": 4, "pearson": None, "spearman": None,
                                        "kendall": None}  # fmt: skip
    # ann and bob both scored alpha's three answers
    humans = section["human_agreement"]
    assert humans["answers"] == 3
    (pair,) = humans["pairs"]
    assert (pair["first"], pair["second"]) == ("ann", "bob")
    ann, bob = _ranked([0.3, 1.0, 0.8], [0.5, 0.5, 0.3])
    for key, weights in (("unweighted", None), ("linear", "linear"),
                         ("quadratic", "quadratic")):  # fmt: skip
        _close(pair["kappas"][key], cohen_kappa_score(ann, bob, weights=weights))


def test_md_and_latex_show_the_new_tables_and_a_dash_for_undefined(
    cli, two_reviewers_db: Path
) -> None:
    markdown = cli("judges", two_reviewers_db).stdout
    for title in ("correlation with human scores, per answer", "per model", "score levels",
                  "calibration of graded scores", "reliability bins",
                  "order consistency and self-preference", "confusion of gpt-4o-mini",
                  "agreement among reviewers"):  # fmt: skip
        assert title in markdown, title
    assert "| c | 4 | – | – | – |" in markdown  # a constant judge: undefined, shown as –
    assert "| human: ann vs bob | 3 |" in markdown
    # the first table keeps its look
    assert "| Judge | Prompt | N | Δ̄ | 95% CI | κ correct | 95% CI | Run std |" in markdown
    latex = cli("judges", two_reviewers_db, "--format", "latex").stdout
    assert r"Spearman $\rho$" in latex and r"Kendall $\tau_b$" in latex
    assert r"judge (rows) $\times$ human (columns)" in latex
    assert "\u03c1" not in latex and "\u00d7" not in latex  # no bare rho or times


def test_a_family_in_the_settings_flags_self_preference(
    cli, two_reviewers_db: Path, config_home: Path
) -> None:
    rows = _rows(_judges(cli, two_reviewers_db))["mmvet"]
    assert rows["gpt-4o-mini"]["same_family"] == []
    settings = config_home / "lmmreview" / "config.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[families]\nalpha = "openai"\nc = "c-lab"\n')
    rows = _rows(_judges(cli, two_reviewers_db))["mmvet"]
    assert rows["gpt-4o-mini"]["same_family"] == ["alpha"]  # gpt is still openai
    assert rows["c"]["same_family"] == []
    markdown = cli("judges", two_reviewers_db).stdout
    assert "| gpt-4o-mini | – | – | alpha |" in markdown
    settings.write_text("[families]\nqwen = 3\n")
    result = cli("judges", two_reviewers_db)
    assert result.code == 1
    assert result.stderr.strip().endswith("families.qwen: expected a family's name")
    assert cli("info", two_reviewers_db).code == 0  # only the commands that read it stop


def test_mmbench_circular_copies_give_order_consistency(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    """The judge's extraction against the option's place: group 7's options (yes, no) and
    (no, yes), group 9's three rotations of (circle, square, star). Counted: same answer
    text in every rotation, not a letter, a choice in each. m: "yes" read as yes twice
    (consistent), "the star" read as star, star, circle (not); l: letters; d: texts that
    differ; u: a rotation left unextracted. One of two."""
    db = tmp_path / "b.db"
    answers = {
        "m": {7: "yes", 1000007: " Yes ", 9: "the star", 1000009: "The star", 2000009: "the star"},
        "l": {7: "A", 1000007: "A", 9: "(C)", 1000009: "(C)", 2000009: "(C)"},
        "d": {7: "yes", 1000007: "no", 9: "star", 1000009: "a star", 2000009: "the star"},
        "u": {9: "star", 1000009: "star", 2000009: "star"},
    }
    for model, rows in answers.items():
        predictions = write_tsv(tmp_path / f"{model}.tsv", ["index", "prediction"],
                                [[index, text] for index, text in rows.items()])  # fmt: skip
        assert cli("import", "mmbench", db, mmbench_tsv, "--answers", predictions,
                   "--model", model).code == 0  # fmt: skip
    chosen = {
        "m": {7: "A", 1000007: "B", 9: "C", 1000009: "B", 2000009: "B"},
        "l": {7: "A", 1000007: "A", 9: "C", 1000009: "C", 2000009: "C"},
        "d": {7: "A", 1000007: "A", 9: "C", 1000009: "B", 2000009: "A"},
        "u": {9: "C", 1000009: "B"},
    }
    with Store.open(db) as store:
        ids = store.answer_ids("mmbench")
        with store.transaction():
            store.add_judgments(
                (ids[model, str(index)], _llm(0, 1.0, "gpt-x", choice))
                for model, rows in chosen.items()
                for index, choice in rows.items()
            )
    row = _rows(_judges(cli, db))["mmbench"]["gpt-x"]
    assert row["order"] == {"groups": 2, "consistent": 1}
    assert row["order_rate"] == 0.5
    assert row["calibration"] is None  # scored 0/1: no graded score to calibrate


def test_rotation_consistency_counts_groups_answered_alike_with_every_choice() -> None:
    alike = [["Yes", " yes"], ["the star", "The  Star"], ["star", "star"]]
    letters = [["B", "B"], ["Answer: D", "answer: d"], ["(c)", "(c)"], ["C.", "C."]]
    differing = [["star", "a star"], ["yes", "no"]]
    assert all(judge_stats.answered_alike(t) for t in alike)
    assert not any(judge_stats.answered_alike(t) for t in letters + differing)
    groups = [
        ["yes", "yes"],  # consistent
        ["star", "circle"],  # inconsistent
        ["", ""],  # "no option matches" in both: consistent
        ["star", None],  # a rotation without a choice: not counted
    ]
    found = judge_stats.rotation_consistency(groups)
    assert (found.groups, found.consistent) == (3, 2)


def test_llava_bench_two_orders_give_order_consistency(cli, tmp_path: Path) -> None:
    """The model's score per question with the reference first and with the model's answer
    first: equal on questions 0 and 2, not on 1; the reference's scores are not items."""
    dataset = llava_bench_files(tmp_path)
    db = tmp_path / "l.db"
    assert cli("import", "llava-bench", db, dataset,
               "--answers", tmp_path / "answers_m.jsonl").code == 0  # fmt: skip
    scores = {"0": 0.6, "0/swapped": 0.6, "1": 0.6, "1/swapped": 0.8, "2": 0.5,
              "2/swapped": 0.5, "0/reference": 0.8, "0/swapped/reference": 0.2}  # fmt: skip
    with Store.open(db) as store:
        ids = store.answer_ids("llava-bench")
        with store.transaction():
            store.add_judgments((ids["m", key], _llm(0, s)) for key, s in scores.items())
    row = _rows(_judges(cli, db))["llava-bench"]["gpt-x"]
    assert row["order"] == {"groups": 3, "consistent": 2}


# -- the review screen's judges panel --------------------------------------------------------


def _drawn(app, selector: str) -> list[str]:
    widget = app.screen.query_one(selector)
    console = Console(width=widget.content_region.width, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.file.getvalue().splitlines()


def test_the_panel_shows_the_new_tables_at_80x24(two_reviewers_db: Path) -> None:
    seen: dict[str, list[str]] = {}

    async def steps(app, pilot) -> None:
        await pilot.pause(0.3)
        await pilot.press("W")
        await until(pilot, lambda: app.screen.query_one(JudgesPanel).is_open)
        seen["panel"] = _drawn(app, "#judges-view")

    families = {**DEFAULT_FAMILIES, "beta": "openai"}
    drive(two_reviewers_db, steps, size=(80, 24), families=families)
    panel = "\n".join(seen["panel"])
    for title in ("correlation with human scores, per answer", "score levels",
                  "order consistency and self-preference", "confusion of gpt-4o-mini"):  # fmt: skip
        assert title in panel, panel
    assert max(map(len, seen["panel"])) <= 80
    # the constant judge's undefined correlations, whole; beta flagged from the settings
    assert any(line.split() == ["c", "4", "–", "–", "–"] for line in seen["panel"]), panel
    assert any(line.split() == ["gpt-4o-mini", "–", "–", "beta"] for line in seen["panel"])
