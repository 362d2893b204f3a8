"""`lmmreview reconcile`: why sources disagree (engine/reconcile.py, db/reconcile.py).

The engine's cause kinds and the attribution arithmetic on constructed readings; then the
MMMU fixture (issue 29 acceptance c): the official evaluation's parse, lmmreview's rules
and an lmms-eval v0.7 log of the same answers, whose causes add up to each difference.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.benchmarks.mmmu.lmms_eval import MMMU_ACC
from lmmreview.db.reconcile import disagreeing_answers, read_groups
from lmmreview.db.store import StoreError
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.benchmarks.mmmu.rules import parse_choice, parse_open
from lmmreview.engine.judging import MATCHED
from lmmreview.engine.reconcile import (
    Discrepancy,
    Reading,
    agreeing,
    compare,
    compare_all,
    discrepancy,
    figure,
)
from lmmreview.engine.scoring import Judgment, imported
from tests.conftest import FIXTURES, needs_fixture, write_lines

GOLD = frozenset({"B"})


def reading(score: float | None, text: str = "(B)", **more: object) -> Reading:
    return Reading(text, more.pop("golds", GOLD), score, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        (reading(1.0), None, Discrepancy.MISSING),
        (reading(1.0), reading(None), Discrepancy.MISSING),
        (reading(None, judge_failed=True), reading(1.0), Discrepancy.JUDGE_FAILURE),
        (reading(1.0), reading(0.0, "(C)"), Discrepancy.TEXT),
        (reading(1.0), reading(0.0, golds=frozenset({"A"})), Discrepancy.GOLD),
        (reading(1.0), reading(0.0, judge_failed=True), Discrepancy.JUDGE_FAILURE),
        (reading(1.0), reading(0.0, fallback=True), Discrepancy.FALLBACK),
        (reading(1.0, choice="B"), reading(0.0, choice="C"), Discrepancy.PARSE),
        (reading(0.5), reading(0.25), Discrepancy.PARSE),  # two LLM judges' grades
    ],
)
def test_each_kind_of_discrepancy(first, second, kind) -> None:
    assert discrepancy(first, second) is kind
    assert discrepancy(second, first) is kind


def test_agreement_is_no_discrepancy_and_the_first_cause_wins() -> None:
    assert discrepancy(reading(1.0), reading(1.0, "other text", fallback=True)) is None
    assert discrepancy(reading(None), None) is None
    # a different text explains the rest: it is named, not the fallback it led to
    both = reading(0.0, "(C)", golds=frozenset({"C"}), fallback=True, judge_failed=True)
    assert discrepancy(reading(1.0), both) is Discrepancy.TEXT


def test_the_shares_add_up_to_the_difference() -> None:
    """Sides scoring different answers: each answer's share, by hand, and the sum."""
    first = {"a": reading(1.0), "b": reading(1.0), "c": reading(0.0), "d": reading(1.0)}
    second = {
        "a": reading(1.0),
        "b": reading(0.0, fallback=True),
        "c": reading(1.0, "(C)"),
        "e": reading(0.0),
    }
    pair = compare("one", first, "two", second)
    assert pair.figures == (75.0, 50.0)
    shares = {s.key: (s.kind, s.points) for s in pair.shares}
    # common a, b, c: means 2/3 and 2/3; d moves one's mean over 4, e the other's over 4
    assert shares["b"] == (Discrepancy.FALLBACK, pytest.approx(100 / 3))
    assert shares["c"] == (Discrepancy.TEXT, pytest.approx(-100 / 3))
    assert shares["d"] == (Discrepancy.MISSING, pytest.approx(100 * (1 - 2 / 3) / 4))
    assert shares["e"] == (Discrepancy.MISSING, pytest.approx(-100 * (0 - 2 / 3) / 4))
    assert "a" not in shares
    assert sum(s.points for s in pair.shares) == pytest.approx(pair.difference)
    assert pair.by_kind()[Discrepancy.MISSING][0] == 2


def test_no_common_answer_and_a_side_without_scores() -> None:
    pair = compare("one", {"a": reading(1.0)}, "two", {"b": reading(0.0)})
    assert pair.difference == 100.0
    assert sum(s.points for s in pair.shares) == pytest.approx(100.0)
    empty = compare("one", {"a": reading(1.0)}, "two", {"a": reading(None)})
    assert empty.difference is None
    assert [(s.kind, s.points) for s in empty.shares] == [(Discrepancy.MISSING, 0.0)]


