"""lmms-eval --log_samples files (v0.3 and v0.4 layouts) and LLaVA model_vqa answers, built
here to the layouts those tools write, imported through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import dump, write_lines
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import IMPORTED, Judgment

MODEL = "llava-1.5-7b"  # the folder lmms-eval writes a model's files into
NO_REPLY_NOTE = "1 answer(s) scored 0 by an imported judge result without a reply"

MMVET_DOCS = [
    {"question_id": "v1_0", "question": "What is x?", "answer": "-1<AND>-5", "capability": "ocr,math"},
    {"question_id": "v1_1", "question": "Which colour?", "answer": "green", "capability": "rec"},
    {"question_id": "v1_2", "question": "Price?", "answer": "$4", "capability": "ocr,spat"},
]  # fmt: skip
MMVET_ANSWERS = ["x = -1", "red", "4 dollars"]
# (score, eval_model): a 0.5 and a real 0.0 by GPT-4, and an API failure (0.0, no model).
MMVET_GRADES = [(0.5, "gpt-4-0613"), (0.0, "gpt-4-0613"), (0.0, "")]


def mmvet_line(i: int, layout: str) -> dict[str, object]:
    """Line i of a mmvet samples file as lmms-eval writes it in `layout`."""
    doc, answer = MMVET_DOCS[i], MMVET_ANSWERS[i]
    score, judge = MMVET_GRADES[i]
    grade = {"question_id": doc["question_id"], "question": doc["question"],
             "gt_answer": doc["answer"], "capabilities": doc["capability"],
             "pred_answer": answer, "score": score, "eval_model": judge}  # fmt: skip
    line: dict[str, object] = {"doc_id": i, "target": doc["answer"], "gpt_eval_score": grade}
    if layout == "v0.3":
        line |= {"doc": {**doc, "image_source": "web"}, "arguments": {"0": "max_new_tokens"},
                 "resps": [[answer]], "filtered_resps": [answer], "input": doc["question"]}  # fmt: skip
    else:
        line |= {"input": doc["question"], "filtered_resps": answer}
    return line


def samples_file(tmp_path: Path, task: str, lines: list[dict[str, object]]) -> Path:
    """A samples file where lmms-eval puts it: {output}/{model}/{date}_samples_{task}.jsonl."""
    return write_lines(tmp_path / "logs" / MODEL / f"20240801_120000_samples_{task}.jsonl", lines)


def judgments(db: Path, dataset: str, model: str = MODEL) -> dict[str, Judgment]:
    """Sample key -> the latest judgment of run 0 of `model`'s answer."""
    with Store.open(db) as store:
        answers = store.answer_ids(dataset)
        latest = store.latest_judgments(dataset)
    return {
        key: latest[answer, 0]
        for (m, key), answer in answers.items()
        if (answer, 0) in latest and m == model
    }


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_mmvet_samples_give_questions_answers_and_grades(cli, tmp_path: Path, layout: str) -> None:
    path = samples_file(tmp_path, "mmvet", [mmvet_line(i, layout) for i in range(3)])
    db = tmp_path / "r.db"
    result = cli("import", "mmvet-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmvet")}
        assert samples["v1_0"].axis("capability") == ("ocr", "math")
        assert samples["v1_2"].question == "Price?" and samples["v1_2"].answer == "$4"
        assert store.answers("mmvet", MODEL) == dict(
            zip(("v1_0", "v1_1", "v1_2"), MMVET_ANSWERS, strict=True)
        )
    judged = judgments(db, "mmvet")
    assert {k: (j.score, j.judge_model, j.kind) for k, j in judged.items()} == {
        "v1_0": (0.5, "gpt-4-0613", IMPORTED),
        "v1_1": (0.0, "gpt-4-0613", IMPORTED),
        "v1_2": (0.0, "gpt-4-0613", IMPORTED),  # a failed call: the same judge, no reply
    }
    assert all(j.source == str(path) and j.status == "ok" for j in judged.values())
    assert json.loads(judged["v1_1"].reply) == {"score": 0.0, "eval_model": "gpt-4-0613"}
    assert judged["v1_2"].reply == ""  # lmms-eval kept nothing of a failed call
    report = cli("report", db)
    assert report.code == 0, report.stderr
    assert "16.7" in report.stdout  # (0.5 + 0 + 0) / 3: the failure counts as 0, as lmms-eval's
    assert NO_REPLY_NOTE in " ".join(report.stdout.split())
    again = cli("import", "mmvet-lmms-eval", db, path)
    assert again.code == 0 and "(0 new)" in again.stdout


