"""`lmmreview assign`: the seeded split, the reviewers' files, the screen opened on one as
its reviewer, `reviewers --progress`, and the whole team workflow (issue 31, acceptance b):
assign -> three reviewers grade their own files through the screen -> merge -> agreement
and progress equal a hand computation."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import dump
from tui_harness import RENDERER, choose, text_of, until

from lmmreview.engine.assign import group_units, overlap_size, problem, split, thin
from lmmreview.tui.app import ReviewApp

REVIEWERS = ("ana", "bo", "cy")
SEED = 31


def _units(n: int) -> list[tuple[int, ...]]:
    return [(i,) for i in range(1, n + 1)]


# -- the split (engine) --------------------------------------------------------------------


def test_the_split_is_the_same_with_a_seed_and_differs_with_another() -> None:
    units = _units(60)
    assert split(units, REVIEWERS, 0.2, 7) == split(list(reversed(units)), REVIEWERS, 0.2, 7)
    assert split(units, REVIEWERS, 0.2, 7) != split(units, REVIEWERS, 0.2, 8)


@pytest.mark.parametrize(
    ("n", "overlap", "common"),
    [(58, 0.2, 12), (10, 0.0, 0), (7, 0.5, 4), (3, 0.2, 1), (45, 0.7, 32), (50, 0.29, 15)],
)
def test_the_overlap_goes_to_everyone_and_the_rest_is_dealt_out_evenly(
    n: int, overlap: float, common: int
) -> None:
    """The overlap is the fraction of the units rounded half up (11.6 -> 12, 3.5 -> 4,
    31.5 -> 32 although 45 * 0.7 is 31.499999999999996 in floats)."""
    units = _units(n)
    found = split(units, REVIEWERS, overlap, 1)
    assert len(found.overlap) == overlap_size(n, overlap) == common
    sizes = [len(found.shares[name]) for name in REVIEWERS]
    assert max(sizes) - min(sizes) <= 1
    everything = found.overlap + [u for name in REVIEWERS for u in found.shares[name]]
    assert sorted(everything) == units  # each unit once: the shares and overlap are disjoint
    rows = found.rows()
    for name in REVIEWERS:
        mine = {answer for answer, reviewer, _ in rows if reviewer == name}
        assert mine == {a for u in found.overlap + found.shares[name] for a in u}


def test_the_overlap_rounds_the_fraction_as_written_half_up() -> None:
    for n in range(1, 200):
        for k in range(100):
            assert overlap_size(n, k / 100) == (2 * n * k + 100) // 200, (n, k)


@pytest.mark.parametrize(
    ("n", "reviewers", "overlap", "said"),
    [
        (2, REVIEWERS, 0.2, "--overlap 0.2 of 2 units is no unit"),
        (2, REVIEWERS, 0.0, "2 units, 0 of them to every reviewer, leave cy no share"),
        (4, REVIEWERS, 0.5, "4 units, 2 of them to every reviewer, leave cy no share"),
        (3, REVIEWERS, 0.0, None),
        (0, REVIEWERS, 0.2, None),  # nothing left in this dataset: nothing to split
    ],
)
def test_a_split_with_no_overlap_or_an_empty_share_is_refused(
    n: int, reviewers: tuple[str, ...], overlap: float, said: str | None
) -> None:
    found = thin(split(_units(n), reviewers, overlap, 1), overlap)
    if said is None:
        assert found is None
    else:
        assert found is not None and said in found


def test_a_group_of_answers_is_one_unit() -> None:
    answers = [
        (4, None),
        (2, ("m", "dev", 7)),
        (1, None),
        (3, ("m", "dev", 7)),
        (5, ("n", "dev", 7)),
    ]
    assert group_units(answers) == [(1,), (2, 3), (4,), (5,)]


@pytest.mark.parametrize(
    ("reviewers", "overlap", "said"),
    [
        (["ana"], 0.2, "at least two reviewers"),
        (["ana", "ana"], 0.2, "named twice"),
        (["ana", "bo", "Ana"], 0.2, "named twice"),
        (["ana", "../bo"], 0.2, "not a safe file name"),
        (["ana", ".bo"], 0.2, "not a safe file name"),
        (["ana", "bo"], 1.0, "not in [0, 1)"),
        (["ana", "bo"], -0.1, "not in [0, 1)"),
        (["ana", "", "bo"], 0.2, "a name is empty"),
    ],
)
def test_bad_reviewers_or_overlap_are_named(
    reviewers: list[str], overlap: float, said: str
) -> None:
    found = problem(reviewers, overlap)
    assert found is not None and said in found


# -- the command -----------------------------------------------------------------------------


def _assign(cli, db: Path, out: Path, *options: str):
    return cli(
        "assign", db, "--reviewers", ",".join(REVIEWERS), "--out", out, "--seed", str(SEED),
        *options,
    )  # fmt: skip


def _rows(db: Path, where: str = "") -> list[tuple]:
    """(dataset, model, circular group, answer, reviewer, overlap, seed) of every assignment."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT d.name, m.name, json_extract(s.extra, '$.circular_group'), g.answer_id, "
            "g.reviewer, g.overlap, g.seed FROM assignments g JOIN answers a ON a.id = "
            "g.answer_id JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = "
            f"s.dataset_id JOIN models m ON m.id = a.model_id {where} ORDER BY g.id"
        ).fetchall()


