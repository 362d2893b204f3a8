"""MathVista's LLM extractor as a judge of its own, against the fake OpenAI server: the quick
rules settle what they can with no call; the rest is asked once with the few-shot prompt,
and the reply is normalised and compared."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from conftest import FIXTURES, needs_fixture, write_json

from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.benchmarks.mathvista import extractor, rules
from lmmreview.engine.llm import Reply

CHOICES = ["3/11", "8/11", "6/11", "3/5"]


def _problem(pid: str, response: str, **more: Any) -> dict[str, Any]:
    return {"question": f"Question {pid}?", "choices": CHOICES, "precision": None,
            "answer": "8/11", "question_type": "multi_choice", "answer_type": "text",
            "metadata": {"split": "testmini", "task": "math word problem",
                         "skills": ["arithmetic reasoning"]},
            "query": f"Hint: pick one.\nQuestion: Question {pid}?", "response": response,
            **more}  # fmt: skip


def test_the_prompt_is_the_official_shape() -> None:
    prompt = extractor.extraction_prompt("Hint: h\nQuestion: q?", "It is 3.")
    assert prompt.startswith(extractor.INSTRUCTION + "\n\n")
    assert prompt.count("Model response: ") == 5  # five worked examples, labelled
    assert prompt.endswith("\n\nHint: h\nQuestion: q?\n\nIt is 3.\n\nExtracted answer: ")
    assert len(extractor.PROMPT_VERSION) == 12


def test_a_blank_reply_is_asked_again_and_a_reply_is_normalised() -> None:
    problem = rules.Problem("multi_choice", "text", tuple(CHOICES), answer="8/11")
    work = extractor.Extraction(problem, "q")
    item = JudgeItem(
        1, 0, work, "q", ("B",), "the second one", dict(zip("ABCD", CHOICES, strict=True))
    )
    call = work.ladder(item, "gpt-x")[0]
    assert (call.temperature, call.max_tokens) == (0.0, 1024)
    assert work.interpret(item, call, Reply("  \n")) is None
    judged = work.interpret(item, call, Reply(" (B) 8/11\n"))
    assert judged is not None and (judged.score, judged.choice, judged.kind) == (1.0, "B", "llm")
    assert work.without_llm(item) is None
    # The optional quoted rule is the LLM's here, as the official run leaves it by default.
    quoted = JudgeItem(1, 0, work, "q", ("B",), 'The answer is "B".', item.options)
    assert work.without_llm(quoted) is None


def test_a_judge_run_asks_only_what_the_quick_rules_cannot_settle(
    cli, judge_env, fake_judge, tmp_path: Path
) -> None:
    integer = {"choices": None, "answer": "14", "question_type": "free_form",
               "answer_type": "integer"}  # fmt: skip
    half = {"choices": None, "answer": "0.5", "question_type": "free_form",
            "answer_type": "float", "precision": 1}  # fmt: skip
    problems = {
        "1": _problem("1", "8/11"),  # a choice itself: settled without a call
        "2": _problem("2", "Fourteen.", **integer),  # the fake replies 0.5: no integer
        "3": _problem("3", "One half.", **half),  # 0.5: right
        "4": _problem("4", "The second."),  # 0.5: the nearest choice is 3/5, wrong
    }
    db = tmp_path / "mv.db"
    assert (
        cli("import", "mathvista", db, write_json(tmp_path / "output_m.json", problems)).code == 0
    )
    result = cli("judge", db)
    assert result.code == 0, result.stderr
    assert fake_judge.requests == 3
    assert all(p.endswith("\n\nExtracted answer: ") for p in fake_judge.prompts)
    assert any("Question 2?\n\nFourteen.\n\nExtracted answer: " in p for p in fake_judge.prompts)
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute(
            "SELECT s.key, j.method || ' ' || j.judge_kind || ' ' || j.score FROM judgments j "
            "JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id"
        ).fetchall())  # fmt: skip
    assert rows == {"1": "matched offline 1.0", "2": "llm llm 0.0", "3": "llm llm 1.0",
                    "4": "llm llm 0.0"}  # fmt: skip
    tables = json.loads(cli("export", db, "--format", "json").stdout)["tables"]
    (row,) = tables[0]["rows"]
    assert (row["values"]["overall"], row["n"]["overall"]) == (50.0, 4)
    again = cli("judge", db)
    assert again.code == 0 and "Nothing to judge" in again.stdout
    assert fake_judge.requests == 3


@needs_fixture("mathvista")
def test_judging_after_the_official_extractions_leaves_their_figures(
    cli, judge_env, fake_judge, tmp_path: Path
) -> None:
    """The quick rules' answers count for every judge: on the official outputs they read
    what the official extractor read, so the imported judge's tables stay the official ones."""
    db = tmp_path / "mv.db"
    assert cli("import", "mathvista", db, FIXTURES / "mathvista" / "output_claude.json").code == 0
    result = cli("judge", db)
    assert result.code == 0, result.stderr
    assert fake_judge.requests + 10 <= 1000  # the 10 the quick rules settle are never sent
    overall = {
        judge: json.loads(cli("export", db, "--format", "json", *judge).stdout)["tables"][0]
        for judge in ((), ("--judge", "official extractor (imported)"))
    }
    for table in overall.values():
        (row,) = table["rows"]
        assert (row["values"]["overall"], row["n"]["overall"]) == (26.4, 1000)
