"""`lmmreview import mathvista-lmms-eval`: lmms-eval's --log_samples lines of the MathVista
tasks, as tasks/mathvista/utils.py writes them (EvolvingLMMs-Lab/lmms-eval 75571cfe; the
metric gpt_eval_score in v0.3, llm_as_judge_eval from v0.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, write_json, write_lines
from test_import_lmms_eval import MODEL, judgments, samples_file

from lmmreview.db import Store
from lmmreview.db.benchmarks.mathvista.lmms_eval import EXTRACTOR
from lmmreview.db.importers.lmms_eval import PROMPT_VERSION

METADATA = {"split": "testmini", "language": "english", "source": "ChartQA",
            "category": "general-vqa", "task": "figure question answering",
            "context": "bar chart", "grade": "daily life", "skills": ["statistical reasoning"]}  # fmt: skip
CHOICE = {"choices": ["red", "green", "blue"], "answer": "green", "question_type": "multi_choice",
          "answer_type": "text", "precision": None, "unit": None}  # fmt: skip
INTEGER = {"choices": None, "answer": "14", "question_type": "free_form",
           "answer_type": "integer", "precision": None, "unit": None}  # fmt: skip
FLOAT = {"choices": None, "answer": "2.5", "question_type": "free_form", "answer_type": "float",
         "precision": 1.0, "unit": "cm"}  # the dataset's precision is a float  # fmt: skip
# pid, problem, response, lmms-eval's extraction, its prediction and true_false
PROBLEMS = [
    ("11", CHOICE, "The bar is green, so (B).", "B", "green", True),
    ("12", INTEGER, "It is 14.", "14.0", "14", True),
    # lmms-eval rounds by the dataset's float precision (1.0), which raises: never right there
    ("13", FLOAT, "About 2.46 cm.", "2.46", None, False),
    ("14", INTEGER, "Maybe 12", "12", "12", False),
]


def _doc(pid: str, problem: dict[str, Any]) -> dict[str, Any]:
    """The dataset row lmms-eval keeps (its decoded image left out)."""
    return {"pid": pid, "question": f"Question {pid}?", "image": f"images/{pid}.jpg",
            **problem, "metadata": METADATA, "query": f"Hint: ...\nQuestion {pid}?"}  # fmt: skip


def mathvista_lines(layout: str) -> list[dict[str, Any]]:
    """The lines of a mathvista_testmini samples file in `layout` (v0.3 or v0.4)."""
    lines = []
    for number, (pid, problem, response, extraction, prediction, right) in enumerate(PROBLEMS):
        doc = _doc(pid, problem)
        result = {"question_id": pid, "query": doc["query"], "choices": problem["choices"],
                  "answer": problem["answer"], "extraction": extraction,
                  "prediction": prediction, "true_false": right,
                  "question_type": problem["question_type"],
                  "answer_type": problem["answer_type"], "precision": problem["precision"] or 0,
                  "metadata": METADATA}  # fmt: skip
        line: dict[str, Any] = {"doc_id": number, "target": problem["answer"]}
        if layout == "v0.3":
            line |= {"doc": doc, "arguments": {}, "resps": [[response]],
                     "filtered_resps": [response], "gpt_eval_score": result,
                     "submission": result}  # fmt: skip
        else:
            line |= {"input": doc["query"], "filtered_resps": [response],
                     "llm_as_judge_eval": result, "submission": result}  # fmt: skip
        lines.append(line)
    return lines


def _samples(folder: Path, layout: str) -> Path:
    return samples_file(folder, "mathvista_testmini", mathvista_lines(layout))


def _scored(db: Path) -> dict[str, tuple[float | None, str | None, str]]:
    """pid -> (score, choice, judge) of lmms-eval's extraction."""
    return {
        key: (j.score, j.choice, j.judge_model) for key, j in judgments(db, "mathvista").items()
    }


EXPECTED = {
    "11": (1.0, "B", EXTRACTOR), "12": (1.0, None, EXTRACTOR),
    "13": (1.0, None, EXTRACTOR), "14": (0.0, None, EXTRACTOR),
}  # fmt: skip


def test_v03_lines_give_problems_answers_and_lmms_evals_extractions(cli, tmp_path: Path) -> None:
    db = tmp_path / "mv.db"
    result = cli("import", "mathvista-lmms-eval", db, _samples(tmp_path, "v0.3"))
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mathvista")}
        assert store.answers("mathvista", MODEL)["13"] == "About 2.46 cm."
    assert samples["11"].options == {"A": "red", "B": "green", "C": "blue"}
    assert samples["11"].golds == ["B"]
    assert (samples["13"].extra["precision"], samples["13"].axis("task")) == (
        1,
        ("figure question answering",),
    )
    assert _scored(db) == EXPECTED
    assert {j.prompt_version for j in judgments(db, "mathvista").values()} == {PROMPT_VERSION}
    # the one line whose recorded verdict is not lmmreview's is named, not silently re-scored
    assert "1 lmms-eval's true_false value(s) differ from lmmreview's verdict" in result.stderr
    assert result.stderr.rstrip().endswith(": 13"), result.stderr


def test_v04_lines_answer_the_problems_imported_before(cli, tmp_path: Path) -> None:
    db = tmp_path / "mv.db"
    official = {pid: {**_doc(pid, problem), "response": ""} for pid, problem, *_ in PROBLEMS}
    assert (
        cli("import", "mathvista", db, write_json(tmp_path / "output_m.json", official)).code == 0
    )
    result = cli("import", "mathvista-lmms-eval", db, _samples(tmp_path, "v0.4"))
    assert result.code == 0, result.stderr
    assert _scored(db) == EXPECTED
    with Store.open(db) as store:
        assert store.answers("mathvista", MODEL)["14"] == "Maybe 12"


def test_a_hidden_gold_imports_the_answer_without_a_judgment(cli, tmp_path: Path) -> None:
    """The test split's answers are blank: lmms-eval's true_false is then false, unscored here."""
    lines = mathvista_lines("v0.3")
    lines[1]["doc"]["answer"] = lines[1]["gpt_eval_score"]["answer"] = ""
    db = tmp_path / "mv.db"
    samples = samples_file(tmp_path, "mathvista_test", lines)
    assert cli("import", "mathvista-lmms-eval", db, samples).code == 0
    assert set(_scored(db)) == {"11", "13", "14"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gpt_eval_score": None}, "line 2: no llm_as_judge_eval or gpt_eval_score"),
        ({"gpt_eval_score": {"question_id": None}}, "question_id None is no pid"),
        ({"gpt_eval_score": {"question_id": "9", "extraction": "14"}},
         "gpt_eval_score's id '9' is not the doc's id '12'"),
        ({"gpt_eval_score": {"question_id": "12", "extraction": 14}},
         "line 2: extraction must be text, not 14"),
        ({"doc": {**_doc("12", INTEGER), "answer_type": "fraction"}},
         "answer_type 'fraction' is none of text"),
    ],
)  # fmt: skip
def test_a_bad_line_is_refused_naming_the_file_and_line(
    cli, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    db = tmp_path / "mv.db"
    good = _samples(tmp_path / "good", "v0.3")
    assert cli("import", "mathvista-lmms-eval", db, good).code == 0
    before = dump(db)
    lines = [json.loads(line) for line in good.read_text().splitlines()]
    lines[1] |= change
    bad = write_lines(tmp_path / "bad_samples_mathvista_testmini.jsonl", lines)
    result = cli("import", "mathvista-lmms-eval", db, bad)
    assert result.code != 0
    assert str(bad) in result.stderr and message in result.stderr.replace("\n", ""), result.stderr
    assert dump(db) == before
