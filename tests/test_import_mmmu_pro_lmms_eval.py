"""`lmmreview import mmmu-pro-lmms-eval`: lmms-eval's --log_samples lines of the MMMU-Pro tasks,
as tasks/mmmu_pro/utils.py writes them (EvolvingLMMs-Lab/lmms-eval 75571cfe)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import dump, write_lines
from test_import_lmms_eval import MODEL, samples_file

from lmmreview.db import Store
from lmmreview.db.importers.lmms_eval import RULES_JUDGE
from lmmreview.engine.scoring import IMPORTED, OFFLINE, Judge, Judgment

TEN = repr([f"option {n}" for n in range(1, 11)])
# id, answer, response, lmms-eval's parsed_pred in the standard setting
QUESTIONS = [
    ("test_History_1", "B", "Answer: B", "B"),
    ("test_Art_113", "A", "The painter is (H).", "H"),
    ("validation_Design_19", "H", "H", "H"),
]
LMMS_EVAL = Judge(IMPORTED, RULES_JUDGE, "lmms-eval")


def _doc(key: str, answer: str, vision: bool) -> dict[str, object]:
    """The dataset row lmms-eval keeps (its images left out); a vision row has no question."""
    subject = key.split("_", 1)[1].rsplit("_", 1)[0]
    if vision:
        return {"id": key, "options": TEN, "answer": answer, "subject": subject}
    return {"id": key, "question": f"<image 1> {key}?", "options": TEN, "explanation": "?",
            "img_type": "['Photographs']", "answer": answer, "topic_difficulty": "Easy",
            "subject": subject}  # fmt: skip


def _samples(folder: Path, task: str, layout: str) -> Path:
    """A samples file of `task` where lmms-eval puts it (a model llava-1.5-7b's)."""
    return samples_file(folder, task, mmmu_pro_lines(task, layout))


def mmmu_pro_lines(task: str, layout: str) -> list[dict[str, object]]:
    """The lines of a samples file of `task` (mmmu_pro_standard or mmmu_pro_vision)."""
    lines = []
    for number, (key, answer, response, parsed) in enumerate(QUESTIONS):
        vision = task == "mmmu_pro_vision"
        acc = {"id": key, "subject": key.split("_", 1)[1].rsplit("_", 1)[0], "answer": answer,
               "parsed_pred": response if vision else parsed}  # fmt: skip
        line: dict[str, object] = {"doc_id": number, "target": answer, "mmmu_acc": acc}
        if layout == "v0.3":
            line |= {"doc": _doc(key, answer, vision), "arguments": {}, "resps": [[response]],
                     "filtered_resps": [response]}  # fmt: skip
        else:
            line |= {"input": "Answer with the option letter.", "filtered_resps": [response]}
        lines.append(line)
    return lines


def _judged(db: Path, judge: Judge) -> dict[str, tuple[str | None, float | None]]:
    with Store.open(db) as store:
        latest: dict[tuple[int, int], Judgment] = store.latest_judgments("mmmu-pro", judge)
        answers = store.answer_ids("mmmu-pro")
    return {
        key: (latest[a, 0].choice, latest[a, 0].score)
        for (_, key), a in answers.items()
        if (a, 0) in latest
    }


def test_standard_v03_lines_give_questions_answers_and_lmms_evals_letters(
    cli, tmp_path: Path
) -> None:
    db = tmp_path / "pro.db"
    result = cli(
        "import", "mmmu-pro-lmms-eval", db, _samples(tmp_path, "mmmu_pro_standard", "v0.3")
    )
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmmu-pro")}
        assert store.answers("mmmu-pro", MODEL)["test_Art_113"] == "The painter is (H)."
    assert len(samples["test_History_1"].options) == 10
    assert samples["test_History_1"].axis("discipline") == ("Humanities and Social Science",)
    assert _judged(db, LMMS_EVAL) == {
        "test_History_1": ("B", 1.0), "test_Art_113": ("H", 0.0), "validation_Design_19": ("H", 1.0),
    }  # fmt: skip
    assert cli("score", db).code == 0
    assert _judged(db, OFFLINE) == _judged(db, LMMS_EVAL)  # the same parse on these


def test_vision_v03_lines_ask_the_screenshots_question_and_compare_the_raw_response(
    cli, tmp_path: Path
) -> None:
    """lmms-eval compares a vision response with the answer as it is: only a bare letter is
    right; lmmreview's parse finds the letter in the others."""
    db = tmp_path / "pro.db"
    result = cli("import", "mmmu-pro-lmms-eval", db, _samples(tmp_path, "mmmu_pro_vision", "v0.3"))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        (question,) = {s.question for s in store.samples("mmmu-pro")}
    assert question == "<image 1>"
    assert _judged(db, LMMS_EVAL) == {
        "test_History_1": (None, 0.0), "test_Art_113": (None, 0.0), "validation_Design_19": ("H", 1.0),
    }  # fmt: skip
    assert cli("score", db).code == 0
    assert _judged(db, OFFLINE)["test_History_1"] == ("B", 1.0)


def test_v04_lines_answer_the_questions_imported_before(cli, tmp_path: Path) -> None:
    db = tmp_path / "pro.db"
    official = [{**_doc(key, answer, False), "response": ""} for key, answer, *_ in QUESTIONS]
    assert cli("import", "mmmu-pro", db, write_lines(tmp_path / "m.jsonl", official)).code == 0
    samples = _samples(tmp_path, "mmmu_pro_standard", "v0.4")
    result = cli("import", "mmmu-pro-lmms-eval", db, samples)
    assert result.code == 0, result.stderr
    assert _judged(db, LMMS_EVAL)["test_Art_113"] == ("H", 0.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mmmu_acc": None}, "line 2: no mmmu_acc with an id: no MMMU-Pro line"),
        ({"mmmu_acc": {"id": "test_Art_113", "answer": "A"}}, "parsed_pred and answer must be text"),
        ({"mmmu_acc": {"id": "test_Art_113", "answer": "C", "parsed_pred": "C"}},
         "line 2: mmmu_acc's answer 'C' is not the doc's 'A'"),
        ({"mmmu_acc": {"id": "test_Art_2", "answer": "A", "parsed_pred": "C"}},
         "mmmu_acc's id 'test_Art_2' is not the doc's id 'test_Art_113'"),
    ],
)  # fmt: skip
def test_a_bad_line_is_refused_naming_the_file_and_line(
    cli, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    db = tmp_path / "pro.db"
    good = _samples(tmp_path / "good", "mmmu_pro_standard", "v0.3")
    assert cli("import", "mmmu-pro-lmms-eval", db, good).code == 0
    before = dump(db)
    lines = [json.loads(line) for line in good.read_text().splitlines()]
    lines[1] |= change
    bad = write_lines(tmp_path / "bad_samples_mmmu_pro_standard.jsonl", lines)
    result = cli("import", "mmmu-pro-lmms-eval", db, bad)
    assert result.code != 0
    assert str(bad) in result.stderr and message in result.stderr
    assert dump(db) == before
