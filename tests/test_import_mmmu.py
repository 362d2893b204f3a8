from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import dump, needs_fixture, png_bytes, write_json, write_lines

from lmmreview.db import Store


def _record(key: str, response: str, gold: object, qtype: str = "multiple-choice") -> dict:
    choices = ["A", "B", "C", "D"] if qtype == "multiple-choice" else []
    return {
        "id": key, "question_type": qtype, "answer": gold, "all_choices": choices,
        "index2ans": {c: f"option {c}" for c in choices}, "response": response,
    }  # fmt: skip


@pytest.fixture
def outputs(tmp_path: Path) -> Path:
    root = tmp_path / "outputs"
    write_json(root / "Art" / "output.json", [_record("validation_Art_1", "(B)", "B")])
    write_json(
        root / "Math" / "output.json",
        [
            _record("validation_Math_1", "The answer is C", "C"),
            _record("validation_Math_2", "x = 3.5", "3.5", "short-answer"),
        ],
    )
    return root


def test_output_folder_with_answer_dict(cli, outputs: Path, tmp_path: Path) -> None:
    answer_dict = write_json(
        tmp_path / "answers.json",
        {
            "validation_Art_1": {"question_type": "multiple-choice", "ground_truth": "B"},
            "validation_Math_1": {"question_type": "multiple-choice", "ground_truth": "C"},
            "validation_Math_2": {"question_type": "short-answer", "ground_truth": ["3.5", "7/2"]},
            "validation_Music_1": {"question_type": "multiple-choice", "ground_truth": "A"},
        },
    )
    db = tmp_path / "r.db"
    result = cli("import", "mmmu", db, outputs, "--answer-dict", answer_dict, "--model", "m")
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmmu")}
        assert set(samples) == {"validation_Art_1", "validation_Math_1", "validation_Math_2"}
        open_one = samples["validation_Math_2"]
        assert open_one.question_type == "open" and open_one.golds == ["3.5", "7/2"]
        assert samples["validation_Art_1"].first("discipline") == "Art and Design"
        assert samples["validation_Math_1"].first("subject") == "Math"
        assert samples["validation_Math_1"].options["C"] == "option C"
        assert store.answers("mmmu", "m")["validation_Math_2"] == "x = 3.5"


def test_question_file_in_hugging_face_layout(cli, outputs: Path, tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png_bytes("red"))
    (tmp_path / "img" / "b.png").write_bytes(png_bytes("blue"))
    questions = write_lines(
        tmp_path / "questions.jsonl",
        [
            {"id": "validation_Math_1", "question": "<image 1> <image 2> Which?",
             "options": "['1', '2', \"it's 3\", '4']", "answer": "C",
             "question_type": "multiple-choice", "subfield": "Geometry",
             "img_type": "['Diagrams', 'Tables']", "topic_difficulty": "Hard",
             "image_1": "img/a.png", "image_2": "img/b.png", "image_3": None},
            {"id": "validation_Math_2", "question": "x?", "options": "[]",
             "answer": "['3.5', '3.50']", "question_type": "open", "subfield": "Algebra",
             "img_type": "['Plots']", "topic_difficulty": "Easy", "image_1": "img/a.png"},
            {"id": "validation_Art_1", "question": "Style?", "options": ["x", "y"],
             "answer": "B", "question_type": "multiple-choice"},
        ],
    )  # fmt: skip
    db = tmp_path / "r.db"
    result = cli("import", "mmmu", db, outputs, "--questions", questions, "--model", "m")
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmmu")}
        math = samples["validation_Math_1"]
        assert math.question == "<image 1> <image 2> Which?"
        assert math.options == {"A": "1", "B": "2", "C": "it's 3", "D": "4"}
        assert {n: math.axis(n) for n in ("subfield", "difficulty", "img_type")} == {
            "subfield": ("Geometry",),
            "difficulty": ("Hard",),
            "img_type": ("Diagrams", "Tables"),
        }
        assert samples["validation_Math_2"].golds == ["3.5", "3.50"]
        assert samples["validation_Art_1"].options == {"A": "x", "B": "y"}  # a real list works too
        hashes = store.image_hashes("mmmu", "validation_Math_1")
        assert [store.image_bytes(h) for h in hashes] == [png_bytes("red"), png_bytes("blue")]


