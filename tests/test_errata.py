"""Ground-truth errata: the rules (engine.errata), the store (db.errata), the tables with
errata beside the published ones, and `lmmreview errata` (write, import)."""

from __future__ import annotations

import csv
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from lmmreview.db import Store
from lmmreview.db.errata import ErrataStore
from lmmreview.db.review import ReviewStore
from lmmreview.db.scoring import dataset_scores, with_errata_scores
from lmmreview.engine.columns import AnswerColumns
from lmmreview.engine.errata import ErrataCount, Erratum, problem, spread, with_errata
from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.errata_dialog import erratum_line
from tests.conftest import dump


def _rotation(key: str, options: dict[str, str], gold: str) -> Sample:
    return Sample(key, "Which scene?", QuestionType.CHOICE, gold, options=options, split="dev",
                  extra={"circular_group": 0})  # fmt: skip


def test_a_corrected_letter_maps_to_the_other_rotations_by_option_text() -> None:
    """A circular group's latest erratum (the last given) is on all its rows."""
    main = _rotation("0", {"A": "beach", "B": "forest", "C": "city"}, "A")
    second = _rotation("1000000", {"A": "forest", "B": "city", "C": "beach"}, "C")
    third = _rotation("2000000", {"A": "city", "B": "beach", "C": "forest"}, "B")
    rows = [main, second, third]
    first = Erratum("0", "wrong", "B", ("C",))  # forest, or city
    later = Erratum("2000000", "wrong", "A", reason="city")
    found = spread({"0": first, "2000000": later}, rows, "circular_group")
    assert found["2000000"] == later
    assert (found["0"].gold, found["0"].origin, found["1000000"].gold) == ("C", "2000000", "B")
    found = spread({"2000000": later, "0": first}, rows, "circular_group")
    assert found["0"] == first
    assert (found["1000000"].gold, found["1000000"].alternatives) == ("A", ("B",))
    assert (found["2000000"].gold, found["2000000"].alternatives) == ("C", ("A",))
    assert spread({"0": Erratum("0", "wrong", "B")}, [main, second], None) == {
        "0": Erratum("0", "wrong", "B")
    }


def test_golds_with_an_erratum() -> None:
    assert Erratum("k", "wrong", "B", ("C",)).golds(["A"]) == ["B", "C"]
    assert Erratum("k", "ambiguous", None, ("C",)).golds(["A"]) == ["A", "C"]
    assert Erratum("k", "ambiguous").golds(["A"]) is None  # the sample leaves


def test_an_erratum_must_fit_its_sample() -> None:
    choice = _rotation("0", {"A": "beach", "B": "forest"}, "A")
    assert problem(choice, Erratum("0", "wrong", "E")) == "'E' is not an option letter of 0 (A, B)"
    assert (
        problem(choice, Erratum("0", "wrong", None)) == "a 'wrong' erratum needs the corrected gold"
    )
    assert problem(choice, Erratum("0", "right", "B")) is not None
    assert problem(choice, Erratum("0", None, "B")) is not None
    assert problem(choice, Erratum("0", "wrong", "B", ("A",))) is None
    open_question = Sample("v1_0", "How many?", QuestionType.OPEN, "14")
    assert problem(open_question, Erratum("v1_0", "wrong", "15")) is None
    published = "'A' is the published gold of 0: nothing to correct"
    assert problem(choice, Erratum("0", "wrong", "A")) == published
    assert problem(open_question, Erratum("v1_0", "wrong", " 14 ")) is not None


def _answers(*entries: Entry) -> AnswerColumns:
    return AnswerColumns.from_entries(list(entries), ["v1_0", "v1_1"])


def test_a_judges_score_against_the_published_gold_leaves_a_human_verdict_stands() -> None:
    """MM-Vet: an LLM judge scored against the published gold; no rule can score again."""
    answers = _answers(
        Entry(1, "alpha", "v1_0", (1.0, 1.0)),
        Entry(2, "beta", "v1_0", (0.0, 0.2), verdict=Verdict(0.5)),
        Entry(3, "alpha", "v1_1", (0.4, 0.6)),
    )
    found = with_errata(answers, 2, lambda i: ["14"], {0: ["15"]}, None)
    assert found.answers.ids.tolist() == [2, 3]
    assert (found.count.left_judged, found.count.left_ambiguous, found.count.changed) == (1, 0, 0)
    assert answers.ids.tolist() == [1, 2, 3]  # the published columns are untouched


