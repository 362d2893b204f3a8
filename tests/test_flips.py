"""Judge drift: `lmmreview judges --flips A B` (engine.flips, db.flips, tui.cli.flips_tables)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from tui_harness import drive, pick, text_of, until

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.columns import NONE
from lmmreview.engine.flips import CellShift, Flip, cell_shifts, flipped, graded
from lmmreview.engine.scoring import OFFLINE, Judgment

NAN = np.nan


def _flips(a: list[float], b: list[float], ca=None, cb=None, in_grades=False) -> list[bool]:
    codes = [np.array(c if c is not None else [NONE] * len(a), np.int32) for c in (ca, cb)]
    return flipped(np.array(a), np.array(b), *codes, in_grades).tolist()


def test_on_a_0_1_dataset_a_flip_is_right_under_one_judge_and_wrong_under_the_other() -> None:
    # right: a mean of 0.5 or more (CORRECT_FROM); 0.4 and 0.2 are both wrong
    assert _flips([1.0, 0.0, 1.0, 0.4, 0.5, 0.4], [0.0, 1.0, 1.0, 0.2, 1.0, 0.5]) == [
        True, True, False, False, False, True,
    ]  # fmt: skip


def test_an_answer_one_judge_left_unscored_is_no_flip() -> None:
    assert _flips([NAN, 1.0, NAN], [0.0, NAN, NAN]) == [False, False, False]
    assert _flips([NAN, 1.0], [0.5, NAN], in_grades=True) == [False, False]


def test_two_different_options_flip_though_both_are_wrong() -> None:
    # options as codes: 0 = A, 1 = B; NONE where a judge chose none
    assert _flips([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0, 0, NONE, 1], [1, 0, 1, 1]) == [
        True, False, False, False,
    ]  # fmt: skip


def test_on_a_graded_dataset_any_change_of_score_is_a_flip() -> None:
    assert _flips([0.6, 0.6, 0.1 + 0.2, 0.0], [0.7, 0.6, 0.3, 0.0], in_grades=True) == [
        True, False, False, False,  # 0.1 + 0.2 is 0.3 in the tables' millionths
    ]  # fmt: skip


def test_a_dataset_is_graded_when_some_run_scored_between_0_and_1() -> None:
    assert not graded(np.array([[0.0, 1.0], [NAN, 1.0]]), np.array([[1.0]]))
    assert graded(np.array([[0.0, 1.0]]), np.array([[NAN], [0.3]]))


def _flip(row: str, cells: tuple[str, ...], overridden: bool = False) -> Flip:
    return Flip(1, "d", "k", row, 1.0, 0.0, None, None, overridden, row, cells)


def test_each_cell_counts_the_flips_in_it_with_its_value_under_each_judge() -> None:
    flips = [
        _flip("m1", ("t/a", "t/all")),
        _flip("m1", ("t/all",), overridden=True),
        _flip("m2", ("t/all",)),
    ]
    values = {
        ("d", "m1", "t/a"): (50.0, 25.0),
        ("d", "m1", "t/all"): (60.0, 40.0),
        ("d", "m2", "t/all"): (10.0, None),
    }
    assert cell_shifts(flips, values) == [
        CellShift("d", "m1", "t/a", 50.0, 25.0, 1, 0),
        CellShift("d", "m1", "t/all", 60.0, 40.0, 2, 1),
        CellShift("d", "m2", "t/all", 10.0, None, 1, 0),
    ]
    assert [c.difference for c in cell_shifts(flips, values)] == [-25.0, -20.0, None]


# -- through the command line -----------------------------------------------------------------


def _second_judge(db: Path, dataset: str, changed: int) -> list[tuple[str, str]]:
    """A second judge, "judge-b", scoring every answer as the dataset's first judge does but
    the `changed` first, which it scores the other way; (model, sample) of those."""
    with Store.open(db) as store:
        first = store.judges(dataset)[0]
        keys = {answer: (model, key) for answer, model, key in store.answer_keys(dataset)}
        deciding = store.deciding_judgments(dataset, first)
        flipped_ids = sorted(deciding)[:changed]
        with store.transaction():
            store.add_judgments(
                (answer, _llm(1.0 - runs[0].score if answer in flipped_ids else runs[0].score))
                for answer, runs in deciding.items()
                if runs[0].score is not None
            )
    return [keys[a] for a in flipped_ids]


def _llm(score: float) -> Judgment:
    return Judgment(run=0, score=score, method="llm", kind="llm", judge_model="judge-b")


def _json(cli, db: Path, *args: str) -> dict:
    result = cli("judges", db, "--format", "json", *args)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_flips_list_each_changed_answer_and_what_it_does_to_the_tables(cli, demo_db) -> None:
    changed = _second_judge(demo_db, "hallusionbench", 3)
    with Store.open(demo_db) as store:  # a human verdict on the first flip overrides both
        model, key = changed[0]
        ReviewStore(store, "tester").grade(store.answer_ids("hallusionbench")[model, key], 1.0)
    first = store_judge(demo_db, "hallusionbench")
    (found,) = _json(cli, demo_db, "--flips", first, "judge-b")["datasets"]
    assert (found["dataset"], found["a"], found["b"], found["graded"]) == (
        "hallusionbench", first, "judge-b", False,
    )  # fmt: skip
    flips = found["flips"]
    assert sorted((f["model"], f["key"]) for f in flips) == sorted(changed)
    assert [f["overridden"] for f in flips if (f["model"], f["key"]) == changed[0]] == [True]
    assert all(f["a"] + f["b"] == 1.0 for f in flips)
    # each cell's values are those of the tables under each judge
    under = {
        judge: rows_by_model(cli, demo_db, judge, "hallusionbench") for judge in (first, "judge-b")
    }
    for cell in found["cells"]:
        table, column = cell["cell"].split("/")
        for side, judge in (("a", first), ("b", "judge-b")):
            assert cell[side] == under[judge][table, cell["row"]][column]
        assert cell["flips"] == sum(cell["cell"] in f["cells"] for f in flips
                                    if f["row"] == cell["row"])  # fmt: skip
    # a flip a human verdict overrides moves nothing: alone in a cell, the cell stays
    alone = [c for c in found["cells"] if c["flips"] == c["overridden"]]
    assert alone and all(c["difference"] == 0.0 for c in alone)


def store_judge(db: Path, dataset: str) -> str:
    """The name of a dataset's first judge."""
    with Store.open(db) as store:
        judge = store.judges(dataset)[0]
    assert judge != OFFLINE
    return judge.label