def test_one_total_outputs_file_and_idempotence(cli, tmp_path: Path) -> None:
    answer_dict = write_json(
        tmp_path / "answers.json",
        {"validation_Physics_3": {"question_type": "short-answer", "ground_truth": "9.8"}},
    )
    total = write_json(tmp_path / "total.json", {"validation_Physics_3": "about 9.8 m/s^2"})
    db = tmp_path / "r.db"
    args = ("import", "mmmu", db, total, "--answer-dict", answer_dict, "--model", "m")
    assert cli(*args).code == 0
    before = dump(db)
    assert cli(*args).code == 0
    assert dump(db) == before
    with Store.open(db) as store:
        (sample,) = store.samples("mmmu")
        assert sample.golds == ["9.8"] and sample.first("discipline") == "Science"


@needs_fixture("mmmu")
def test_official_example_outputs_import_in_one_command(cli, mmmu_fixture_db: Path) -> None:
    """One command (the fixture runs it, and checks it succeeds): 900 answers."""
    db = mmmu_fixture_db
    with Store.open(db) as store:
        samples = store.samples("mmmu")
        answers = store.answers("mmmu", "llava-1.5-13b")
    assert len(answers) == 900
    kinds = [s.question_type for s in samples]
    assert (kinds.count("choice"), kinds.count("open")) == (847, 53)
    assert len({s.first("subject") for s in samples}) == 30
    assert len({s.first("discipline") for s in samples}) == 6
    assert None not in {s.first("discipline") for s in samples}
    info = json.loads(cli("info", db, "--json").stdout)
    (dataset,) = info["datasets"]
    assert dataset["samples"] == 900 and dataset["models"][0]["answers"] == 900


# -- issue 25, item 7: an answer's id must be a question of its folder and of the benchmark --------


def test_an_answer_in_another_subjects_folder_is_refused(
    cli, outputs: Path, tmp_path: Path
) -> None:
    misplaced = outputs / "Art" / "output.json"
    write_json(
        misplaced, [_record("validation_Art_1", "(B)", "B"), _record("validation_Math_9", "A", "A")]
    )
    db = tmp_path / "r.db"
    result = cli("import", "mmmu", db, outputs, "--model", "m")
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: {misplaced}: id validation_Math_9: the id is of subject 'Math', and the file is "
        "in folder 'Art': is the id or the folder wrong?"
    )
    assert not db.exists()


@pytest.mark.parametrize("source", ["--answer-dict", "--questions"])
def test_an_answer_to_a_question_the_benchmark_lacks_is_refused(
    cli, outputs: Path, tmp_path: Path, source: str
) -> None:
    """validation_Math_2 answered, and the benchmark files know only dev_Math_2 (another split)."""
    keys = ("validation_Art_1", "validation_Math_1", "dev_Math_2")
    if source == "--answer-dict":
        known = write_json(tmp_path / "answers.json",
                           {k: {"question_type": "multiple-choice", "ground_truth": "A"} for k in keys})  # fmt: skip
    else:
        known = write_lines(tmp_path / "q.jsonl", [{"id": k, "question": "?", "options": ["x", "y"],
                                                    "answer": "A", "question_type": "multiple-choice"}
                                                   for k in keys])  # fmt: skip
    db = tmp_path / "r.db"
    result = cli("import", "mmmu", db, outputs, source, known, "--model", "m")
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: {outputs / 'Math' / 'output.json'}: id validation_Math_2: no question with this "
        f"id in {known}"
    )
    assert not db.exists()


@pytest.mark.parametrize("choices", [["a", "b", "c", "d"], ["A", "C", "B"], ["B", "C"]])
def test_choices_that_are_not_the_letters_in_order_are_refused(
    cli, tmp_path: Path, choices: list[str]
) -> None:
    """MMMU's choices are A, B, C, ... in order: lowercase letters made the gold "B" no
    option at all (every answer wrong), and the submission export wrote "d"."""
    record = _record("validation_Art_1", "(B)", "B") | {
        "all_choices": choices, "index2ans": {c: f"option {c}" for c in choices},
    }  # fmt: skip
    output = write_json(tmp_path / "outputs" / "Art" / "output.json", [record])
    db = tmp_path / "r.db"
    result = cli("import", "mmmu", db, tmp_path / "outputs", "--model", "m")
    assert result.code == 1
    assert f"{output}" in result.stderr and "are not the letters A, B, C" in result.stderr
    assert not db.exists()
