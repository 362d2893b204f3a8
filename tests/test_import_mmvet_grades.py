"""`lmmreview import mmvet-grades`: the official MM-Vet grader's grade JSON as imported
judge runs, and `--check` against the capability tables it wrote."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES, dump, needs_fixture, write_json
from tui_harness import drive, pick, text_of, until

REAL = FIXTURES / "mmvet-real"
LLAVA = REAL / "llava-v1.5-7b"
CAPABILITIES = ("rec", "ocr", "know", "gen", "spat", "math")


def _import_real(cli, db: Path) -> None:
    result = cli("import", "mmvet", db, REAL / "mm-vet.json", "--images", REAL / "images",
                 "--answers", LLAVA / "llava-v1.5-7b.json")  # fmt: skip
    assert result.code == 0, result.stderr


def _official(path: Path) -> dict[str, str]:
    """The one model row of a grader CSV: column -> text."""
    with path.open(newline="") as handle:
        header, row = list(csv.reader(handle))
    return dict(zip(header[1:], row[1:], strict=True))


def _ours(cli, db: Path) -> dict[str, dict[str, tuple[float, float | None]]]:
    """table ("capabilities" / "integrations") -> column -> (value, std), from the JSON export."""
    result = cli("export", db, "--format", "json")
    assert result.code == 0, result.stderr
    tables = {}
    for table in json.loads(result.stdout)["tables"]:
        (row,) = table["rows"]
        cells = {c: (row["values"][c], row["std"].get(c)) for c in table["columns"]}
        tables[table["name"].split(".")[1]] = cells
    return tables


def _judgments(db: Path, first: str) -> list[tuple]:
    """Every judgment as (`first` columns..., status, score, raw reply), in that order."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            f"SELECT {first}, j.status, j.score, j.raw_reply FROM judgments j "
            "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id "
            f"JOIN datasets d ON d.id = s.dataset_id ORDER BY {first}"
        ).fetchall()


def _column(name: str) -> str:
    """Our key of a grader column: a capability, or an integration named by its set."""
    if name in ("total", "std", "runs"):
        return "total"
    return "_".join(c for c in CAPABILITIES if c in name.split("_"))


@needs_fixture("mmvet-real/llava-v1.5-7b")
@pytest.mark.parametrize("runs", [1, 3])
def test_the_official_grades_reproduce_the_official_tables(cli, tmp_path: Path, runs: int) -> None:
    db = tmp_path / "r.db"
    _import_real(cli, db)
    grades = LLAVA / f"llava-v1.5-7b_gpt-4-grade-{runs}runs.json"
    cap = LLAVA / f"llava-v1.5-7b_gpt-4-cap-score-{runs}runs.csv"
    cap_int = LLAVA / f"llava-v1.5-7b_gpt-4-cap-int-score-{runs}runs.csv"
    result = cli("import", "mmvet-grades", db, grades, "--check", cap, "--check", cap_int)
    assert result.code == 0, result.stderr
    assert f"{218 * runs} imported judgments" in result.stdout
    # six capabilities or sixteen integrations, total, std, and each run's total
    assert f"cap-score-{runs}runs.csv: all {8 + runs} numbers equal" in result.stdout
    assert f"cap-int-score-{runs}runs.csv: all {18 + runs} numbers equal" in result.stdout
    ours = _ours(cli, db)
    for table, path in (("capabilities", cap), ("integrations", cap_int)):
        official = _official(path)
        for name, text in official.items():
            value, std = ours[table][_column(name)]
            if name == "runs":
                continue  # per-run totals: held by --check above
            shown = std if name == "std" else value
            assert f"{(shown or 0.0):.1f}" == text, (table, name)
    with sqlite3.connect(db) as conn:
        kinds = conn.execute(
            "SELECT DISTINCT judge_kind, judge_model, source FROM judgments"
        ).fetchall()
    assert kinds == [("imported", "gpt-4", str(grades))]
    notes = cli("report", db).stdout
    assert "judge gpt-4 (imported)" in notes and f"({runs} run" in notes


