"""Files written by earlier releases open in this one with nothing lost, and schema
changes that rebuild a table keep every other table's foreign keys pointing at it.

tests/data/releases/v3, v4 and v5 hold a database as the releases with schema 3, 4 and 5 wrote
it (the demo, judged three times with some failed runs, graded, undone, noted, flagged),
and that release's exports of it; make_release_db.py there says how they were made.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from lmmreview.db import Store, StoreError
from lmmreview.db.schema import SCHEMA_VERSION, rebuild_table
from lmmreview.engine.export import FOR_READERS, LATEX_FIT, LATEX_PREAMBLE

RELEASES = Path(__file__).parent / "data" / "releases"
FORMATS = ("md", "json", "csv", "latex")
# Rows that a migration must carry over untouched, in full.
KEPT = (
    "judgments",
    "reviews",
    "flags",
    "answers",
    "models",
    "images",
    "sample_images",
    "llm_cache",
)


def _copy(release: str, tmp_path: Path) -> Path:
    db = tmp_path / f"{release}.db"
    shutil.copyfile(RELEASES / release / "release.db", db)
    return db


def _rows(db: Path, table: str, columns: list[str] | None = None) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        shown = ", ".join(columns) if columns else "*"
        return conn.execute(f"SELECT {shown} FROM {table} ORDER BY rowid").fetchall()


def _columns(db: Path, table: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _to_two_decimals(document: dict) -> dict:
    """A JSON export with its values and stds rounded as the releases wrote them."""
    for table in document["tables"]:
        for row in table["rows"]:
            for stat in ("values", "std"):
                row[stat] = {k: None if v is None else round(v, 2) for k, v in row[stat].items()}
    return document


def _as_released_json(document: dict) -> dict:
    """A JSON export in the releases' counts: their cells counted an answer scored in some
    runs only as unscored (now `partial`, as the notes count it), and their notes had no
    `offline` count."""
    for table in document["tables"]:
        for row in table["rows"]:
            partial = row.pop("partial")
            row["unscored"] = {k: v + partial[k] for k, v in row["unscored"].items()}
    for notes in document["notes"].values():
        notes.pop("offline")
    return document


def _as_released_csv(text: str) -> str:
    """A CSV export in the releases' counts (see `_as_released_json`): `partial`, the last
    column, added back into `unscored`."""
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert header[-1] == "partial"
    unscored = header.index("unscored")
    lines = [",".join(header[:-1])]
    for *cells, partial in body:
        cells[unscored] = str(int(cells[unscored]) + int(partial))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def _as_released_marks(text: str, fmt: str) -> str:
    """A Markdown or LaTeX export (with --show-empty, as the releases kept every row and
    column) in the releases' marks: Markdown's second was <u>, not italic; LaTeX tables
    were not scaled to the line."""
    if fmt == "md":
        return re.sub(r"(?<![*\w])\*([^*|]+)\*(?![*\w])", r"<u>\1</u>", text)
    lines = text.removeprefix(f"{LATEX_PREAMBLE}\n\n").split("\n")
    unscaled = "\n".join(line for line in lines if line not in (LATEX_FIT, "}"))
    return unscaled.replace("\\end{tabular}%", "\\end{tabular}")


# The releases mixed the offline rules' and the LLM's judgments of a run (the latest
# decided); each judge's scores now stand apart, and the notes name the one left out.
OTHER_JUDGES = (
    " Other judges in the file, not in these numbers: offline rules (--judge NAME shows one)."
)


@pytest.mark.parametrize("release", ["v3", "v4", "v5"])
def test_a_release_file_migrates_and_exports_exactly_as_that_release_did(
    release: str, tmp_path: Path, cli
) -> None:
    db = _copy(release, tmp_path)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == int(release[1])
    columns = {table: _columns(db, table) for table in KEPT}
    before = {table: _rows(db, table) for table in KEPT}
    for fmt in FORMATS:
        result = cli("export", db, "--format", fmt, *(("--show-empty",) * (fmt in FOR_READERS)))
        assert result.code == 0, result.stderr
        expected = (RELEASES / release / f"export.{fmt}").read_text(encoding="utf-8")
        if fmt == "json":  # the releases rounded to two decimals; JSON is now unrounded
            document = json.loads(result.stdout)
            assert document["notes"]["mmvet"].pop("other_judges") == ["offline rules"]
            assert _to_two_decimals(_as_released_json(document)) == json.loads(expected)
        elif fmt == "csv":
            assert _as_released_csv(result.stdout) == expected
        else:  # the same numbers, by the same judge; the notes now name the judge left out
            assert result.stdout.count(OTHER_JUDGES) == 1, fmt
            marked = _as_released_marks(result.stdout, fmt)
            assert marked.replace(OTHER_JUDGES, "") == expected, fmt
    with Store.open(db, create=False) as store:
        assert store.schema_version == SCHEMA_VERSION
    # Every row keeps every value it had; later migrations only add columns (left empty).
    assert {table: _rows(db, table, columns[table]) for table in KEPT} == before
    assert all(row == (None,) for row in _rows(db, "judgments", ["source"]))
    info = json.loads(cli("info", db, "--json").stdout)
    old = json.loads((RELEASES / release / "info.json").read_text(encoding="utf-8"))
    judges = {d["name"]: d.pop("judge") for d in info["datasets"]}
    assert judges["mmvet"] == "gpt-4-0613"
    for dataset in info["datasets"]:  # a count the releases did not have
        for model in dataset["models"]:
            model.pop("offline")
    assert info["datasets"] == old["datasets"]  # every count per dataset and model


def test_a_migrated_sample_keeps_every_field_as_axes_and_extra(tmp_path: Path) -> None:
    db = _copy("v4", tmp_path)
    with sqlite3.connect(db) as conn:
        old = {
            (dataset, key): row
            for dataset, key, *row in conn.execute(
                "SELECT d.name, s.key, s.question, s.answer, s.options, s.capabilities, "
                "s.category, s.l2_category, s.circular_group, s.rotation, s.subject, "
                "s.discipline, s.img_type, s.tags FROM samples s "
                "JOIN datasets d ON d.id = s.dataset_id"
            )
        }
    with Store.open(db, create=False) as store:
        new = {(name, s.key): s for name, _ in store.datasets() for s in store.samples(name)}
    assert new.keys() == old.keys()
    for (dataset, key), row in old.items():
        question, answer, options, caps, category, l2, group, rotation, subject, _, img, tags = row
        sample = new[(dataset, key)]
        assert (sample.question, sample.answer) == (question, answer)
        assert sample.options == (json.loads(options) if options else {})
        assert list(sample.axis("capability")) == (json.loads(caps) if caps else [])
        assert sample.first("category") == category and sample.first("l2_category") == l2
        assert sample.first("subject") == subject
        assert ", ".join(sample.axis("img_type")) == (img or "")
        assert sample.extra.get("circular_group") == group
        assert sample.extra.get("rotation") == rotation
        for name, value in json.loads(tags or "{}").items():
            assert list(sample.axis(name)) == ([value] if isinstance(value, str) else value)


def test_after_the_rebuild_every_foreign_key_points_at_the_rebuilt_tables(tmp_path: Path) -> None:
    db = _copy("v3", tmp_path)
    Store.open(db, create=False).close()
    with sqlite3.connect(db) as conn:
        parents = {
            (table, row[2])
            for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            for row in conn.execute(f"PRAGMA foreign_key_list({table})")
        }
        assert {("samples", "datasets"), ("answers", "samples"), ("sample_images", "samples")} <= (
            parents
        )
        assert not any("rebuilt" in parent or "old" in parent for _, parent in parents)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.execute("PRAGMA foreign_keys = ON")
        with pytest.raises(sqlite3.IntegrityError):  # the keys are still enforced
            conn.execute(
                "INSERT INTO answers (sample_id, model_id, text, created_at) VALUES (999999, 1, "
                "'x', 'now')"
            )
        # the CHECK naming four kinds is gone: a plug-in's benchmark can own a dataset
        conn.execute("INSERT INTO datasets (name, kind, created_at) VALUES ('p', 'yesno', 'now')")


def _parent_and_child(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "CREATE TABLE parent (id INTEGER PRIMARY KEY, kind TEXT CHECK (kind IN ('a')));"
        "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));"
        "INSERT INTO parent VALUES (1, 'a'); INSERT INTO child VALUES (1, 1);"
    )
    return conn


def _child_points_at(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA foreign_key_list(child)").fetchone()[2])


def test_the_rename_trap_is_real_and_rebuild_table_avoids_it(tmp_path: Path) -> None:
    """Renaming the old table away first makes SQLite rewrite the child's REFERENCES to
    follow it (to a table then dropped); rebuild_table renames the new one into place."""
    trapped = _parent_and_child(tmp_path / "trap.db")
    trapped.execute("ALTER TABLE parent RENAME TO parent_old")
    assert _child_points_at(trapped) == "parent_old"  # the trap

    conn = _parent_and_child(tmp_path / "safe.db")
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN")
    rebuild_table(
        conn, "parent", "CREATE TABLE {name} (id INTEGER PRIMARY KEY, kind TEXT)",
        "SELECT id, kind FROM {old}",
    )  # fmt: skip
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.execute("COMMIT")
    assert _child_points_at(conn) == "parent"
    conn.execute("INSERT INTO parent VALUES (2, 'b')")  # the new definition holds
    assert conn.execute("SELECT id, parent_id FROM child").fetchall() == [(1, 1)]


def test_a_migration_that_would_break_a_key_changes_nothing(tmp_path: Path) -> None:
    """Keys are off while a migration rebuilds tables; a row left pointing at nothing is
    found before the commit, and the file stays as the release wrote it."""
    db = _copy("v4", tmp_path)
    with sqlite3.connect(db) as conn:  # a damaged file: an answer to a sample that is gone
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("UPDATE answers SET sample_id = 999999 WHERE id = 1")
    before = db.read_bytes()
    with pytest.raises(StoreError, match=r"point at nothing .* left as it was"):
        Store.open(db, create=False)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    assert _rows(db, "answers")[0][1] == 999999
    assert db.read_bytes() == before