def test_an_answer_never_scored_stays_as_it_is() -> None:
    """No score in any run (unjudged, or failed): nothing against the published gold to
    undo, so it neither leaves nor counts as a judge's."""
    answers = _answers(Entry(1, "alpha", "v1_0", ()), Entry(2, "beta", "v1_0", (None, None)))
    found = with_errata(answers, 2, lambda i: ["14"], {0: ["15"]}, None)
    assert found.answers.ids.tolist() == [1, 2]
    assert (found.count.left_judged, found.count.changed) == (0, 0)


def test_a_chosen_option_is_scored_against_the_corrected_gold() -> None:
    answers = _answers(
        Entry(1, "alpha", "v1_0", (1.0,), judge_choice="A"),
        Entry(2, "beta", "v1_0", (0.0,), judge_choice="B"),
        Entry(3, "gamma", "v1_0", (1.0,), judge_choice="A", verdict=Verdict(None, "A")),
        Entry(4, "gamma", "v1_1", (), judge_choice="C"),
    )
    found = with_errata(answers, 1, lambda i: ["A"], {0: ["B"], 1: None}, None)
    assert found.answers.judged[:, 0].tolist() == [0.0, 1.0, 1.0]
    assert found.golds_of(0) == ["B"] and found.golds_of(1) == ["A"]
    # alpha and beta swap, gamma's verdict (A) now scores 0 against B
    assert (found.count.changed, found.count.left_ambiguous) == (3, 1)
    assert answers.judged[:, 0].tolist()[:3] == [1.0, 0.0, 1.0]


def test_the_official_rules_score_an_open_answer_again() -> None:
    answers = _answers(Entry(1, "alpha", "v1_0", (1.0,)), Entry(2, "beta", "v1_0", (0.0,)))
    texts = {0: "1,200", 1: "1300"}
    found = with_errata(answers, 1, lambda i: ["1200"], {0: ["1300"]},
                        lambda row, golds: float(texts[row].replace(",", "") in golds))  # fmt: skip
    assert found.answers.judged[:, 0].tolist() == [0.0, 1.0]
    assert found.count.changed == 2


# -- the store and the tables ----------------------------------------------------------


def _set(db: Path, dataset: str, erratum: Erratum, reviewer: str = "ana") -> None:
    with Store.open(db, create=False) as store:
        ErrataStore(store, reviewer).set(dataset, erratum)


def _values(cli, db: Path, dataset: str) -> dict[str, dict[str, dict[str, float | None]]]:
    """table name -> model -> column -> value, from `export --errata --format json`."""
    result = cli("export", db, "--format", "json", "--errata", "--dataset", dataset)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    tables = {t["name"]: {r["model"]: r["values"] for r in t["rows"]} for t in document["tables"]}
    return {**tables, "notes": document["notes"][dataset]}


def _published(cli, db: Path, dataset: str) -> str:
    return cli("export", db, "--format", "json", "--dataset", dataset).stdout


def test_mmbench_circular_eval_with_a_corrected_letter(cli, demo_db: Path) -> None:
    """Group 0 (beach A / forest B ...): the gold becomes forest, which is A, D, C on the
    rotations 1000000, 2000000, 3000000. By hand: every model now fails group 0 under
    CircularEval (alpha and beta chose beach on row 0, gamma city street on 1000000);
    VanillaEval (row 0 alone) loses alpha's and beta's point and gains gamma's."""
    published = _published(cli, demo_db, "mmbench")
    _set(demo_db, "mmbench", Erratum("0", "wrong", "B", reason="a forest"))
    found = _values(cli, demo_db, "mmbench")
    before, after = found["mmbench.l2"], found["mmbench.l2+errata"]
    assert [round(after[m]["vanilla"] - before[m]["vanilla"], 1)
            for m in ("demo-alpha", "demo-beta", "demo-gamma")] == [-8.3, -8.3, 8.3]  # fmt: skip
    assert after["demo-alpha"]["overall"] == pytest.approx(
        before["demo-alpha"]["overall"] - 100 / 12
    )
    assert _published(cli, demo_db, "mmbench") == published  # errata never touch these
    # changed: row 0 all three; 1000000 alpha, beta; 2000000 alpha, beta; 3000000 all three
    assert found["notes"]["errata"] == {"samples": 4, "changed": 10, "left_judged": 0,
                                        "left_ambiguous": 0}  # fmt: skip


