"""VLMEvalKit's files through the real CLI: prediction files (.xlsx, .tsv, .json), the MM-Vet
judge workbook, the MMBench result workbook (circular verdicts), and the real MMBench-dev
prediction workbook."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import openpyxl
import pytest
from conftest import FIXTURES, dump, needs_fixture, png_base64, write_tsv
from textual.pilot import Pilot
from tui_harness import drive, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import EntryReader
from lmmreview.engine.benchmarks.mmbench.rules import CIRCULAR_STRIDE, match_choice
from lmmreview.tui.app import ReviewApp

MMBENCH_COLUMNS = ["index", "question", "hint", "A", "B", "answer", "category", "split"]
# Two questions, each with its rotated copy; the second has no category (Overall only).
MMBENCH_ROWS = [
    [1, "Is it day?", "Look up.", "yes", "no", "A", "image_scene", "dev"],
    [1000001, "Is it day?", "Look up.", "no", "yes", "B", "image_scene", "dev"],
    [2, "Which shape?", None, "circle", "square", "B", None, "dev"],
    [1000002, "Which shape?", None, "square", "circle", "A", None, "dev"],
]
PREDICTIONS = {1: "A", 1000001: "B", 2: "B", 1000002: "B"}  # group 2 fails in rotation 1
RESULT_LOGS = {
    1: "Failed in Prefetching Rolling 0: Answer is A, Prediction is A, Pre-fetched is B. ",
    2: "Rolling 0 Matched.\nFailed in Rolling 1: Answer is A; Prediction is B; "
    "Pre-fetched is B; Match Log is B.\n",
}


def write_xlsx(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def write_records(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    """VLMEvalKit's .json layout: a list of records, indented, an empty cell a bare NaN."""
    records = [
        {k: float("nan") if v is None else v for k, v in zip(header, row, strict=True)}
        for row in rows
    ]
    path.write_text(json.dumps(records, indent=4), encoding="utf-8")
    return path


def mmbench_predictions(tmp_path: Path, suffix: str = ".xlsx") -> Path:
    header = [*MMBENCH_COLUMNS, "prediction"]
    rows = [[*row, PREDICTIONS[int(str(row[0]))]] for row in MMBENCH_ROWS]
    path = tmp_path / f"tiny-llava_MMBench_DEV_EN{suffix}"
    if suffix == ".xlsx":
        return write_xlsx(path, header, rows)
    if suffix == ".json":
        return write_records(path, header, rows)
    return write_tsv(path, header, [["" if c is None else c for c in row] for row in rows])


def mmbench_result(tmp_path: Path) -> Path:
    """The result workbook: main rows only, VLMEvalKit's hit, log and g_index. Its verdict
    on group 1 differs from the rules' (it failed a pre-fetch the rules match)."""
    header = [*MMBENCH_COLUMNS, "prediction", "g_index", "hit", "log"]
    rows = [
        [*row, PREDICTIONS[int(str(row[0]))], row[0], 0, RESULT_LOGS[int(str(row[0]))]]
        for row in MMBENCH_ROWS
        if int(str(row[0])) < CIRCULAR_STRIDE
    ]
    return write_xlsx(tmp_path / "tiny-llava_MMBench_DEV_EN_openai_result.xlsx", header, rows)


