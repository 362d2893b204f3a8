"""A million answers (issue 26): `import` streams its JSONL file and `score` grades a chunk
of answers at a time, in one transaction; what they write equals the one-go path."""

from __future__ import annotations

import gc
import shutil
import sqlite3
import tracemalloc
from contextlib import closing
from pathlib import Path

import pytest

from lmmreview.db import Store
from lmmreview.db import scoring as scoring_module
from lmmreview.db.importers.batch import ImportFailure
from lmmreview.db.importers.read import parse_json, read_jsonl
from lmmreview.db.schema import JUDGE_MODEL, JUDGE_PROMPT
from lmmreview.db.scoring import score_offline
from lmmreview.engine.benchmarks.generic import Generic
from lmmreview.engine.scoring import USABLE, Judgment, Status
from tests.conftest import dump, matches_golden, write_lines

LONG_GOLD = "a long ground truth " * 20  # the rules leave it to a judge


def _rows() -> list[dict[str, object]]:
    """Samples of every kind the offline rules meet, and two models' answers to each."""
    samples: list[dict[str, object]] = []
    for i in range(6):
        samples += [
            {"id": f"o{i}", "question": "Colour?", "answer": ["red", "crimson"][i % 2]},
            {"id": f"c{i}", "question": "Animal?", "options": ["cat", "dog"], "answer": "B"},
            {"id": f"n{i}", "question": "Unknown?", "answer": None},
            {"id": f"l{i}", "question": "Essay?", "answer": LONG_GOLD},
        ]
    answers = [
        {"id": s["id"], "prediction": text, "model": model}
        for model, texts in (("m1", ("It is red.", "B", "?")), ("m2", ("crimson", "dog", "no")))
        for n, s in enumerate(samples)
        for text in [texts[n % 3]]
    ]
    return samples + answers


@pytest.fixture
def unscored(cli, tmp_path: Path) -> Path:
    db = tmp_path / "bulk.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "bulk.jsonl", _rows())).code == 0
    return db