def test_the_no_reply_count_is_in_the_json_notes_and_leaves_once_a_human_grades(
    cli, tmp_path: Path
) -> None:
    path = samples_file(tmp_path, "mmvet", [mmvet_line(i, "v0.4") for i in range(3)])
    db = tmp_path / "r.db"
    assert cli("import", "mmvet-lmms-eval", db, path, "--model", "m").code == 0
    exported = json.loads(cli("export", db, "--format", "json").stdout)
    assert exported["notes"]["mmvet"]["no_reply"] == 1
    with Store.open(db) as store:
        failed = store.answer_ids("mmvet")["m", "v1_2"]  # --model names the model
        ReviewStore(store, "tester").grade(failed, 1.0)
    graded = json.loads(cli("export", db, "--format", "json").stdout)
    assert "no_reply" not in graded["notes"]["mmvet"]  # a human score replaced the 0.0
    assert "without a reply" not in cli("report", db).stdout


def test_the_no_reply_filter_finds_the_failed_grade_and_the_screen_notes_count_it(
    cli, tmp_path: Path
) -> None:
    path = samples_file(tmp_path, "mmvet", [mmvet_line(i, "v0.3") for i in range(3)])
    db = tmp_path / "r.db"
    assert cli("import", "mmvet-lmms-eval", db, path).code == 0
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        seen["notes"] = await app.review_screen.notes_text()
        await pilot.press("v")
        await pick(app, pilot, "No judge reply (an imported 0.0)")
        await until(pilot, lambda: app.session.filter.no_reply)
        seen["keys"] = [app.session.entries[i].key for i in app.session.visible]
        seen["status"] = text_of(app, "#status")

    drive(db, steps)
    assert seen["keys"] == ["v1_2"]  # not v1_1, whose 0.0 a judge gave
    assert "judge result without a reply" in str(seen["status"])
    assert NO_REPLY_NOTE in str(seen["notes"])


# -- MMBench ------------------------------------------------------------------------------------

MMBENCH_DOCS = [
    {"index": 7, "question": "Is it day?", "hint": "nan", "A": "yes", "B": "no", "C": "nan",
     "D": "nan", "answer": "A", "category": "image_scene", "L2-category": "coarse_perception",
     "source": "s", "split": "dev"},
    {"index": 1000007, "question": "Is it day?", "hint": "nan", "A": "no", "B": "yes", "C": "nan",
     "D": "nan", "answer": "B", "category": "image_scene", "L2-category": "coarse_perception",
     "source": "s", "split": "dev"},
]  # fmt: skip


def mmbench_line(i: int, layout: str, answer: str) -> dict[str, object]:
    doc = MMBENCH_DOCS[i]
    record = {**doc, "prediction": answer, "E": "nan"}
    line: dict[str, object] = {"doc_id": i, "target": doc["answer"], "gpt_eval_score": record,
                               "submission": record}  # fmt: skip
    if layout == "v0.3":
        line |= {"doc": doc, "arguments": {}, "resps": [[answer]], "filtered_resps": [answer]}
    else:
        line |= {"input": doc["question"], "filtered_resps": [answer]}
    return line


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_mmbench_samples_give_circular_rows_and_answers(cli, tmp_path: Path, layout: str) -> None:
    lines = [mmbench_line(0, layout, "A"), mmbench_line(1, layout, "B. yes")]
    path = samples_file(tmp_path, "mmbench_en_dev", lines)
    db = tmp_path / "r.db"
    result = cli("import", "mmbench-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmbench")}
        assert samples["1000007"].options == {"A": "no", "B": "yes"}  # "nan" options left out
        assert samples["1000007"].extra == {"circular_group": 7, "rotation": 1}
        assert samples["7"].axis("l2_category") == ("coarse_perception",)
        assert samples["7"].hint is None
        assert store.answers("mmbench", MODEL) == {"7": "A", "1000007": "B. yes"}
    assert judgments(db, "mmbench") == {}  # lmms-eval extracts choices only when aggregating
    assert cli("score", db).code == 0
    exported = json.loads(cli("export", db, "--format", "json").stdout)
    row = exported["tables"][0]["rows"][0]
    assert (row["values"]["overall"], row["n"]["overall"]) == (100.0, 1)  # one circular group


