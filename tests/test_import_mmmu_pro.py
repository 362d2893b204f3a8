"""`lmmreview import mmmu-pro`: the official output files, through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, dump, needs_fixture, png_bytes, write_lines

from lmmreview.db import Store
from lmmreview.db.benchmarks.mmmu_pro.files import OFFICIAL_JUDGE, OFFICIAL_PROMPT
from lmmreview.engine.scoring import IMPORTED, OFFLINE, Judge, Status

OPTIONS = "['red', 'green', \"it's blue\", 'grey']"


def _line(key: str, response: object, answer: str = "B", **more: Any) -> dict[str, Any]:
    subject = key.split("_", 1)[1].rsplit("_", 1)[0]
    return {"id": key, "question": f"<image 1> {key}?", "options": OPTIONS, "explanation": "?",
            "img_type": "['Diagrams', 'Tables']", "answer": answer, "topic_difficulty": "Hard",
            "subject": subject, "response": response, **more}  # fmt: skip


def _outputs(folder: Path) -> Path:
    lines = [_line("test_Math_1", "Answer: B"), _line("validation_Art_2", "(C)", answer="C")]
    write_lines(folder / "m_standard(10 options)_cot.jsonl", lines)
    write_lines(folder / "m_vision_direct.jsonl", [{**line, "response": "A"} for line in lines])
    return folder


def test_a_folder_of_output_files_is_one_model_each(cli, tmp_path: Path) -> None:
    db = tmp_path / "pro.db"
    result = cli("import", "mmmu-pro", db, _outputs(tmp_path / "output"))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmmu-pro")}
        math = samples["test_Math_1"]
        assert math.options == {"A": "red", "B": "green", "C": "it's blue", "D": "grey"}
        assert (math.question_type, math.golds, math.split) == ("choice", ["B"], None)
        assert {n: math.axis(n) for n in ("subject", "discipline", "difficulty", "img_type")} == {
            "subject": ("Math",), "discipline": ("Science",), "difficulty": ("Hard",),
            "img_type": ("Diagrams", "Tables"),
        }  # fmt: skip
        assert store.answers("mmmu-pro", "m_standard(10 options)_cot") == {
            "test_Math_1": "Answer: B", "validation_Art_2": "(C)",
        }  # fmt: skip
        assert set(store.answers("mmmu-pro", "m_vision_direct").values()) == {"A"}


def test_one_file_under_a_model_name_and_idempotence(cli, tmp_path: Path) -> None:
    file = _outputs(tmp_path / "output") / "m_vision_direct.jsonl"
    db = tmp_path / "pro.db"
    args = ("import", "mmmu-pro", db, file, "--model", "gpt-x")
    assert cli(*args).code == 0
    before = dump(db)
    assert cli(*args).code == 0
    assert dump(db) == before
    with Store.open(db) as store:
        assert store.answers("mmmu-pro", "gpt-x") == {"test_Math_1": "A", "validation_Art_2": "A"}


def test_images_by_id_the_screenshot_first_and_a_question_without_one_named(
    cli, tmp_path: Path
) -> None:
    images = tmp_path / "images"
    images.mkdir()
    pictures = {name: png_bytes(color) for name, color in (
        ("test_Math_1_2.png", "blue"), ("test_Math_1.png", "red"), ("test_Math_1_1.png", "green"),
    )}  # fmt: skip
    for name, data in pictures.items():
        (images / name).write_bytes(data)
    db = tmp_path / "pro.db"
    result = cli("import", "mmmu-pro", db, _outputs(tmp_path / "output"), "--images", images)
    assert result.code == 0, result.stderr
    assert f"{images}: 1 question(s) without an image: validation_Art_2" in result.stderr
    with Store.open(db) as store:
        stored = [store.image_bytes(h) for h in store.image_hashes("mmmu-pro", "test_Math_1")]
    assert stored == [pictures[f"test_Math_1{end}.png"] for end in ("", "_1", "_2")]


def test_an_object_response_is_no_answer_as_in_the_official_code(cli, tmp_path: Path) -> None:
    file = write_lines(tmp_path / "m.jsonl", [_line("test_Math_1", {"error": "timeout"})])
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, file).code == 0
    with Store.open(db) as store:
        assert store.answers("mmmu-pro", "m") == {"test_Math_1": ""}


def test_an_option_that_is_a_list_and_an_answer_beyond_the_options(cli, tmp_path: Path) -> None:
    """As the official validation_Accounting_29: one option, a list; the answer B."""
    line = _line("validation_Accounting_29", "C", options="[['A', 'B', 'Not enough information']]")
    db = tmp_path / "pro.db"
    result = cli("import", "mmmu-pro", db, write_lines(tmp_path / "m.jsonl", [line]))
    assert result.code == 0, result.stderr
    assert "1 answer(s) not among their question's option letters" in result.stderr
    with Store.open(db) as store:
        (sample,) = store.samples("mmmu-pro")
    assert sample.options == {"A": "['A', 'B', 'Not enough information']"}


BAD_LINES = [
    ({"response": None}, "line 2: missing or non-text field 'response'"),
    ({"options": "['a', 'b'"}, "line 2: options is not a list literal"),
    ({"options": "[{'a': 1}]"}, "line 2: options must be a list of text or numbers"),
    ({"options": "[]"}, "a multiple-choice question needs its options"),
    ({"subject": "Art"}, "line 2: subject 'Art', and the id 'test_Math_2' is of 'Math'"),
    ({"id": "Math_2"}, "is not of the form <split>_<Subject>_<number>"),
    ({"id": "test_Math_1"}, "line 2: duplicate id 'test_Math_1' (also on line 1)"),
]


@pytest.mark.parametrize(("change", "message"), BAD_LINES)
def test_a_bad_line_is_refused_naming_the_file_and_line(
    cli, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, _outputs(tmp_path / "output")).code == 0
    before = dump(db)
    bad = write_lines(
        tmp_path / "bad.jsonl", [_line("test_Math_1", "B"), {**_line("test_Math_2", "B"), **change}]
    )
    result = cli("import", "mmmu-pro", db, bad)
    assert result.code != 0
    assert str(bad) in result.stderr and message in result.stderr
    assert dump(db) == before


def test_files_that_disagree_on_a_question_are_refused(cli, tmp_path: Path) -> None:
    folder = _outputs(tmp_path / "output")
    write_lines(folder / "n_vision_cot.jsonl", [_line("test_Math_1", "A", answer="D")])
    result = cli("import", "mmmu-pro", tmp_path / "pro.db", folder)
    assert result.code != 0
    assert (
        "n_vision_cot.jsonl: line 1: question 'test_Math_1' differs from the one in"
        in result.stderr
    )


def test_a_model_name_for_a_folder_is_refused(cli, tmp_path: Path) -> None:
    result = cli(
        "import", "mmmu-pro", tmp_path / "pro.db", _outputs(tmp_path / "o"), "--model", "m"
    )
    assert result.code != 0 and "give one file" in result.stderr
    assert not (tmp_path / "pro.db").exists()


# -- the official GPT-4o outputs: README figures through import, score and export ------------------


@needs_fixture("mmmu-pro")
def test_the_official_outputs_score_the_official_figures(cli, tmp_path: Path) -> None:
    db = tmp_path / "pro.db"
    imported = cli("import", "mmmu-pro", db, FIXTURES / "mmmu-pro")
    assert imported.code == 0, imported.stderr
    assert "validation_Accounting_29" in imported.stderr  # its answer, B, is no option letter
    scored = cli("score", db)
    assert (
        "3460 answers scored by the offline rules (7 by the seeded fallback, marked)"
        in scored.stdout
    )
    rules = cli("export", db, "--format", "json", "--judge", "offline rules")
    tables = json.loads(rules.stdout)["tables"]
    overall = {row["model"]: row for row in tables[0]["rows"]}
    assert tables[0]["name"] == "mmmu-pro.disciplines"
    cot, direct = (overall[f"gpt-4o_standard(10 options)_{p}"] for p in ("cot", "direct"))
    # cot: 952/1730 = 55.03 %, no fallback; direct: 695/1730 = 40.17 %, give or take its 7.
    assert (cot["n"]["overall"], cot["fallback"]["overall"]) == (1730, 0)
    assert round(cot["values"]["overall"] * 1730 / 100) == 952
    assert (direct["n"]["overall"], direct["fallback"]["overall"]) == (1730, 7)
    assert abs(round(direct["values"]["overall"] * 1730 / 100) - 695) <= 7
    names = [table["name"] for table in tables]
    assert names == [f"mmmu-pro.{t}" for t in ("disciplines", "subjects", "difficulty", "img_type")]
    by_subject = {row["model"]: row for row in tables[1]["rows"]}
    assert sum(by_subject[cot["model"]]["n"].values()) == 1730
    assert len(tables[1]["columns"]) == 30


# -- the vision setting, and evaluate.py's own verdicts ---------------------------------------

TEN = repr([f"option {n}" for n in range(1, 11)])
# id, answer, then (response, evaluate.py's pred_indexs) in the standard and vision settings,
# as GPT-4o's outputs give them (the vision setting's refusals name `I` by the letter rule).
SETTINGS = [
    ("test_History_1", "B", ("B. option 2", "B"), ("Answer: A", "A")),
    ("test_History_134", "J", ("Answer: (J)", "J"), ("I'm sorry, I can't help with that.", "I")),
    ("validation_Design_19", "H", ("Answer: G or H", "H"), ("Answer: H", "H")),
    ("test_Art_113", "A", ("Sorry.", "C"), ("Answer: (H)", "H")),  # standard: the fallback
]


def _evaluated(folder: Path, model: str, setting: int) -> None:
    """`model`'s output file in one setting (0 standard, 1 vision), as evaluate.py leaves it."""
    name = ("standard(10 options)", "vision")[setting]
    lines = []
    for key, answer, *responses in SETTINGS:
        response, letter = responses[setting]
        line = _line(key, response, answer=answer, options=TEN, img_type="['Photographs']")
        lines.append({**line, "pred_indexs": letter, "if_right": letter == answer})
    write_lines(folder / f"{model}_{name}_direct.jsonl", lines)