def json_tables(cli, db: Path) -> dict:
    result = cli("export", db, "--format", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def values(document: dict, table_suffix: str) -> dict[str, float]:
    (table,) = [t for t in document["tables"] if t["name"].endswith(table_suffix)]
    (row,) = table["rows"]
    return {k: v for k, v in row["values"].items() if v is not None}


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv", ".json"])
def test_mmbench_prediction_file_is_questions_and_answers(cli, tmp_path: Path, suffix: str) -> None:
    db = tmp_path / "r.db"
    result = cli("import", "mmbench-vlmevalkit", db, mmbench_predictions(tmp_path, suffix))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("MMBench_DEV_EN", "tiny-llava") == {
            str(k): v for k, v in PREDICTIONS.items()
        }
        samples = {s.key: s for s in store.samples("MMBench_DEV_EN")}
        assert samples["1000002"].extra == {"circular_group": 2, "rotation": 1}
        assert samples["1"].hint == "Look up." and samples["2"].hint is None
        assert samples["2"].axes == {}  # no category: in no L-3 column
    assert cli("score", db).code == 0
    document = json_tables(cli, db)
    assert values(document, ".l2") == {"overall": 50.0, "vanilla": 100.0}
    # Group 2 has no category: it counts in Overall only, not under an "unknown" ability.
    assert values(document, ".l3") == {"image_scene": 100.0}


def test_mmbench_result_workbook_verdicts_beside_our_circular_eval(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmbench-vlmevalkit", db, mmbench_predictions(tmp_path)).code == 0
    result_file = mmbench_result(tmp_path)
    result = cli("import", "mmbench-vlmevalkit", db, result_file)
    assert result.code == 0, result.stderr
    assert "needs the other rotations' answers" in result.stderr  # it has main rows only
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT s.key, g.score, g.failed_at, g.judge_model, g.raw_reply, g.source "
            "FROM group_verdicts g JOIN answers a ON a.id = g.answer_id "
            "JOIN samples s ON s.id = a.sample_id ORDER BY s.key"
        ).fetchall()
    assert rows == [
        ("1", 0.0, 0, "openai", RESULT_LOGS[1], str(result_file)),
        ("2", 0.0, 1, "openai", RESULT_LOGS[2], str(result_file)),
    ]
    assert cli("score", db).code == 0
    report = cli("report", db)
    sentence = (
        f"tiny-llava: CircularEval imported from {result_file} (judge openai): 0.0% of 2 "
        "groups; lmmreview's on the same groups: 50.0%; 1 groups differ."
    )
    assert sentence in " ".join(report.stdout.split())
    assert sentence in cli("export", db, "--format", "md").stdout.replace("\\_", "_")
    (check,) = json_tables(cli, db)["notes"]["MMBench_DEV_EN"]["imported_circular"]
    assert (check["groups"], check["theirs"], check["ours"], check["differ"]) == (2, 0.0, 50.0, 1)
    # The review screen's detail of a rotated row shows the verdict on its group.
    seen: dict[str, str] = {}

    async def steps(app: ReviewApp, pilot: Pilot) -> None:
        for _ in range(len(PREDICTIONS)):
            entry = app.current()
            if entry is not None and entry.key == "1000002":
                break
            await pilot.press("down")
        await until(pilot, lambda: "rotation" in text_of(app, "#judges"))
        seen["judges"] = " ".join(text_of(app, "#judges").split())

    drive(db, steps, dataset="MMBench_DEV_EN")
    assert "(judge openai (imported)): failed at rotation 1" in seen["judges"]
    assert "Failed in Rolling 1" in seen["judges"]
    assert f"[from {result_file}]" in seen["judges"]


def test_mmbench_result_workbook_with_its_predictions_in_one_command(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    predictions = mmbench_predictions(tmp_path)
    result = cli("import", "mmbench-vlmevalkit", db, mmbench_result(tmp_path),
                 "--predictions", predictions, "--judge", "gpt-4-0125")  # fmt: skip
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        verdicts = store.group_verdicts("MMBench_DEV_EN").values()
        assert {v.judge_model for v in verdicts} == {"gpt-4-0125"}
        assert len(store.answers("MMBench_DEV_EN", "tiny-llava")) == 4


def test_mmbench_result_workbook_whose_rotations_have_no_answers_is_refused(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmbench-vlmevalkit", db, mmbench_predictions(tmp_path)).code == 0
    mains_only = tmp_path / "mains" / "tiny-llava_MMBench_DEV_EN.xlsx"
    mains_only.parent.mkdir()
    write_xlsx(mains_only, ["index", "question", "A", "B", "answer", "prediction"],
               [[1, "Is it day?", "yes", "no", "A", "A"], [2, "Which shape?", "circle", "square", "B", "B"]])  # fmt: skip
    before = dump(db)
    result_file = mmbench_result(tmp_path)
    result = cli("import", "mmbench-vlmevalkit", db, result_file, "--predictions", mains_only)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {result_file}: line 2: group 1's other rotations have no answers in the "
        "prediction workbook"
    ]
    assert dump(db) == before


def mmvet_judge_workbook(tmp_path: Path) -> Path:
    header = ["index", "question", "answer", "category", "prediction", "score", "log"]
    rows = [
        [0, "What is x in the equation?", "-1<AND>-5", "ocr,math", "x = -1", 0.5, "Succeed"],
        [1, "Which colour?", "green", "rec", "red",
         0.0, "Try 0: output is none, failed to parse.\n" * 5 + "All 5 retries failed.\n"],
    ]  # fmt: skip
    return write_xlsx(tmp_path / "tiny-llava_MMVet_gpt-4-turbo.xlsx", header, rows)


def test_mmvet_judge_workbook_imports_judgments_and_a_give_up_as_failed(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    workbook = mmvet_judge_workbook(tmp_path)
    result = cli("import", "mmvet-vlmevalkit", db, workbook)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmvet")}
        assert samples["v1_0"].axis("capability") == ("ocr", "math")
        assert store.answers("mmvet", "tiny-llava") == {"v1_0": "x = -1", "v1_1": "red"}
    with sqlite3.connect(db) as conn:
        judgments = conn.execute(
            "SELECT s.key, j.run, j.judge_kind, j.judge_model, j.status, j.score, j.raw_reply, "
            "j.source, j.error FROM judgments j JOIN answers a ON a.id = j.answer_id "
            "JOIN samples s ON s.id = a.sample_id ORDER BY s.key"
        ).fetchall()
    assert [row[:7] for row in judgments] == [
        ("v1_0", 0, "imported", "gpt-4-turbo", "ok", 0.5, "Succeed"),
        ("v1_1", 0, "imported", "gpt-4-turbo", "error", None,
         "Try 0: output is none, failed to parse.\n" * 5 + "All 5 retries failed.\n"),
    ]  # fmt: skip
    assert {row[7] for row in judgments} == {str(workbook)}
    assert "gave up" in judgments[1][8]
    with Store.open(db) as store:  # what the judge-failed filter shows
        assert {e.key for e in EntryReader(store).entries("mmvet") if e.failed} == {"v1_1"}
    document = json_tables(cli, db)
    assert values(document, ".capabilities")["total"] == 50.0  # the give-up is no 0
    assert document["notes"]["mmvet"]["unscored"] == 1
    assert cli("import", "mmvet-vlmevalkit", db, workbook).code == 0  # again: nothing new
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (2,)


def test_mmvet_predictions_with_vlmevalkit_questions_tsv(cli, tmp_path: Path) -> None:
    tsv = write_tsv(tmp_path / "MMVet.tsv", ["index", "image", "question", "answer", "category"],
                    [[0, png_base64("red"), "What is x?", "-1<AND>-5", "ocr,math"],
                     [1, png_base64("green"), "Which colour?", "green", "rec"]])  # fmt: skip
    predictions = write_records(
        tmp_path / "tiny-llava_MMVet.json", ["index", "prediction"], [[0, "-1"], [1, "green"]]
    )
    db = tmp_path / "r.db"
    result = cli("import", "mmvet-vlmevalkit", db, predictions, "--questions", tsv,
                 "--model", "other-name")  # fmt: skip
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("mmvet", "other-name") == {"v1_0": "-1", "v1_1": "green"}
        assert store.image_hashes("mmvet", "v1_1") != store.image_hashes("mmvet", "v1_0")
        assert {s.key: s.question for s in store.samples("mmvet")} == {
            "v1_0": "What is x?", "v1_1": "Which colour?",
        }  # fmt: skip


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (["index", "question", "answer", "category", "answer_text"], [0, "q", "a", "rec", "x"],
         "missing column 'prediction'"),
        (["index", "question", "answer", "category", "prediction"], ["0.5", "q", "a", "rec", "x"],
         "line 2: index '0.5' is not a whole number"),
    ],
)  # fmt: skip
def test_bad_mmvet_file_is_one_line_and_changes_nothing(
    cli, tmp_path: Path, header: list[str], row: list[object], message: str
) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmvet-vlmevalkit", db, mmvet_judge_workbook(tmp_path)).code == 0
    before = dump(db)
    bad = write_xlsx(tmp_path / "bad_MMVet.xlsx", header, [row])
    result = cli("import", "mmvet-vlmevalkit", db, bad)
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {bad}: ") and message in line
    assert dump(db) == before


REAL_WORKBOOK = "mmbench/llava-v1.5-13b_mmbench_dev_20230712.xlsx"


@needs_fixture(REAL_WORKBOOK)
def test_real_mmbench_workbook_in_one_command(cli, tmp_path: Path) -> None:
    """Acceptance (d): the real workbook is questions and answers in one command, and the
    report's CircularEval and VanillaEval equal a direct count over the workbook."""
    db = tmp_path / "r.db"
    result = cli("import", "mmbench-vlmevalkit", db, FIXTURES / REAL_WORKBOOK)
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    sheet = openpyxl.load_workbook(FIXTURES / REAL_WORKBOOK, read_only=True).worksheets[0]
    header, *rows = sheet.iter_rows(values_only=True)
    groups: dict[int, list[bool]] = {}
    main_right: dict[int, bool] = {}
    for values_ in rows:
        row = dict(zip(header, values_, strict=True))
        options = {k: str(row[k]) for k in "ABCD" if row[k] is not None}
        choice = match_choice(str(row["prediction"]), options)
        assert choice is not None  # the rules settle every row here without a fallback
        right = choice == row["answer"]
        groups.setdefault(row["index"] % CIRCULAR_STRIDE, []).append(right)
        if row["index"] < CIRCULAR_STRIDE:
            main_right[row["index"]] = right
    circular = 100 * sum(all(g) for g in groups.values()) / len(groups)
    vanilla = 100 * sum(main_right.values()) / len(main_right)
    document = json_tables(cli, db)
    got = values(document, ".l2")
    assert got["overall"] == pytest.approx(circular, abs=0.005)
    assert got["vanilla"] == pytest.approx(vanilla, abs=0.005)
    report = cli("report", db).stdout
    assert f"{circular:.1f}" in report and f"{vanilla:.1f}" in report
    assert "llava-v1.5-13b" in report


# -- issue 25, item 7: what a workbook holds, records that differ, bounds on workbooks ---------

# Answers that start with "=": openpyxl and pandas save them as formulas, with no cached result.
FORMULA_ANSWERS = {1: "=A", 1000001: "= B", 2: "=SUM(1,2)", 1000002: "=B"}


@pytest.mark.parametrize("command", ["mmbench-vlmevalkit", "mmbench"])
def test_an_answer_saved_as_a_formula_is_the_text_written(
    cli, tmp_path: Path, command: str
) -> None:
    header = [*MMBENCH_COLUMNS, "prediction"]
    rows = [[*row, FORMULA_ANSWERS[int(str(row[0]))]] for row in MMBENCH_ROWS]
    workbook = write_xlsx(tmp_path / "tiny-llava_MMBench_DEV_EN.xlsx", header, rows)
    assert openpyxl.load_workbook(workbook).active["I2"].data_type == "f"  # stored as a formula
    db = tmp_path / "r.db"
    if command == "mmbench":  # the TSV's questions, the workbook's predictions
        questions = [["" if c is None else c for c in row] + [png_base64()] for row in MMBENCH_ROWS]
        tsv = write_tsv(tmp_path / "MMBench_DEV_EN.tsv", [*MMBENCH_COLUMNS, "image"], questions)
        result = cli("import", "mmbench", db, tsv, "--answers", workbook, "--model", "tiny-llava")
    else:
        result = cli("import", command, db, workbook)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("MMBench_DEV_EN", "tiny-llava") == {
            str(k): v for k, v in FORMULA_ANSWERS.items()
        }


@pytest.mark.parametrize(
    ("second", "problem"),
    [
        ({"index": 1, "question": "q", "category": "rec", "prediction": "y"},
         "missing field 'answer', which record 1 has"),
        ({"index": 1, "question": "q", "answer": "a", "category": "rec", "prediction": "y",
          "score": 1.0}, "field 'score', which record 1 lacks"),
    ],
    ids=["missing", "extra"],
)  # fmt: skip
def test_a_json_record_whose_fields_differ_from_the_first_is_one_line(
    cli, tmp_path: Path, second: dict[str, object], problem: str
) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmvet-vlmevalkit", db, mmvet_judge_workbook(tmp_path)).code == 0
    before = dump(db)
    first = {"index": 0, "question": "q", "answer": "a", "category": "rec", "prediction": "x"}
    path = tmp_path / "other_MMVet.json"
    path.write_text(json.dumps([first, second], indent=4), encoding="utf-8")
    result = cli("import", "mmvet-vlmevalkit", db, path)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {path}: record 2: {problem} (every record needs the same fields)"
    ]
    assert dump(db) == before