def test_each_file_holds_its_reviewers_share_and_the_database_every_one(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "team"
    result = _assign(cli, demo_db, out, "--dataset", "mmbench", "--overlap", "0.2")
    assert result.code == 0, result.stderr
    recorded = _rows(demo_db)
    assert {row[0] for row in recorded} == {"mmbench"} and {row[6] for row in recorded} == {SEED}
    for name in REVIEWERS:
        assert f"lmmreview open {out / name}.db" in result.stdout
        assert _rows(out / f"{name}.db") == [r for r in recorded if r[4] == name]
    assert f"lmmreview merge {demo_db} {out}/*.db" in result.stdout
    # A circular group (one model's rotations) goes whole to the same reviewers.
    reviewers_of: dict[int, set[str]] = {}
    for row in recorded:
        reviewers_of.setdefault(row[3], set()).add(row[4])
    groups = _circular_groups(demo_db)
    assert groups, "the demo's MMBench has circular groups"
    for members in groups:
        assert len({frozenset(reviewers_of[a]) for a in members}) == 1, members
    per_answer = len(recorded) / len({row[3] for row in recorded})
    assert 1 < per_answer < len(REVIEWERS)  # an overlap, and shares
    # Again: every unit is assigned, so nothing is left; the database is unchanged.
    before = dump(demo_db)
    again = _assign(cli, demo_db, tmp_path / "again", "--dataset", "mmbench")
    assert again.code == 1 and "nothing left to assign" in again.stderr
    assert dump(demo_db) == before and not (tmp_path / "again").exists()


def _circular_groups(db: Path) -> list[list[int]]:
    """The answer ids of each circular group of one model in the demo's MMBench."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT json_group_array(a.id) FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = 'mmbench' AND "
            "json_extract(s.extra, '$.circular_group') IS NOT NULL "
            "GROUP BY a.model_id, s.split, json_extract(s.extra, '$.circular_group') "
            "HAVING count(*) > 1"
        )
        return [json.loads(ids) for (ids,) in rows]


def test_units_assigned_before_are_skipped_and_counted(cli, demo_db: Path, tmp_path: Path) -> None:
    first = cli("assign", demo_db, "--reviewers", "ana,bo", "--out", tmp_path / "one",
                "--dataset", "mmvet", "--model", "demo-alpha")  # fmt: skip
    assert first.code == 0, first.stderr
    second = _assign(cli, demo_db, tmp_path / "two", "--dataset", "mmvet")
    assert second.code == 0, second.stderr
    alpha = len(_rows(demo_db, "WHERE m.name = 'demo-alpha'"))
    assert f"{alpha} units assigned before were skipped" in second.stdout
    assert len(_rows(tmp_path / "two" / "ana.db", "WHERE m.name = 'demo-alpha'")) == 0


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--dataset", "nope"), "no dataset 'nope'"),
        (("--model", "nope"), "no model 'nope'"),
        (("--overlap", "1"), "not in [0, 1)"),
        (("--overlap", "-0.5"), "not in [0, 1)"),
        (("--dataset", "mmvet", "--overlap", "0.008"), "mmvet: --overlap 0.008 of 58 units"),
        (("--dataset", "mmvet", "--overlap", "0.99"), "leave bo no share of their own"),
    ],
)
def test_bad_input_is_one_clear_error_and_the_database_unchanged(
    cli, demo_db: Path, tmp_path: Path, options: tuple[str, ...], said: str
) -> None:
    before = dump(demo_db)
    result = _assign(cli, demo_db, tmp_path / "team", *options)
    assert result.code == 1 and said in result.stderr
    assert dump(demo_db) == before and not (tmp_path / "team").exists()


def test_one_reviewer_or_an_unsafe_name_is_refused(cli, demo_db: Path, tmp_path: Path) -> None:
    before = dump(demo_db)
    for names, said in (
        ("ana", "at least two"),
        ("ana,../x", "not a safe file name"),
        ("ana,,bo", "a name is empty (two commas in a row"),
        ("ana,bo,", "a name is empty"),
        ("ana, ,bo", "a name is empty"),
    ):
        result = cli("assign", demo_db, "--reviewers", names, "--out", tmp_path / "team")
        assert result.code == 1 and said in result.stderr
    assert dump(demo_db) == before and not (tmp_path / "team").exists()


def test_an_out_that_is_a_file_is_refused(cli, demo_db: Path, tmp_path: Path) -> None:
    (tmp_path / "team").write_text("mine")
    before = dump(demo_db)
    result = _assign(cli, demo_db, tmp_path / "team")
    assert result.code == 1 and "is not a folder" in result.stderr
    assert dump(demo_db) == before and (tmp_path / "team").read_text() == "mine"


def test_a_file_in_the_way_is_named_and_nothing_is_written(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "team"
    out.mkdir()
    (out / "bo.db").write_text("mine")
    before = dump(demo_db)
    result = _assign(cli, demo_db, out)
    assert result.code == 1 and f"{out / 'bo.db'}: exists already" in result.stderr
    assert dump(demo_db) == before
    assert sorted(p.name for p in out.iterdir()) == ["bo.db"]
    assert (out / "bo.db").read_text() == "mine"


def test_two_runs_at_once_never_assign_an_answer_twice(demo_db: Path, tmp_path: Path) -> None:
    """Both plan before either writes (as two `assign` processes copying at once): the
    second write finds its answers taken and writes nothing, no file either."""
    from lmmreview.db import Store, StoreError
    from lmmreview.db.assign import files_for, plan, write_assignments

    with Store.open(demo_db) as first, Store.open(demo_db) as second:
        benchmark = dict(first.datasets(["mmvet"]))["mmvet"]
        plans = [plan(store, "mmvet", benchmark, names, 0.2, 1)
                 for store, names in ((first, ["ana", "bo"]), (second, ["cy", "di"]))]  # fmt: skip
        write_assignments(first, plans[:1], 1, files_for(tmp_path / "a", ["ana", "bo"]), print)
        before = dump(demo_db)
        with pytest.raises(StoreError, match="assigned by another run meanwhile; nothing was"):
            write_assignments(second, plans[1:], 1, files_for(tmp_path / "b", ["cy", "di"]), print)
    assert dump(demo_db) == before
    assert list((tmp_path / "b").iterdir()) == []
    assert {r[4] for r in _rows(demo_db)} == {"ana", "bo"}


# -- acceptance b: assign -> three reviewers grade in the screen -> merge ----------------------

# Each reviewer's scores on the first six overlap answers (in id order), by key: "0" 0.0,
# "5" 0.5, "=" 1.0. Each also grades the first two answers of their own share (key "=").
OVERLAP_KEYS = {
    "ana": ["=", "0", "=", "5", "=", "0"],
    "bo": ["=", "0", "=", "5", "0", "0"],
    "cy": ["=", "0", "5", "5", "=", "5"],
}
OWN_GRADED = 2


def _opened_as_the_cli_does(cli, monkeypatch: pytest.MonkeyPatch, db: Path) -> ReviewApp:
    """`lmmreview open DB` as typed, up to the point where the screen would run: the app
    it would run."""
    import lmmreview.tui.cli.screen as screen

    made: list[ReviewApp] = []
    monkeypatch.setattr(screen, "require_terminal", lambda: None)
    monkeypatch.setattr(screen, "run_screen", made.append)
    result = cli("open", db, "--dataset", "mmvet", "--images", "off")
    assert result.code == 0, result.stderr
    (app,) = made
    app.image_renderer = RENDERER
    return app


def _grade(app: ReviewApp, name: str, assigned: int) -> dict[str, object]:
    """Walk the reviewer's list (the answers assigned to them) top to bottom, grading as
    OVERLAP_KEYS and OWN_GRADED say; what the screen showed on the way."""
    seen: dict[str, object] = {}

    async def main() -> None:
        async with app.run_test(size=(150, 48)) as pilot:
            session = lambda: app.session  # noqa: E731
            await until(pilot, lambda: session() is not None and session().tables is not None)
            await until(pilot, lambda: len(session().visible) == assigned)
            await until(pilot, lambda: app.current() is not None)
            seen["status before"] = text_of(app, "#status")
            overlap = sorted(_overlap_ids(app.db_path))
            own = 0
            for _ in range(assigned):
                entry = app.current()
                assert entry is not None
                key = None
                if entry.answer_id in overlap[:6]:
                    key = OVERLAP_KEYS[name][overlap.index(entry.answer_id)]
                elif entry.answer_id not in overlap and own < OWN_GRADED:
                    key, own = "=", own + 1
                if key is not None:
                    await pilot.press(key)
                    await until(pilot, lambda: not app.review_screen.writer.pending)
                await pilot.press("j")
            await until(pilot, lambda: "8 / " in text_of(app, "#status"))
            seen["status after"] = text_of(app, "#status")
            await pilot.press("escape")  # Esc clears the assigned filter like any other
            await until(pilot, lambda: session().filter.assigned is None)
            seen["all"] = len(session().visible)
            await pilot.press("v")
            await choose(app, pilot, "assigned")
            await until(pilot, lambda: session().filter.assigned is not None)
            seen["again"] = len(session().visible)

    asyncio.run(main())
    return seen


def _overlap_ids(db: Path) -> set[int]:
    with closing(sqlite3.connect(db)) as conn:
        return {a for (a,) in conn.execute("SELECT answer_id FROM assignments WHERE overlap = 1")}


def _kappa(a: list[Fraction], b: list[Fraction]) -> float:
    """Cohen's kappa by hand: observed agreement, and chance agreement from the marginals."""
    n = len(a)
    observed = Fraction(sum(x == y for x, y in zip(a, b, strict=True)), n)
    chance = sum(Fraction(a.count(v) * b.count(v), n * n) for v in set(a) | set(b))
    return float((observed - chance) / (1 - chance))


def test_a_team_assigns_grades_in_the_screen_merges_and_measures_agreement(
    cli, demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "team"
    result = _assign(cli, demo_db, out, "--dataset", "mmvet", "--overlap", "0.2")
    assert result.code == 0, result.stderr
    assigned = {name: len(_rows(demo_db, f"WHERE g.reviewer = '{name}'")) for name in REVIEWERS}
    overlap = len(_overlap_ids(out / "ana.db"))
    assert overlap == 12  # 0.2 of the 58 MM-Vet answers, rounded
    for name in REVIEWERS:
        app = _opened_as_the_cli_does(cli, monkeypatch, out / f"{name}.db")
        assert app.settings.reviewer == name  # the file's one reviewer, no --reviewer given
        seen = _grade(app, name, assigned[name])
        assert f"{name}: 0 / {assigned[name]} assigned done" in str(seen["status before"])
        assert "assigned to me" in str(seen["status before"])
        assert f"{name}: 8 / {assigned[name]} assigned done" in str(seen["status after"])
        assert seen["all"] == 58 and seen["again"] == assigned[name]
    merged = cli("merge", demo_db, *(out / f"{name}.db" for name in REVIEWERS))
    assert merged.code == 0, merged.stderr
    before = dump(demo_db)
    assert cli("merge", demo_db, *(out / f"{name}.db" for name in REVIEWERS)).code == 0
    assert dump(demo_db) == before  # idempotent

    report = cli("reviewers", demo_db, "--dataset", "mmvet", "--format", "json", "--progress")
    (found,) = json.loads(report.stdout)["datasets"]
    assert found["reviewers"] == {name: 8 for name in REVIEWERS}
    scores = {name: [_score(k) for k in keys] for name, keys in OVERLAP_KEYS.items()}
    kappas = {(p["first"], p["second"]): p["kappa"] for p in found["scores"]["pairs"]}
    # By hand: ana/bo agree on 5 of 6, chance (3*2 + 2*3 + 1*1) / 36 -> kappa 17/23;
    # ana/cy on 4 of 6, chance (3*2 + 2*1 + 1*3) / 36 -> 13/25; bo/cy on 3 of 6,
    # chance (2*2 + 3*1 + 1*3) / 36 -> 4/13.
    assert kappas == pytest.approx({("ana", "bo"): 17 / 23, ("ana", "cy"): 13 / 25,
                                    ("bo", "cy"): 4 / 13})  # fmt: skip
    for (first, second), kappa in kappas.items():
        assert kappa == pytest.approx(_kappa(scores[first], scores[second]))
    # Krippendorff's alpha (interval) over the six overlap answers, three values each:
    # observed disagreement: per answer, the squared differences of its ordered pairs over
    # (3 - 1): 0, 0, (0.25 + 0.25) * 2 / 2, 0, (1 + 1) * 2 / 2, (0.25 + 0.25) * 2 / 2 = 3,
    # over 18 values: 1/6. Expected: the 18 values are seven 1.0, six 0.0, five 0.5; their
    # ordered pairs' squared differences: 2 * (7*6*1 + 7*5*0.25 + 6*5*0.25) = 116.5, over
    # 18 * 17: 233/612. alpha = 1 - (1/6) / (233/612) = 131/233.
    assert found["scores"]["answers"] == 6
    assert found["scores"]["alpha"] == pytest.approx(131 / 233)
    progress = {p["reviewer"]: p for p in found["progress"]}
    table = cli("reviewers", demo_db, "--dataset", "mmvet", "--progress").stdout
    for name in REVIEWERS:
        assert progress[name] == {
            "reviewer": name, "assigned": assigned[name], "done": 8, "overlap": overlap,
            "overlap_done": 6,
        }  # fmt: skip
        assert f"| {name} | {assigned[name]} | 8 | {overlap} | 6 |" in table


def _score(key: str) -> Fraction:
    return {"0": Fraction(0), "5": Fraction(1, 2), "=": Fraction(1)}[key]


def test_a_reviewer_flag_wins_over_the_files_reviewer(
    cli, demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lmmreview.tui.cli.screen as screen

    assert _assign(cli, demo_db, tmp_path / "team", "--dataset", "mmvet").code == 0
    made: list[ReviewApp] = []
    monkeypatch.setattr(screen, "require_terminal", lambda: None)
    monkeypatch.setattr(screen, "run_screen", made.append)
    assert (
        cli("open", tmp_path / "team" / "bo.db", "--reviewer", "lead", "--images", "off").code == 0
    )
    assert cli("open", demo_db, "--images", "off").code == 0  # three reviewers: none is taken
    assert cli("open", tmp_path / "team" / "bo.db", "--images", "off").code == 0
    assert made[0].settings.reviewer == "lead" and made[0].dataset is None
    assert made[1].settings.reviewer not in REVIEWERS and made[1].dataset is None
    assert made[2].settings.reviewer == "bo" and made[2].dataset == "mmvet"  # theirs first
    for app in made:  # never run: their database threads end here
        app.database.close()


@pytest.mark.parametrize("name", ["", "  ", "\x1b[2J[red]x", "../up"])
def test_a_file_naming_no_usable_reviewer_is_opened_as_anyone_elses(
    cli, demo_db: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """An edited file's one assignee is taken only by a name `assign` could have written."""
    import lmmreview.tui.cli.screen as screen

    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute(
            "INSERT INTO assignments (answer_id, reviewer, overlap, seed, created_at) "
            "VALUES ((SELECT min(id) FROM answers), ?, 0, 1, '2024-05-01T12:00:00.000+00:00')",
            (name,),
        )
    made: list[ReviewApp] = []
    monkeypatch.setattr(screen, "require_terminal", lambda: None)
    monkeypatch.setattr(screen, "run_screen", made.append)
    assert cli("open", demo_db, "--images", "off").code == 0
    (app,) = made
    app.database.close()
    assert app.settings.reviewer != name and app.settings.reviewer.strip()


def test_done_counts_the_reviewers_own_verdicts_in_force(
    cli, demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another reviewer's verdict on an assigned answer is not the reviewer's work done;
    their own grade is, until they undo it."""
    from lmmreview.db import Store
    from lmmreview.db.review import ReviewStore

    assert _assign(cli, demo_db, tmp_path / "team", "--dataset", "mmvet").code == 0
    ana = tmp_path / "team" / "ana.db"
    theirs = sorted(a for *_, a, _, _, _ in _rows(ana))
    with Store.open(ana) as store:
        ReviewStore(store, "lead").grade(theirs[0], 1.0)
    app = _opened_as_the_cli_does(cli, monkeypatch, ana)
    seen: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(150, 48)) as pilot:
            await until(pilot, lambda: app.session is not None and app.session.tables is not None)
            await until(pilot, lambda: app.current() is not None)
            assert app.current().answer_id == theirs[0]
            seen.append(text_of(app, "#status"))
            session = app.session
            # Unreviewed on her assignments: the lead's grade is not hers, so it counts, and
            # `n` from the last answer goes round to it.
            assert session.count(replace(session.filter, unreviewed=True)) == len(theirs)
            await pilot.press("end", "n")
            await until(pilot, lambda: app.current().answer_id == theirs[0])
            for key, done in (("5", 1), ("u", 0)):  # ana's grade, then her undo
                await pilot.press(key)
                said = f"ana: {done} / {len(theirs)} assigned done"
                await until(pilot, lambda said=said: said in text_of(app, "#status"))

    asyncio.run(main())
    assert f"ana: 0 / {len(theirs)} assigned done" in seen[0]  # the lead's verdict is not hers


def test_the_screens_done_blind_count_and_progress_take_one_rule_of_time_order() -> None:
    """A grade of ana's (12:00) and an undo of hers merged from another file (id after it,
    time before it): in time order the undo comes first and her grade stands, as
    `reviewers --progress` counts it; the screen's "done" and blind count say the same."""
    from lmmreview.engine.assign import Assigned
    from lmmreview.engine.review import HistoryRow
    from lmmreview.engine.reviewers import own_verdict
    from lmmreview.engine.scoring import Verdict

    grade = HistoryRow(1, 1.0, None, None, None, "grade", "ana", None, "2026-01-01T12:00:00")
    undo = HistoryRow(2, None, None, 1.0, None, "undo", "ana", None, "2026-01-01T11:00:00")
    other = HistoryRow(3, 0.0, None, 1.0, None, "grade", "bo", None, "2026-01-01T13:00:00")
    history = [grade, undo, other]
    assert own_verdict(history, "ana") == Verdict(1.0)
    assert own_verdict(history, "bo") == Verdict(0.0) and own_verdict(history, "cy") is None
    assigned = Assigned("ana", frozenset({7}), set())
    assigned.changed(7, history)
    assert assigned.done == {7}
    assigned.changed(7, [grade, replace(undo, created_at="2026-01-01T12:30:00")])
    assert assigned.done == set()


def test_progress_counts_each_reviewers_own_verdicts_on_their_assignments(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    """done counts an assigned answer with the reviewer's own verdict in force: not one
    they undid, not another's verdict, not their verdict on an answer assigned to others."""
    from lmmreview.db import Store
    from lmmreview.db.assign import reviewer_progress
    from lmmreview.db.review import ReviewStore
    from lmmreview.db.reviewers import reviewer_verdicts
    from lmmreview.engine.assign import Progress

    assert (
        _assign(cli, demo_db, tmp_path / "team", "--dataset", "mmvet", "--overlap", "0.2").code == 0
    )
    mine = {name: sorted(r[3] for r in _rows(demo_db) if r[4] == name) for name in REVIEWERS}
    shared = _overlap_ids(demo_db)
    not_ana = next(a for a in mine["bo"] if a not in mine["ana"])
    with Store.open(demo_db) as store:
        ana, cy = ReviewStore(store, "ana"), ReviewStore(store, "cy")
        for answer in (*mine["ana"][:3], not_ana):
            ana.grade(answer, 1.0)
        ana.undo_last("mmvet")  # takes back not_ana
        ana.undo_last("mmvet")  # and mine["ana"][2]
        ReviewStore(store, "lead").grade(mine["bo"][0], 0.0)
        cy.grade(min(shared), 0.5)
        found = reviewer_progress(store, "mmvet", reviewer_verdicts(store, "mmvet"))
    sizes = {name: len(mine[name]) for name in REVIEWERS}
    ana_done = mine["ana"][:2]
    assert found == [
        Progress("ana", sizes["ana"], 2, len(shared), len(shared.intersection(ana_done))),
        Progress("bo", sizes["bo"], 0, len(shared), 0),
        Progress("cy", sizes["cy"], 1, len(shared), 1),
    ]


def test_a_file_reopened_after_grading_counts_the_reviewers_verdicts(
    cli, demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ana grades in her file, quits and opens it again: her verdicts are read back (the
    reviews' blind column among them) and counted done."""
    from lmmreview.db import Store
    from lmmreview.db.review import ReviewStore

    assert _assign(cli, demo_db, tmp_path / "team", "--dataset", "mmvet").code == 0
    ana = tmp_path / "team" / "ana.db"
    theirs = sorted(r[3] for r in _rows(ana))
    with Store.open(ana) as store:
        ReviewStore(store, "ana").grade(theirs[0], 1.0)
    app = _opened_as_the_cli_does(cli, monkeypatch, ana)

    async def main() -> None:
        async with app.run_test(size=(150, 48)) as pilot:
            said = f"ana: 1 / {len(theirs)} assigned done"
            await until(pilot, lambda: said in text_of(app, "#status"))

    asyncio.run(main())


def test_the_status_line_and_progress_take_merged_rows_in_time_order(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    """A row merged from another file comes after this file's rows whatever its time: the
    status line's done (Assigned.changed) and `reviewers --progress` both take a
    reviewer's rows in time order, so they agree."""
    import numpy as np

    from lmmreview.db import Store
    from lmmreview.db.assign import assigned_to, reviewer_progress
    from lmmreview.db.review import ReviewStore
    from lmmreview.db.reviewers import reviewer_verdicts

    assert _assign(cli, demo_db, tmp_path / "team", "--dataset", "mmvet").code == 0
    answer = min(r[3] for r in _rows(demo_db) if r[4] == "ana")
    with closing(sqlite3.connect(demo_db)) as conn, conn:  # her grade at 12:05, then her
        conn.executemany(  # undo of 12:00, merged from another copy
            "INSERT INTO reviews (answer_id, score, previous_score, action, reviewer, "
            "created_at) VALUES (?, ?, ?, ?, 'ana', ?)",
            [(answer, 1.0, None, "grade", "2024-05-01T12:05:00.000+00:00"),
             (answer, None, 1.0, "undo", "2024-05-01T12:00:00.000+00:00")],
        )  # fmt: skip
    with Store.open(demo_db) as store:
        (ana,) = [p for p in reviewer_progress(store, "mmvet", reviewer_verdicts(store, "mmvet"))
                  if p.reviewer == "ana"]  # fmt: skip
        assigned = assigned_to(store, "ana", np.array([answer]))
        assert assigned is not None and ana.done == len(assigned.done) == 1
        assigned.changed(answer, ReviewStore(store, "ana").history(answer))
    assert assigned.done == {answer}