def test_the_figure_is_the_benchmarks_overall_where_that_is_a_mean_per_answer() -> None:
    """SCORING.md: MM-Vet's total is the mean over all samples x 100 (section 1); MMMU's
    overall accuracy is sum correct / sum answered (section 3), the mean of 1s and 0s."""
    assert figure([0.5, 1.0, 0.0, 0.3]) == pytest.approx(45.0)
    assert figure([1.0] * 330 + [0.0] * 570) == pytest.approx(100 * 330 / 900)
    assert figure([]) is None


def test_agreeing_groups_sources_by_score() -> None:
    readings = {"x": reading(1.0), "y": reading(0.0), "z": reading(1.0), "w": None}
    assert agreeing(readings) == [["x", "z"], ["y"], ["w"]]


# -- the MMMU fixture: official parse, lmmreview's rules, an lmms-eval v0.7 log -------------

MMMU = FIXTURES / "mmmu"
EXPECTED = MMMU / "llava1.5_13b.expected.json"
OFFICIAL_JUDGE = "MMMU official eval"
LMMS_MODEL = "llava-1.5-13b-lmms-eval"
# Deliberate edits to the lmms-eval log, each a cause the fixture lacks otherwise: these
# answers are given as "(<gold>)" (as another prompt could make the model answer).
EDITED_TEXT = ("validation_Accounting_1", "validation_Art_Theory_2", "validation_Math_3")
# and these right answers' parsed_pred is another letter (as a rule reading the same text
# otherwise would give)
EDITED_PARSE = ("validation_Accounting_12", "validation_Accounting_22")


def lmms_eval_choice(response: str, options: dict[str, str], draw: random.Random) -> str:
    """lmms-eval's MMMU multiple-choice parse, restated from
    lmms_eval/tasks/_task_utils/mmmu_mcq_utils.py parse_mmmu_multi_choice_response (v0.7):
    unlike the official rule it takes `X ` without a space before and then `X.`; its draw
    is `random.choice(all_choices)` on Python's generator (seeded by the run's --seed, 0,
    then drawn by every task before: the draws here are `draw`'s, in doc order)."""
    for char in [",", ".", "!", "?", ";", ":", "'"]:
        response = response.strip(char)
    response = " " + response + " "
    letters = list(options)
    candidates = [c for c in letters if f"({c})" in response]
    bracketed, by_text = bool(candidates), False
    for pattern in ("{} ", "{}."):
        if not candidates:
            candidates = [c for c in letters if pattern.format(c) in response]
    if not candidates and len(response.split()) > 5:
        candidates = [c for c, text in options.items() if text.lower() in response.lower()]
        by_text = bool(candidates)
    if not candidates:
        return draw.choice(letters)
    if len(candidates) == 1:
        return candidates[0]
    if by_text:
        places = [response.lower().rfind(options[c].lower()) for c in candidates]
    else:
        places = [response.rfind(f"({c})" if bracketed else f" {c} ") for c in candidates]
    return candidates[places.index(max(places))]  # np.argmax: the first of the highest


def lmms_eval_line(number: int, key: str, sample, response: str, draw: random.Random) -> dict:
    """One v0.7 --log_samples line for task mmmu_val, each field named to its writer."""
    if sample.question_type.value == "choice":
        parsed: object = lmms_eval_choice(response, sample.options, draw)
        if key in EDITED_PARSE:
            parsed = next(c for c in sample.options if c not in sample.golds)
    else:
        parsed = parse_open(response)
    golds = sample.golds
    return {
        "doc_id": number,  # evaluator.py example dict: the doc's position in the split
        # EvaluationTracker.save_results_samples (evaluation_tracker.py:265 @v0.7.2):
        # arguments[0], the prompt text
        "input": sample.question or f"<image 1> {key}",
        # tracker :284: str(doc_to_target(doc)), a list gold as Python's repr
        "target": str(golds[0] if len(golds) == 1 else golds),
        # tracker :275-278: a single generation's filtered response, flattened to the text
        "filtered_resps": response,
        "doc_hash": hashlib.sha256(key.encode()).hexdigest(),  # evaluator: sha of the doc
        "token_counts": [None],  # evaluator :966-972 @v0.7: unknown for a local model
        # tasks/mmmu/utils.py process_results (:174 @v0.7.2): the per-metric dicts
        MMMU_ACC: {
            "id": key,
            "subdomain": key.split("_", 1)[1].rsplit("_", 1)[0],
            "question_type": "multiple-choice" if isinstance(parsed, str) else "open",
            "answer": golds[0] if len(golds) == 1 else golds,
            "parsed_pred": [parsed],
        },
        "submission": {key: parsed},
    }