def test_mmmu_choice_and_open_questions_by_the_rules(cli, demo_db: Path) -> None:
    """validation_Accounting_1 (choice, gold B): D instead makes alpha and beta wrong,
    gamma (D) right; validation_Accounting_2 (open, 1200): ambiguous with 8,800 also
    accepted makes gamma ("8,800") right too."""
    _set(demo_db, "mmmu", Erratum("validation_Accounting_1", "wrong", "D"))
    _set(demo_db, "mmmu", Erratum("validation_Accounting_2", "ambiguous", None, ("8,800",)))
    found = _values(cli, demo_db, "mmmu")
    before, after = found["mmmu.subjects"], found["mmmu.subjects+errata"]
    assert {m: (before[m]["Accounting"], after[m]["Accounting"]) for m in before} == {
        "demo-alpha": (100.0, 50.0), "demo-beta": (100.0, 50.0), "demo-gamma": (0.0, 100.0),
    }  # fmt: skip
    assert found["notes"]["errata"]["changed"] == 4  # three on the first, gamma on the second


def test_an_ambiguous_gold_without_answers_leaves_the_tables(cli, demo_db: Path) -> None:
    _set(demo_db, "mmmu", Erratum("validation_Accounting_1", "ambiguous"))
    found = _values(cli, demo_db, "mmmu")
    assert found["notes"]["errata"]["left_ambiguous"] == 3
    n = json.loads(cli("export", demo_db, "--format", "json", "--errata", "--dataset", "mmmu")
                   .stdout)["tables"]  # fmt: skip
    counts = {
        t["name"]: t["rows"][0]["n"]["Accounting"]
        for t in n
        if t["name"].startswith("mmmu.subjects")
    }
    assert counts == {"mmmu.subjects": 2, "mmmu.subjects+errata": 1}


def test_undo_restores_the_state_before_as_a_new_row(demo_db: Path) -> None:
    with Store.open(demo_db, create=False) as store:
        errata = ErrataStore(store, "ana")
        errata.set("mmmu", Erratum("validation_Accounting_1", "wrong", "D", reason="one"))
        errata.set("mmmu", Erratum("validation_Accounting_1", "wrong", "C", reason="two"))
        assert errata.undo("mmmu", "validation_Accounting_1").gold == "D"  # type: ignore[union-attr]
        assert errata.undo("mmmu", "validation_Accounting_1") is None
        assert errata.undo("mmmu", "validation_Accounting_1") is None  # nothing more: no row
        assert errata.in_force("mmmu") == {}
        rows = store.conn.execute("SELECT action, reviewer FROM errata ORDER BY id").fetchall()
    assert rows == [("set", "ana"), ("set", "ana"), ("undo", "ana"), ("undo", "ana")]


