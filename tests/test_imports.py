"""Imports of other tools' judgments have an identity (schema migration 11): `lmmreview
imports` lists them; an import over the same judge's judgments of the same answers is
refused unless --replace or --judge NAME says what to do; the same file again is a no-op
that says so; `imports --remove ID` leaves the file as if it had never been imported."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import FIXTURES, dump, needs_fixture, write_json
from test_import_vlmevalkit import mmvet_judge_workbook

from lmmreview.db.importers import import_batch
from lmmreview.db.importers.batch import AnswerRecord, ImportBatch, JudgmentRecord, ToolRun
from lmmreview.db.imports import imports
from lmmreview.db.review import ReviewStore
from lmmreview.db.schema import JUDGE_MODEL, JUDGE_PROMPT, MIGRATIONS
from lmmreview.db.store import Store
from lmmreview.engine.scoring import Verdict, imported
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.cli.imports import tool_run_line

REAL = FIXTURES / "mmvet-real"
LLAVA = REAL / "llava-v1.5-7b"
GRADES = {runs: LLAVA / f"llava-v1.5-7b_gpt-4-grade-{runs}runs.json" for runs in (1, 3)}
CAP = {runs: LLAVA / f"llava-v1.5-7b_gpt-4-cap-score-{runs}runs.csv" for runs in (1, 3)}


def _import_real(cli, db: Path) -> None:
    result = cli("import", "mmvet", db, REAL / "mm-vet.json",
                 "--answers", LLAVA / "llava-v1.5-7b.json")  # fmt: skip
    assert result.code == 0, result.stderr
    result = cli("import", "mmvet-grades", db, GRADES[3])
    assert result.code == 0, result.stderr
    assert "654 imported judgments as import 1" in result.stdout


def _small(cli, mmvet_files: dict[str, Path], db: Path) -> None:
    """The three-sample MM-Vet set, alpha's answers, and beta's (alpha's again)."""
    f = mmvet_files
    for model in ("alpha", "beta"):
        result = cli("import", "mmvet", db, f["questions"], "--answers", f["alpha"],
                     "--model", model)  # fmt: skip
        assert result.code == 0, result.stderr


def _grades(path: Path, judge: str, scores: list[float]) -> Path:
    """A 1-run grade file: v1_0, v1_1, v1_2 scored `scores` by `judge`."""
    return write_json(path, {
        f"v1_{i}": {"model": [judge], "content": [str(s)], "score": [s]}
        for i, s in enumerate(scores)
    })  # fmt: skip


def _rows(listing: str) -> list[list[str]]:
    """The rows `lmmreview imports` prints, each split into its words (a long file name
    folds onto lines of its own, which start blank)."""
    return [line.split() for line in listing.splitlines()[1:] if line[:4].strip()]


def _without_sequence(lines: list[str]) -> list[str]:
    """A dump but SQLite's AUTOINCREMENT counter (an import's id is never reused)."""
    return [line for line in lines if "sqlite_sequence" not in line]


def _judges_as_grouped(db: Path) -> tuple[list[tuple], list[tuple]]:
    """dataset_judges as the triggers keep it, and as grouping every judgment gives it."""
    with sqlite3.connect(db) as conn:
        kept = conn.execute("SELECT * FROM dataset_judges ORDER BY 1, 2, 3, 4").fetchall()
        grouped = conn.execute(
            f"SELECT s.dataset_id, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, COUNT(*), "
            "SUM(l.status IN ('ok', 'fallback')), SUM(l.method IS 'matched'), MIN(l.id) "
            "FROM judgments l JOIN answers a ON a.id = l.answer_id "
            "JOIN samples s ON s.id = a.sample_id GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
        ).fetchall()
    return kept, grouped


@needs_fixture("mmvet-real/llava-v1.5-7b")
def test_the_1_run_grades_over_the_3_run_grades_are_refused_naming_the_ways_on(
    cli, tmp_path: Path
) -> None:
    """Before: the 1-run file silently replaced run 0 of the same judge (OCR 21.1 -> 21.0)."""
    db = tmp_path / "r.db"
    _import_real(cli, db)
    before = dump(db)
    result = cli("import", "mmvet-grades", db, GRADES[1])
    assert result.code == 1 and result.stdout == ""
    assert result.stderr == (
        f"error: {GRADES[1]}: these answers already have judgments of the same judge: judge "
        f"gpt-4 (imported) from import 1 ({GRADES[3]}). Give --replace to remove that "
        "import's judgments and import this file, or --judge NAME to keep both under another "
        "judge name (`lmmreview imports DB` lists the imports)\n"
    )
    assert dump(db) == before
    assert "│ llava-v1.5-7b │ 36.8 │ 21.1 │" in cli("report", db).stdout


@needs_fixture("mmvet-real/llava-v1.5-7b")
def test_judge_keeps_both_imports_and_replace_swaps_one_for_the_other(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _import_real(cli, db)
    both = cli("import", "mmvet-grades", db, GRADES[1], "--judge", "gpt-4-1run",
               "--check", CAP[1])  # fmt: skip
    assert both.code == 0, both.stderr
    assert "218 imported judgments as import 2" in both.stdout
    assert "all 9 numbers equal" in both.stdout
    # the 3-run judge's tables are as they were: the same file again checks them
    again = cli("import", "mmvet-grades", db, GRADES[3], "--check", CAP[3])
    assert again.code == 0, again.stderr
    assert "these judgments are already there as import 1: nothing to add" in again.stdout
    assert "all 11 numbers equal" in again.stdout
    listed = cli("imports", db)
    assert listed.code == 0
    rows = [row[:5] for row in _rows(listed.stdout)]
    assert rows == [["1", "mmvet", "gpt-4", "3", "218"], ["2", "mmvet", "gpt-4-1run", "1", "218"]]

    swapped = cli("import", "mmvet-grades", db, GRADES[1], "--replace", "--check", CAP[1])
    assert swapped.code == 0, swapped.stderr
    assert f"{db}: import 1 removed (--replace)" in swapped.stdout
    assert "218 imported judgments as import 3" in swapped.stdout
    assert "all 9 numbers equal" in swapped.stdout
    rows = [row[:5] for row in _rows(cli("imports", db).stdout)]
    assert rows == [["2", "mmvet", "gpt-4-1run", "1", "218"], ["3", "mmvet", "gpt-4", "1", "218"]]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (436,)


def test_the_same_file_again_is_a_no_op_that_says_so(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    grades = _grades(tmp_path / "alpha_g-grade-1runs.json", "g", [0.5, 1.0, 0.0])
    assert cli("import", "mmvet-grades", db, grades).code == 0
    before = dump(db)
    for replace in ((), ("--replace",)):
        again = cli("import", "mmvet-grades", db, grades, *replace)
        assert again.code == 0, again.stderr
        assert f"{db}: these judgments are already there as import 1: nothing to add" in (
            again.stdout
        )
        assert dump(db) == before


def test_remove_leaves_the_file_as_if_never_imported_and_keeps_the_reviews(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    first = _grades(tmp_path / "alpha_g-grade-1runs.json", "g", [0.5, 1.0, 0.0])
    assert cli("import", "mmvet-grades", db, first).code == 0
    with Store.open(db) as store:
        reviewer = ReviewStore(store, "ann")
        with store.transaction():
            reviewer.put(store.answer_ids("mmvet")["alpha", "v1_0"], Verdict(1.0), "grade")
    before = dump(db)
    second = _grades(tmp_path / "alpha_h-grade-1runs.json", "h", [0.0, 0.0, 1.0])
    added = cli("import", "mmvet-grades", db, second, "--judge", "h2")
    assert added.code == 0, added.stderr
    assert "3 imported judgments as import 2" in added.stdout
    listed = cli("imports", db, "--remove", "2")
    assert listed.code == 0, listed.stderr
    assert listed.stdout == (
        f"{db}: import 2 removed: the judgments of 3 answers from {second} (judge h2, "
        "dataset mmvet)\n"
    )
    assert _without_sequence(dump(db)) == _without_sequence(before)

    assert cli("imports", db, "--remove", "1").code == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (0,)
        assert conn.execute("SELECT reviewer, score FROM reviews").fetchall() == [("ann", 1.0)]
        assert conn.execute("SELECT COUNT(*) FROM dataset_judges").fetchone() == (0,)
    assert cli("imports", db).stdout == f"{db}: no imports of judgments\n"
    before = dump(db)
    gone = cli("imports", db, "--remove", "1")
    assert (gone.code, gone.stderr) == (1, f"error: {db}: no import 1 (imports: none)\n")
    huge = cli("imports", db, "--remove", str(2**64))  # beyond SQLite's integers
    assert huge.code == 2 and "Invalid value for '--remove'" in huge.stderr  # typer's usage error
    assert dump(db) == before


def test_removing_a_judges_first_import_orders_the_judges_as_if_never_imported(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """Judge g grades alpha (import 1), judge k alpha (import 2), g beta (import 3): g is
    the default. Without import 1, k came first: it is the default, and the judges' counts
    equal the grouping of every judgment."""
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    alpha_g = _grades(tmp_path / "alpha_g-grade-1runs.json", "g", [0.5, 1.0, 0.0])
    alpha_k = _grades(tmp_path / "alpha_k-grade-1runs.json", "k", [1.0, 1.0, 1.0])
    beta_g = _grades(tmp_path / "beta_g-grade-1runs.json", "g", [0.0, 0.0, 0.0])
    for grades in (alpha_g, alpha_k, beta_g):
        assert cli("import", "mmvet-grades", db, grades).code == 0
    with Store.open(db) as store:
        assert [j.model for j in store.judges("mmvet")] == ["g", "k"]
    assert cli("imports", db, "--remove", "1").code == 0
    with Store.open(db) as store:
        assert [j.model for j in store.judges("mmvet")] == ["k", "g"]
    kept, grouped = _judges_as_grouped(db)
    assert kept == grouped and len(kept) == 2


def test_a_vlmevalkit_judge_workbook_is_an_import_too(cli, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    workbook = mmvet_judge_workbook(tmp_path)
    result = cli("import", "mmvet-vlmevalkit", db, workbook)
    assert result.code == 0, result.stderr
    assert "2 imported judgments as import 1" in result.stdout
    other = tmp_path / "other" / workbook.name
    other.parent.mkdir()
    other.write_bytes(workbook.read_bytes() + b"\0")  # another file of the same judge
    before = dump(db)
    refused = cli("import", "mmvet-vlmevalkit", db, other)
    assert refused.code == 1 and "--replace" in refused.stderr
    assert dump(db) == before
    rows = [row[:5] for row in _rows(cli("imports", db).stdout)]
    assert rows == [["1", "mmvet", "gpt-4-turbo", "1", "2"]]


def _schema_10_file(path: Path) -> None:
    """A database as schema 10 left it, with another tool's judgments of two runs from one
    file and one group verdict from another."""
    with sqlite3.connect(path) as conn:
        for migration in MIGRATIONS[:10]:
            if isinstance(migration, str):
                conn.executescript(migration)
            else:
                migration(conn)
        conn.executescript("""
            PRAGMA user_version = 10;
            INSERT INTO datasets VALUES (1, 'mmvet', 'mmvet', 'q.json', '2025-01-01T00:00:00');
            INSERT INTO samples (id, dataset_id, key, question, question_type)
                VALUES (1, 1, 'v1_0', 'Q?', 'open'), (2, 1, 'v1_1', 'Q?', 'open');
            INSERT INTO models VALUES (1, 'alpha', '2025-01-01T00:00:00');
            INSERT INTO answers VALUES (1, 1, 1, 'a', 'a.json', '2025-01-01T00:00:00'),
                                       (2, 2, 1, 'b', 'a.json', '2025-01-01T00:00:00');
            INSERT INTO judgments (answer_id, run, judge_kind, judge_model, prompt_hash,
                score, method, status, source, created_at) VALUES
                (1, 0, 'imported', 'g', 'official grader', 1.0, 'imported', 'ok',
                 'g-2runs.json', '2025-01-02T00:00:00'),
                (1, 1, 'imported', 'g', 'official grader', 0.5, 'imported', 'ok',
                 'g-2runs.json', '2025-01-02T00:00:00'),
                (2, 0, 'llm', 'g', 'v1', 0.0, 'llm', 'ok', NULL, '2025-01-03T00:00:00');
            INSERT INTO group_verdicts (answer_id, score, judge_model, raw_reply, source,
                created_at) VALUES (2, 1.0, 'k', 'log', 'result.xlsx', '2025-01-04T00:00:00');
        """)


def test_imports_made_before_schema_11_are_listed_and_can_be_removed(cli, tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _schema_10_file(db)
    listed = cli("imports", db)
    assert listed.code == 0, listed.stderr
    assert [row[:5] + row[-1:] for row in _rows(listed.stdout)] == [
        ["1", "mmvet", "g", "2", "1", "g-2runs.json"],
        ["2", "mmvet", "k", "1", "1", "result.xlsx"],
    ]
    assert cli("imports", db, "--remove", "1").code == 0
    with sqlite3.connect(db) as conn:  # the LLM's judgment and the group verdict stay
        assert conn.execute("SELECT judge_kind, import_id FROM judgments").fetchall() == [
            ("llm", None)
        ]
        assert conn.execute("SELECT import_id FROM group_verdicts").fetchall() == [(2,)]
    assert _judges_as_grouped(db)[0] == _judges_as_grouped(db)[1]


def test_a_judge_imported_as_offline_rules_leaves_lmmreviews_rules_selectable(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """A grade file exported from rules-scored answers names its judge "offline rules":
    it imports (the round trip), and `--judge "offline rules"` still names lmmreview's own
    rules (it matched two judges), the import being "offline rules (imported)". An LLM
    judge may not take the name."""
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    assert cli("score", db).code == 0
    grades = _grades(tmp_path / "alpha_g-grade-1runs.json", "g", [0.5, 1.0, 0.0])
    imported = cli("import", "mmvet-grades", db, grades, "--judge", "offline rules")
    assert imported.code == 0, imported.stderr
    for name in ("offline rules", "offline rules (imported)"):
        result = cli("export", db, "--format", "json", "--judge", name)
        assert result.code == 0, result.stderr
        assert json.loads(result.stdout)["notes"]["mmvet"]["judges"][0] == name
    before = dump(db)
    judged = cli("judge", db, "--model", "offline rules", "--dry-run")
    assert judged.code == 1
    assert "'offline rules' is lmmreview's own name" in judged.stderr
    assert dump(db) == before


def test_two_removes_remove_both_imports_in_one_go(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """`imports DB --remove 1 --remove 2` removed only import 2."""
    db = tmp_path / "r.db"
    _small(cli, mmvet_files, db)
    for judge in ("g", "h"):
        grades = _grades(tmp_path / f"alpha_{judge}-grade-1runs.json", judge, [0.5, 1.0, 0.0])
        assert cli("import", "mmvet-grades", db, grades).code == 0
    result = cli("imports", db, "--remove", "1", "--remove", "2")
    assert result.code == 0, result.stderr
    assert "import 1 removed" in result.stdout and "import 2 removed" in result.stdout
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM judgments").fetchone() == (0,)
        assert conn.execute("SELECT COUNT(*) FROM imports").fetchone() == (0,)


def test_what_the_writing_tool_recorded_of_its_run_is_kept_and_listed(cli, tmp_path: Path) -> None:
    """An import keeps its file's ToolRun (schema migration 13); `imports` shows it in one
    line; a run edited into something else by hand reads as none."""
    db = tmp_path / "r.db"
    batch = ImportBatch("quiz", "generic", str(tmp_path / "log.jsonl"))
    batch.samples = [Sample("q1", "Sky blue?", QuestionType.OPEN, "yes")]
    batch.answers = [AnswerRecord("q1", "m", "yes", batch.source)]
    judgment = imported("gpt-4o-mini", "tool", 1.0, "right", batch.source)
    batch.judgments = [JudgmentRecord("q1", "m", judgment)]
    batch.run = ToolRun("lmms-eval", version="0.7.2", judge="gpt-4o-mini", date="20260301")
    batch.sha256 = "0" * 64  # as read before: the file need not be read again
    import_batch(db, batch)
    with Store.open(db) as store:
        (found,) = imports(store)
    assert found.run == {
        "tool": "lmms-eval", "version": "0.7.2", "judge": "gpt-4o-mini", "date": "20260301"
    }  # fmt: skip
    (listed,) = json.loads(cli("imports", db, "--json").stdout)
    assert listed["run"] == found.run and listed["file"] == batch.source
    assert "tool run" in cli("imports", db).stdout  # the column, shown where any has one
    assert tool_run_line(found.run) == "lmms-eval 0.7.2 (judge gpt-4o-mini, date 20260301)"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE imports SET run = '[1, 2]'")
    with Store.open(db) as store:
        assert imports(store)[0].run == {}
