"""`lmmreview import mathvista-vlmevalkit`: VLMEvalKit's MathVista_MINI files, written here in
their columns (open-compass/VLMEvalKit @ e8e78f0, vlmeval/):

- a prediction file is the dataset's TSV rows with `prediction` (inference.py 244-283): of
  them VLMEvalKit reads index, question, question_type, answer_type, choices (a list
  literal), answer, answer_option, task and skills (dataset/utils/mathvista.py 77-167);
- the judge workbook `{model}_MathVista_MINI_gpt-4o-mini.xlsx` (dataset/image_vqa.py
  588-628) adds `res` and `log`: "Prefetch succeed" with the letter can_infer found in a
  multiple-choice prediction, else "Succeed" with the judge's reply (mathvista.py 107-124).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import dump
from test_import_vlmevalkit import write_xlsx

from lmmreview.db import Store
from lmmreview.engine.scoring import IMPORTED, Judge

HEADER = ["index", "question", "question_type", "answer_type", "choices", "answer",
          "answer_option", "task", "skills", "prediction"]  # fmt: skip
JUDGED = [*HEADER, "res", "log"]
HINT = "Hint: Please answer the question requiring {} and provide the final value, e.g., {}, at the end."
CHOICE_HINT = "Hint: Please answer the question and provide the correct option letter, e.g., A, B, C, D, at the end."
# index, question type, answer type, choices, answer, answer_option, prediction, res, log;
# the official rules right on every res, VLMEvalKit's post_check on 1, 2, 4 only (by hand)
ROWS = [
    (1, "multi_choice", "text", ["3/11", "8/11", "6/11"], "8/11", "B",
     "The answer is (B) 8/11.", "B", "Prefetch succeed"),
    (2, "free_form", "integer", None, "14", None, "There are 14 apples.", "14", "Succeed"),
    # float("1.449") is not 1.45; the official rules round it to the 2 decimals of 1.45
    (3, "free_form", "float", None, "1.45", None, "about 1.449 dollars", "1.449", "Succeed"),
    (4, "multi_choice", "text", ["red", "green", "blue"], "green", "B", "Like grass.",
     "Green", "Succeed"),  # VLMEvalKit: green's text; the official rules: the nearest choice
    (5, "free_form", "list", None, "[2007, 2008]", None, "2007 to 2008", "[2007, 2008]",
     "Succeed"),  # a list: never right in VLMEvalKit
    (6, "free_form", "integer", None, "3", None, "three", "3.0", "Succeed"),  # int("3.0") fails
]  # fmt: skip
GPT = Judge(IMPORTED, "gpt-4o-mini", "vlmevalkit")


def _cells(row: tuple[object, ...], judged: bool) -> list[object]:
    index, qtype, atype, choices, answer, option, prediction, res, log = row
    hint = CHOICE_HINT if choices else HINT.format(f"an {atype} answer", "1, 2, 3")
    question = f"{hint}\nQuestion: Problem {index}?"
    cells = [index, question, qtype, atype, repr(choices) if choices else None, answer, option,
             "figure question answering", "['arithmetic reasoning', 'statistical reasoning']",
             prediction]  # fmt: skip
    return [*cells, res, log] if judged else cells


def workbook(folder: Path, judged: bool = True, rows: list[list[object]] | None = None) -> Path:
    name = "tiny_MathVista_MINI_gpt-4o-mini.xlsx" if judged else "tiny_MathVista_MINI.xlsx"
    cells = rows or [_cells(row, judged) for row in ROWS]
    return write_xlsx(folder / name, JUDGED if judged else HEADER, cells)


def _import(cli, db: Path, path: Path) -> str:
    result = cli("import", "mathvista-vlmevalkit", db, path)
    assert result.code == 0, result.stderr
    return result.stderr


def test_a_judge_workbooks_extractions_are_scored_by_the_official_rules(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "mv.db"
    stderr = _import(cli, db, workbook(tmp_path))
    assert "on 3 problem(s) VLMEvalKit's verdict on its extraction differs" in stderr
    assert ": 3, 5, 6" in stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("MathVista_MINI")}
        latest = store.latest_judgments("MathVista_MINI", GPT)
        answers = store.answer_ids("MathVista_MINI")
    assert list(samples) == ["1", "2", "3", "4", "5", "6"]
    assert samples["1"].options == {"A": "3/11", "B": "8/11", "C": "6/11"}
    assert samples["1"].answer == "B"
    assert samples["3"].extra["precision"] == 2
    assert samples["2"].axis("skills") == ("arithmetic reasoning", "statistical reasoning")
    assert {key: latest[answers["tiny", key], 0].score for key in samples} == dict.fromkeys(
        samples, 1.0
    )


def test_a_prediction_file_brings_problems_and_answers(cli, tmp_path: Path) -> None:
    db = tmp_path / "mv.db"
    _import(cli, db, workbook(tmp_path, judged=False))
    with Store.open(db) as store:
        assert store.answers("MathVista_MINI", "tiny")["3"] == "about 1.449 dollars"
        assert not store.latest_judgments("MathVista_MINI", GPT)


def _changed(number: int, **cells: object) -> list[list[object]]:
    rows = [_cells(row, judged=True) for row in ROWS]
    for column, value in cells.items():
        rows[number - 1][JUDGED.index(column)] = value
    return rows


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_changed(2, index=1), "line 3: duplicate index 1 (also at line 2)"),
        (_changed(1, answer_option="C"),
         "line 2: answer_option 'C' is not the letter of the answer '8/11' among the choices"),
        (_changed(1, choices="[3/11"), "line 2: choices '[3/11' is no Python literal"),
        (_changed(1, choices="{[1]: 2}"), "line 2: choices '{[1]: 2}' is no Python literal"),
        (_changed(4, answer="purple"), "line 5: answer 'purple' is none of the choices"),
        (_changed(2, answer_type="number"), "line 3: answer_type 'number' is none of"),
        (_changed(2, question_type="open"),
         "line 3: question_type 'open' is neither multi_choice nor free_form"),
    ],
)  # fmt: skip
def test_bad_rows_name_the_file_and_line_and_change_nothing(
    cli, tmp_path: Path, rows: list[list[object]], message: str
) -> None:
    db = tmp_path / "mv.db"
    _import(cli, db, workbook(tmp_path, judged=False))
    before = dump(db)
    (tmp_path / "bad").mkdir()
    bad = workbook(tmp_path / "bad", rows=rows)
    result = cli("import", "mathvista-vlmevalkit", db, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(db) == before