def compressible_workbook(path: Path, rows: int) -> Path:
    """A prediction workbook whose sheet unpacks to far more than it takes on disk."""
    header = [*MMBENCH_COLUMNS, "prediction"]
    body = [[i, "Is it day?" * 20, None, "yes", "no", "A", "ocr", "dev", "A"] for i in range(rows)]
    return write_xlsx(path, header, body)


def test_a_workbook_that_unpacks_beyond_the_bound_is_refused_before_it_is_read(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workbook = compressible_workbook(tmp_path / "big_MMBench_DEV_EN.xlsx", 6000)
    assert workbook.stat().st_size < 2**20  # small on disk, about 2 MiB unpacked
    db = tmp_path / "r.db"
    monkeypatch.setenv("LMMREVIEW_XLSX_MAX_MB", "1")
    result = cli("import", "mmbench-vlmevalkit", db, workbook)
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert re.match(
        rf"error: {re.escape(str(workbook))}: unpacks to [23] MiB, over the 1 MiB limit", line
    )
    assert line.endswith("save it as .tsv (read as a stream, with no bound), or raise the bound: "
                         "LMMREVIEW_XLSX_MAX_MB=N (MiB; now 1)")  # fmt: skip
    assert not db.exists()
    monkeypatch.setenv("LMMREVIEW_XLSX_MAX_MB", "10")  # the way beyond it, for a real need
    assert cli("import", "mmbench-vlmevalkit", db, workbook).code == 0


def test_a_sheet_spanning_too_many_cells_is_refused_quickly(cli, tmp_path: Path) -> None:
    """Wide and long but nearly empty: the reader pads every row to the header's width."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["index", "question", "A", "B", "prediction", *(f"c{i}" for i in range(3000))])
    sheet.append([1, "Q?", "yes", "no", "A"])
    sheet.cell(row=20000, column=1, value=2)  # 20,000 rows x 3,005 columns: 60 million cells
    workbook = tmp_path / "wide_MMBench_DEV_EN.xlsx"
    book.save(workbook)
    db = tmp_path / "r.db"
    started = time.monotonic()
    result = cli("import", "mmbench-vlmevalkit", db, workbook)
    assert time.monotonic() - started < 10
    assert result.code == 1
    (line,) = result.stderr.strip().splitlines()
    assert f"error: {workbook}: the sheet reaches row 5,584 across 3,005 columns" in line, line
    assert "limit for .xlsx files" in line and not db.exists()


def test_a_bad_workbook_size_limit_is_named(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LMMREVIEW_XLSX_MAX_MB", "lots")
    result = cli("import", "mmbench-vlmevalkit", tmp_path / "r.db", mmbench_predictions(tmp_path))
    assert result.code == 1
    assert (
        result.stderr.strip() == "error: LMMREVIEW_XLSX_MAX_MB: 'lots' is not a whole number of MiB"
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({1: None}, "circular copy 1000001 has no main row (index 1)"),
        (
            {1000002: "Which colour?"},
            "circular copy 1000002 asks 'Which colour?', but its main row (index 2, record 3) "
            "asks 'Which shape?'",
        ),
    ],
    ids=["no-main-row", "another-question"],
)
def test_a_circular_copy_without_its_main_row_or_question_is_refused(
    cli, tmp_path: Path, change: dict[int, str | None], problem: str
) -> None:
    """CircularEval groups a copy with its main row: a copy of nothing, or of another
    question, was imported as a group of its own or into the wrong one."""
    db = tmp_path / "r.db"
    assert cli("import", "mmbench-vlmevalkit", db, mmbench_result(tmp_path)).code == 0
    before = dump(db)
    rows = [
        [row[0], change[row[0]], *row[2:], "A"] if row[0] in change else [*row, "A"]
        for row in MMBENCH_ROWS
        if change.get(row[0], "") is not None
    ]
    where = "record 1" if 1 in change else "record 4"  # the main row left out, or changed
    path = write_records(tmp_path / "m_MMBench_DEV_EN.json", [*MMBENCH_COLUMNS, "prediction"], rows)
    result = cli("import", "mmbench-vlmevalkit", db, path)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == f"error: {path}: {where}: {problem}\n"
    assert dump(db) == before
