"""`lmmreview import mathvista`: the official output files, through the command line; the
official Claude outputs score every figure the official calculate_score.py printed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, dump, llm_judgments, needs_fixture, png_bytes, write_json

from lmmreview.db import Store
from lmmreview.sample_data.make_sample_data import MODELS as DEMO_MODELS


def _problem(pid: str, response: str, **more: Any) -> dict[str, Any]:
    return {"question": f"Question {pid}?", "image": f"images/{pid}.jpg",
            "choices": ["3/11", "8/11", "6/11", "3/5"], "unit": None, "precision": None,
            "answer": "8/11", "question_type": "multi_choice", "answer_type": "text", "pid": pid,
            "metadata": {"split": "testmini", "language": "english", "source": "IconQA",
                         "category": "math-targeted-vqa", "task": "math word problem",
                         "context": "abstract scene", "grade": "elementary school",
                         "skills": ["arithmetic reasoning", "algebraic reasoning"]},
            "query": f"Hint: ...\nQuestion: Question {pid}?", "response": response,
            **more}  # fmt: skip


def _outputs(path: Path) -> Path:
    integer = {"choices": None, "answer": "14", "question_type": "free_form",
               "answer_type": "integer"}  # fmt: skip
    problems = {
        "1": _problem("1", "The answer is (B).", extraction="B", prediction="8/11",
                      true_false=True),
        "2": _problem("2", "3/5"),  # a choice itself: the quick rules extract it
        "3": _problem("3", "It is 14.", **integer, extraction="14.0"),
        "4": _problem("4", "Fourteen, I think.", **integer),  # left for the LLM extractor
    }  # fmt: skip
    return write_json(path, problems)


def test_an_output_file_imports_its_problems_answers_and_official_extractions(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "mv.db"
    result = cli("import", "mathvista", db, _outputs(tmp_path / "output_gpt-x.json"))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mathvista")}
        one, three = samples["1"], samples["3"]
        assert one.options == {"A": "3/11", "B": "8/11", "C": "6/11", "D": "3/5"}
        assert (one.question_type, one.golds, one.split) == ("choice", ["B"], "testmini")
        assert one.axis("skills") == ("arithmetic reasoning", "algebraic reasoning")
        assert one.axis("question_type") == ("multi_choice",)
        assert (three.question_type, three.golds) == ("open", ["14"])
        assert three.extra["answer_type"] == "integer"
        assert store.answers("mathvista", "gpt-x")["4"] == "Fourteen, I think."
    assert cli("score", db).code == 0
    rows = _judgments(db)
    # The official extractions, scored by lmmreview: "14.0" is 14, as the official code reads it.
    assert rows["official extractor", "1"] == ("imported", 1.0, "B")
    assert rows["official extractor", "3"] == ("imported", 1.0, None)
    assert rows["offline rules", "2"] == ("choice", 0.0, "D")
    assert ("offline rules", "4") not in rows and ("official extractor", "4") not in rows
    assert llm_judgments(db) == set()


def _judgments(db: Path) -> dict[tuple[str, str], tuple[str, float | None, str | None]]:
    """(judge, pid) -> (method, score, choice) of every judgment."""
    with Store.open(db) as store:
        found = store.conn.execute(
            "SELECT COALESCE(j.judge_model, 'offline rules'), s.key, j.method, j.score, j.choice "
            "FROM judgments j JOIN answers a ON a.id = j.answer_id "
            "JOIN samples s ON s.id = a.sample_id"
        )
        return {
            (judge, key): (method, score, choice) for judge, key, method, score, choice in found
        }


def test_the_file_name_names_the_model_and_a_reimport_changes_nothing(cli, tmp_path: Path) -> None:
    file = _outputs(tmp_path / "output_gpt-x.json")
    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, file).code == 0
    before = dump(db)
    assert cli("import", "mathvista", db, file).code == 0
    assert dump(db) == before
    assert cli("import", "mathvista", db, file, "--model", "other").code == 0
    with Store.open(db) as store:
        assert store.answers("mathvista", "other") == store.answers("mathvista", "gpt-x")


def test_an_official_verdict_that_differs_is_reported(cli, tmp_path: Path) -> None:
    """A true_false unlike ours is named; a prediction unlike ours whose verdict agrees (the
    published files' older integer rule: "14.5" no integer there, 14 here) is not."""
    problems = {
        "1": _problem("1", "B", extraction="B", prediction="3/11", true_false=False),
        "3": _problem("3", "14", choices=None, answer="15", question_type="free_form",
                      answer_type="integer", extraction="14.5", prediction=None,
                      true_false=False),
    }  # fmt: skip
    result = cli(
        "import", "mathvista", tmp_path / "mv.db", write_json(tmp_path / "o.json", problems)
    )
    assert result.code == 0
    assert "1 official true_false value(s) differ from lmmreview's verdict" in result.stderr
    assert result.stderr.rstrip().endswith(": 1"), result.stderr


BAD = [
    ({"response": None}, "missing or non-text field 'response'"),
    ({"question_type": "open"}, "question_type 'open' is neither multi_choice nor free_form"),
    ({"answer_type": "fraction"}, "answer_type 'fraction' is none of text, integer, float, list"),
    ({"choices": []}, "a multi_choice problem needs its choices"),
    ({"answer": "7/11"}, "answer '7/11' is none of the choices"),
    ({"answer": 8}, "answer must be text or null, not 8"),
    ({"answer_type": "float", "question_type": "free_form"}, "a float answer needs its precision"),
    ({"precision": -1}, "precision -1 is no number of decimals"),
    ({"metadata": "{'split': 'testmini'"}, "metadata is no literal"),
    ({"metadata": {"skills": ["a", 3]}}, "metadata skills ['a', 3] is not text"),
    ({"pid": "9"}, "pid '9' differs from its key"),
    ({"extraction": 2}, "extraction must be text, not 2"),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_a_bad_problem_is_refused_naming_the_file_and_pid(
    cli, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, _outputs(tmp_path / "output_m.json")).code == 0
    before = dump(db)
    bad = write_json(
        tmp_path / "bad.json", {"1": _problem("1", "B"), "2": {**_problem("2", "B"), **change}}
    )
    result = cli("import", "mathvista", db, bad)
    assert result.code != 0
    assert f"{bad}: pid 2: {message}" in result.stderr.replace("\n", "")
    assert dump(db) == before


def test_images_are_read_by_each_problems_image_field_the_missing_named(
    cli, tmp_path: Path
) -> None:
    (tmp_path / "images").mkdir()
    pictures = {"1": png_bytes("red"), "3": png_bytes("blue")}
    for pid, data in pictures.items():
        (tmp_path / "images" / f"{pid}.jpg").write_bytes(data)
    db = tmp_path / "mv.db"
    outputs = _outputs(tmp_path / "output_m.json")
    result = cli("import", "mathvista", db, outputs, "--images", tmp_path)
    assert result.code == 0, result.stderr
    assert f"{tmp_path}: 2 image(s) missing: images/2.jpg, images/4.jpg" in result.stderr
    with Store.open(db) as store:
        for pid in ("1", "2", "3", "4"):
            stored = [store.image_bytes(h) for h in store.image_hashes("mathvista", pid)]
            assert stored == [pictures[pid]] if pid in pictures else not stored, pid


def test_an_image_field_that_names_no_file_is_refused(cli, tmp_path: Path) -> None:
    bad = write_json(tmp_path / "bad.json", {"1": _problem("1", "B", image=3)})
    result = cli("import", "mathvista", tmp_path / "mv.db", bad, "--images", tmp_path)
    assert result.code != 0
    assert f"{bad}: pid 1: image must be text or null, not 3" in result.stderr.replace("\n", "")
    assert not (tmp_path / "mv.db").exists()


def test_the_demo_shows_the_official_extractions_and_the_quick_rules(demo_db: Path) -> None:
    """Each model's file is as the official evaluation leaves it, with its extractions
    (demo-alpha's wrong list among them); lmmreview's own quick rules settle the numbers,
    choices' texts, empty and quoted answers, and leave the rest to the LLM extractor."""
    with Store.open(demo_db) as store:
        official = store.conn.execute(
            "SELECT m.name, s.key, j.score, j.source FROM judgments j "
            "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id WHERE j.judge_model = 'official extractor'"
        ).fetchall()
        settled = store.conn.execute(
            "SELECT m.name, s.key, j.method, j.score FROM judgments j "
            "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id "
            "JOIN models m ON m.id = a.model_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE j.judge_kind = 'offline' AND d.name = 'mathvista'"
        ).fetchall()
        assert all(store.image_hashes("mathvista", str(pid)) for pid in range(1, 9))
    right = {m: sorted(k for name, k, score, _ in official if name == m and score == 1.0)
             for m in DEMO_MODELS}  # fmt: skip
    assert right == {
        "demo-alpha": ["1", "2", "3", "5", "6", "7", "8"],  # its list, 4, is wrong
        "demo-beta": ["1", "2", "4", "6", "7", "8"],
        "demo-gamma": ["3", "5"],
    }
    assert {source for *_, source in official} == {
        f"sample_data/mathvista/output_{m}.json" for m in DEMO_MODELS
    }
    assert sorted(settled) == [
        ("demo-beta", "1", "choice", 1.0), ("demo-beta", "2", "integer", 1.0),
        ("demo-beta", "3", "float", 0.0), ("demo-beta", "5", "choice", 0.0),
        ("demo-beta", "7", "integer", 1.0),
        ("demo-gamma", "3", "float", 1.0), ("demo-gamma", "5", "choice", 1.0),
        ("demo-gamma", "6", "quoted", 0.0), ("demo-gamma", "7", "integer", 0.0),
        ("demo-gamma", "8", "empty", 0.0),
    ]  # fmt: skip


def test_a_blank_or_missing_answer_is_a_hidden_gold_never_scored(cli, tmp_path: Path) -> None:
    hidden = {"8": _problem("8", "8/11", answer="", extraction="B"), "9": _problem("9", "8/11")}
    del hidden["9"]["answer"]
    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, write_json(tmp_path / "o.json", hidden)).code == 0
    with Store.open(db) as store:
        assert [s.golds for s in store.samples("mathvista")] == [[], []]
    assert cli("score", db).code == 0
    assert set(_judgments(db).values()) == {("choice", None, "B")}  # read, never scored


def test_metadata_as_a_python_literal(cli, tmp_path: Path) -> None:
    literal = "{'split': 'test', 'language': 'chinese', 'skills': ['logical reasoning']}"
    file = write_json(tmp_path / "o.json", {"7": _problem("7", "A", metadata=literal)})
    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, file).code == 0
    with Store.open(db) as store:
        (sample,) = store.samples("mathvista")
    assert (sample.split, sample.axis("language")) == ("test", ("chinese",))
    assert sample.axis("skills") == ("logical reasoning",)