def _judgments(db: Path) -> list[tuple[object, ...]]:
    """Every judgment and judge count, as stored (the time stamps aside)."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT id, answer_id, run, judge_kind, judge_model, prompt_hash, raw_reply, "
            "score, choice, method, status, error, source, import_id FROM judgments ORDER BY id"
        ).fetchall()
        return rows + conn.execute("SELECT * FROM dataset_judges").fetchall()


def test_scoring_in_chunks_writes_what_scoring_in_one_go_writes(
    unscored: Path, tmp_path: Path, monkeypatch
) -> None:
    chunked = shutil.copyfile(unscored, tmp_path / "chunked.db")
    with Store.open(unscored) as store:
        (whole,) = score_offline(store)
    monkeypatch.setattr(scoring_module, "GRADED_AT_ONCE", 5)  # 48 answers: 10 chunks
    with Store.open(chunked) as store:
        (in_chunks,) = score_offline(store)
    assert in_chunks == whole
    assert (whole.judged, whole.fallback, whole.no_gold) == (24, 8, 12)  # every kind of rule
    assert _judgments(chunked) == _judgments(unscored)


def test_a_failure_in_a_later_chunk_leaves_the_database_as_it_was(
    unscored: Path, monkeypatch
) -> None:
    """Chunks are written as they are graded, inside the one transaction: a rule failing
    on the last answer takes back every chunk before it."""
    grade = Generic.offline

    def failing(self, sample, answer):  # the last answer, in the last chunk
        if sample.key == "l5" and answer == "no":
            raise RuntimeError("the rules broke")
        return grade(self, sample, answer)

    monkeypatch.setattr(Generic, "offline", failing)
    monkeypatch.setattr(scoring_module, "GRADED_AT_ONCE", 5)
    before = dump(unscored)
    with Store.open(unscored) as store, pytest.raises(RuntimeError, match="the rules broke"):
        list(score_offline(store))
    assert dump(unscored) == before


# Each dataset's judges counted from scratch, as migration 10 first counted them.
RECOUNT = f"""
    SELECT s.dataset_id, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, COUNT(*),
        SUM(l.status IN {USABLE}), SUM(l.method IS 'matched'), MIN(l.id)
    FROM judgments l JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"""


def test_judgments_counted_together_are_counted_as_the_trigger_counts_each(
    unscored: Path,
) -> None:
    """`score` counts its judgments in one statement, with the counting trigger off in its
    transaction: the counts equal a recount, beside another judge's, and the trigger is
    back for the next judgment."""
    llm = {"kind": "llm", "judge_model": "gpt-test"}
    with Store.open(unscored) as store:
        with store.transaction():
            store.add_judgments([(1, Judgment(run=0, score=0.5, **llm))])
        list(score_offline(store))
        with store.transaction():
            store.add_judgments([(2, Judgment(run=0, score=1.0, method="matched", **llm))])
        counted = store.conn.execute("SELECT * FROM dataset_judges ORDER BY 1, 2, 3, 4")
        assert [row[1:5] for row in counted] == [
            ("llm", "gpt-test", "", 2),
            ("offline", "offline rules", "*", 24),
        ]
        assert store.conn.execute(
            "SELECT * FROM dataset_judges ORDER BY 1, 2, 3, 4"
        ).fetchall() == (store.conn.execute(RECOUNT).fetchall())


def test_scoring_again_grades_only_what_the_rules_have_not_decided(unscored: Path) -> None:
    with Store.open(unscored) as store:
        (first,) = score_offline(store)
        (again,) = score_offline(store)
    assert (first.judged > 0, again.judged) == (True, 0)
    assert again.scored == first.scored


def test_reading_a_jsonl_file_holds_a_line_not_the_whole_file(tmp_path: Path) -> None:
    """The first object comes before the rest of the file is read (it used to be read
    whole and split into every line: a 100 MB file was held twice over)."""
    rows = [{"id": f"q{i}", "prediction": "an answer of some length " * 4} for i in range(20_000)]
    path = write_lines(tmp_path / "many.jsonl", rows)
    assert path.stat().st_size > 2_000_000
    tracemalloc.start()
    try:
        lines = read_jsonl(path)
        first = next(lines)
        peak = tracemalloc.get_traced_memory()[1]
        lines.close()
    finally:
        tracemalloc.stop()
    assert first == (1, rows[0])
    assert peak < 500_000, peak


def test_the_collector_paused_for_a_jsonl_file_runs_again_after_it(tmp_path: Path) -> None:
    """Read whole, refused midway or left unfinished, a JSONL file gives the collector back."""
    good = write_lines(tmp_path / "good.jsonl", [{"id": "q1"}, {"id": "q2"}])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1"}\n{"id": \n', encoding="utf-8")
    assert len(list(read_jsonl(good))) == 2 and gc.isenabled()
    with pytest.raises(ImportFailure, match="line 2: malformed JSON"):
        list(read_jsonl(bad))
    assert gc.isenabled()
    lines = read_jsonl(good)
    next(lines)
    assert not gc.isenabled()  # paused while the file is read
    lines.close()
    assert gc.isenabled()


def _varied_rows() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """A small file with the shapes a bulk import and score meet (open and choice samples,
    several golds, none, long ones, tags, non-ASCII and repeated answers, an answer on its
    sample's line), and a second file of answers only (a new model, a repeated line)."""
    samples: list[dict[str, object]] = []
    for i in range(12):
        tags = {
            "topic": ["maps", "charts", "photos"][i % 3],
            "skills": ["ocr", "counting"][: i % 3],
        }
        samples += [
            {"id": f"o{i}", "question": f"Count {i}?", "answer": f"{i} apples", "tags": tags},
            {"id": f"a{i}", "question": "Colour?", "answer": ["red", "crimson", 7][i % 3:]},
            {"id": i, "question": "Essay?", "answer": LONG_GOLD if i % 2 else None},
            {"id": f"c{i}", "question": "Animal?", "options": ["cat", "dog", "cow"][: 2 + i % 2],
             "answer": "ab"[i % 2], "split": "dev"},
            {"id": f"d{i}", "question": "Which?", "options": {"a": "Ünïcode", "B": "plain"},
             "answer": None if i % 4 == 0 else ["A", "b"][: 1 + i % 2], "tags": tags},
        ]  # fmt: skip
    samples[0]["prediction"] = "0 apples"  # a model's answer on the sample's line
    texts = ["B", "The answer is A.", "dog", "réponse Ünïcode", "", "crimson", "7 apples",
             "no idea", "A cat", "(B) plain", "答案 A", "red"]  # fmt: skip
    answers = [
        {"id": s["id"], "prediction": texts[(n * (m + 2)) % len(texts)], "model": f"m{m}"}
        for m in range(3)
        for n, s in enumerate(samples)
    ]
    more = [{"id": s["id"], "prediction": texts[n % len(texts)]} for n, s in enumerate(samples)]
    return samples + answers, [*more, more[0]]


def _rows_of_every_table(db: Path) -> str:
    """Every row of every table, in id order, their time stamps left out."""
    lines = []
    with closing(sqlite3.connect(db)) as conn:
        tables = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        for (table,) in tables:
            columns = [c[1] for c in conn.execute(f"PRAGMA table_info({table})")]
            kept = ", ".join(c for c in columns if c != "created_at")
            lines.append(f"-- {table} ({kept})")
            rows = conn.execute(f"SELECT {kept} FROM {table} ORDER BY rowid")
            lines += [repr(row) for row in rows]
    return "\n".join(lines) + "\n"


def test_an_import_and_a_score_write_the_rows_they_always_wrote(cli, tmp_path: Path) -> None:
    """Bulk import and score are made faster without changing a stored value, an id or an
    order: this pins every row they write."""
    first, second = _varied_rows()
    db = tmp_path / "rows.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "varied.jsonl", first)).code == 0
    added = write_lines(tmp_path / "m9.jsonl", second)
    assert cli("import", "jsonl", db, added, "--dataset", "varied").code == 0
    other = write_lines(tmp_path / "other.jsonl", first[40:80] + first[100:140])
    assert cli("import", "jsonl", db, other, "--model", "m9").code == 0  # a second dataset
    assert cli("score", db).code == 0
    rows = _rows_of_every_table(db).replace(str(tmp_path), "TMP")  # the files' folder
    matches_golden(rows, "bulk_rows.txt")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": NaN, "a": 1}', "line 3: duplicate key 'a'"),
        ('{"a": 1.5, "b": {"c": 2, "c": 3}}', "line 3: duplicate key 'c'"),
        ('{"a": [1, {"b": 1e400}], "c": ', "line 3: malformed JSON (Expecting value)"),
        (
            '{"a": {"b": [1, -Infinity]}, "c": NaN}',
            "line 3, at a > b > 2: -Infinity is not a number lmmreview takes (NaN or infinite)",
        ),
        ("[0.5, 1e400]", "line 3, at 2: 1e400 is not a number lmmreview takes (NaN or infinite)"),
    ],
)
def test_a_parsed_line_is_refused_as_it_always_was(text: str, said: str) -> None:
    """Lines are parsed by one decoder that stops at a NaN or an infinite number and then
    parsed again to say where: the first problem named stays the one it was."""
    with pytest.raises(ImportFailure) as refused:
        parse_json(text, Path("f.jsonl"), "line 3")
    assert str(refused.value) == f"f.jsonl: {said}"


