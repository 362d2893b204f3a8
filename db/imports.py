"""Imports of another tool's judgments (schema migration 11). Each is recorded with its
file, the file's sha256, its judge and runs, and its judgments and circular verdicts point
to it, so that a user can list the imports, keep two of one judge apart, replace one on
purpose, or remove one as if it had never been imported."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lmmreview.db.schema import JUDGE_MODEL, JUDGE_PROMPT
from lmmreview.db.store import Store, StoreError, now

# What an import judges: (answer id, "judgment" or "circular", judge model, prompt). Two
# imports that judge one of these alike would decide the same runs: only one may stand.
Judged = tuple[int, str, str, str]


@dataclass(frozen=True, slots=True)
class Import:
    """One recorded import, as `lmmreview imports` lists it."""

    id: int
    dataset: str
    file: str
    sha256: str | None  # None: recorded from its judgments by migration 11
    judge: str
    runs: int
    answers: int  # the answers its judgments and circular verdicts judge
    created_at: str
    run: dict[str, str]  # what the writing tool recorded of its run (ToolRun.recorded)


_LISTED = """
SELECT i.id, d.name, i.file, i.sha256, i.judge, i.runs,
       (SELECT COUNT(*) FROM (SELECT answer_id FROM judgments WHERE import_id = i.id
        UNION SELECT answer_id FROM group_verdicts WHERE import_id = i.id)),
       i.created_at, i.run
FROM imports i JOIN datasets d ON d.id = i.dataset_id
"""

_JUDGED = """
SELECT DISTINCT l.import_id, l.answer_id, {what}, COALESCE(l.judge_model, ''), {prompt}
FROM {table} l JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id
WHERE s.dataset_id = ? AND l.import_id IS NOT NULL
"""

# After a remove, a judge whose first judgment went with it starts at its next one, as if
# the import had never been made.
_FIRST_AGAIN = f"""
UPDATE dataset_judges SET first_judgment_id = (
    SELECT MIN(l.id) FROM judgments l JOIN answers a ON a.id = l.answer_id
    JOIN samples s ON s.id = a.sample_id WHERE s.dataset_id = dataset_judges.dataset_id
    AND l.judge_kind = dataset_judges.judge_kind AND {JUDGE_MODEL} = dataset_judges.judge_model
    AND {JUDGE_PROMPT} = dataset_judges.prompt)
WHERE dataset_id = ? AND first_judgment_id NOT IN (SELECT id FROM judgments)
"""


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def imports(store: Store, ids: Iterable[int] | None = None) -> list[Import]:
    """The recorded imports (those of `ids` only, if given), oldest first."""
    wanted = list(ids) if ids is not None else None
    where = f" WHERE i.id IN ({', '.join('?' * len(wanted))})" if wanted is not None else ""
    rows = store.conn.execute(_LISTED + where + " ORDER BY i.id", wanted or ())
    return [
        Import(id_, dataset, file, sha256, judge, runs, answers, created, _recorded(run))
        for id_, dataset, file, sha256, judge, runs, answers, created, run in rows
    ]


def _recorded(run: str | None) -> dict[str, str]:
    """An import's run as stored (JSON), its text fields only; {} where none was recorded
    or the stored text is not such an object (the file edited by hand)."""
    try:
        found = json.loads(run) if run else {}
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def imports_judging(store: Store, dataset_id: int, judged: Iterable[Judged]) -> list[Import]:
    """The imports that already judge one of `judged` alike."""
    wanted = set(judged)
    found = {
        import_id
        for table, what, prompt in (
            ("judgments", "'judgment'", "COALESCE(l.prompt_hash, '')"),
            ("group_verdicts", "'circular'", "''"),
        )
        for import_id, *item in store.conn.execute(
            _JUDGED.format(table=table, what=what, prompt=prompt), (dataset_id,)
        )
        if tuple(item) in wanted
    }
    return imports(store, sorted(found))


def record_import(
    store: Store,
    dataset_id: int,
    file: str,
    sha256: str,
    judge: str,
    runs: int,
    run: dict[str, str] | None = None,
) -> int:
    """Record an import (inside the caller's transaction), with what the writing tool
    recorded of its `run`; returns its id."""
    cursor = store.conn.execute(
        "INSERT INTO imports (dataset_id, file, sha256, judge, runs, created_at, run) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (dataset_id, file, sha256, judge, runs, now(), json.dumps(run) if run else None),
    )
    return int(cursor.lastrowid or 0)


def remove_import(store: Store, import_id: int) -> Import:
    """Delete an import's judgments and circular verdicts, and its record (inside the
    caller's transaction). Human verdicts stay: reviews are never deleted."""
    found = imports(store, [import_id])
    if not found:
        listed = ", ".join(str(i.id) for i in imports(store)) or "none"
        raise StoreError(f"{store.path}: no import {import_id} (imports: {listed})")
    dataset_id = store.conn.execute(
        "SELECT dataset_id FROM imports WHERE id = ?", (import_id,)
    ).fetchone()[0]
    for table in ("judgments", "group_verdicts"):
        store.conn.execute(f"DELETE FROM {table} WHERE import_id = ?", (import_id,))
    store.conn.execute("DELETE FROM imports WHERE id = ?", (import_id,))
    store.conn.execute(_FIRST_AGAIN, (dataset_id,))
    return found[0]
