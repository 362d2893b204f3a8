"""The screen's write commands (tui/writes.py): typed values, not closures, that the
database thread applies; each writes the rows the store's own calls write."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import Verdict
from lmmreview.tui.database import Database
from lmmreview.tui.writes import Cause, Command, Flag, Grade, Note, PendingWrite, PendingWrites

# Each command beside the store call the screen made before commands existed.
CASES: list[tuple[Command, str]] = [
    (Grade(Verdict(0.3)), "score 0.30"),
    (Grade(Verdict(None, "B")), "choice B"),
    (Grade(Verdict(0.5), "accept"), "accept 0.50"),
    (Grade(Verdict(None, "X"), "accept"), "accept X"),
    (Flag(True), "flag"),
    (Flag(False), "unflag"),
    (Cause("hallucination"), "cause hallucination"),
    (Cause(None), "clear cause"),
    (Note("check the chart"), "note"),
]


def _by_the_store(review: ReviewStore, answer_id: int, command: Command) -> None:
    """What the screen called for each change before it queued typed commands."""
    if isinstance(command, Grade):
        verdict = command.verdict
        review.grade(answer_id, score=verdict.score, choice=verdict.choice, action=command.action)
    elif isinstance(command, Flag):
        review.set_flag(answer_id, command.flagged)
    elif isinstance(command, Cause):
        review.set_cause(answer_id, command.cause)
    else:
        review.note(answer_id, command.text)


def _rows(db: Path) -> list[tuple[object, ...]]:
    """The reviewers' rows, without their times."""
    with sqlite3.connect(db) as conn:
        return [
            *conn.execute(
                "SELECT answer_id, score, choice, previous_score, previous_choice, action, "
                "reviewer, note FROM reviews ORDER BY id"
            ),
            *conn.execute("SELECT answer_id, flagged, reviewer FROM flags ORDER BY id"),
            *conn.execute(
                "SELECT answer_id, cause, previous, action, reviewer FROM causes ORDER BY id"
            ),
        ]


@pytest.mark.parametrize(("command", "label"), CASES)
def test_each_command_is_a_frozen_value_with_its_label(command: Command, label: str) -> None:
    assert command.label == label
    assert not any(callable(getattr(command, f.name)) for f in dataclasses.fields(command))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(command, dataclasses.fields(command)[0].name, None)


def test_the_commands_write_the_rows_the_store_calls_wrote(demo_db: Path, tmp_path: Path) -> None:
    """Every command, twice over (a verdict in force again adds no row), through the
    database thread's commit, and by the store's calls on a copy of the same file."""
    other = tmp_path / "by-the-store.db"
    shutil.copy(demo_db, other)
    with Store.open(demo_db) as store:
        answers = [e.answer_id for e in ReviewStore(store, "ada").entries("mmvet")[:2]]
    database = Database(demo_db, "ada")
    try:
        for answer_id in answers:
            for command, _ in [*CASES, *CASES]:
                write = PendingWrite("mmvet", answer_id, "key", "model", command)
                shown = database.submit(partial(database.commit, write)).result()
                assert shown is not None and shown[0].answer_id == answer_id
    finally:
        database.close()
    with Store.open(other) as store:
        review = ReviewStore(store, "ada")
        for answer_id in answers:
            for command, _ in [*CASES, *CASES]:
                _by_the_store(review, answer_id, command)
    assert _rows(demo_db) == _rows(other)
    assert len(_rows(demo_db)) > len(CASES)


def test_the_queue_knows_the_verdict_in_force_once_saved() -> None:
    """The verdict an answer has once what is queued is saved: the newest queued grade,
    else the saved one; flags and notes leave it as it is."""
    queue = PendingWrites()
    saved = Verdict(0.2)

    def in_force() -> Verdict | None:
        return queue.verdict_in_force(_Saved(7, saved))  # type: ignore[arg-type]

    assert in_force() == saved
    queue.append(PendingWrite("d", 7, "k", "m", Grade(Verdict(0.4))))
    queue.append(PendingWrite("d", 7, "k", "m", Flag(True)))
    queue.append(PendingWrite("d", 8, "k", "m", Grade(Verdict(0.9))))
    assert in_force() == Verdict(0.4)
    assert [w.verdict for w in queue] == [Verdict(0.4), None, Verdict(0.9)]
    assert queue.labels(7) == ("score 0.40", "flag")


@dataclasses.dataclass
class _Saved:
    """What `verdict_in_force` reads of an entry."""

    answer_id: int
    verdict: Verdict | None


def test_the_queue_is_free_of_textual() -> None:
    """The write commands and their queue load without Textual (issue 27, item 3)."""
    code = (
        "import sys, lmmreview.tui.writes; print(any(m.startswith('textual') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
