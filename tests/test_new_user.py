"""Small things a new user hit (issue 14, item 10): each as the user met it, on the real
screen, the real command line and real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import dump
from test_open_terminal import run_in_terminal
from textual.widgets import ProgressBar
from tui_harness import drive, text_of, until

from lmmreview.engine.registry import benchmarks
from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import JudgeScreen

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"


def _models(cli, db: Path, dataset: str) -> list[str]:
    """The models `info --json` lists for `dataset`."""
    info = json.loads(cli("info", db, "--json").stdout)
    [found] = [d for d in info["datasets"] if d["name"] == dataset]
    return [m["model"] for m in found["models"]]


def _section(text: str, start: str, end: str) -> str:
    """The part of `text` from the first `start` up to the next `end` after it."""
    return text.split(start, 1)[1].split(end, 1)[0]


# -- a. the judge dialog without a key --------------------------------------------------------


def test_the_judge_dialog_without_a_key_says_what_to_set_and_offers_no_run(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    settings = tmp_path / "lmmreview" / "config.toml"
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("J")
        await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
        await pilot.pause(0.1)
        seen["said"] = " ".join(text_of(app, "#judge-description").split())
        seen["bars"] = len(app.screen.query(ProgressBar))
        seen["shown"] = app.export_screenshot()
        await pilot.press("enter")  # nothing may start
        await pilot.pause(0.2)
        seen["running"] = app.review_screen.judge_running

    drive(demo_db, steps, judge_api_key_env="MY_JUDGE_KEY", settings_path=settings)
    said = str(seen["said"])
    assert "MY_JUDGE_KEY" in said and "judge.api_key_env" in said and str(settings) in said
    assert seen["bars"] == 0
    assert "Enter starts" not in str(seen["shown"])
    assert seen["running"] is False


# -- b. answers the offline rules leave ---------------------------------------------------------


def test_an_answer_the_offline_rules_leave_says_so_after_score(demo_db: Path) -> None:
    """The demo is scored already: its long answers are left by the rules, and saying
    `lmmreview score` would send the reviewer round in a circle."""
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        session = app.session
        left = [i for i, v in enumerate(session.visible) if not session.entries[v].judged]
        assert left  # the demo has long answers no rule can score
        app.screen.query_one(AnswerList).cursor = left[0]
        await until(pilot, lambda: "not judged" in text_of(app, "#judges"))
        seen["judges"] = " ".join(text_of(app, "#judges").split())

    drive(demo_db, steps)
    assert "lmmreview score" not in seen["judges"]
    assert "the offline rules cannot score this answer" in seen["judges"]
    assert "an LLM judge (J) or a human verdict can" in seen["judges"]


# -- c. open with stderr redirected -----------------------------------------------------------


def test_open_with_only_stderr_redirected_tells_the_terminal_why(
    demo_db: Path, tmp_path: Path
) -> None:
    """The reviewer at the terminal sees why no screen opened, not a blank line; the log
    gets the same line."""
    log = tmp_path / "errors.log"
    before = dump(demo_db)
    code, terminal = run_in_terminal(["open", str(demo_db)], stderr=log)
    assert code == 1
    for shown in (terminal, log.read_text()):
        assert "needs an interactive terminal" in shown
        assert "stderr is redirected, and the screen is drawn there" in shown
    assert dump(demo_db) == before


# -- d. report: models as rows --------------------------------------------------------------


def test_report_shows_models_as_rows_in_every_table(cli, demo_db: Path) -> None:
    """The MM-Vet integration table, the widest, as the exports and README show it."""
    report = cli("report", demo_db, "--dataset", "mmvet").stdout
    integrations = _section(report, "capability integrations", "mmvet: judge")
    labels = re.findall(r"^│ (\S+)", integrations, re.MULTILINE)
    assert set(labels) == {"demo-alpha", "demo-beta", "demo-gamma", "N"}
    headers = " ".join(re.findall(r"^┃.*$", integrations, re.MULTILINE))
    for title in ("Rec+Know+Gen", "OCR+Spat+Math", "Rec+OCR+Spat+Math", "Total"):
        assert f" {title} " in headers


# -- e. one rule for the model name -------------------------------------------------------------


MMBENCH, MMMU = SAMPLES / "mmbench", SAMPLES / "mmmu"
# command -> its arguments (with answers, no --model), the dataset, the model they name
IMPORTS = {
    "mmbench": (
        [MMBENCH / "mmbench_demo.tsv", "--answers", MMBENCH / "predictions" / "demo-beta.tsv"],
        "mmbench_demo",
        "demo-beta",
    ),
    "mmmu": (
        [MMMU / "outputs" / "demo-gamma", "--questions", MMMU / "questions.jsonl"],
        "mmmu",
        "demo-gamma",
    ),
}


@pytest.mark.parametrize("command", sorted(IMPORTS))
def test_an_import_names_the_model_after_the_file_unless_model_is_given(
    cli, tmp_path: Path, command: str
) -> None:
    arguments, dataset, model = IMPORTS[command]
    db = tmp_path / "x.db"
    named = cli("import", command, db, *arguments)
    assert named.code == 0, named.stderr
    assert _models(cli, db, dataset) == [model]
    renamed = cli("import", command, db, *arguments, "--model", "chosen")
    assert renamed.code == 0, renamed.stderr
    assert sorted(_models(cli, db, dataset)) == ["chosen", model]


def test_a_jsonl_answer_line_without_a_model_takes_the_file_name(cli, tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert (
        cli("import", "jsonl", db, SAMPLES / "generic" / "demo.jsonl", "--dataset", "g").code == 0
    )
    answers = tmp_path / "llava-7b.jsonl"
    answers.write_text('{"id": "g1", "prediction": "red"}\n')
    result = cli("import", "jsonl", db, answers, "--dataset", "g")
    assert result.code == 0, result.stderr
    assert "llava-7b" in _models(cli, db, "g")


def test_every_import_model_option_says_its_default() -> None:
    """One rule, said in each command's --help: the file's name unless --model is given."""
    helps = {
        command: option.help
        for benchmark in benchmarks().values()
        for command, importer in benchmark.importers().items()
        for option in importer.options
        if option.name == "model"
    }
    assert {"mmvet", "mmbench", "mmmu", "jsonl"} <= set(helps)
    for command, text in helps.items():
        assert "(default: " in text and "name" in text, command


# -- f. an L-2 category outside the six ---------------------------------------------------------


def test_an_unknown_l2_category_is_warned_of_and_kept_in_the_l2_table(cli, tmp_path: Path) -> None:
    tsv = tmp_path / "mmbench_odd.tsv"
    lines = (SAMPLES / "mmbench" / "mmbench_demo.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    column = header.index("l2-category")
    rows = [line.split("\t") for line in lines[1:]]
    for row in rows:
        if int(row[0]) % 1_000_000 == 1:  # every circular copy of group 1
            row[column] = "spatial_magic"
    tsv.write_text("\n".join(["\t".join(header), *("\t".join(r) for r in rows)]) + "\n")
    db = tmp_path / "x.db"
    answers = SAMPLES / "mmbench" / "predictions" / "demo-alpha.tsv"
    result = cli("import", "mmbench", db, tsv, "--answers", answers, "--model", "m")
    assert result.code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "spatial_magic" in line]
    assert warnings == [
        f"warning: {tsv}: index 1 (and 2 more rows): l2-category 'spatial_magic' is not "
        "one of MMBench's six L-2 abilities; the L-2 table shows it in a column of its own"
    ]
    # --show-empty: the model is not scored yet, and its unscored rows would be left out
    markdown = cli("export", db, "--format", "md", "--show-empty").stdout
    l2_table = _section(markdown, "L-2 abilities", "L-3 abilities")
    header_line = next(line for line in l2_table.splitlines() if line.startswith("| Model"))
    assert header_line.rstrip(" |").endswith("| spatial_magic")


# -- g. the JSONL split field --------------------------------------------------------------------


def test_the_docs_say_how_split_names_the_table_rows(cli, tmp_path: Path) -> None:
    """The row name the file formats page promises is the one `report` prints."""
    data = tmp_path / "bench.jsonl"
    lines = [
        {"id": "q1", "question": "Colour?", "answer": "red", "split": "val"},
        {"id": "q2", "question": "Shape?", "answer": "round", "split": "test"},
        {"id": "q1", "prediction": "red", "model": "my-model"},
        {"id": "q2", "prediction": "square", "model": "my-model"},
    ]
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "x.db"
    assert cli("import", "jsonl", db, data).code == 0
    assert cli("score", db).code == 0
    report = cli("report", db).stdout
    formats = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    jsonl = _section(formats, "### Any other benchmark: lmmreview JSONL", "\n## ")
    [split_row] = [line for line in jsonl.splitlines() if line.startswith("| `split` |")]
    for row in ("my-model (val)", "my-model (test)"):
        assert f"│ {row} " in report
        assert f"`{row}`" in split_row


# -- h. one format for scores ------------------------------------------------------------------


def test_every_score_on_the_screen_has_one_format(demo_db: Path) -> None:
    """An offline score and a human verdict, in the list, the runs, the verdict and the
    history: all with two decimals (the list showed 1.00 beside a verdict of 0.8)."""
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        session = app.session
        scored = next(
            i for i, v in enumerate(session.visible) if session.entries[v].judge_mean() == 1.0
        )
        app.screen.query_one(AnswerList).cursor = scored
        await until(pilot, lambda: "offline rules" in text_of(app, "#judges"))
        seen["list, judged"] = app.review_screen._row(scored)[2][0]
        seen["runs"] = text_of(app, "#judges").splitlines()[1]
        await pilot.press("8")
        await until(pilot, lambda: app.current().reviewed)
        await until(pilot, lambda: "grade" in text_of(app, "#history"))
        seen["list, graded"] = app.review_screen._row(scored)[2][0]
        seen["verdict"] = text_of(app, "#verdict")
        seen["history"] = text_of(app, "#history")

    drive(demo_db, steps)
    assert seen["list, judged"].strip() == "1.00"
    assert re.match(r"\s*0\s+1\.00\s", seen["runs"]), seen["runs"]  # run, result
    assert seen["list, graded"].strip() == "0.80"
    assert "human verdict: 0.80" in seen["verdict"]
    assert "grade: – → 0.80" in seen["history"]