def official_judgment(parsed: object, correct: bool) -> Judgment:
    """The official evaluation's verdict on one answer, filed as an imported judge."""
    choice = parsed if isinstance(parsed, str) else None
    return imported(OFFICIAL_JUDGE, "", float(correct), json.dumps(parsed), str(EXPECTED), choice)


@pytest.fixture
def reconciled_db(cli, mmmu_fixture_db: Path, tmp_path: Path) -> Path:
    """The fixture's answers scored by lmmreview's rules, the official evaluation's own
    parse of them (the fixture's per-sample results, filed as an imported judge: lmmreview
    has no importer of that file), and an lmms-eval log of them imported as another model."""
    db = mmmu_fixture_db
    assert cli("score", db).code == 0
    per_sample = json.loads(EXPECTED.read_text())["per_sample"]
    with Store.open(db) as store:
        ids = store.answer_ids("mmmu")
        samples = {s.key: s for s in store.samples("mmmu")}
        texts = store.answers("mmmu", "llava-1.5-13b")
        official = [
            (ids["llava-1.5-13b", key], official_judgment(found["parsed_pred"], found["correct"]))
            for key, found in per_sample.items()
        ]
        with store.transaction():
            store.add_judgments(official)
    draw = random.Random(0)
    lines = []
    for number, key in enumerate(sorted(texts)):
        sample = samples[key]
        text = f"({sample.golds[0]})" if key in EDITED_TEXT else texts[key]
        lines.append(lmms_eval_line(number, key, sample, text, draw))
    log = write_lines(tmp_path / LMMS_MODEL / "20260301_120000_samples_mmmu_val.jsonl", lines)
    result = cli("import", "mmmu-lmms-eval", db, log, "--dataset", "mmmu")
    assert result.code == 0, result.stderr
    return db


@needs_fixture("mmmu/llava1.5_13b")
def test_the_mmmu_fixture_causes_add_up(cli, reconciled_db: Path) -> None:
    """Acceptance c: each pair's causes add up to its whole difference, on the real answers."""
    result = cli(
        "reconcile", reconciled_db, "--model", "llava-1.5-13b", "--model", LMMS_MODEL, "--json"
    )
    assert result.code == 0, result.stderr
    (group,) = json.loads(result.stdout)["groups"]
    figures = {s["name"]: s["figure"] for s in group["sources"]}
    official = f"llava-1.5-13b: {OFFICIAL_JUDGE} (imported)"
    rules = "llava-1.5-13b: offline rules"
    lmms = f"{LMMS_MODEL}: lmms-eval rules (imported)"
    assert set(figures) == {official, rules, lmms}
    assert figures[official] == pytest.approx(100 * 330 / 900)
    pairs = {(p["first"], p["second"]): p for p in group["pairs"]}
    assert len(pairs) == 3
    for pair in pairs.values():
        explained = sum(c["points"] for c in pair["causes"].values())
        assert explained == pytest.approx(pair["difference"], abs=1e-9)
    # lmmreview's rules are the official ones but for the seeded draw (docs/benchmarks/mmmu.md)
    same_rules = next(p for (a, b), p in pairs.items() if {a, b} == {official, rules})
    assert set(same_rules["causes"]) <= {"fallback"}
    fallback_ids = set(json.loads(EXPECTED.read_text())["random_fallback_ids"])
    differing = {a["key"] for a in group["answers"]
                 if any({d["first"], d["second"]} == {official, rules} for d in a["disagreements"])}  # fmt: skip
    assert differing <= fallback_ids
    against_lmms = next(p for (a, b), p in pairs.items() if {a, b} == {official, lmms})
    # lmms-eval's log grades no open question; three answers were edited; its own rule
    # reads `X ` and `X.` where the official one does not, and draws on its own
    assert set(against_lmms["causes"]) == {"missing", "text", "parse", "fallback"}
    assert against_lmms["causes"]["missing"]["answers"] == 53
    assert against_lmms["causes"]["text"]["answers"] == len(EDITED_TEXT)
    assert against_lmms["causes"]["parse"]["answers"] == len(EDITED_PARSE)
    # the figures docs/reconcile.md quotes
    assert [round(figures[n], 2) for n in (official, rules, lmms)] == [36.67, 36.56, 38.72]
    points = {k: round(c["points"], 2) for k, c in against_lmms["causes"].items()}
    assert points == {"missing": -2.06, "text": -0.35, "fallback": 0.12, "parse": 0.24}
    assert round(same_rules["causes"]["fallback"]["points"], 2) == 0.11


