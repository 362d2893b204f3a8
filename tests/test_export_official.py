"""`lmmreview export --format mmvet-csv|mmvet-grades|mmbench-submission|mmmu-submission`
through the real command line on real SQLite files, and the JSON export's full precision.

A grade JSON written here is read back by `lmmreview import mmvet-grades`: the round trip
gives the same judgments.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import shutil
import sqlite3
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import FIXTURES, dump, needs_fixture, png_bytes, write_json

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.benchmarks.mmmu import rules as mmmu
from lmmreview.engine.export import csv_text
from lmmreview.engine.scoring import USABLE, Judgment, Status

JUDGE = "gpt-4-0613"
REAL = FIXTURES / "mmvet-real"
REAL_MODEL = "llava-v1.5-7b"
# Each model's judge score per run (None: the run's judge gave up); v1_3's run 1 failed.
SCORES = {
    "m1": {
        "v1_0": (1.0, 0.5, 1.0),
        "v1_1": (0.0, 0.0, 0.5),
        "v1_2": (1.0, 1.0, 1.0),
        "v1_3": (0.5, None, 0.5),
    },
    "m2": {"v1_0": (0.2, 0.3, 0.2), "v1_1": (1.0, 1.0, 1.0), "v1_2": (0.0, 0.1, 0.0)},
}
CAPABILITIES = {"v1_0": ["rec"], "v1_1": ["rec", "ocr"], "v1_2": ["ocr"], "v1_3": ["rec", "know"]}
GIVE_UP = "I cannot grade this."


# -- building databases -------------------------------------------------------------------


def _judgment(run: int, score: float | None) -> Judgment:
    if score is None:
        return Judgment(
            run=run,
            score=None,
            status=Status.UNPARSEABLE,
            method="llm",
            kind="llm",
            judge_model=JUDGE,
            prompt_version="v",
            reply=GIVE_UP,
            error="no valid score after 6 calls",
        )
    return Judgment(
        run=run,
        score=score,
        method="llm",
        kind="llm",
        judge_model=JUDGE,
        prompt_version="v",
        reply=f"{score} ",
    )


def _import_mmvet(cli, tmp_path: Path, name: str) -> Path:
    """Four MM-Vet questions answered by two models, nothing judged yet."""
    images = tmp_path / "images"
    images.mkdir(exist_ok=True)
    questions = {}
    for key, caps in CAPABILITIES.items():
        (images / f"{key}.png").write_bytes(png_bytes())
        questions[key] = {"imagename": f"{key}.png", "question": f"Q {key}?",
                          "answer": "a long ground truth that the offline rules leave alone",
                          "capability": caps}  # fmt: skip
    write_json(tmp_path / "mm-vet.json", questions)
    args: list[str | Path] = []
    for model, scores in SCORES.items():
        args += ["--answers", write_json(tmp_path / f"{model}.json", dict.fromkeys(scores, "x"))]
        args += ["--model", model]
    db = tmp_path / name
    result = cli("import", "mmvet", db, tmp_path / "mm-vet.json", "--images", images, *args)
    assert result.code == 0, result.stderr
    return db


@pytest.fixture
def mmvet_db(cli, tmp_path: Path) -> Path:
    """Three judge runs (one give-up) and a reviewer's score of 0.7 on m2's v1_0."""
    db = _import_mmvet(cli, tmp_path, "mmvet.db")
    with Store.open(db, create=False) as store:
        ids = store.answer_ids("mmvet")
        rows = [
            (ids[model, key], _judgment(run, score))
            for model, per_key in SCORES.items()
            for key, runs in per_key.items()
            for run, score in enumerate(runs)
        ]
        with store.transaction():
            store.add_judgments(rows)
        ReviewStore(store, "ada").grade(ids["m2", "v1_0"], score=0.7)
    return db


def load_grades(cli, db: Path, model: str, grades: Path) -> None:
    """`lmmreview import mmvet-grades`: a grade file's runs as imported judgments."""
    result = cli("import", "mmvet-grades", db, grades, "--model", model)
    assert result.code == 0, result.stderr


def _real_db(cli, tmp_path: Path) -> Path:
    db = tmp_path / "real.db"
    answers = REAL / REAL_MODEL / f"{REAL_MODEL}.json"
    result = cli("import", "mmvet", db, REAL / "mm-vet.json", "--images", REAL / "images",
                 "--answers", answers)  # fmt: skip
    assert result.code == 0, result.stderr
    return db


# -- reading what was written --------------------------------------------------------------


def _csv(path: Path) -> dict[str, dict[str, str]]:
    """model -> column -> cell of a grader CSV."""
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    header = rows[0]
    assert header[0] == ""
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows[1:]}