# -- MMMU ---------------------------------------------------------------------------------------

MMMU_DOCS = [
    {"id": "validation_Art_Theory_1", "question": "Which period? <image 1>",
     "options": "['Baroque', 'Rococo', 'Gothic']", "answer": "B", "question_type": "multiple-choice",
     "subfield": "Art History", "topic_difficulty": "Easy", "img_type": "['Paintings']",
     "explanation": ""},
    {"id": "validation_Math_2", "question": "What is 2+2?", "options": "[]", "answer": "4",
     "question_type": "open", "subfield": "Algebra", "topic_difficulty": "Easy",
     "img_type": "['Diagrams']", "explanation": ""},
    {"id": "validation_Math_3", "question": "Which is prime?", "options": "['4', '6', '7']",
     "answer": "C", "question_type": "multiple-choice", "subfield": "Algebra",
     "topic_difficulty": "Hard", "img_type": "['Diagrams']", "explanation": ""},
]  # fmt: skip
MMMU_ANSWERS = ["(B) Rococo", "It is 4", "The answer is A"]
MMMU_PARSED = ["B", "4", "A"]


def mmmu_line(i: int, layout: str) -> dict[str, object]:
    doc, answer, parsed = MMMU_DOCS[i], MMMU_ANSWERS[i], MMMU_PARSED[i]
    acc = {"id": doc["id"], "subdomain": doc["id"].split("_", 1)[1].rsplit("_", 1)[0],
           "question_type": doc["question_type"], "answer": doc["answer"]}  # fmt: skip
    line: dict[str, object] = {"doc_id": i, "target": doc["answer"]}
    if layout == "v0.3":  # parsed_pred: the letter, or the open parser's candidates
        acc["parsed_pred"] = parsed if doc["question_type"] == "multiple-choice" else [4.0]
        line |= {"doc": doc, "arguments": {}, "resps": [[answer]], "filtered_resps": [answer],
                 "mmmu_acc": acc, "submission": {doc["id"]: answer}}  # fmt: skip
    else:  # one parsed prediction per response
        acc["parsed_pred"] = [parsed]
        line |= {"input": doc["question"], "filtered_resps": [answer], "mmmu_acc": acc,
                 "mmmu_acc_pass_at_k": acc, "submission": {doc["id"]: parsed}}  # fmt: skip
    return line


def questions_file(tmp_path: Path) -> Path:
    """The same questions in the Hugging Face layout `lmmreview import mmmu` reads."""
    return write_lines(tmp_path / "questions.jsonl", MMMU_DOCS)


def assert_mmmu_judgments(db: Path, path: Path) -> None:
    judged = judgments(db, "mmmu")
    assert {k: (j.choice, j.score) for k, j in judged.items()} == {
        "validation_Art_Theory_1": ("B", 1.0),
        "validation_Math_3": ("A", 0.0),
    }  # the open answer has no imported judgment: lmmreview's rules judge it
    assert {j.judge_model for j in judged.values()} == {"lmms-eval rules"}
    assert {j.source for j in judged.values()} == {str(path)}


