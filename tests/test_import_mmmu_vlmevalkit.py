"""`lmmreview import mmmu-vlmevalkit`: VLMEvalKit's MMMU_DEV_VAL files, written here in their
columns (open-compass/VLMEvalKit @ e8e78f0, vlmeval/):

- a prediction file is the dataset's TSV rows with `prediction` (inference.py 244-283): of
  them VLMEvalKit's code reads index, question, the option letters (build_choices,
  dataset/utils/multiple_choice.py 346-351), answer and split (report_acc, 81-90); an open
  question has no options (MMMU_preproc fills A and B only where A is empty, 62-74);
- a result workbook is those rows after MMMU_preproc (A the gold, B "Other Answers") with
  `hit` and `log` (mcq_vanilla_eval, 475-507), `log` as eval_vanilla writes it ("Match
  Log: ...", 431-437); a random letter's is "Failed to predict, thus randomly generate
  one. " (404-405).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import dump
from test_import_vlmevalkit import write_records, write_xlsx

from lmmreview.db import Store
from lmmreview.engine.scoring import IMPORTED, OFFLINE, Judge, Judgment, Status

LETTERS = "ABCDEFGHI"
HEADER = ["index", "question", *LETTERS, "answer", "split", "prediction"]
RESULT = [*HEADER, "hit", "log"]
RANDOM = "Match Log: Failed to predict, thus randomly generate one. . "
# index, split, options (none: an open question), gold, prediction, VLMEvalKit's hit and
# log (by hand, as a judge could have answered)
ROWS = [
    (1, "dev", ["12", "15", "18", "21"], "B", "B", 1, "Match Log: B. "),  # both: B
    # the official parse reads (A), right; VLMEvalKit's judge said C
    (2, "validation", ["7", "8", "9", "10"], "A", "C is too big, so it is (A).", 0, "C"),
    # an open question: VLMEvalKit asks A "14" or B "Other Answers", gold A
    (3, "validation", [], "14", "I am quite sure that it is 14", 1, "Match Log: A. "),
    (4, "validation", ["1", "2", "3", "4"], "D", "I cannot tell", 0, RANDOM),  # random pick
]
VLMEVALKIT = Judge(IMPORTED, "gpt-4o-mini", "vlmevalkit")
RESULT_NAME = "tiny_MMMU_DEV_VAL_gpt-4o-mini_result.xlsx"


def _cells(row: tuple, judged: bool) -> list[object]:
    index, split, options, gold, prediction, hit, log = row
    if judged and not options:  # MMMU_preproc's rewriting
        options = [gold, "Other Answers"]
    cells = [index, f"Question {index} <image 1>?", *options, *[None] * (9 - len(options))]
    cells += [gold, split, prediction]
    return [*cells, hit, log] if judged else cells


def workbook(folder: Path, name: str, judged: bool = False) -> Path:
    rows = [_cells(row, judged) for row in ROWS]
    return write_xlsx(folder / name, RESULT if judged else HEADER, rows)


def _import(cli, db: Path, *args: object) -> str:
    result = cli("import", "mmmu-vlmevalkit", db, *args)
    assert result.code == 0, result.stderr
    return result.stderr


def _latest(db: Path, judge: Judge) -> dict[str, Judgment]:
    with Store.open(db) as store:
        latest = store.latest_judgments("MMMU_DEV_VAL", judge)
        answers = store.answer_ids("MMMU_DEV_VAL")
    return {key: latest[a, 0] for (_, key), a in answers.items() if (a, 0) in latest}


def test_a_result_workbook_gives_questions_in_their_split_answers_and_verdicts(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "mmmu.db"
    stderr = _import(cli, db, workbook(tmp_path, RESULT_NAME, judged=True))
    # question 2 only: 3 is VLMEvalKit's rewriting, 4 a random pick on both sides
    assert "1 of VLMEvalKit's verdicts differ from the official MMMU parse" in stderr
    assert ": 2" in stderr.split("official MMMU parse")[1]
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("MMMU_DEV_VAL")}
        answers = store.answers("MMMU_DEV_VAL", "tiny")
    assert [(s.key, s.split) for s in samples.values()] == [
        ("1", "dev"), ("2", "validation"), ("3", "validation"), ("4", "validation")
    ]  # fmt: skip
    assert samples["3"].options == {"A": "14", "B": "Other Answers"}
    assert samples["3"].answer == "A"
    assert answers["2"] == "C is too big, so it is (A)."
    verdicts = _latest(db, VLMEVALKIT)
    assert {key: j.score for key, j in verdicts.items()} == {"1": 1.0, "2": 0.0, "3": 1.0, "4": 0.0}
    assert [key for key, j in verdicts.items() if j.status == Status.FALLBACK] == ["4"]


def test_the_rewritten_open_question_is_scored_as_two_options(cli, tmp_path: Path) -> None:
    """lmmreview's rules read question 3 as VLMEvalKit asked it (the option text 14 in an
    answer of more than five words: A), not as an MMMU open question."""
    db = tmp_path / "mmmu.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_DEV_VAL.xlsx"))
    assert cli("score", db).code == 0
    rules = _latest(db, OFFLINE)
    assert rules["3"].choice == "A" and rules["3"].score == 1.0
    assert rules["2"].score == 1.0  # (A)


def test_the_prediction_file_and_the_result_workbook_give_the_same_questions(
    cli, tmp_path: Path
) -> None:
    """MMMU_preproc's rewriting of the empty options, done here on the prediction file."""
    db = tmp_path / "mmmu.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_DEV_VAL.xlsx"))
    with Store.open(db) as store:
        predicted = store.samples("MMMU_DEV_VAL")
    _import(cli, db, workbook(tmp_path, RESULT_NAME, judged=True))
    with Store.open(db) as store:
        assert store.samples("MMMU_DEV_VAL") == predicted