def test_judgments_store_every_field_given_and_null_for_the_rest(unscored: Path) -> None:
    """add_judgments leaves out the columns that are NULL in every row it writes: what it
    stores is the same whether a field is given in every row, in some, or in none."""
    full = Judgment(
        run=2,
        score=0.5,
        choice="B",
        status=Status.FALLBACK,
        method="llm",
        kind="llm",
        judge_model="gpt-test",
        prompt_version="v1",
        reply="reply",
        settings='{"t": 0}',
        prompt_tokens=11,
        completion_tokens=7,
        latency_ms=12.5,
        source="f.json",
    )
    bare = Judgment(run=1, score=None, kind="imported", status=Status.ERROR, error="timed out")
    with Store.open(unscored) as store, store.transaction():
        store.add_judgments([(1, full), (2, bare)])
        store.add_judgments([(3, bare)], import_id=None)
        store.add_judgments([])
        columns = "answer_id, run, judge_kind, judge_model, prompt_hash, settings, raw_reply, "
        columns += "score, choice, method, status, error, prompt_tokens, completion_tokens, "
        columns += "latency_ms, source, import_id"
        rows = store.conn.execute(f"SELECT {columns} FROM judgments ORDER BY id").fetchall()
    given = ("gpt-test", "v1", '{"t": 0}', "reply", 0.5, "B", "llm", "fallback", None, 11, 7)
    bare_row = ("", "", None, "", None, None, "", "error", "timed out", None, None)
    assert rows == [
        (1, 2, "llm", *given, 12.5, "f.json", None),
        (2, 1, "imported", *bare_row, None, None, None),
        (3, 1, "imported", *bare_row, None, None, None),
    ]