def _choices(db: Path, model: str, judge: Judge) -> dict[str, str | None]:
    with Store.open(db) as store:
        latest = store.latest_judgments("mmmu-pro", judge)
        return {
            key: latest[answer, 0].choice
            for (m, key), answer in store.answer_ids("mmmu-pro").items()
            if m == model
        }


def test_a_vision_and_a_standard_file_of_one_model_share_the_questions(cli, tmp_path: Path) -> None:
    """The two settings ask the same questions (GPT-4o's 1,730 agree in every field): one
    dataset, one model per file, each scored by the same parse."""
    folder = tmp_path / "output"
    for setting in (0, 1):
        _evaluated(folder, "gpt-4o", setting)
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, folder).code == 0
    assert "8 answers scored by the offline rules (1 by the seeded" in cli("score", db).stdout
    with Store.open(db) as store:
        assert len(store.samples("mmmu-pro")) == len(SETTINGS)
    for setting, model in enumerate(("gpt-4o_standard(10 options)_direct", "gpt-4o_vision_direct")):
        parsed = _choices(db, model, OFFLINE)
        official = {key: responses[setting][1] for key, _, *responses in SETTINGS}
        fallback = {"test_Art_113"} if setting == 0 else set()
        assert {k: v for k, v in parsed.items() if k not in fallback} == {
            k: v for k, v in official.items() if k not in fallback
        }