def test_mmmu_v03_samples_give_questions_answers_and_parsed_choices(cli, tmp_path: Path) -> None:
    path = samples_file(tmp_path, "mmmu_val", [mmmu_line(i, "v0.3") for i in range(3)])
    db = tmp_path / "r.db"
    result = cli("import", "mmmu-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmmu")}
        assert samples["validation_Art_Theory_1"].options == {
            "A": "Baroque",
            "B": "Rococo",
            "C": "Gothic",
        }
        assert samples["validation_Math_3"].axis("difficulty") == ("Hard",)
        assert store.answers("mmmu", MODEL)["validation_Math_2"] == "It is 4"
    assert_mmmu_judgments(db, path)
    assert cli("score", db).code == 0
    # MMMU's offline rules are its official parse: they are shown, lmms-eval's beside them
    exported = json.loads(cli("export", db, "--format", "json").stdout)
    overall = exported["tables"][0]["rows"][0]["values"]["overall"]
    assert round(overall, 1) == 66.7  # B right, 4 right, A wrong
    assert exported["notes"]["mmmu"]["other_judges"] == ["lmms-eval rules (imported)"]
    tool = cli("export", db, "--format", "json", "--judge", "lmms-eval rules (imported)")
    exported = json.loads(tool.stdout)  # lmms-eval's choices
    overall = exported["tables"][0]["rows"][0]["values"]["overall"]
    assert round(overall, 1) == 50.0  # B right, A wrong; the open answer is none of its
    assert exported["notes"]["mmmu"]["unscored"] == 1


def test_mmmu_v04_samples_answer_the_questions_imported_before(cli, tmp_path: Path) -> None:
    path = samples_file(tmp_path, "mmmu_val", [mmmu_line(i, "v0.4") for i in range(3)])
    db = tmp_path / "r.db"
    alone = cli("import", "mmmu-lmms-eval", db, path)
    assert alone.code == 1
    assert str(path) in alone.stderr and "import its samples first" in alone.stderr
    assert not db.exists()
    assert cli("import", "mmmu", db, "--questions", questions_file(tmp_path)).code == 0
    result = cli("import", "mmmu-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("mmmu", MODEL) == dict(
            zip((d["id"] for d in MMMU_DOCS), MMMU_ANSWERS, strict=True)
        )
    assert_mmmu_judgments(db, path)


# -- LLaVA model_vqa answers --------------------------------------------------------------------


def model_vqa(tmp_path: Path, name: str, answers: dict[object, str]) -> Path:
    """LLaVA's model_vqa output: one line per question."""
    lines = [
        {"question_id": qid, "prompt": "q", "text": text, "answer_id": f"a{n}",
         "model_id": "llava-v1.5-13b", "metadata": {}}
        for n, (qid, text) in enumerate(answers.items())
    ]  # fmt: skip
    return write_lines(tmp_path / name, lines)


def test_model_vqa_answers_import_for_mmvet(cli, mmvet_files, tmp_path: Path) -> None:
    answers = model_vqa(tmp_path, "llava-mmvet.jsonl", {0: "x = -1", 1: "green", "v1_2": "$4"})
    db = tmp_path / "r.db"
    result = cli("import", "mmvet", db, mmvet_files["questions"], "--answers", answers)
    assert result.code == 0, result.stderr
    named = cli(
        "import", "mmvet", db, mmvet_files["questions"], "--answers", answers, "--model", "mine"
    )
    assert named.code == 0, named.stderr
    with Store.open(db) as store:
        expected = {"v1_0": "x = -1", "v1_1": "green", "v1_2": "$4"}
        assert store.answers("mmvet", "llava-v1.5-13b") == expected  # the lines' model_id
        assert store.answers("mmvet", "mine") == expected


def test_model_vqa_answers_import_for_mmbench(cli, mmbench_tsv, tmp_path: Path) -> None:
    answers = model_vqa(tmp_path, "answers.jsonl", {7: "A", 1000007: "B", "9": "C"})
    db = tmp_path / "r.db"
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", answers)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("mmbench", "llava-v1.5-13b") == {"7": "A", "1000007": "B", "9": "C"}