# -- the official Claude outputs: scores_claude.json through export and report ----------------------


@needs_fixture("mathvista")
def test_the_official_outputs_score_every_official_figure(cli, tmp_path: Path) -> None:
    folder = FIXTURES / "mathvista"
    official = json.loads((folder / "scores_claude.json").read_text())
    db = tmp_path / "mv.db"
    imported = cli("import", "mathvista", db, folder / "output_claude.json")
    assert imported.code == 0, imported.stderr
    assert "differ" not in imported.stderr  # every official verdict is ours
    assert cli("score", db).code == 0
    assert llm_judgments(db) == set()
    tables = {
        t["name"]: t for t in json.loads(cli("export", db, "--format", "json").stdout)["tables"]
    }
    expected = {("overall", "overall"): official["average"]} | {
        (key, value): figures
        for key, by_value in official.items()
        if key != "average"
        for value, figures in by_value.items()
    }
    found = {}
    for (key, value), figures in expected.items():
        (row,) = tables[f"mathvista.{key}"]["rows"]
        percent, total = row["values"][value], row["n"][value]
        found[key, value] = {"accuracy": f"{percent:.2f}", "correct": round(percent * total / 100),
                             "total": total}  # fmt: skip
        figures["accuracy"] = f"{float(figures['accuracy']):.2f}"  # the average is "26.4"
    assert found == expected
    assert len(expected) == 1 + 2 + 4 + 3 + 31 + 2 + 5 + 16 + 4 + 7
    # The terminal's report shows the same tables, each cell to one decimal, with its N.
    report = cli("report", db).stdout
    shown = [cell for line in re.findall(r"│ claude │(.*)│", report) for cell in line.split("│")]
    totals = [cell for line in re.findall(r"│ N      │(.*)│", report) for cell in line.split("│")]
    cells = [(t["rows"][0]["values"][c], t["rows"][0]["n"][c]) for t in tables.values()
             for c in t["columns"]]  # fmt: skip
    assert [s.strip() for s in shown] == [f"{value:.1f}" for value, _ in cells]
    assert [int(t) for t in totals] == [n for _, n in cells]
    assert "judge official extractor (imported)" in report


def test_the_screen_shows_a_problem_and_grades_it_by_its_option_letter(cli, tmp_path: Path) -> None:
    from tui_harness import drive, text_of, until

    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, _outputs(tmp_path / "output_gpt-x.json")).code == 0
    seen = {}

    async def steps(app, pilot) -> None:
        seen["tables"] = [table.name for table in app.session.tables.breakdown.tables()]
        seen["detail"] = text_of(app, "#answer")
        await pilot.press("C")
        await until(pilot, lambda: app.current().reviewed)
        seen["verdict"] = app.current().verdict

    drive(db, steps, dataset="mathvista")
    assert seen["tables"][0] == "mathvista.overall" and "mathvista.skills" in seen["tables"]
    assert "The answer is (B)." in seen["detail"]
    assert seen["verdict"].choice == "C"