def _as_set(column: str) -> frozenset[str]:
    return frozenset(column.split("_"))


def _json_tables(cli, db: Path, *options: str) -> dict[str, dict]:
    result = cli("export", db, "--format", "json", *options)
    assert result.code == 0, result.stderr
    return {t["name"]: t for t in json.loads(result.stdout)["tables"]}


def _one_decimal(value: float) -> str:
    return str(round(value, 1))


def _export(cli, db: Path, fmt: str, out: Path, *options: str) -> list[Path]:
    result = cli("export", db, "--format", fmt, "--out", out, *options)
    assert result.code == 0, result.stderr
    return [Path(line.removeprefix("wrote ")) for line in result.stdout.splitlines()]


# -- MM-Vet CSVs ---------------------------------------------------------------------------


@pytest.mark.parametrize("zero", [False, True])
def test_mmvet_csvs_read_back_as_the_tables_at_one_decimal(
    cli, mmvet_db: Path, tmp_path: Path, zero: bool
) -> None:
    options = ["--unscored-as-zero"] if zero else []
    written = _export(cli, mmvet_db, "mmvet-csv", tmp_path / "new" / "csv", *options)
    assert [p.name for p in written] == [
        "mmvet-cap-score-3runs.csv",
        "mmvet-cap-int-score-3runs.csv",
    ]
    tables = _json_tables(cli, mmvet_db, *options)
    for path, table in zip(written, ("mmvet.capabilities", "mmvet.integrations"), strict=True):
        cells = _csv(path)
        keys = [c for c in tables[table]["columns"] if c != "total"]
        assert list(next(iter(cells.values()))) == [*keys, "total", "std", "runs"]
        for row in tables[table]["rows"]:
            got = cells[row["model"]]
            for column, value in row["values"].items():
                assert got[column] == _one_decimal(value), (path.name, column)
            assert got["std"] == _one_decimal(row["std"]["total"])
    # m1's per-run totals, by hand: v1_3's failed run 1 is left out, or counted as 0.
    m1 = _csv(written[0])["m1"]
    run1 = 37.5 if zero else 50.0
    assert m1["runs"] == f"[62.5, {run1}, 75.0]"
    assert m1["std"] == _one_decimal(statistics.pstdev([62.5, run1, 75.0]))
    assert m1["total"] == _one_decimal(statistics.fmean([62.5, run1, 75.0]))
    # m2: the reviewer's 0.7 on v1_0 in every run, with 1.0 and 0.0, 0.1, 0.0.
    assert _csv(written[0])["m2"]["runs"] == "[56.7, 60.0, 56.7]"
    assert set(_csv(written[1])["m1"]) >= {"rec", "rec_ocr", "ocr", "rec_know"}


def _official_cells(path: Path) -> dict[frozenset[str] | str, object]:
    """The official CSV's row, integration columns keyed by their set of capabilities."""
    (row,) = _csv(path).values()
    return {
        (c if c in ("total", "std", "runs") else _as_set(c)): (
            [round(float(v), 1) for v in ast.literal_eval(value)] if c == "runs" else value
        )
        for c, value in row.items()
    }


@needs_fixture("mmvet-real")
@pytest.mark.parametrize("runs", [1, 3])
def test_the_real_mmvet_grades_export_as_the_official_csvs(cli, tmp_path: Path, runs: int) -> None:
    db = _real_db(cli, tmp_path)
    stem = f"{REAL_MODEL}_gpt-4"
    load_grades(cli, db, REAL_MODEL, REAL / REAL_MODEL / f"{stem}-grade-{runs}runs.json")
    written = _export(cli, db, "mmvet-csv", tmp_path / "out", "--unscored-as-zero")
    for path, kind in zip(written, ("cap-score", "cap-int-score"), strict=True):
        ours = _official_cells(path)
        official = _official_cells(REAL / REAL_MODEL / f"{stem}-{kind}-{runs}runs.csv")
        assert ours == official, kind


@needs_fixture("mmvet-real")
def test_the_real_mmvet_scored_offline_exports_csvs_equal_to_its_tables(
    cli, tmp_path: Path
) -> None:
    db = _real_db(cli, tmp_path)
    assert cli("score", db).code == 0
    (cap, integ) = _export(cli, db, "mmvet-csv", tmp_path / "out")
    tables = _json_tables(cli, db)
    for path, name in ((cap, "mmvet.capabilities"), (integ, "mmvet.integrations")):
        (row,) = tables[name]["rows"]
        got = _csv(path)[REAL_MODEL]
        for column, value in row["values"].items():
            assert got[column] == ("" if value is None else _one_decimal(value)), column
        assert got["runs"] == f"[{_one_decimal(row['values']['total'])}]"
        assert got["std"] == "0.0"