# -- bad input ----------------------------------------------------------------------------------


def bad_lines(case: str) -> tuple[str, list[str]]:
    """(command, file lines) of one kind of bad input; line 2 is the bad one."""
    good = json.dumps(mmvet_line(0, "v0.3"))
    broken = {
        "not json": "{doc_id: 1,",
        "missing doc field": json.dumps(
            {**mmvet_line(1, "v0.3"), "doc": {"question_id": "v1_1", "question": "q"}}
        ),
        "unknown layout": json.dumps({"question_id": "v1_1", "text": "red"}),
        "no question in v0.4": json.dumps({"doc_id": 1, "input": "q", "filtered_resps": "red"}),
        "bad score": json.dumps(
            mmvet_line(1, "v0.3")
            | {"gpt_eval_score": {**mmvet_line(1, "v0.3")["gpt_eval_score"], "score": 5}}
        ),  # type: ignore[dict-item]
        "repeated id": good,
    }[case]
    return "mmvet-lmms-eval", [good, broken]


@pytest.mark.parametrize(
    "case",
    [
        "not json",
        "missing doc field",
        "unknown layout",
        "no question in v0.4",
        "bad score",
        "repeated id",
    ],
)
def test_bad_samples_file_is_one_line_naming_file_and_line(cli, tmp_path: Path, case: str) -> None:
    db = tmp_path / "r.db"
    first = samples_file(tmp_path / "first", "mmvet", [mmvet_line(2, "v0.4")])
    assert cli("import", "mmvet-lmms-eval", db, first).code == 0
    before = dump(db)
    command, lines = bad_lines(case)
    path = tmp_path / "bad_samples_mmvet.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("import", command, db, path)
    assert result.code == 1
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert str(path) in message and "line 2" in message
    assert dump(db) == before


def test_bad_model_vqa_line_names_file_and_line(cli, mmbench_tsv, tmp_path: Path) -> None:
    answers = write_lines(
        tmp_path / "a.jsonl", [{"question_id": 7, "text": "A"}, {"question_id": 9}]
    )
    result = cli("import", "mmbench", tmp_path / "r.db", mmbench_tsv, "--answers", answers)
    assert result.code == 1
    assert f"{answers}: line 2: missing field 'text'" in result.stderr
    assert not (tmp_path / "r.db").exists()


# -- issue 25, item 7: options as objects, ids that disagree -----------------------------------

LETTERS = ("A", "B", "C", "D")


