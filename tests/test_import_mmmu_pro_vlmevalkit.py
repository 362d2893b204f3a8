"""`lmmreview import mmmu-pro-vlmevalkit`: VLMEvalKit's MMMU-Pro files, written here in their
columns (open-compass/VLMEvalKit @ e8e78f0, vlmeval/):

- a prediction file is the dataset's TSV rows (index, question, A-J, answer) with
  `prediction` (inference.py 244-283); MMMU_Pro_V's questions are "placeholder"
  (dataset/image_mcq.py 562);
- a result workbook adds `hit` and `log` (dataset/utils/multiple_choice.py 503-504), `log`
  as eval_vanilla writes it ("Match Log: ...", 431-437); its name's judge is
  exact_matching here, whose failed match is the letter Z (383), never right;
- a _COT result workbook is named ..._cotpost_{judge}_result.xlsx and its predictions are
  cot_postproc's readings (dataset/image_mcq.py 632-664).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import dump
from test_import_vlmevalkit import write_xlsx

from lmmreview.db import Store
from lmmreview.engine.scoring import IMPORTED, OFFLINE, Judge

LETTERS = "ABCDEFGHIJ"
HEADER = ["index", "question", *LETTERS, "answer", "prediction"]
RESULT = [*HEADER, "hit", "log"]
NO_MATCH = (
    "Match Log: Failed in Prefetch, no GPT-based answer matching under `exact_matching` policy.. "
)
# index, options, gold, prediction, VLMEvalKit's hit under exact_matching (by hand:
# can_infer_option finds a letter only when one choice letter stands alone among the
# words; can_infer_text an option's text only in an answer at most twice the options' length)
ROWS = [
    (1, ["12", "15", "18", "21"], "B", "B", 1),  # both: B
    (2, ["red", "green", "blue"], "C", "A is wrong, so the answer is (B).", 0),  # both wrong
    # the official parse reads (A), right; VLMEvalKit finds two letters and no option text
    (3, ["7", "8", "9", "10"], "A", "C is too big, so it is (A).", 0),
    (4, [str(n) for n in range(1, 11)], "J", "J", 1),  # ten options: J
]
OFFLINE_RULES = OFFLINE


def _cells(
    index: int, options: list[str], gold: str, prediction: str, vision: bool
) -> list[object]:
    question = "placeholder" if vision else f"Question {index} <image 1>?"
    return [index, question, *options, *[None] * (10 - len(options)), gold, prediction]


def workbook(folder: Path, name: str, judged: bool = False, vision: bool = False) -> Path:
    rows = []
    for index, options, gold, prediction, hit in ROWS:
        row = _cells(index, options, gold, prediction, vision)
        if judged:
            row += [hit, f"Match Log: {prediction}. " if hit else NO_MATCH]
        rows.append(row)
    return write_xlsx(folder / name, RESULT if judged else HEADER, rows)


def _import(cli, db: Path, *args: object) -> str:
    result = cli("import", "mmmu-pro-vlmevalkit", db, *args)
    assert result.code == 0, result.stderr
    return result.stderr


def _verdicts(db: Path, dataset: str, judge: Judge) -> dict[tuple[str, str], float | None]:
    with Store.open(db) as store:
        latest = store.latest_judgments(dataset, judge)
        answers = store.answer_ids(dataset)
    return {key: latest[a, 0].score for key, a in answers.items() if (a, 0) in latest}


def test_a_result_workbook_gives_questions_answers_and_its_judges_verdicts(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "pro.db"
    name = "tiny_MMMU_Pro_10c_exact_matching_result.xlsx"
    stderr = _import(cli, db, workbook(tmp_path, name, judged=True))
    assert "1 of VLMEvalKit's verdicts differ from the official MMMU-Pro parse" in stderr
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("MMMU_Pro_10c")}
        answers = store.answers("MMMU_Pro_10c", "tiny")
    assert list(samples) == ["1", "2", "3", "4"]
    assert samples["4"].options == {letter: str(n) for n, letter in enumerate(LETTERS, 1)}
    assert samples["2"].options == {"A": "red", "B": "green", "C": "blue"}
    assert answers["3"] == "C is too big, so it is (A)."
    vlmevalkit = Judge(IMPORTED, "exact_matching", "vlmevalkit")
    assert _verdicts(db, "MMMU_Pro_10c", vlmevalkit) == {
        ("tiny", "1"): 1.0, ("tiny", "2"): 0.0, ("tiny", "3"): 0.0, ("tiny", "4"): 1.0
    }  # fmt: skip
    assert _verdicts(db, "MMMU_Pro_10c", OFFLINE_RULES)[("tiny", "3")] == 1.0  # (A)


def test_the_vision_settings_prediction_file_is_scored_by_the_official_parse(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "pro.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_Pro_V.xlsx", vision=True))
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        assert {s.question for s in store.samples("MMMU_Pro_V")} == {"placeholder"}
    right = _verdicts(db, "MMMU_Pro_V", OFFLINE_RULES)
    assert right == {("tiny", "1"): 1.0, ("tiny", "2"): 0.0, ("tiny", "3"): 1.0, ("tiny", "4"): 1.0}


def test_a_cot_result_workbook_judges_the_answers_of_its_prediction_file(
    cli, tmp_path: Path
) -> None:
    """The _COT answers are the model's row tiny_COT, beside its direct ones in one dataset;
    the cotpost workbook's predictions (cot_postproc's letters) are not imported."""
    db = tmp_path / "pro.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_Pro_10c.xlsx"))
    cot = workbook(tmp_path, "tiny_MMMU_Pro_10c_COT.xlsx")
    _import(cli, db, cot)
    post = workbook(tmp_path, "tiny_MMMU_Pro_10c_COT_cotpost_exact_matching_result.xlsx", True)
    _import(cli, db, post)
    with Store.open(db) as store:
        assert {model for model, _ in store.answer_ids("MMMU_Pro_10c")} == {"tiny", "tiny_COT"}
        assert store.answers("MMMU_Pro_10c", "tiny_COT")["3"] == "C is too big, so it is (A)."
    judged = _verdicts(db, "MMMU_Pro_10c", Judge(IMPORTED, "exact_matching", "vlmevalkit"))
    assert sorted(judged) == [("tiny_COT", key) for key in "1234"]


def test_a_cotpost_workbook_before_its_predictions_is_refused(cli, tmp_path: Path) -> None:
    db = tmp_path / "pro.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_Pro_10c.xlsx"))
    before = dump(db)
    post = workbook(tmp_path, "tiny_MMMU_Pro_10c_COT_cotpost_exact_matching_result.xlsx", True)
    result = cli("import", "mmmu-pro-vlmevalkit", db, post)
    assert result.code != 0
    assert str(post) in result.stderr and "tiny_COT" in result.stderr
    assert dump(db) == before


def test_a_cotpost_workbook_of_other_questions_is_refused(cli, tmp_path: Path) -> None:
    """Its verdicts go to answers imported before: the questions must be theirs."""
    db = tmp_path / "pro.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_Pro_10c_COT.xlsx"))
    before = dump(db)
    name = "tiny_MMMU_Pro_10c_COT_cotpost_exact_matching_result.xlsx"
    rows = [[*_cells(i, ["x", "y"], "A", "A", False), 1, "Match Log: A. "] for i, *_ in ROWS]
    post = write_xlsx(tmp_path / name, RESULT, rows)
    result = cli("import", "mmmu-pro-vlmevalkit", db, post)
    assert result.code != 0
    assert str(post) in result.stderr
    assert dump(db) == before


def test_the_cotpost_predictions_are_refused(cli, tmp_path: Path) -> None:
    """{model}_{dataset}_cotpost.xlsx holds VLMEvalKit's readings, not the model's answers."""
    post = workbook(tmp_path, "tiny_MMMU_Pro_10c_COT_cotpost.xlsx")
    result = cli("import", "mmmu-pro-vlmevalkit", tmp_path / "pro.db", post)
    assert result.code != 0
    assert f"{post}: holds cot_postproc's readings of the answers" in result.stderr
    assert not (tmp_path / "pro.db").exists()


def _bad(row: int, **cells: object) -> list[list[object]]:
    """The judged rows, with `cells` (by column) set in row number `row`."""
    rows = [[*_cells(*r[:4], vision=False), r[4], "Match Log: ."] for r in ROWS]
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
        (_bad(4, answer=" "), "line 5: no answer: the gold letter is empty"),
    ],
)  # fmt: skip
def test_bad_rows_name_the_file_and_line_and_change_nothing(
    cli, tmp_path: Path, rows: list[list[object]], message: str
) -> None:
    db = tmp_path / "pro.db"
    _import(cli, db, workbook(tmp_path, "tiny_MMMU_Pro_10c.xlsx"))
    before = dump(db)
    bad = write_xlsx(tmp_path / "tiny_MMMU_Pro_10c_exact_matching_result.xlsx", RESULT, rows)
    result = cli("import", "mmmu-pro-vlmevalkit", db, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before


def test_a_file_without_the_questions_columns_is_refused(cli, tmp_path: Path) -> None:
    bad = write_xlsx(tmp_path / "tiny_MMMU_Pro_10c.xlsx", ["index", "prediction"], [[1, "B"]])
    result = cli("import", "mmmu-pro-vlmevalkit", tmp_path / "pro.db", bad)
    assert result.code != 0
    assert f"{bad}: missing column 'question' (VLMEvalKit's MMMU-Pro rows)" in result.stderr