def test_evaluate_pys_verdicts_are_a_judge_of_their_own(cli, tmp_path: Path) -> None:
    """pred_indexs and if_right become the imported judge mmmu-pro/evaluate.py, beside the
    offline rules: the two differ only where the parse fell back to a random letter."""
    folder = tmp_path / "output"
    _evaluated(folder, "m", 0)
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, folder).code == 0
    assert cli("score", db).code == 0
    model = "m_standard(10 options)_direct"
    official = Judge(IMPORTED, OFFICIAL_JUDGE, OFFICIAL_PROMPT)
    imported = _choices(db, model, official)
    assert imported == {key: responses[0][1] for key, _, *responses in SETTINGS}
    parsed = _choices(db, model, OFFLINE)
    assert {k for k in parsed if parsed[k] != imported[k]} <= {"test_Art_113"}  # the fallback
    # the offline rules are the official parse (seeded fallback): shown, the file's beside
    exported = json.loads(cli("export", db, "--format", "json").stdout)
    assert exported["notes"]["mmmu-pro"]["other_judges"] == [f"{OFFICIAL_JUDGE} (imported)"]
    official = cli("export", db, "--format", "json", "--judge", f"{OFFICIAL_JUDGE} (imported)")
    assert json.loads(official.stdout)["tables"][0]["rows"][0]["values"]["overall"] == 75.0
    right = [parsed[key] == gold for key, gold, *_ in SETTINGS]
    assert exported["tables"][0]["rows"][0]["values"]["overall"] == 100 * sum(right) / len(right)
    judges = cli("judges", db).stdout
    assert f"{OFFICIAL_JUDGE} (imported)" in judges and "offline rules" in judges