# -- MM-Vet grade JSON ---------------------------------------------------------------------


def test_the_grade_json_has_the_graders_shape_give_ups_and_human_scores(
    cli, mmvet_db: Path, tmp_path: Path
) -> None:
    written = _export(cli, mmvet_db, "mmvet-grades", tmp_path / "grades")
    assert sorted(p.name for p in written) == [
        f"m1_{JUDGE}-grade-3runs.json",
        f"m2_{JUDGE}-grade-3runs.json",
    ]
    m1 = json.loads((tmp_path / "grades" / f"m1_{JUDGE}-grade-3runs.json").read_text())
    assert list(m1) == ["v1_0", "v1_1", "v1_2", "v1_3"]
    assert m1["v1_0"] == {"model": [JUDGE] * 3, "content": ["1.0", "0.5", "1.0"],
                          "score": [1.0, 0.5, 1.0]}  # fmt: skip
    # The give-up as the grader writes one: the raw reply, scored 0.0.
    assert m1["v1_3"] == {"model": [JUDGE] * 3, "content": ["0.5", GIVE_UP, "0.5"],
                          "score": [0.5, 0.0, 0.5]}  # fmt: skip
    m2 = json.loads((tmp_path / "grades" / f"m2_{JUDGE}-grade-3runs.json").read_text())
    assert m2["v1_0"] == {"model": ["human:ada"] * 3, "content": ["0.7"] * 3,
                          "score": [0.7] * 3}  # fmt: skip


def _judged_runs(db: Path) -> dict[tuple[str, str, int], tuple]:
    """(model, key, run) -> (score if usable, usable, judge model, reply) of every run."""
    with Store.open(db, create=False) as store:
        names = {answer: (model, key) for (model, key), answer in store.answer_ids("mmvet").items()}
        return {
            (*names[answer], run): (j.score, j.status in USABLE, j.judge_model, j.reply.strip())
            for (answer, run), j in store.latest_judgments("mmvet").items()
        }


def test_the_grade_json_round_trips_through_the_import_contract(
    cli, mmvet_db: Path, tmp_path: Path
) -> None:
    first = _export(cli, mmvet_db, "mmvet-grades", tmp_path / "first")
    copy = _import_mmvet(cli, tmp_path, "copy.db")  # the same answers, nothing judged
    for path in first:
        load_grades(cli, copy, path.name.split("_")[0], path)
    original, back = _judged_runs(mmvet_db), _judged_runs(copy)
    assert not any(k[:2] == ("m2", "v1_0") for k in back)  # a reviewer's, not a judge's:
    with Store.open(copy, create=False) as store:  # read back as the verdict it was
        answer = store.answer_ids("mmvet")["m2", "v1_0"]
        assert [(r.score, r.reviewer) for r in ReviewStore(store, "x").history(answer)] == [
            (0.7, "ada")
        ]
    assert back == {k: v for k, v in original.items() if k[:2] != ("m2", "v1_0")}
    again = _export(cli, copy, "mmvet-grades", tmp_path / "again")
    assert [p.read_text() for p in again] == [p.read_text() for p in first]


# -- MMBench workbook ---------------------------------------------------------------------


PREDICTIONS = {7: "A. yes", 1000007: "=B", 9: "It is a star.", 1000009: "B", 2000009: "A"}


def _mmbench_db(cli, tmp_path: Path, tsv: Path, models: list[str]) -> Path:
    db = tmp_path / "mmbench.db"
    for number, model in enumerate(models):
        predictions = tmp_path / f"predictions-{number}.tsv"
        lines = ["index\tprediction", *(f"{i}\t{p}" for i, p in PREDICTIONS.items())]
        predictions.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = cli("import", "mmbench", db, tsv, "--answers", predictions, "--model", model)
        assert result.code == 0, result.stderr
    return db