@needs_fixture("mmvet-real/llava-v1.5-7b")
def test_check_names_every_cell_that_differs_and_keeps_the_import(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _import_real(cli, db)
    official = (LLAVA / "llava-v1.5-7b_gpt-4-cap-int-score-3runs.csv").read_text()
    changed = tmp_path / "llava-v1.5-7b_gpt-4-cap-int-score-3runs.csv"
    # the first integration (know_gen_rec, 17.8) and the second run (30.8) altered
    changed.write_text(official.replace(",17.8,", ",17.9,").replace("30.8", "30.6"))
    grades = LLAVA / "llava-v1.5-7b_gpt-4-grade-3runs.json"
    result = cli("import", "mmvet-grades", db, grades, "--check", changed)
    assert result.code == 1
    assert "2 of 21 numbers differ" in result.stdout
    assert "integrations know_gen_rec: file 17.9, ours 17.796" in result.stdout
    assert "integrations run 2: file 30.6, ours 30.826" in result.stdout
    with sqlite3.connect(db) as conn:  # the import itself stands
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (654,)
    again = cli("import", "mmvet-grades", db, grades)  # the same file again adds nothing
    assert again.code == 0 and "imported judgments" not in again.stdout


def _edit_cap_csv(text: str, case: str) -> str:
    """The official cap-score CSV made into one that checks nothing, or not all."""
    header, row = text.splitlines()
    if case == "another model":
        return f"{header}\n{row.replace('llava-v1.5-7b,', 'nobody,')}\n"
    if case == "a second row of another model":
        return f"{header}\n{row}\n{row.replace('llava-v1.5-7b,', 'nobody,')}\n"
    if case == "no rows":
        return f"{header}\n"
    if case == "a row twice":
        return f"{header}\n{row}\n{row}\n"
    rows = list(csv.reader([header, row]))
    without = [
        [cell for name, cell in zip(rows[0], r, strict=True) if name != "know"] for r in rows
    ]
    return "".join(",".join(f'"{cell}"' for cell in r) + "\n" for r in without)


@needs_fixture("mmvet-real/llava-v1.5-7b")
@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("another model", "line 2: the row names 'nobody', not the graded model 'llava-v1.5-7b'"),
        (
            "a second row of another model",
            "row 'nobody': no model 'nobody' in dataset 'mmvet': the row checks nothing",
        ),
        ("no rows", "no rows: nothing to check"),
        ("a row twice", "line 3: a second row for 'llava-v1.5-7b'"),
        ("a column missing", "line 1: missing column 'know'"),
    ],
)
def test_a_check_csv_that_checks_nothing_or_not_all_is_refused(
    cli, tmp_path: Path, case: str, said: str
) -> None:
    """B4: before, each passed ("all 11 numbers equal", or no check line), exit 0."""
    db = tmp_path / "r.db"
    _import_real(cli, db)
    table = tmp_path / "cap-score-3runs.csv"
    table.write_text(
        _edit_cap_csv((LLAVA / "llava-v1.5-7b_gpt-4-cap-score-3runs.csv").read_text(), case)
    )
    before = dump(db)
    result = cli("import", "mmvet-grades", db, LLAVA / "llava-v1.5-7b_gpt-4-grade-3runs.json",
                 "--check", table)  # fmt: skip
    assert result.code == 1 and result.stdout == ""
    assert result.stderr == f"error: {table}: {said}\n"
    assert dump(db) == before


def _small(cli, mmvet_files: dict[str, Path], db: Path) -> None:
    f = mmvet_files
    result = cli("import", "mmvet", db, f["questions"], "--images", f["images"],
                 "--answers", f["alpha"], "--model", "alpha")  # fmt: skip
    assert result.code == 0, result.stderr


def test_a_give_up_is_imported_as_failed_never_as_a_score(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    grades = write_json(tmp_path / "alpha_gpt-4-0613-grade-2runs.json", {
        "v1_0": {"model": ["gpt-4-0613"] * 2, "content": ["0.5", "0.6"], "score": [0.5, 0.6]},
        "v1_1": {"model": ["gpt-4-0613"] * 2, "content": ["The prediction is right", "1.0"],
                 "score": [0.0, 1.0]},
        "v1_2": {"model": ["gpt-4-0613"] * 2, "content": ["BadRequestError", "1.5"],
                 "score": [0.0, 0.0]},
    })  # fmt: skip
    result = cli("import", "mmvet-grades", db, grades)  # the model from the file name
    assert result.code == 0, result.stderr
    assert _judgments(db, "s.key, j.run") == [
        ("v1_0", 0, "ok", 0.5, "0.5"), ("v1_0", 1, "ok", 0.6, "0.6"),
        ("v1_1", 0, "error", None, "The prediction is right"), ("v1_1", 1, "ok", 1.0, "1.0"),
        ("v1_2", 0, "error", None, "BadRequestError"), ("v1_2", 1, "error", None, "1.5"),
    ]  # fmt: skip
    report = cli("report", db).stdout
    # v1_2 has no score in any run; v1_1 only in one
    assert "1 unscored" in report and "1 scored in only some runs" in report

    seen = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "Judge failed")
        await until(pilot, lambda: app.session.filter.failed)
        seen["keys"] = [app.session.entries[i].key for i in app.session.visible]

    drive(db, steps)
    assert seen["keys"] == ["v1_1", "v1_2"]