def without_letters(doc: dict[str, object], options: object) -> dict[str, object]:
    return {k: v for k, v in doc.items() if k not in LETTERS} | {"options": options}


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
@pytest.mark.parametrize(
    "options", [{"A": "no", "B": "yes"}, ["no", "yes"]], ids=["object", "list"]
)
def test_mmbench_options_given_as_an_object_or_a_list_are_options(
    cli, tmp_path: Path, layout: str, options: object
) -> None:
    line = mmbench_line(1, layout, "B")
    for name in ("doc", "gpt_eval_score", "submission"):
        if name in line:
            line[name] = without_letters(line[name], options)  # type: ignore[arg-type]
    db = tmp_path / "r.db"
    result = cli(
        "import", "mmbench-lmms-eval", db, samples_file(tmp_path, "mmbench_en_dev", [line])
    )
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        (sample,) = store.samples("mmbench")
    assert sample.options == {"A": "no", "B": "yes"}
    assert sample.golds == ["B"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"A": {"A": "yes"}}, "field 'A' must be text, not an object"),
        ({"hint": ["look up"]}, "field 'hint' must be text, not a list"),
        ({"question": {"en": "Is it day?"}}, "field 'question' must be text, not an object"),
        ({"options": "A. yes B. no"}, "options must be an object (letter -> text) or a list of text"),
        ({"options": {"a": "yes", "B": "no"}}, "options: 'a' is not an option letter (A, B, C, D)"),
        ({"options": ["1", "2", "3", "4", "5"]}, "options: 5 of them, and MMBench has at most 4"),
        ({"options": {"A": "no"}}, "option A is 'yes' in field A but 'no' in options"),
        ({"options": {"C": ["x"]}}, "option C in options must be text, not a list"),
    ],
)  # fmt: skip
def test_mmbench_fields_of_other_shapes_are_refused(
    cli, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    line = mmbench_line(0, "v0.3", "A")
    line["doc"] = {**line["doc"], **change}  # type: ignore[dict-item]
    path = samples_file(tmp_path, "mmbench_en_dev", [line])
    result = cli("import", "mmbench-lmms-eval", tmp_path / "r.db", path)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [f"error: {path}: line 1: {message}"]
    assert not (tmp_path / "r.db").exists()


def test_mmmu_options_given_as_an_object_are_options(cli, tmp_path: Path) -> None:
    doc = {**MMMU_DOCS[0], "options": {"A": "Baroque", "B": "Rococo", "C": "Gothic"}}
    line = mmmu_line(0, "v0.3") | {"doc": doc}
    db = tmp_path / "r.db"
    result = cli("import", "mmmu-lmms-eval", db, samples_file(tmp_path, "mmmu_val", [line]))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        (sample,) = store.samples("mmmu")
    assert sample.options == {"A": "Baroque", "B": "Rococo", "C": "Gothic"}
    line["doc"] = {**doc, "options": {"B": "Baroque", "A": "Rococo"}}
    path = samples_file(tmp_path / "other", "mmmu_val", [line])
    result = cli("import", "mmmu-lmms-eval", tmp_path / "other.db", path)
    assert result.stderr.strip() == (
        f"error: {path}: line 1, id validation_Art_Theory_1: options: the keys must be the "
        "letters A, B in order"
    )


def test_an_mmmu_grade_of_another_id_than_its_doc_is_refused(cli, tmp_path: Path) -> None:
    """The parsed choice would be judged against the doc's gold: another question's."""
    line = mmmu_line(0, "v0.3")
    line["mmmu_acc"] = {**line["mmmu_acc"], "id": "validation_Math_3"}  # type: ignore[dict-item]
    path = samples_file(tmp_path, "mmmu_val", [mmmu_line(1, "v0.3"), line])
    result = cli("import", "mmmu-lmms-eval", tmp_path / "r.db", path)
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: {path}: line 2: mmmu_acc's id 'validation_Math_3' is not the doc's id "
        "'validation_Art_Theory_1'"
    )
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize(
    ("command", "metric", "layout"),
    [
        ("mmvet-lmms-eval", "gpt_eval_score", "v0.3"),
        ("mmbench-lmms-eval", "gpt_eval_score", "v0.3"),
        ("mmbench-lmms-eval", "submission", "v0.3"),
        ("mmbench-lmms-eval", "submission", "v0.4"),
    ],
)
def test_a_grade_of_another_id_than_its_line_is_refused(
    cli, tmp_path: Path, command: str, metric: str, layout: str
) -> None:
    """B11: the MM-Vet line of v1_0 with a gpt_eval_score of v1_1 had its grade stored on
    v1_0; MMBench's gpt_eval_score and submission repeat the question too."""
    if command == "mmvet-lmms-eval":
        first, line = mmvet_line(1, layout), mmvet_line(0, layout)
        other, key, given = {"question_id": "v1_1"}, "v1_0", "v1_1"
        task = "mmvet"
    else:
        first, line = mmbench_line(1, layout, "B"), mmbench_line(0, layout, "A")
        other, key, given = {"index": 1000007}, "7", "1000007"
        task = "mmbench_en_dev"
    line[metric] = {**line[metric], **other}  # type: ignore[dict-item]
    path = samples_file(tmp_path, task, [first, line])
    result = cli("import", command, tmp_path / "r.db", path)
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: {path}: line 2: {metric}'s id {given!r} is not the doc's id {key!r}"
    )
    assert not (tmp_path / "r.db").exists()