@needs_fixture("mmmu/llava1.5_13b")
def test_the_mmmu_fixture_tables_and_the_screen_filter(cli, reconciled_db: Path) -> None:
    markdown = cli("reconcile", reconciled_db, "--format", "md", "--model", LMMS_MODEL,
                   "--model", "llava-1.5-13b")  # fmt: skip
    assert markdown.code == 0, markdown.stderr
    assert "what explains each difference (points)" in markdown.stdout
    assert "| validation_Math_3 |" in markdown.stdout
    terminal = cli("reconcile", reconciled_db)  # each model on its own: the rules and the official
    assert terminal.code == 0, terminal.stderr
    assert "random fallback" in terminal.stdout
    with Store.open(db := reconciled_db) as store:
        fallback = disagreeing_answers(store, "mmmu", MMMU_BENCHMARK, Discrepancy.FALLBACK)
        ids = store.answer_ids("mmmu")
        every = disagreeing_answers(store, "mmmu", MMMU_BENCHMARK)
    assert fallback <= every
    assert ids["llava-1.5-13b", "validation_Math_3"] not in every  # one source: no pair
    assert db.exists()


# -- what the store's judgments say: a small MMMU set, imported twice ------------------------

OPTIONS = {"A": "red", "B": "blue", "C": "green", "D": "black"}
SILENT = "I cannot tell from the picture."  # no candidate: the official rule draws


def outputs(path: Path, golds: dict[str, str]) -> Path:
    """An official-layout outputs file (<Subject>/output.json records) of four answers."""
    responses = {"1": "(A)", "2": "(B)", "3": SILENT, "4": "(C)"}
    records = [
        {
            "id": f"validation_Art_{n}",
            "question_type": "multiple-choice",
            "answer": golds.get(n, "A"),
            "all_choices": list(OPTIONS),
            "index2ans": OPTIONS,
            "response": response,
        }
        for n, response in responses.items()
    ]
    path.write_text(json.dumps(records))
    return path


@pytest.fixture
def small_db(cli, tmp_path: Path) -> Path:
    """Four answers of model m to MMMU questions in datasets mmmu and mmmu-b (Art_2's gold
    differs), scored by the offline rules and, in mmmu, by an imported judge "tool": a
    judge failure (a 0.0 without a reply) on Art_1, another extraction on Art_2, a draw
    unlike the rules' (and right) on Art_3, nothing on Art_4."""
    db = tmp_path / "r.db"
    draw = parse_choice(SILENT, OPTIONS, "validation_Art_3")[0]
    other = next(c for c in OPTIONS if c != draw)  # the tool's draw, right: the rules' wrong
    for dataset, golds in (("mmmu", {"3": other}), ("mmmu-b", {"2": "B", "3": other})):
        file = outputs(tmp_path / f"{dataset}.json", golds)
        assert cli("import", "mmmu", db, file, "--model", "m", "--dataset", dataset).code == 0
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        ids = store.answer_ids("mmmu")
        tool = [
            (ids["m", "validation_Art_1"], imported("tool", "", 0.0, "", "f")),
            (ids["m", "validation_Art_2"], imported("tool", "", 1.0, "A", "f", "A")),
            (ids["m", "validation_Art_3"], imported("tool", "", 1.0, other, "f", other)),
        ]
        with store.transaction():
            store.add_judgments(tool)
    return db


def test_the_store_s_judgments_give_each_cause(small_db: Path) -> None:
    """A judge failure (an imported 0.0 without a reply), another extraction, an unmarked
    imported draw, an answer a judge never judged, a gold that differs between two
    datasets."""
    with Store.open(small_db) as store:
        ids = store.answer_ids("mmmu")
        (alone,) = read_groups(store, ["mmmu"])
        (both,) = read_groups(store, ["mmmu", "mmmu-b"], ["m"])
        assert disagreeing_answers(store, "mmmu", MMMU_BENCHMARK, Discrepancy.MISSING) == {
            ids["m", "validation_Art_4"]
        }
    (pair,) = compare_all(alone.sources)
    kinds = {s.key[-5:]: s.kind for s in pair.shares}
    assert kinds == {
        "Art_1": Discrepancy.JUDGE_FAILURE,
        "Art_2": Discrepancy.PARSE,
        "Art_3": Discrepancy.FALLBACK,
        "Art_4": Discrepancy.MISSING,
    }
    assert sum(s.points for s in pair.shares) == pytest.approx(pair.difference)
    assert set(both.sources) == {
        "mmmu/tool (imported)",
        "mmmu/offline rules",
        "mmmu-b/offline rules",
    }
    across = compare(
        "a", both.sources["mmmu/offline rules"], "b", both.sources["mmmu-b/offline rules"]
    )
    assert [(s.key, s.kind) for s in across.shares] == [("validation_Art_2", Discrepancy.GOLD)]