@pytest.mark.parametrize(
    ("document", "name", "problem"),
    [
        ({"v1_0": {"model": ["g"], "content": ["0.5"], "score": [0.4]}}, "alpha_g-grade-1runs",
         "id v1_0: run 1: content '0.5' and score 0.4 disagree"),
        ({"v1_0": {"model": ["g"], "content": ["0.5"]}}, "alpha_g-grade-1runs",
         "id v1_0: expected lists 'model', 'content' and 'score'"),
        ({"v1_9": {"model": ["g"], "content": ["0.5"], "score": [0.5]}}, "alpha_g-grade-1runs",
         "id v1_9: a judgment of model 'alpha'"),
        ({"v1_0": {"model": ["g"], "content": ["0.5"], "score": [0.5]}}, "grades",
         "the file name does not say which model was graded: give --model NAME"),
        # JSON's true is no score, even where the content says 1.0
        ({"v1_0": {"model": ["g"], "content": ["1.0"], "score": [True]}}, "alpha_g-grade-1runs",
         "id v1_0: run 1: score True is not a number from 0 to 1"),
        ({"v1_0": {"model": ["g"], "content": ["BadRequestError"], "score": [1.5]}},
         "alpha_g-grade-1runs", "id v1_0: run 1: score 1.5 is not a number from 0 to 1"),
        ({"v1_0": {"model": ["g"], "content": ["gave up"], "score": [None]}},
         "alpha_g-grade-1runs", "id v1_0: run 1: score None is not a number from 0 to 1"),
        # an id holding 40 runs in a "3 runs" file
        ({"v1_0": {"model": ["g"] * 3, "content": ["0.5"] * 3, "score": [0.5] * 3},
          "v1_1": {"model": ["g"] * 40, "content": ["1.0"] * 40, "score": [1.0] * 40}},
         "alpha_g-grade-3runs", "id v1_1: 40 runs, and the file name says 3"),
        ({"v1_0": {"model": [], "content": [], "score": []}}, "alpha_g-grade-1runs",
         "id v1_0: no runs: the lists are empty"),
        ({}, "alpha_g-grade-1runs", "no grades: the object is empty"),  # imported nothing, rc 0
        # became "unnamed judge (imported)", while --judge '' is refused
        ({"v1_0": {"model": [""], "content": ["0.5"], "score": [0.5]}}, "alpha_g-grade-1runs",
         "id v1_0: run 1: the judge model is blank: name it"),
        ({"v1_0": {"model": ["g", " "], "content": ["0.5"] * 2, "score": [0.5] * 2}},
         "alpha_g-grade-2runs", "id v1_0: run 2: the judge model is blank: name it"),
    ],
)  # fmt: skip
def test_bad_grade_files_name_the_file_and_id_and_change_nothing(
    cli, mmvet_files: dict[str, Path], tmp_path: Path, document: dict, name: str, problem: str
) -> None:
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    before = tmp_path / "before.db"
    shutil.copy(db, before)
    grades = write_json(tmp_path / f"{name}.json", document)
    result = cli("import", "mmvet-grades", db, grades)
    assert result.code == 1
    assert f"{grades}: {problem}" in result.stderr
    with sqlite3.connect(db) as conn, sqlite3.connect(before) as old:
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (0,)
        assert (
            old.execute("SELECT COUNT(*) FROM answers").fetchone()
            == conn.execute("SELECT COUNT(*) FROM answers").fetchone()
        )


