"""N, unscored, offline and reviewed: one count in every path a user reads them.

One database, read through `lmmreview score`'s summary, `info`, the export's notes and
tables, and the review screen's strip, must give the same numbers. Two datasets: a JSONL
set where the offline rules score some answers, leave others (a long gold, a choice with
no gold), a human overrules one, and a failed second run leaves one answer scored in one
run only; and an MMBench test split, whose TSV has no `answer` column: nothing in it can
be scored, its choices are read all the same, and its tables count circular groups.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import MMBENCH_HEADER, png_base64, write_lines, write_tsv
from tui_harness import drive, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.tables import Cell

LONG = "The cat sat on the warm mat because the sun shone through the kitchen window all day"
QUESTIONS = [
    {"id": "o1", "question": "1 + 1?", "answer": "2"},  # rules: 1.0; its run 1 fails
    {"id": "o2", "question": "Why?", "answer": LONG},  # too long for the rules: left
    {"id": "o3", "question": "2 + 2?", "answer": "4"},  # rules: 0.0, then a human's 0.5
    {"id": "c1", "question": "Which barks?", "options": ["cat", "dog"], "answer": "B"},
    {"id": "c2", "question": "Which is nicer?", "options": ["cat", "dog"]},  # no gold
    {"id": "c3", "question": "Which is older?", "options": ["cat", "dog"]},  # no gold
]
ANSWERS = {"o1": "2", "o2": "It was warm", "o3": "5", "c1": "A", "c2": "A", "c3": "B"}

# Per model of `bench`: m1 answered everything, m2 all but o2 and c3. The failed run 1 of
# o1 gives the rules two runs, so each of their scores covers one run of two: partial.
BENCH = {
    # reviewed: o3 (0.5 in both runs), c3 (a choice with no gold: reviewed, no score);
    # unscored: o2, c2, c3; offline (and partial): o1, c1
    "m1": {"answers": 6, "reviewed": 2, "unscored": 3, "offline": 2, "partial": 2},
    # offline (and partial): o1, o3, c1; unscored: c2
    "m2": {"answers": 4, "reviewed": 0, "unscored": 1, "offline": 3, "partial": 3},
}
# The MMBench test split: rows 7 and 1000007 are one circular group, 9 another; m1 answered
# all three, and a human chose an option on row 9. Nothing has a gold, so nothing scores.
TEST_ROWS = {"answers": 3, "reviewed": 1, "unscored": 3, "offline": 0, "partial": 0}
TEST_GROUPS = {"n": 2, "reviewed": 1, "unscored": 2, "offline": 0, "partial": 0}


def _mmbench_test_split(tmp_path: Path) -> tuple[Path, Path]:
    """An MMBench TSV without `answer` (a test split), and m1's predictions."""
    header = [c for c in MMBENCH_HEADER if c != "answer"]
    image = png_base64()
    rows = [
        [7, "Is it day?", "", "yes", "no", "", "", "scene", image, "s", "coarse_perception", "",
         "test"],
        [1000007, "Is it day?", "", "no", "yes", "", "", "scene", "7", "s", "coarse_perception",
         "", "test"],
        [9, "Which?", "", "circle", "square", "star", "", "OCR", image, "s",
         "finegrained_perception (instance-level)", "", "test"],
    ]  # fmt: skip
    tsv = write_tsv(tmp_path / "test.tsv", header, rows)
    predictions = tmp_path / "m1.tsv"
    predictions.write_text("index\tprediction\n7\tA\n1000007\tB\n9\tno idea\n", encoding="utf-8")
    return tsv, predictions


@pytest.fixture
def counted_db(cli, tmp_path: Path) -> Path:
    db = tmp_path / "r.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "bench.jsonl", QUESTIONS)).code == 0
    for model, skipped in (("m1", ()), ("m2", ("o2", "c3"))):
        lines = [{"id": k, "prediction": a} for k, a in ANSWERS.items() if k not in skipped]
        answers = write_lines(tmp_path / f"{model}.jsonl", lines)
        assert cli("import", "jsonl", db, answers, "--dataset", "bench", "--model", model).code == 0
    tsv, predictions = _mmbench_test_split(tmp_path)
    result = cli("import", "mmbench", db, tsv, "--answers", predictions, "--model", "m1")
    assert result.code == 0, result.stderr
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        ids = {(d, m, k): a for d in ("bench", "test") for a, m, k in store.answer_keys(d)}
        failed = Judgment(
            run=1, score=None, status=Status.ERROR, error="timeout"
        )  # the rules' run 1
        with store.transaction():
            store.add_judgments([(ids["bench", "m1", "o1"], failed)])
        review = ReviewStore(store, "ada")
        review.grade(ids["bench", "m1", "o3"], 0.5)
        review.grade(ids["bench", "m1", "c3"], choice="A")
        review.grade(ids["test", "m1", "9"], choice="B")
    return db


