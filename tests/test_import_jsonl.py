from __future__ import annotations

from pathlib import Path

import pytest
from conftest import dump, png_bytes, write_lines

from lmmreview.db import Store


def test_samples_with_tags_images_and_inline_predictions(cli, tmp_path: Path) -> None:
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "q1.png").write_bytes(png_bytes())
    data = write_lines(
        tmp_path / "charts.jsonl",
        [
            {"id": "q1", "question": "Highest bar?", "answer": "March", "images": "pics/q1.png",
             "tags": {"topic": "charts", "skills": ["ocr", "math"]},
             "prediction": "March", "model": "m1"},
            {"id": 2, "question": "Which?", "options": ["cat", "dog"], "answer": "B",
             "tags": {"topic": "animals"}},
            {"id": "q3", "question": "Name?", "answer": ["Bob", "Robert"]},
        ],
    )  # fmt: skip
    db = tmp_path / "r.db"
    result = cli("import", "jsonl", db, data)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("charts")}
        assert samples["q1"].axes == {"topic": ("charts",), "skills": ("ocr", "math")}
        assert samples["q1"].question_type == "open"
        assert samples["2"].question_type == "choice"
        assert samples["2"].options == {"A": "cat", "B": "dog"}
        assert samples["q3"].golds == ["Bob", "Robert"]
        assert store.answers("charts", "m1") == {"q1": "March"}
        assert store.image_bytes(store.image_hashes("charts", "q1")[0]) == png_bytes()


def test_answer_lines_added_later_for_another_model(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    data = write_lines(tmp_path / "bench.jsonl", [{"id": "a", "question": "?", "answer": "1"}])
    assert cli("import", "jsonl", db, data).code == 0
    answers = write_lines(tmp_path / "m2.jsonl", [{"id": "a", "prediction": "1"}])
    result = cli("import", "jsonl", db, answers, "--dataset", "bench", "--model", "m2")
    assert result.code == 0, result.stderr
    before = dump(db)
    assert cli("import", "jsonl", db, answers, "--dataset", "bench", "--model", "m2").code == 0
    assert dump(db) == before
    with Store.open(db) as store:
        assert store.answers("bench", "m2") == {"a": "1"}


def test_answers_for_a_dataset_that_is_not_there(cli, tmp_path: Path) -> None:
    answers = write_lines(tmp_path / "m2.jsonl", [{"id": "a", "prediction": "1", "model": "m"}])
    result = cli("import", "jsonl", tmp_path / "r.db", answers)
    assert result.code == 1
    assert "m2.jsonl" in result.stderr and "import its samples first" in result.stderr
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("blank", ["   ", ""])
def test_a_blank_model_in_the_file_is_refused(cli, tmp_path: Path, blank: str) -> None:
    """B12: "   " made a model named by spaces, "" silently took --model."""
    db = tmp_path / "r.db"
    data = write_lines(tmp_path / "bench.jsonl", [{"id": "a", "question": "?", "answer": "1"}])
    assert cli("import", "jsonl", db, data).code == 0
    before = dump(db)
    answers = write_lines(
        tmp_path / "m2.jsonl",
        [
            {"id": "a", "prediction": "1", "model": "m1"},
            {"id": "a", "prediction": "2", "model": blank},
        ],
    )
    result = cli("import", "jsonl", db, answers, "--dataset", "bench", "--model", "m2")
    assert result.code == 1
    assert result.stderr == (
        f"error: {answers}: line 2: model is blank: name it, or leave the field out\n"
    )
    assert dump(db) == before


def test_an_id_with_a_decimal_point_is_named_as_such(cli, tmp_path: Path) -> None:
    """An id of 1.0 was called "missing"; it is there, but would not match the id 1."""
    db = tmp_path / "r.db"
    data = write_lines(
        tmp_path / "bench.jsonl",
        [{"id": 1, "question": "?", "answer": "1"}, {"id": 1.0, "question": "?", "answer": "1"}],
    )
    result = cli("import", "jsonl", db, data)
    assert result.code == 1
    assert result.stderr == (
        f"error: {data}: line 2: field 'id' is 1.0, a number with a decimal point; "
        "an id is text or a whole number\n"
    )
    assert not db.exists()
