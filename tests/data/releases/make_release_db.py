"""Make a database as a released lmmreview wrote it, and that release's exports of it.

Run with an older checkout first on the path (its `lmmreview/` package), from the
checkout's folder (its bench/fake_judge.py serves the judge):

    cd OLD_CHECKOUT && PYTHONPATH=. python PATH/TO/make_release_db.py OUT_FOLDER

It builds the demo, judges MM-Vet three times and MMBench once with the scripted fake
judge (some replies garbage, so some runs fail), and grades, undoes, notes and flags a
few answers; then writes OUT_FOLDER/release.db and the exports the release made of it.
tests/test_migration.py opens a copy with today's lmmreview and compares.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore

FORMATS = ("md", "json", "csv", "latex")


def cli(*args: object, env: dict[str, str] | None = None) -> str:
    command = [sys.executable, "-m", "lmmreview", *map(str, args)]
    return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout


def judge(db: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.fake_judge", "--port", "0", "--fault-rate", "0.15",
         "--faults", "500,garbage", "--seed", "3"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        url = (server.stdout.readline() if server.stdout else "").strip()
        env = {**os.environ, "OPENAI_API_KEY": "sk-release-test"}
        cli(
            "judge",
            db,
            "--dataset",
            "mmvet",
            "--runs",
            "3",
            "--max-attempts",
            "2",
            "--base-url",
            url,
            env=env,
        )
        cli("judge", db, "--dataset", "mmbench", "--base-url", url, env=env)
    finally:
        server.terminate()
        server.wait()


def review(db: Path) -> None:
    with Store.open(db, create=False) as store:
        reviews = ReviewStore(store, "release-test")
        for dataset, grades in (
            ("mmvet", [0.0, 1.0, 0.5, 0.3]),
            ("mmbench", ["A", "B", "X"]),
            ("generic", [1.0, "B"]),
            ("mmmu", ["C", 0.0]),
        ):
            entries = reviews.entries(dataset)
            for entry, grade in zip(entries[::3], grades, strict=False):
                if isinstance(grade, str):
                    reviews.grade(entry.answer_id, choice=grade)
                else:
                    reviews.grade(entry.answer_id, score=grade)
            reviews.note(entries[1].answer_id, "checked against the image")
            reviews.set_flag(entries[2].answer_id, True)
        reviews.undo_last("mmvet")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    db = out / "release.db"
    db.unlink(missing_ok=True)
    cli("demo", db, "--no-open")
    judge(db)
    review(db)
    with Store.open(db, create=False) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for fmt in FORMATS:
        (out / f"export.{fmt}").write_text(cli("export", db, "--format", fmt), encoding="utf-8")
    (out / "info.json").write_text(cli("info", db, "--json"), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