def test_a_json_prediction_file_gives_the_same_questions(cli, tmp_path: Path) -> None:
    """PRED_FORMAT=json (vlmeval/smp/file.py 190-196): the open question's empty options are
    bare NaN there."""
    db = tmp_path / "mmmu.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_DEV_VAL.xlsx"))
    with Store.open(db) as store:
        from_xlsx = store.samples("MMMU_DEV_VAL")
    rows = [_cells(row, judged=False) for row in ROWS]
    json_file = write_records(tmp_path / "tiny_MMMU_DEV_VAL.json", HEADER, rows)
    _import(cli, tmp_path / "json.db", json_file)
    with Store.open(tmp_path / "json.db") as store:
        assert store.samples("MMMU_DEV_VAL") == from_xlsx


def test_the_run_folder_reads_mmmu_dev_val(cli, tmp_path: Path) -> None:
    run = tmp_path / "tiny" / "T20260501-120000"
    run.mkdir(parents=True)
    workbook(run, "tiny_MMMU_DEV_VAL.xlsx")
    workbook(run, RESULT_NAME, judged=True)
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 0, result.stderr
    assert set(_latest(db, VLMEVALKIT)) == {"1", "2", "3", "4"}


def _bad(row: int, **cells: object) -> list[list[object]]:
    """The judged rows, with `cells` (by column) set in row number `row`."""
    rows = [_cells(r, judged=True) for r in ROWS]
    for column, value in cells.items():
        rows[row - 1][RESULT.index(column)] = value
    return rows


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_bad(2, index="two"), "line 3: index 'two' is not a whole number"),
        (_bad(2, index=1), "line 3: duplicate index 1 (also at line 2)"),
        (_bad(3, hit="yes"), "line 4: hit 'yes' is not a number from 0 to 1"),
        (_bad(1, **dict.fromkeys(LETTERS)),
         "line 2: no options: the columns A to J are empty or missing"),
        (_bad(4, answer=" "), "line 5: no answer: the gold is empty"),
    ],
)  # fmt: skip
def test_bad_rows_name_the_file_and_line_and_change_nothing(
    cli, tmp_path: Path, rows: list[list[object]], message: str
) -> None:
    db = tmp_path / "mmmu.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_DEV_VAL.xlsx"))
    before = dump(db)
    bad = write_xlsx(tmp_path / RESULT_NAME, RESULT, rows)
    result = cli("import", "mmmu-vlmevalkit", db, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before


def test_a_file_without_the_questions_columns_is_refused(cli, tmp_path: Path) -> None:
    bad = write_xlsx(tmp_path / "tiny_MMMU_DEV_VAL.xlsx", ["index", "prediction"], [[1, "B"]])
    result = cli("import", "mmmu-vlmevalkit", tmp_path / "mmmu.db", bad)
    assert result.code != 0
    assert f"{bad}: missing column 'question' (VLMEvalKit's MMMU rows)" in result.stderr
    assert not (tmp_path / "mmmu.db").exists()