def test_ids_holding_different_run_counts_are_refused(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """A file whose name says no run count: every id must still hold as many runs as the
    first (a 40-run id would outweigh the others in the mean and the std)."""
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    before = dump(db)
    grades = write_json(tmp_path / "grades.json", {
        "v1_0": {"model": ["g"] * 3, "content": ["0.5"] * 3, "score": [0.5] * 3},
        "v1_1": {"model": ["g"] * 40, "content": ["1.0"] * 40, "score": [1.0] * 40},
    })  # fmt: skip
    result = cli("import", "mmvet-grades", db, grades, "--model", "alpha")
    assert result.code == 1
    assert result.stderr == (
        f"error: {grades}: id v1_1: 40 runs, and id v1_0 has 3: every id holds the same runs\n"
    )
    assert dump(db) == before


@needs_fixture("mmvet-real/llava-v1.5-7b")
def test_the_screen_audits_the_imported_runs(cli, tmp_path: Path) -> None:
    """The real MM-Vet database with the official 3-run grades: each answer shows its
    GPT-4 runs with their raw content, the run-variance filter finds exactly the answers
    whose runs disagree, and grading one of them moves the tables."""
    db = tmp_path / "r.db"
    _import_real(cli, db)
    grades_file = LLAVA / "llava-v1.5-7b_gpt-4-grade-3runs.json"
    assert cli("import", "mmvet-grades", db, grades_file).code == 0
    grades = json.loads(grades_file.read_text())
    disagree = sorted(k for k, g in grades.items() if len(set(g["score"])) > 1)
    assert disagree  # the real runs do disagree, on a few answers

    seen: dict[str, object] = {}

    def total(app) -> float:
        tables = app.session.tables.breakdown.tables()
        (table,) = [t for t in tables if t.name == "mmvet.capabilities"]
        return table.rows[0].cells["total"].value

    async def steps(app, pilot) -> None:
        seen["judges"] = text_of(app, "#judges")
        await pilot.press("v")
        await pick(app, pilot, "Judge runs disagree (std > 0)")
        await until(pilot, lambda: app.session.filter.spread is not None)
        seen["keys"] = sorted(app.session.entries[i].key for i in app.session.visible)
        await until(pilot, lambda: app.current().key in disagree)
        seen["shown"] = app.current().key
        seen["before"] = total(app)
        await pilot.press("equals_sign")  # the reviewer says it is fully right: 1.0
        await until(pilot, lambda: app.current().reviewed)
        seen["after"] = total(app)

    drive(db, steps)
    first = grades["v1_0"]
    judges = str(seen["judges"])
    assert judges.count("gpt-4 (imported)") == 3 and f"from {grades_file}" in judges
    assert all(content in judges for content in first["content"])
    assert seen["keys"] == disagree
    key = str(seen["shown"])
    mean = sum(grades[key]["score"]) / 3  # one answer of 218 moves from its mean to 1.0
    assert seen["after"] == pytest.approx(seen["before"] + 100 * (1.0 - mean) / 218)


def test_the_v2_grader_refusal_imports_as_failed(cli, tmp_path: Path) -> None:
    """The v2 grader stores a request the API refused as content "BadRequestError" with a
    score of 0.0: `import mmvet-v2-grades` keeps it as a failed run of the v2 dataset."""
    folder = Path(__file__).resolve().parents[1] / "sample_data" / "mmvet-v2"
    db = tmp_path / "r.db"
    result = cli("import", "mmvet-v2", db, folder / "mm-vet-v2.json", "--images",
                 folder / "images", "--answers", folder / "answers" / "demo-alpha.json")  # fmt: skip
    assert result.code == 0, result.stderr
    grades = write_json(tmp_path / "demo-alpha_gpt-4-0613-grade-1runs.json", {
        "v2_0": {"model": ["gpt-4-0613"], "content": ["BadRequestError"], "score": [0.0]},
        "v2_1": {"model": ["gpt-4-0613"], "content": ["0.7"], "score": [0.7]},
    })  # fmt: skip
    result = cli("import", "mmvet-v2-grades", db, grades)
    assert result.code == 0, result.stderr
    assert _judgments(db, "d.name, s.key") == [
        ("mmvet-v2", "v2_0", "error", None, "BadRequestError"),
        ("mmvet-v2", "v2_1", "ok", 0.7, "0.7"),
    ]


@needs_fixture("mmvet-real/llava-v1.5-7b")
def test_check_reads_several_models_any_part_order_and_either_runs_form(
    cli, tmp_path: Path
) -> None:
    """A grader CSV with two model rows, integration names with their parts in another
    order, and runs written as pandas writes numpy floats: every number is checked, each
    against its own model's row."""
    db = tmp_path / "r.db"
    _import_real(cli, db)
    grades = LLAVA / "llava-v1.5-7b_gpt-4-grade-3runs.json"
    copy = ("--answers", LLAVA / "llava-v1.5-7b.json", "--model", "llava-copy")
    assert cli("import", "mmvet", db, REAL / "mm-vet.json", *copy).code == 0
    for model in ("llava-v1.5-7b", "llava-copy"):
        assert cli("import", "mmvet-grades", db, grades, "--model", model).code == 0
    out = tmp_path / "csv"
    assert cli("export", db, "--format", "mmvet-csv", "--out", out).code == 0
    with (out / "mmvet-cap-int-score-3runs.csv").open(newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert [row[0] for row in rows] == ["llava-copy", "llava-v1.5-7b"]
    header = [header[0], *("_".join(reversed(name.split("_"))) for name in header[1:-3]),
              *header[-3:]]  # fmt: skip
    for row in rows:
        row[-1] = "[" + ", ".join(f"np.float64({v})" for v in row[-1][1:-1].split(", ")) + "]"
    rows[0][1] = "99.9"  # the copy's first integration, only
    written = tmp_path / "two-models-cap-int-score-3runs.csv"
    with written.open("w", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])
    result = cli("import", "mmvet-grades", db, grades, "--check", written)
    assert result.code == 1
    assert "1 of 42 numbers differ" in result.stdout  # 2 x (16 integrations, total, std, 3 runs)
    assert "llava-copy: integrations gen_know_rec: file 99.9, ours 17.796" in result.stdout