def rows_by_model(cli, db: Path, judge: str, dataset: str) -> dict[tuple[str, str], dict]:
    """(table, model) -> the row's values, in `export --format json --judge`."""
    result = cli("export", db, "--format", "json", "--judge", judge, "--dataset", dataset)
    document = json.loads(result.stdout)
    return {(t["name"], r["model"]): r["values"] for t in document["tables"] for r in t["rows"]}


def test_markdown_names_both_judges_and_the_kind_of_flip(cli, demo_db) -> None:
    _second_judge(demo_db, "hallusionbench", 2)
    first = store_judge(demo_db, "hallusionbench")
    result = cli("judges", demo_db, "--flips", first, "judge-b")
    assert result.code == 0, result.stderr
    text = result.stdout
    assert f"### hallusionbench: 2 flips from {first} (A) to judge-b (B); right/wrong" in text
    assert "what the flips from" in text
    assert "| Row | Cell | A | B | B - A | Flips | Overridden |" in text


def test_a_graded_dataset_flips_on_any_change_of_score(cli, demo_db) -> None:
    with Store.open(demo_db) as store:
        (answer, *_), *_ = store.answer_keys("mmvet")
        with store.transaction():
            store.add_judgments([(answer, _llm(0.4))])
    (found,) = _json(cli, demo_db, "--flips", "offline rules", "judge-b")["datasets"]
    assert found["dataset"] == "mmvet" and found["graded"]
    assert [f["answer_id"] for f in found["flips"]] == [answer]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--flips", "offline rules", "nobody"), "no dataset has both judges"),
        (("--flips", "offline rules", "nobody", "--dataset", "mmvet"), "no judge 'nobody'"),
        (("--flips", "offline rules", "offline rules", "--dataset", "mmvet"), "the same judge"),
        (("--flips", "offline rules", "x", "--format", "latex"), "md or json"),
        (("--flips", "a", "b", "--combine", "a", "--combine", "b"), "two reports"),
    ],
)
def test_flips_of_judges_a_dataset_lacks_end_in_one_line(cli, demo_db, args, message) -> None:
    result = cli("judges", demo_db, *args)
    assert result.code == 1
    assert message in result.stderr


def test_the_screen_filter_lists_the_answers_flipping_between_two_judges(
    mmvet_two_models_db: Path,
) -> None:
    db = mmvet_two_models_db
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        moved, kept = ids["alpha", "v1_0"], ids["beta", "v1_1"]
        judged = [(moved, 0.5, 0.6), (kept, 1.0, 1.0)]
        with store.transaction():
            store.add_judgments(
                (answer, Judgment(run=0, score=score, method="llm", kind="llm", judge_model=judge))
                for answer, *scores in judged
                for judge, score in zip(("judge-a", "judge-b"), scores, strict=True)
            )
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "Judges disagree: A vs B…")
        await pick(app, pilot, "judge-a")
        await pick(app, pilot, "judge-b")
        await until(pilot, lambda: app.session.filter.flips is not None)
        seen["shown"] = [app.session.entries[i].answer_id for i in app.session.visible]
        seen["status"] = text_of(app, "#status")

    drive(db, steps)
    assert seen["shown"] == [moved]
    assert "judges disagree: judge-a vs judge-b" in str(seen["status"])


def test_on_a_terminal_the_tables_are_drawn_with_names_shown_literally() -> None:
    from rich.console import Console

    from lmmreview.db.flips import DatasetFlips
    from lmmreview.tui.cli.flips_tables import to_rich

    flip = Flip(1, "d", "k", "[bold]m\x1b[2J", 1.0, 0.0, "A", "B", False, "m", ("t/all",))
    shift = CellShift("d", "m", "t/all", 50.0, 25.0, 1, 0)
    found = DatasetFlips("d", "judge-a", "judge-b", False, [flip], [shift], {"t/all": "t: Total"})
    console = Console(width=200, record=True, color_system=None)
    console.print(to_rich([found]))
    text = console.export_text()
    assert "d: 1 flips from judge-a (A) to judge-b (B)" in text
    assert "[bold]m" in text and "\x1b" not in text  # markup and escapes stay text
    assert "t: Total" in text and "-25.00" in text


def test_a_dataset_named_with_a_slash_keeps_its_tables_names(cli, demo_db) -> None:
    """Inspect's task names hold a "/" (inspect_evals/mmmu): the cells still name their
    whole table."""
    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute("UPDATE datasets SET name = 'org/hb' WHERE name = 'hallusionbench'")
    _second_judge(demo_db, "org/hb", 1)
    (found,) = _json(cli, demo_db, "--flips", store_judge(demo_db, "org/hb"), "judge-b")["datasets"]
    (flip,) = found["flips"]
    text = cli("judges", demo_db, "--flips", store_judge(demo_db, "org/hb"), "judge-b").stdout
    assert all(f"{cell.rpartition('/')[0]}: " in text for cell in flip["cells"])
    assert "org: " not in text