def test_a_folder_grown_by_a_file_imports_again_with_replace(cli, tmp_path: Path) -> None:
    """The files' verdicts are an import of their own: a folder read again (a model's file
    added) is refused without --replace or --judge, as every judgment import is, and the
    command has both (it named options it did not take)."""
    folder = tmp_path / "output"
    _evaluated(folder, "m", 0)
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, folder).code == 0
    _evaluated(folder, "m", 1)
    again = cli("import", "mmmu-pro", db, folder)
    assert again.code != 0 and "--replace" in again.stderr
    assert cli("import", "mmmu-pro", db, folder, "--replace").code == 0
    official = Judge(IMPORTED, OFFICIAL_JUDGE, OFFICIAL_PROMPT)
    vision = _choices(db, "m_vision_direct", official)
    assert vision == {key: responses[1][1] for key, _, *responses in SETTINGS}
    assert cli("import", "mmmu-pro", db, folder, "--judge", "evaluate.py rerun").code == 0


BAD_VERDICTS = [
    ({"pred_indexs": "B"}, "pred_indexs must be a letter and if_right true or false"),
    ({"pred_indexs": "B", "if_right": 1}, "pred_indexs must be a letter and if_right true"),
    ({"pred_indexs": "E", "if_right": False}, "pred_indexs 'E' is none of the option letters"),
    ({"pred_indexs": "A", "if_right": True}, "if_right true and pred_indexs 'A', the answer 'B'"),
]


@pytest.mark.parametrize(("change", "message"), BAD_VERDICTS)
def test_a_bad_verdict_is_refused_naming_the_file_and_line(
    cli, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    bad = write_lines(
        tmp_path / "m.jsonl", [_line("test_Math_1", "B"), {**_line("test_Math_2", "B"), **change}]
    )
    result = cli("import", "mmmu-pro", tmp_path / "pro.db", bad)
    assert result.code != 0
    assert f"{bad}: line 2: {message}" in result.stderr
    assert not (tmp_path / "pro.db").exists()


@needs_fixture("mmmu-pro")
def test_the_parse_differs_from_evaluate_pys_recorded_run_only_at_its_fallbacks(
    cli, tmp_path: Path
) -> None:
    """lmmreview's parse gives every verdict of the files' own (evaluate.py's run) but where
    both drew a random letter; with those draws, its verdicts give the run's figure: 952 for
    cot, and for direct 694 (the README's run drew 695: its 7 draws vary)."""
    db = tmp_path / "pro.db"
    assert cli("import", "mmmu-pro", db, FIXTURES / "mmmu-pro").code == 0
    assert cli("score", db).code == 0
    official = Judge(IMPORTED, OFFICIAL_JUDGE, OFFICIAL_PROMPT)
    with Store.open(db) as store:
        answers = store.answer_ids("mmmu-pro")
        ours, theirs = (store.latest_judgments("mmmu-pro", j) for j in (OFFLINE, official))
    for method, right, fallbacks in (("cot", 952, 0), ("direct", 694, 7)):
        mine = {a for (m, _), a in answers.items() if m.endswith(f"_{method}")}
        assert sum(theirs[a, 0].score for a in mine) == right
        fell_back = {a for a in mine if ours[a, 0].status is Status.FALLBACK}
        assert len(fell_back) == fallbacks
        assert {a for a in mine if ours[a, 0].choice != theirs[a, 0].choice} <= fell_back
        # the official figure again, from our verdicts with the fallbacks' own draws
        kept = sum(ours[a, 0].score for a in mine - fell_back)
        assert kept + sum(theirs[a, 0].score for a in fell_back) == right