# -- lmmreview errata ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_errata_round_trip(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path, fmt: str
) -> None:
    _set(demo_db, "mmmu", Erratum("validation_Accounting_1", "wrong", "D", ("C",), "the key, p. 3"))
    _set(demo_db, "mmvet", Erratum("v1_0", "ambiguous", None, ("7",), 'says "14, or 7"'), "bo")
    out = tmp_path / f"errata.{fmt}"
    assert cli("errata", demo_db, "--format", fmt, "--out", out).code == 0
    other = tmp_path / "other.db"
    other.write_bytes(demo_template.read_bytes())
    first = cli("errata", other, "--import", out)
    assert first.code == 0, first.stderr
    before = dump(other)
    again = cli("errata", other, "--import", out)
    assert "2 errata read, 0 new" in again.stderr and dump(other) == before
    written = cli("errata", other, "--format", fmt).stdout
    assert written == out.read_text(encoding="utf-8")
    if fmt == "json":
        row = json.loads(written)[0]
        assert (row["dataset"], row["sample"], row["published_gold"], row["reviewer"]) == (
            "mmmu", "validation_Accounting_1", "B", "ana")  # fmt: skip


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"sample": "nope"}, "no sample 'nope' in dataset 'mmmu'"),
        ({"gold": "Z"}, "'Z' is not an option letter"),
        ({"status": "fine"}, "status 'fine' is not one of"),
        ({"published_gold": "A"}, "its question or published gold differs"),
        ({"alternatives": "C"}, "alternatives must be a JSON list"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"sample": "validation_Accounting_2"}, "has an erratum already ("),
        ({"created_at": "yesterday"}, "created_at 'yesterday' is not a time as lmmreview"),
        ({"reviewer": " "}, "reviewer ' ' is empty"),
        ({"reviewer": "ev\x1b]0;pwn\x07il"}, "holds the control character U+001B"),
        ({"reason": "see \x9b31m"}, "reason 'see \\x9b31m' holds the control character U+009B"),
    ],
)
def test_a_bad_row_names_the_file_and_row_and_changes_nothing(
    cli, demo_db: Path, tmp_path: Path, row: dict[str, str], message: str
) -> None:
    good = {"dataset": "mmmu", "sample": "validation_Accounting_1",
            "question": _question(demo_db, "validation_Accounting_1"), "published_gold": "B",
            "gold": "D", "status": "wrong", "reviewer": "ana",
            "created_at": "2026-01-01T00:00:00.000+00:00"}  # fmt: skip
    other = {**good, "sample": "validation_Accounting_2", "published_gold": "1200",
             "gold": "1300", "question": _question(demo_db, "validation_Accounting_2")}  # fmt: skip
    bad = {**good, **row} if row.get("sample") != other["sample"] else dict(other)
    path = tmp_path / "errata.json"
    path.write_text(json.dumps([other, bad]), encoding="utf-8")
    before = dump(demo_db)
    result = cli("errata", demo_db, "--import", path)
    assert result.code == 1
    assert f"{path} row 2: " in result.stderr and message in result.stderr
    assert dump(demo_db) == before


def _question(db: Path, key: str) -> str:
    with Store.open(db, create=False) as store:
        return ErrataStore(store, "").samples("mmmu", [key])[key].question


# -- merge -----------------------------------------------------------------------------


def _errata_rows(db: Path) -> list[tuple]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT d.name, s.key, e.status, e.gold, e.alt_answers, e.reason, e.action, "
            "e.reviewer, e.created_at FROM errata e JOIN samples s ON s.id = e.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id ORDER BY e.created_at"
        ).fetchall()


