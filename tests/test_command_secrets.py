"""A tool's recorded command line is stored with the import (`imports.run`): the API keys
it may carry (lmms-eval's model_args, an --api-key option, a key-shaped value, the
environment's keys) are hidden first, and nothing else is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lmmreview.db.importers import import_batch
from lmmreview.db.importers.batch import AnswerRecord, ImportBatch, JudgmentRecord, ToolRun
from lmmreview.engine.scoring import imported
from lmmreview.engine.secrets import REDACTED, redact_command
from lmmreview.engine.types import QuestionType, Sample

R = REDACTED


@pytest.mark.parametrize(
    ("command", "stored"),
    [
        ("--model_args pretrained=llava,api_key=abcd1234,base_url=http://h",
         f"--model_args pretrained=llava,api_key={R},base_url=http://h"),
        ("--log_samples --api-key secret123 --tasks mme",
         f"--log_samples --api-key {R} --tasks mme"),
        ("run.py --data MMBench --OPENAI_API_KEY=hunter22", f"run.py --data MMBench --OPENAI_API_KEY={R}"),
        ('--model_args {"api_key": "abcd1234", "temperature": 0}',
         f'--model_args {{"api_key": {R}, "temperature": 0}}'),
        ("--hf_token x1 --note sk-abcdefghijklmnop1234 hf_abcdefghijklmnopqrstu",
         f"--hf_token {R} --note {R} {R}"),
        ("--model_args base_url=https://ann:PASS555@host/v1,model=m",
         f"--model_args base_url=https://ann:{R}@host/v1,model=m"),
        ('--judge-args {"api_base": "https://u:PWD333@h/v1"}',
         f'--judge-args {{"api_base": "https://u:{R}@h/v1"}}'),
        # nothing secret: kept as it is
        ("--max_new_tokens 512 --keys 3 --key_field id --gen_kwargs {\"max_new_tokens\": 16}",
         "--max_new_tokens 512 --keys 3 --key_field id --gen_kwargs {\"max_new_tokens\": 16}"),
    ],
)  # fmt: skip
def test_the_secrets_of_a_command_line_are_hidden_and_nothing_else(
    command: str, stored: str
) -> None:
    assert redact_command(command) == stored


def test_a_run_record_never_stores_a_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-4f9a7c1e")
    db = tmp_path / "r.db"
    batch = ImportBatch("quiz", "generic", str(tmp_path / "log.jsonl"), sha256="0" * 64)
    batch.samples = [Sample("q1", "Sky blue?", QuestionType.OPEN, "yes")]
    batch.answers = [AnswerRecord("q1", "m", "yes", batch.source)]
    batch.judgments = [JudgmentRecord("q1", "m", imported("j", "t", 1.0, "", batch.source))]
    command = "--model_args api_key=abcd1234 --judge_key sk-test-SECRET-4f9a7c1e --tasks mme"
    batch.run = ToolRun("lmms-eval", command=command)
    import_batch(db, batch)
    with sqlite3.connect(db) as conn:
        (run,) = conn.execute("SELECT run FROM imports").fetchone()
        text = "\n".join(conn.iterdump())
    assert "abcd1234" not in text and "SECRET-4f9a7c1e" not in text
    assert f"api_key={R}" in run and "--tasks mme" in run