def _summed(per_model: dict[str, dict[str, int]], count: str) -> int:
    return sum(counts[count] for counts in per_model.values())


def _score_lines(cli, db: Path) -> dict[str, tuple[int, ...]]:
    """Per dataset, what `lmmreview score` says: scored, fallback, left, no gold."""
    result = cli("score", db)
    assert result.code == 0, result.stderr
    pattern = (
        r"(\w+): (\d+) answers scored by the offline rules \((\d+) by the seeded fallback, "
        r"marked\); (\d+) left for a human or an LLM judge(?:; (\d+) answer questions with no "
        r"gold \(a test split\): their choices are read, never scored)?"
    )
    found = {}
    for line in result.stdout.splitlines():
        match = re.fullmatch(pattern, line)
        assert match, line
        found[match[1]] = tuple(int(n or 0) for n in match.groups()[1:])
    return found


def _screen(db: Path, dataset: str, cell_key: str) -> tuple[dict[str, Cell], str]:
    """Per model, the strip's `cell_key` cell for its first answer; the strip's text."""
    seen: dict[str, Cell] = {}
    strip: list[str] = []

    async def read(app, pilot) -> None:
        session = app.session
        for entry in session.entries:
            seen.setdefault(entry.model, session.strip(entry)[cell_key])
        await until(pilot, lambda: "reviewed" in text_of(app, "#strip"))
        strip.append(text_of(app, "#strip"))

    drive(db, read, dataset=dataset)
    return seen, strip[0]


def test_score_info_the_notes_the_tables_and_the_strip_count_alike(cli, counted_db: Path) -> None:
    db = counted_db
    # `score`: scored (= offline), fallback, left (+ no gold = unscored), no gold; bench:
    # o1, o3, c1 of m2 and o1, c1 of m1 scored; o2 left; c2 twice and c3 have no gold
    score = _score_lines(cli, db)
    assert score == {"bench": (5, 0, 1, 3), "test": (0, 0, 0, 3)}

    # the tables: the Overall cell per model (bench: answers; test: circular groups)
    export = json.loads(cli("export", db, "--format", "json").stdout)
    overall = {
        t["dataset"]: t["rows"]
        for t in export["tables"]
        if t["name"] in ("bench.overall", "test.l2")
    }
    for row in overall["bench"]:
        expected = BENCH[row["model"]]
        assert row["n"]["overall"] == expected["answers"]
        for count in ("reviewed", "unscored", "offline", "partial"):
            assert row[count]["overall"] == expected[count], (row["model"], count)
    (row,) = overall["test"]
    assert {k: row[k]["overall"] for k in TEST_GROUPS} == TEST_GROUPS
    assert row["n"]["vanilla"] == 2 and row["unscored"]["vanilla"] == 2  # the main rows

    # the strip: the same cells, live in the screen, and its text (the first answer: m1's)
    cells, text = _screen(db, "bench", "bench.overall/overall")
    for model, expected in BENCH.items():
        cell = cells[model]
        assert (cell.n, cell.reviewed, cell.unscored, cell.offline, cell.partial) == (
            expected["answers"], expected["reviewed"], expected["unscored"],
            expected["offline"], expected["partial"],
        )  # fmt: skip
    assert re.search(r"Overall [\d.±]+ \(n=6, 2 reviewed, 3 unscored, 2 offline\)", text), text
    cells, text = _screen(db, "test", "test.l2/overall")
    cell = cells["m1"]
    assert (cell.n, cell.reviewed, cell.unscored, cell.offline, cell.partial) == (2, 1, 2, 0, 0)
    assert "Overall – (n=2, 1 reviewed, 2 unscored)" in text, text

    # the notes: per dataset, the models summed
    notes = export["notes"]
    for count in ("answers", "reviewed", "unscored", "offline", "partial"):
        assert notes["bench"][count] == _summed(BENCH, count), count
        assert notes["test"][count] == TEST_ROWS[count], count
    # unscored with no gold: bench's c2 (twice) and c3 (chosen by a human: still no score)
    assert (notes["bench"]["no_gold"], notes["test"]["no_gold"]) == (3, 3)

    # info: per model
    info = json.loads(cli("info", db, "--json").stdout)
    counts = {d["name"]: {m.pop("model"): m for m in d["models"]} for d in info["datasets"]}
    for dataset, expected_counts in (("bench", BENCH), ("test", {"m1": TEST_ROWS})):
        for model, expected in expected_counts.items():
            for count in ("answers", "reviewed", "unscored", "offline"):
                assert counts[dataset][model][count] == expected[count], (model, count)