def test_merge_carries_errata_by_sample_and_twice_adds_nothing(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path
) -> None:
    ben = tmp_path / "ben.db"
    ben.write_bytes(demo_template.read_bytes())
    _set(demo_db, "mmmu", Erratum("validation_Accounting_1", "wrong", "D", reason="ana's"))
    _set(ben, "mmmu", Erratum("validation_Accounting_1", "wrong", "C", reason="ben's"), "ben")
    _set(ben, "mmvet", Erratum("v1_0", "ambiguous", None, ("7",)), "ben")
    _set(ben, "mmvet", Erratum("v1_1", "wrong", "an owl"), "ben")
    with closing(sqlite3.connect(ben)) as conn, conn:  # ben's v1_1 is another question
        conn.execute("UPDATE samples SET question = 'Which bird?' WHERE key = 'v1_1'")
    expected = sorted(_errata_rows(demo_db) + _errata_rows(ben)[:-1], key=lambda r: r[-1])
    result = cli("merge", demo_db, ben)
    assert result.code == 0, result.stderr
    assert "2 errata" in result.stdout
    assert f"{ben}: 1 errata rows on 1 samples" in result.stderr and "mmvet / v1_1" in result.stderr
    assert _errata_rows(demo_db) == expected
    with Store.open(demo_db, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu")["validation_Accounting_1"].gold == "C"
    once = dump(demo_db)
    assert "merged nothing new" in cli("merge", demo_db, ben).stdout
    assert dump(demo_db) == once


def test_a_bad_errata_row_of_the_other_file_is_named_and_nothing_lands(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path
) -> None:
    ben = tmp_path / "ben.db"
    ben.write_bytes(demo_template.read_bytes())
    _set(ben, "mmvet", Erratum("v1_0", "ambiguous", None, ("7",)), "ben")
    with closing(sqlite3.connect(ben)) as conn, conn:
        conn.execute("DROP TRIGGER errata_no_update")
        conn.execute("UPDATE errata SET alt_answers = '7'")
    before = dump(demo_db)
    result = cli("merge", demo_db, ben)
    assert result.code == 1
    assert f"{ben}: errata row 1: alt_answers '7' is not a JSON list of texts" in result.stderr
    assert dump(demo_db) == before


@pytest.mark.parametrize(
    ("gold", "message"),
    [("Z", "'Z' is not an option letter of validation_Accounting_1"),
     (None, "a 'wrong' erratum needs the corrected gold")],
)  # fmt: skip
def test_an_errata_row_set_would_refuse_is_refused_by_merge(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path, gold: str | None, message: str
) -> None:
    ben = tmp_path / "ben.db"
    ben.write_bytes(demo_template.read_bytes())
    with closing(sqlite3.connect(ben)) as conn, conn:  # written past `errata`'s checks
        conn.execute(
            "INSERT INTO errata (sample_id, status, gold, action, reviewer, created_at) "
            "SELECT s.id, 'wrong', ?, 'set', 'ben', ? FROM samples s "
            "WHERE s.key = 'validation_Accounting_1'",
            (gold, EARLY),
        )
    before = dump(demo_db)
    result = cli("merge", demo_db, ben)
    assert result.code == 1
    assert f"{ben}: errata row 1: mmmu sample validation_Accounting_1: {message}" in result.stderr
    assert dump(demo_db) == before


def test_report_and_csv_show_both_tables_and_the_notes_count(cli, demo_db: Path) -> None:
    """MM-Vet: an LLM judge's kind of score, given against the published gold, leaves;
    the notes say so."""
    _set(demo_db, "mmvet", Erratum("v1_0", "wrong", "15"))
    report = cli("report", demo_db, "--errata", "--dataset", "mmvet").stdout
    assert "MM-Vet: capabilities (with errata)" in report
    assert "mmvet with errata: 1 sample(s) with an erratum in force; 0 answer(s) change " in (
        " ".join(report.split())
    )
    csv_text = cli("export", demo_db, "--errata", "--dataset", "mmvet", "--format", "csv").stdout
    assert ",mmvet.capabilities," in csv_text and ",mmvet.capabilities+errata," in csv_text
    refused = cli("export", demo_db, "--errata", "--format", "mmvet-grades")
    assert refused.code == 1 and "--errata are for the tables' formats" in refused.stderr


def test_an_mme_erratum_leaves_the_other_question_of_its_image_alone(demo_db: Path) -> None:
    """MME's pairs are two questions on one image, not rotations of one: an erratum on
    one says nothing of the other, whose answers stay in the tables as they were."""
    _set(demo_db, "mme", Erratum("existence/shelf.png/1", "wrong", "No", reason="no shelf"))
    with Store.open(demo_db, create=False) as store:
        scores = dataset_scores(store, "mme", dict(store.datasets(["mme"]))["mme"], None)
        found = with_errata_scores(store, scores)
    assert found.errata is not None
    assert (found.errata.samples, found.errata.left_ambiguous, found.errata.left_judged) == (
        1,
        0,
        0,
    )
    assert len(found.answers) == len(scores.answers)  # every answer of the pair still counts
    other = scores.samples.index["existence/shelf.png/2"]
    assert found.golds_of(other) == scores.golds_of(other)


LATE, EARLY = "2026-01-02T00:00:00.000+00:00", "2026-01-01T00:00:00.000+00:00"


@pytest.mark.parametrize("direction", ["newer into older", "older into newer"])
def test_the_latest_erratum_by_time_is_in_force_whichever_way_files_merge(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path, direction: str
) -> None:
    """ana's erratum is older than bo's: after a merge either way both files hold bo's in
    force (a merge appends the other file's rows after its own), and an undo there goes
    back to ana's, the one before it in time."""
    key = "validation_Accounting_1"
    bo = tmp_path / "bo.db"
    bo.write_bytes(demo_template.read_bytes())
    _set(demo_db, "mmmu", Erratum(key, "wrong", "D", reason="ana's", created_at=EARLY))
    _set(bo, "mmmu", Erratum(key, "wrong", "C", reason="bo's", created_at=LATE), "bo")
    into, other = (demo_db, bo) if direction == "newer into older" else (bo, demo_db)
    assert cli("merge", into, other).code == 0
    with Store.open(into, create=False) as store:
        errata = ErrataStore(store, "cy")
        assert errata.in_force("mmmu")[key].gold == "C"
        assert errata.of_sample("mmmu", key).gold == "C"  # type: ignore[union-attr]
        assert [r.erratum.gold for r in errata.upstream()] == ["C"]
        assert errata.undo("mmmu", key).gold == "D"  # type: ignore[union-attr]


def test_an_older_erratum_imported_does_not_override_a_newer_one(
    cli, demo_db: Path, demo_template: Path, tmp_path: Path
) -> None:
    key = "validation_Accounting_1"
    old = tmp_path / "old.db"
    old.write_bytes(demo_template.read_bytes())
    _set(old, "mmmu", Erratum(key, "wrong", "D", reason="old", created_at=EARLY), "bo")
    upstream = tmp_path / "upstream.json"
    assert cli("errata", old, "--out", upstream).code == 0
    _set(demo_db, "mmmu", Erratum(key, "wrong", "C", reason="today"))
    assert cli("errata", demo_db, "--import", upstream).code == 0
    before = dump(demo_db)
    assert "1 errata read, 0 new" in cli("errata", demo_db, "--import", upstream).stderr
    assert dump(demo_db) == before  # read again, the older row adds nothing
    with Store.open(demo_db, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu")[key].gold == "C"


def test_two_errata_in_a_circular_group_score_it_against_the_latest(demo_db: Path) -> None:
    """Group 0 (beach, forest, city street, kitchen): ana's forest on row 0, then bo's
    kitchen on 1000000. Every rotation scores against kitchen, and the detail pane of an
    answer to 2000000 shows bo's erratum, from rotation 1000000."""
    _set(demo_db, "mmbench", Erratum("0", "wrong", "B", reason="forest", created_at=EARLY))
    _set(demo_db, "mmbench", Erratum("1000000", "wrong", "C", reason="kitchen", created_at=LATE),
         "bo")  # fmt: skip
    with Store.open(demo_db, create=False) as store:
        scores = dataset_scores(
            store, "mmbench", dict(store.datasets(["mmbench"]))["mmbench"], None
        )
        found = with_errata_scores(store, scores)
        keys = ["0", "1000000", "2000000", "3000000"]
        assert [found.golds_of(scores.samples.index[k]) for k in keys] == [
            ["D"],
            ["C"],
            ["B"],
            ["A"],
        ]
        (answer,) = store.conn.execute(
            "SELECT a.id FROM answers a JOIN samples s ON s.id = a.sample_id "
            "JOIN datasets d ON d.id = s.dataset_id WHERE d.name = 'mmbench' AND s.key = '2000000'"
        ).fetchone()
        detail = ReviewStore(store, "cy").detail(answer)
    assert detail.erratum is None  # none given on this row
    shown = detail.row_erratum
    assert shown is not None and (shown.gold, shown.reviewer, shown.origin) == (
        "B",
        "bo",
        "1000000",
    )
    assert "from rotation 1000000" in erratum_line(shown).plain


def test_a_csv_cell_holding_cr_lf_survives_a_round_trip(cli, demo_db: Path, tmp_path: Path) -> None:
    key = "validation_Accounting_1"
    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute("UPDATE samples SET question = 'First line\r\nsecond line' WHERE key = ?",
                     (key,))  # fmt: skip
    other = tmp_path / "other.db"
    other.write_bytes(demo_db.read_bytes())
    _set(demo_db, "mmmu", Erratum(key, "wrong", "D", reason="two\r\nlines"))
    out = tmp_path / "errata.csv"
    assert cli("errata", demo_db, "--format", "csv", "--out", out).code == 0
    result = cli("errata", other, "--import", out)
    assert result.code == 0, result.stderr
    with Store.open(other, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu")[key].reason == "two\r\nlines"


def test_out_csv_writes_csv_with_formulas_guarded_and_imports_back(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    """--out errata.csv without --format writes CSV (as --import reads that name); a cell
    a spreadsheet would run (a question starting "=") gets a "'" that import drops."""
    key = "validation_Accounting_1"
    with closing(sqlite3.connect(demo_db)) as conn, conn:
        conn.execute("UPDATE samples SET question = '=SUM(A1:A9)?' WHERE key = ?", (key,))
    other = tmp_path / "other.db"
    other.write_bytes(demo_db.read_bytes())
    _set(demo_db, "mmmu", Erratum(key, "wrong", "D", reason="-2 points, see the key"))
    out = tmp_path / "errata.csv"
    assert cli("errata", demo_db, "--out", out).code == 0
    (row,) = csv.DictReader(out.open(encoding="utf-8", newline=""))
    assert (row["question"], row["reason"]) == ("'=SUM(A1:A9)?", "'-2 points, see the key")
    result = cli("errata", other, "--import", out)
    assert result.code == 0, result.stderr
    with Store.open(other, create=False) as store:
        assert ErrataStore(store, "").in_force("mmmu")[key].reason == "-2 points, see the key"


def test_a_file_not_utf8_is_named_and_changes_nothing(cli, demo_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "errata.csv"
    path.write_bytes("dataset,sample\nmmmu,caf\u00e9\n".encode("latin-1"))
    before = dump(demo_db)
    result = cli("errata", demo_db, "--import", path)
    assert result.code == 1
    assert f"{path}: not UTF-8 text" in result.stderr and "crash" not in result.stderr
    assert dump(demo_db) == before


def test_errata_written_for_a_terminal_hold_no_escape_sequence() -> None:
    """A reviewer's name holding ESC and a bidi override: CSV for a terminal shows them as
    stand-ins (as `export` does), JSON writes them as \\u escapes (exact, and safe)."""
    from lmmreview.engine.errata import Record
    from lmmreview.tui.cli.errata import ErrataFormat, write_records

    name = "x\x1b[31m\u202e"
    records = [Record("mmmu", "Which?", "B", Erratum("k", "wrong", "D", reviewer=name))]
    shown = write_records(records, ErrataFormat.csv, shown=True)
    exact = write_records(records, ErrataFormat.json)
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\x1b" not in exact and "\u202e" not in exact
    assert json.loads(exact)[0]["reviewer"] == name
    assert name in write_records(records, ErrataFormat.csv)  # a file keeps it exact


def test_only_a_dataset_with_errata_in_force_gets_twins_and_a_notes_line(
    cli, demo_db: Path
) -> None:
    _set(demo_db, "mmmu", Erratum("validation_Accounting_1", "wrong", "D"))
    document = json.loads(cli("export", demo_db, "--format", "json", "--errata").stdout)
    twins = {t["name"] for t in document["tables"] if t["name"].endswith("+errata")}
    assert twins and all(name.startswith("mmmu.") for name in twins)
    assert "errata" in document["notes"]["mmmu"] and "errata" not in document["notes"]["mmvet"]
    report = " ".join(cli("report", demo_db, "--errata").stdout.split())
    assert "mmmu with errata:" in report and "mmvet with errata" not in report


def test_mathvista_free_form_answers_score_again_from_their_stored_extraction(
    demo_db: Path,
) -> None:
    """SCORING §5: right when the normalised prediction equals the gold. Sample 2 (gold 8;
    alpha and beta extracted 8, gamma 6) corrected to 9: alpha and beta now fail; sample 4
    (gold [2019, 2021]) ambiguous, [2019, 2020] also right: alpha now passes. None leaves."""
    _set(demo_db, "mathvista", Erratum("2", "wrong", "9"))
    _set(demo_db, "mathvista", Erratum("4", "ambiguous", None, ("[2019, 2020]",)))
    with Store.open(demo_db, create=False) as store:
        benchmark = dict(store.datasets(["mathvista"]))["mathvista"]
        scores = dataset_scores(store, "mathvista", benchmark, None)
        found = with_errata_scores(store, scores)
    assert found.errata == ErrataCount(samples=2, changed=3, left_judged=0, left_ambiguous=0)
    assert len(found.answers) == len(scores.answers)