def test_the_mmbench_workbook_holds_every_circular_row_with_its_raw_prediction(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    db = _mmbench_db(cli, tmp_path, mmbench_tsv, ["llava"])
    (path,) = _export(cli, db, "mmbench-submission", tmp_path / "llava_MMBench.xlsx")
    assert path == tmp_path / "llava_MMBench.xlsx"
    rows = list(openpyxl.load_workbook(path).active.iter_rows(values_only=True))
    assert rows[0] == ("index", "question", "hint", "A", "B", "C", "answer", "prediction",
                       "category", "l2-category", "split")  # fmt: skip
    by_index = {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    assert {i: r["prediction"] for i, r in by_index.items()} == PREDICTIONS  # "=B" stays text
    assert by_index[1000009]["A"] == "square"
    assert by_index[1000009]["answer"] == "B"
    assert by_index[9]["hint"] == "Look left."
    assert by_index[9]["l2-category"] == "finegrained_perception (instance-level)"
    assert by_index[7]["category"] == "image_scene"
    assert by_index[7]["split"] == "dev"


def test_mmbench_submissions_of_several_models_go_to_a_folder(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    pytest.importorskip("openpyxl")
    db = _mmbench_db(cli, tmp_path, mmbench_tsv, ["a", "b"])
    result = cli("export", db, "--format", "mmbench-submission", "--out", tmp_path / "one.xlsx")
    assert result.code == 1
    assert result.stderr.count("\n") == 1 and "give --out a folder" in result.stderr
    assert not (tmp_path / "one.xlsx").exists()
    written = _export(cli, db, "mmbench-submission", tmp_path / "subs")
    assert sorted(p.name for p in written) == ["a_mmbench.xlsx", "b_mmbench.xlsx"]


# -- MMMU test-server JSON -----------------------------------------------------------------


MMMU_OUTPUTS = [
    {"id": "validation_Art_1", "question_type": "multiple-choice", "answer": "B",
     "all_choices": ["A", "B", "C"], "index2ans": {"A": "red", "B": "blue", "C": "green"},
     "response": "The answer is (C) green."},
    {"id": "validation_Art_2", "question_type": "multiple-choice", "answer": "A",
     "all_choices": ["A", "B"], "index2ans": {"A": "cat", "B": "dog"}, "response": "B"},
    {"id": "validation_Math_1", "question_type": "open", "answer": "3000",
     "all_choices": [], "index2ans": {}, "response": "So the total is 3,000 dollars."},
]  # fmt: skip


def _mmmu_db(cli, tmp_path: Path) -> Path:
    """One model's MMMU answers, scored by the offline rules."""
    outputs = write_json(tmp_path / "outputs.json", MMMU_OUTPUTS)
    golds = {r["id"]: {"question_type": r["question_type"], "ground_truth": r["answer"]}
             for r in MMMU_OUTPUTS}  # fmt: skip
    db = tmp_path / "mmmu.db"
    result = cli("import", "mmmu", db, outputs, "--answer-dict",
                 write_json(tmp_path / "golds.json", golds), "--model", "llava")  # fmt: skip
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    return db


def test_the_mmmu_submission_holds_letters_and_parsed_open_answers(cli, tmp_path: Path) -> None:
    db = _mmmu_db(cli, tmp_path)
    with Store.open(db, create=False) as store:
        (dataset,) = [name for name, _ in store.datasets()]
        ReviewStore(store, "ada").grade(store.answer_ids(dataset)["llava", "validation_Art_2"],
                                        choice="A")  # fmt: skip
    (path,) = _export(cli, db, "mmmu-submission", tmp_path / "sub.json")
    assert json.loads(path.read_text()) == {
        "validation_Art_1": "C",  # the offline judgment's extracted choice
        "validation_Art_2": "A",  # the reviewer's choice, over the judge's B
        "validation_Math_1": mmmu.parse_open("So the total is 3,000 dollars."),
    }
    assert 3000.0 in json.loads(path.read_text())["validation_Math_1"]


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["mmvet-csv", "mmvet-grades"])
def test_a_multi_file_format_without_out_says_out_dir_is_needed(
    cli, mmvet_db: Path, fmt: str
) -> None:
    before = dump(mmvet_db)
    result = cli("export", mmvet_db, "--format", fmt)
    assert result.code == 1
    assert result.stderr == f"error: --format {fmt} writes files: --out DIR is needed\n"
    assert result.stdout == ""
    assert dump(mmvet_db) == before


def test_an_unwritable_out_is_one_line_naming_it(cli, mmvet_db: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    before = dump(mmvet_db)
    result = cli("export", mmvet_db, "--format", "mmvet-csv", "--out", blocker / "sub")
    assert result.code == 1
    assert result.stderr.count("\n") == 1 and str(blocker / "sub") in result.stderr
    assert dump(mmvet_db) == before


def test_a_format_for_a_benchmark_the_database_lacks_says_so(
    cli, mmvet_db: Path, tmp_path: Path
) -> None:
    result = cli("export", mmvet_db, "--format", "mmmu-submission", "--out", tmp_path / "x")
    assert result.code == 1
    assert result.stderr == f"error: {mmvet_db}: no MMMU answers to write as mmmu-submission\n"
    assert not (tmp_path / "x").exists()


def test_export_help_lists_every_format_on_one_line(cli) -> None:
    help_text = cli("export", "--help").stdout
    for fmt in ("md", "csv", "json", "latex", "mmvet-csv", "mmvet-grades",
                "mmbench-submission", "mmmu-submission"):  # fmt: skip
        assert re.search(rf"^\s+{re.escape(fmt)}\s+\S", help_text, re.MULTILINE), fmt


# -- JSON precision ------------------------------------------------------------------------


_MARK = re.compile(r"\*\*|</?u>")


def _markdown_cells(text: str) -> dict[tuple[str, str], str]:
    """(table title, model) -> the row's cells as printed, per section of the Markdown."""
    cells = {}
    for section in text.split("### ")[1:]:
        title = section.splitlines()[0]
        for line in section.splitlines()[4:]:
            if line.startswith("| ") and not line.startswith("| N |"):
                label, *row = (_MARK.sub("", c.strip()) for c in line.strip("|").split("|"))
                cells[title, label] = row
    return cells


@needs_fixture("mmvet-real")
@pytest.mark.parametrize("scoring", ["offline", "grades-3runs"])
def test_json_values_rounded_to_one_decimal_are_the_markdown_cells(
    cli, tmp_path: Path, scoring: str
) -> None:
    db = _real_db(cli, tmp_path)
    if scoring == "offline":
        assert cli("score", db).code == 0
    else:
        load_grades(cli, db, REAL_MODEL, REAL / REAL_MODEL / f"{REAL_MODEL}_gpt-4-grade-3runs.json")
    markdown = _markdown_cells(cli("export", db).stdout)
    compared = 0
    for table in _json_tables(cli, db).values():
        for row in table["rows"]:
            printed = markdown[f"{table['title']} ({table['dataset']})", row["model"]]
            for column, text in zip(table["columns"], printed, strict=True):
                value, std = row["values"][column], row["std"][column]
                expected = "–" if value is None else _one_decimal(value)
                if column == "total" and std is not None:  # the tables' one mean±std column
                    expected += f"±{_one_decimal(std)}"
                assert text == expected, column
                compared += 1
    assert compared >= 23


def test_json_carries_the_unrounded_values(cli, mmvet_db: Path) -> None:
    # m2's per-run totals are 170/3, 60 and 170/3 (percent): no two decimals hold them.
    per_run = [170 / 3, 60.0, 170 / 3]
    rows = {r["model"]: r for r in _json_tables(cli, mmvet_db)["mmvet.capabilities"]["rows"]}
    m2 = rows["m2"]
    assert m2["values"]["total"] == pytest.approx(statistics.fmean(per_run), abs=1e-9)
    assert m2["std"]["total"] == pytest.approx(statistics.pstdev(per_run), abs=1e-9)


def test_mmvet_v2_csvs_have_the_seq_column(cli, demo_db: Path, tmp_path: Path) -> None:
    (cap, integ) = _export(cli, demo_db, "mmvet-csv", tmp_path / "v2", "--dataset", "mmvet-v2")
    assert cap.name == "mmvet-v2-cap-score-1runs.csv"
    header = cap.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",rec,ocr,know,gen,spat,math,seq,total,std,runs"
    assert any("seq" in column for column in next(iter(_csv(integ).values())))


def test_a_model_name_with_a_slash_stays_in_the_out_folder(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    pytest.importorskip("openpyxl")
    db = _mmbench_db(cli, tmp_path, mmbench_tsv, ["org/model", ".."])
    written = _export(cli, db, "mmbench-submission", tmp_path / "subs")
    assert sorted(p.name for p in written) == ["__mmbench.xlsx", "org%2Fmodel_mmbench.xlsx"]
    assert all(p.parent == tmp_path / "subs" and p.is_file() for p in written)
    back = cli("import", "mmbench-vlmevalkit", tmp_path / "back.db", max(written))
    assert back.code == 0 and "answers: org/model 5 new" in back.stdout, back.stdout


# -- what an export never does (issue 25) ----------------------------------------------------


def _judge(db: Path, model: str, scores: dict[str, tuple[float | None, ...]]) -> None:
    """One model's judge runs, as `lmmreview judge` stores them."""
    with Store.open(db, create=False) as store:
        ids = store.answer_ids("mmvet")
        rows = [(ids[model, key], _judgment(run, score))
                for key, runs in scores.items() for run, score in enumerate(runs)]  # fmt: skip
        with store.transaction():
            store.add_judgments(rows)


@pytest.mark.parametrize("zero", [False, True])
def test_a_model_never_scored_keeps_the_mmvet_csv_round_trip_valid(
    cli, tmp_path: Path, zero: bool
) -> None:
    """m1 is never judged: its row would have no number at all ("m1,,,,[]"), which
    `import mmvet-grades --check` refuses. It is left out, with a warning naming it;
    --unscored-as-zero counts it as 0, as the grader does."""
    db = _import_mmvet(cli, tmp_path, "judged.db")
    _judge(db, "m2", SCORES["m2"])
    options = ["--unscored-as-zero"] if zero else []
    result = cli("export", db, "--format", "mmvet-csv", "--out", tmp_path / "csv", *options)
    assert result.code == 0, result.stderr
    cap, integ = (
        tmp_path / "csv" / "mmvet-cap-score-3runs.csv",
        tmp_path / "csv" / "mmvet-cap-int-score-3runs.csv",
    )
    assert set(_csv(cap)) == ({"m1", "m2"} if zero else {"m2"})
    if not zero:
        assert result.stderr == (
            "warning: mmvet: m1 has no scored answer: left out of the CSVs (score or judge it, "
            "or --unscored-as-zero counts its answers as 0)\n"
        )
    (grades,) = _export(cli, db, "mmvet-grades", tmp_path / "grades")
    copy = _import_mmvet(cli, tmp_path, "copy.db")
    check = cli("import", "mmvet-grades", copy, grades, "--check", cap, "--check", integ)
    assert check.code == 0, check.stderr
    assert re.search(r"all \d+ numbers equal", check.stdout), check.stdout


def test_a_model_partly_scored_is_warned_of_and_round_trips_with_unscored_as_zero(
    cli, tmp_path: Path
) -> None:
    """m1's v1_3 is never judged: the CSVs leave it out of the means (as the tables do),
    which the official grader, scoring every question, never does: a warning says so, and
    with --unscored-as-zero the CSVs equal what `--check` computes from the grade file."""
    db = _import_mmvet(cli, tmp_path, "judged.db")
    _judge(db, "m1", {key: runs for key, runs in SCORES["m1"].items() if key != "v1_3"})
    _judge(db, "m2", SCORES["m2"])
    plain = cli("export", db, "--format", "mmvet-csv", "--out", tmp_path / "plain")
    assert plain.code == 0, plain.stderr
    assert "warning: mmvet: answers with no score (m1 1) are left out of the means" in (
        plain.stderr
    )
    zero = cli("export", db, "--format", "mmvet-csv", "--out", tmp_path / "zero",
               "--unscored-as-zero")  # fmt: skip
    assert zero.code == 0 and "no score" not in zero.stderr, zero.stderr
    copy = _import_mmvet(cli, tmp_path, "copy.db")
    for grades in _export(cli, db, "mmvet-grades", tmp_path / "grades"):
        assert cli("import", "mmvet-grades", copy, grades).code == 0
    cap = tmp_path / "zero" / "mmvet-cap-score-3runs.csv"
    check = cli("import", "mmvet-grades", copy, grades, "--check", cap)
    assert check.code == 0, check.stdout + check.stderr
    assert re.search(r"all \d+ numbers equal", check.stdout), check.stdout


@pytest.mark.parametrize("fmt", ["mmvet-csv", "mmvet-grades"])
@pytest.mark.parametrize("out", ["{db}-wal", "{db}-journal", "{db}-wal/sub", "link"])
def test_an_official_export_never_makes_a_folder_of_a_database_files_name(
    cli, mmvet_db: Path, tmp_path: Path, fmt: str, out: str
) -> None:
    """A folder named DB-wal or DB-journal would make the database unreadable."""
    (tmp_path / "link").symlink_to(f"{mmvet_db}-journal")
    target = tmp_path / "link" if out == "link" else Path(out.format(db=mmvet_db))
    before = dump(mmvet_db)
    result = cli("export", mmvet_db, "--format", fmt, "--out", target)
    assert result.code == 1
    assert result.stderr.count("\n") == 1 and "a file of the database" in result.stderr
    assert not any(Path(f"{mmvet_db}{end}").exists() for end in ("-wal", "-journal"))
    assert dump(mmvet_db) == before
    assert cli("info", mmvet_db).code == 0


CONTROL = "".join(map(chr, range(32)))  # every C0 control character, \x00 to \x1f
_OOXML_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _predictions_csv(path: Path, predictions: dict[int, str]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows([["index", "prediction"], *predictions.items()])
    return path


def test_control_characters_in_a_prediction_are_written_in_the_workbooks_escape(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    """A workbook holds no C0 control character but tab and newline (openpyxl refuses
    them, a carriage return reads back as a newline): they are written as OOXML's _xHHHH_,
    which Excel reads back as the character, and a literal "_x0041_" keeps its meaning."""
    openpyxl = pytest.importorskip("openpyxl")
    prediction = f"A{CONTROL}_x0041_ B"
    answers = _predictions_csv(tmp_path / "p.csv", {**PREDICTIONS, 7: prediction})
    db = tmp_path / "mmbench.db"
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", answers, "--model", "m")
    assert result.code == 0, result.stderr
    (path,) = _export(cli, db, "mmbench-submission", tmp_path / "m.xlsx")
    rows = list(openpyxl.load_workbook(path).active.iter_rows(values_only=True))
    written = {row[0]: row[rows[0].index("prediction")] for row in rows[1:]}
    assert not set(written[7]) & (set(CONTROL) - {"\t", "\n"})
    assert _OOXML_ESCAPE.sub(lambda m: chr(int(m[1], 16)), written[7]) == prediction
    assert written[9] == PREDICTIONS[9]


def test_a_submission_workbook_imports_back_to_the_same_predictions(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    """The round trip: what the submission escapes (control characters, a literal
    "_x0041_") comes back as it was when the workbook is imported as answers."""
    pytest.importorskip("openpyxl")
    prediction = f"A{CONTROL.replace(chr(13), '')}_x0041_ B"  # CSV reads \r\n as \n
    answers = _predictions_csv(tmp_path / "p.csv", {**PREDICTIONS, 7: prediction})
    db = tmp_path / "mmbench.db"
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", answers, "--model", "m")
    assert result.code == 0, result.stderr
    (path,) = _export(cli, db, "mmbench-submission", tmp_path / "m.xlsx")
    back = cli("import", "mmbench", db, mmbench_tsv, "--answers", path, "--model", "back")
    assert back.code == 0, back.stderr
    with sqlite3.connect(db) as conn:
        texts = dict(conn.execute(
            "SELECT s.key, a.text FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id WHERE m.name = 'back'"
        ).fetchall())  # fmt: skip
    assert texts["7"] == prediction
    assert texts["9"] == PREDICTIONS[9]


def test_a_failed_mmbench_export_leaves_nothing_behind(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    """b's second workbook cannot be written (an answer longer than a cell holds, which
    openpyxl would cut silently): a's, written first, and the folders made go too."""
    pytest.importorskip("openpyxl")
    db = tmp_path / "mmbench.db"
    for model, long in (("a", "A"), ("b", "B" * 40_000)):
        answers = _predictions_csv(tmp_path / f"{model}.csv", {**PREDICTIONS, 9: long})
        assert cli("import", "mmbench", db, mmbench_tsv, "--answers", answers,
                   "--model", model).code == 0  # fmt: skip
    result = cli("export", db, "--format", "mmbench-submission", "--out", tmp_path / "new" / "subs")
    assert result.code == 1
    assert result.stderr == (
        f"error: {tmp_path / 'new' / 'subs' / 'b_mmbench.xlsx'}: row 4, column 'prediction': "
        "40,000 characters, more than the 32,767 a workbook cell holds\n"
    )
    assert not (tmp_path / "new").exists()


def test_two_official_files_of_one_name_are_refused(cli, demo_db: Path, tmp_path: Path) -> None:
    """mmvet and mmvet-v2 hold the same models: their grade files share a name, and the
    second would silently replace the first."""
    result = cli("export", demo_db, "--format", "mmvet-grades", "--out", tmp_path / "grades")
    assert result.code == 1
    assert "would write two files named demo-alpha_offline rules-grade-1runs.json" in result.stderr
    assert not (tmp_path / "grades").exists()
    assert _export(cli, demo_db, "mmvet-grades", tmp_path / "grades", "--dataset", "mmvet")


def test_two_models_mapped_to_one_file_name_are_named_as_they_are(cli, tmp_path: Path) -> None:
    """The refusal said the names differ "but for '/'" when one held U+202E where the
    other held "_": it names both models, as they are, and says why they collide."""
    db = _import_mmvet(cli, tmp_path, "alike.db")
    for model in ("m\u202ex", "m_x"):
        _add_model(cli, db, tmp_path, model)
        _judge(db, model, SCORES["m2"])
    result = cli("export", db, "--format", "mmvet-grades", "--out", tmp_path / "grades")
    assert result.code == 1
    assert "but for '/'" not in result.stderr
    assert "for model 'm\\u202ex' of mmvet and for model 'm_x' of mmvet:" in result.stderr
    assert "a file name replaces '/', control and direction characters" in result.stderr
    assert not (tmp_path / "grades").exists()


def _add_model(cli, db: Path, folder: Path, model: str) -> None:
    """`model`'s answers to the questions `_import_mmvet` wrote to `folder`."""
    answers = write_json(folder / "more.json", dict.fromkeys(SCORES["m2"], "x"))
    result = cli("import", "mmvet", db, folder / "mm-vet.json", "--images", folder / "images",
                 "--answers", answers, "--model", model)  # fmt: skip
    assert result.code == 0, result.stderr


def test_mmvet_csv_guards_a_model_name_as_the_tables_csv_does(cli, tmp_path: Path) -> None:
    """A name starting with "=" is a formula to a spreadsheet: both CSVs write it as text,
    and `import mmvet-grades --check` reads it back as the name."""
    name = '=HYPERLINK("http://x")'
    db = _import_mmvet(cli, tmp_path, "names.db")  # m1, never judged: left out
    _add_model(cli, db, tmp_path, name)
    _judge(db, name, SCORES["m2"])
    _judge(db, "m2", SCORES["m2"])
    (cap, integ) = _export(cli, db, "mmvet-csv", tmp_path / "csv")
    assert set(_csv(cap)) == set(_csv(integ)) == {"'" + name, "m2"} == {csv_text(name), "m2"}
    tables = csv.DictReader(cli("export", db, "--format", "csv").stdout.splitlines())
    assert "'" + name in {row["model"] for row in tables}
    m2, named = sorted(
        _export(cli, db, "mmvet-grades", tmp_path / "g"), key=lambda p: p.name[0] == "="
    )
    copy = _import_mmvet(cli, tmp_path, "copy.db")
    _add_model(cli, copy, tmp_path, name)
    load_grades(cli, copy, "m2", m2)
    check = cli("import", "mmvet-grades", copy, named, "--model", name,
                "--check", cap, "--check", integ)  # fmt: skip
    assert check.code == 0, check.stdout


def test_a_model_name_with_a_slash_round_trips_through_the_grade_file_name(
    cli, tmp_path: Path
) -> None:
    """The grade file names its model; "/" was written as "_", so `import mmvet-grades`
    of lmmreview's own file named another model (org_model-7b)."""
    name = "org/model-7b"
    db = _import_mmvet(cli, tmp_path, "slash.db")
    _add_model(cli, db, tmp_path, name)
    _judge(db, name, SCORES["m2"])
    (grades,) = _export(cli, db, "mmvet-grades", tmp_path / "g")
    assert grades.name == "org%2Fmodel-7b_gpt-4-0613-grade-3runs.json"
    copy = _import_mmvet(cli, tmp_path, "copy.db")
    _add_model(cli, copy, tmp_path, name)
    result = cli("import", "mmvet-grades", copy, grades)  # the model from the file name
    assert result.code == 0, result.stderr
    assert {k[0] for k in _judged_runs(copy)} == {name}


def test_an_official_export_to_a_full_device_names_it(cli, tmp_path: Path) -> None:
    """One model: --out names the file, here a device that is always full."""
    result = cli(
        "export", _mmmu_db(cli, tmp_path), "--format", "mmmu-submission", "--out", "/dev/full"
    )
    assert result.code == 1
    assert result.stderr == "error: /dev/full: No space left on device\n"


@contextmanager
def _as_nobody_in(folder: Path) -> Iterator[Path]:
    """A database in `folder` that nobody (uid 65534) owns, and a read-only folder beside
    it; as root (who writes anywhere), the test runs as nobody meanwhile."""
    folder.chmod(0o755)
    (folder / "ro").mkdir(mode=0o555)
    root = os.geteuid() == 0
    if root:
        os.chown(folder, 65534, -1)
        os.seteuid(65534)
    try:
        yield folder / "ro"
    finally:
        if root:
            os.seteuid(0)


@pytest.mark.parametrize("fmt", ["md", "mmvet-csv"])
def test_an_export_into_a_read_only_folder_names_the_path(cli, mmvet_db: Path, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as name:  # in /tmp, where nobody can reach it
        db = shutil.copyfile(mmvet_db, Path(name) / "m.db")
        with _as_nobody_in(Path(name)) as read_only:
            target = read_only / "out"
            result = cli("export", db, "--format", fmt, "--out", target)
        assert result.code == 1
        assert result.stderr == f"error: {target}: Permission denied\n"
        assert list(read_only.iterdir()) == []


def test_official_file_names_hold_no_control_or_direction_character(cli, tmp_path: Path) -> None:
    """A model named with ESC, a newline or U+202E (which reverses what follows when a
    terminal lists it) gave grade files of that raw name (every format names its files
    through one function, official.file_part)."""
    hostile = "m\x1b[31m\n\u202eevil/x"
    db = _import_mmvet(cli, tmp_path, "h.db")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE models SET name = ? WHERE name = 'm2'", (hostile,))
    _judge(db, hostile, SCORES["m2"])
    out = tmp_path / "out"
    _export(cli, db, "mmvet-grades", out)
    names = [p.name for p in out.iterdir()]
    assert all(not any(ord(c) < 32 or c in "\x7f\u202e" for c in name) for name in names)
    assert any(name.startswith("m_[31m__evil%2Fx_") for name in names), names