def test_an_llm_judge_counts_the_offline_option_matches_as_its_own(small_db: Path) -> None:
    """MMBench's step 1: an option match settles an answer for every judge, so an LLM judge
    that judged only the rest is not "missing" the matched ones."""
    with Store.open(small_db) as store:
        ids = store.answer_ids("mmmu")
        llm = {"kind": "llm", "judge_model": "judge-x", "method": "llm"}
        matched = Judgment(run=0, score=1.0, choice="C", kind="offline", method=MATCHED)
        with store.transaction():
            store.add_judgments([(ids["m", "validation_Art_4"], matched)])
            store.add_judgments(
                (ids["m", f"validation_Art_{n}"], Judgment(run=0, score=0.0, **llm))
                for n in (1, 2, 3)
            )
        (group,) = read_groups(store, ["mmmu"])
    judge_x = group.sources["judge-x"]
    assert judge_x["validation_Art_4"].score == 1.0
    assert [r.score for _, r in sorted(judge_x.items())] == [0.0, 0.0, 0.0, 1.0]


def test_the_screen_filters_the_answers_on_which_sources_disagree(small_db: Path) -> None:
    with Store.open(small_db) as store:
        ids = store.answer_ids("mmmu")
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "Sources disagree (reconcile), by cause…")
        await pick(app, pilot, "judge failure")
        await until(pilot, lambda: app.session.filter.sources_disagree is not None)
        seen["shown"] = [app.session.entries[i].answer_id for i in app.session.visible]
        seen["status"] = text_of(app, "#status")

    drive(small_db, steps, dataset="mmmu")
    assert seen["shown"] == [ids["m", "validation_Art_1"]]
    assert "sources disagree: judge failure" in str(seen["status"])


def test_unknown_names_are_refused(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmmu", db, outputs(tmp_path / "o.json", {}), "--model", "m").code == 0
    with Store.open(db) as store, pytest.raises(StoreError, match="no model 'nobody'"):
        read_groups(store, (), ("nobody",))
    result = cli("reconcile", db, "--dataset", "nope")
    assert result.code != 0
    assert "nope" in result.stderr
    lonely = cli("reconcile", db)
    assert lonely.code == 0
    assert "no dataset has two sources" in lonely.stdout
    both = cli("reconcile", db, "--json", "--format", "md")
    assert both.code == 1
    assert "--json and --format md ask for two formats" in both.stderr


def test_the_docs_worked_example_shows_what_the_command_prints(cli, tmp_path: Path) -> None:
    """docs/reconcile.md's tables are the command's output on its example's files (the
    ones tests/test_docs.py runs it on)."""
    from test_import_lmms_eval import MMMU_DOCS, mmmu_line, samples_file

    log = samples_file(tmp_path, "mmmu_val", [mmmu_line(i, "v0.4") for i in range(3)])
    questions = write_lines(tmp_path / "mmmu_validation.jsonl", MMMU_DOCS)
    db = tmp_path / "results.db"
    assert cli("import", "mmmu", db, "--questions", questions).code == 0
    assert cli("import", "mmmu-lmms-eval", db, log).code == 0
    assert cli("score", db).code == 0
    printed = cli("reconcile", db, "--format", "md").stdout.splitlines()
    page = (Path(__file__).parents[1] / "docs" / "reconcile.md").read_text(encoding="utf-8")
    example = page.split("## A worked example")[1].split("The two agree")[0]
    shown = [line for line in example.splitlines() if line.startswith("| ")]
    assert len(shown) == 7  # three headers, four rows
    assert [line for line in shown if line not in printed] == []


def test_an_inspect_log_is_headed_generic_as_info_says(cli, tmp_path: Path) -> None:
    """An Inspect log's dataset is of kind generic: the headings said `JSONL:` (the
    benchmark's title) where `lmmreview info` says `generic`."""
    pytest.importorskip("inspect_ai")
    db, log = tmp_path / "r.db", Path(__file__).parent / "data" / "inspect" / "tiny.eval"
    assert cli("import", "inspect", db, log).code == 0
    assert "tiny (generic): 3 samples" in cli("info", db).stdout
    markdown = cli("reconcile", db, "--format", "md").stdout
    headings = [line for line in markdown.splitlines() if line.startswith("### ")]
    assert len(headings) == 3
    assert all(h.startswith("### tiny (generic), mockllm/model: ") for h in headings)
    assert "tiny (generic), mockllm/model: overall figure" in cli("reconcile", db).stdout
    (group,) = json.loads(cli("reconcile", db, "--json").stdout)["groups"]
    assert (group["benchmark"], group["datasets"]) == ("generic", ["tiny"])
