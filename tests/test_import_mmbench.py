from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from conftest import MMBENCH_HEADER, dump, png_base64, write_tsv

from lmmreview.db import Store


def test_circular_groups_options_and_shared_images(cli, mmbench_tsv, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = cli("import", "mmbench", db, mmbench_tsv)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmbench")}
        assert set(samples) == {"7", "1000007", "9", "1000009", "2000009"}
        rotated = samples["2000009"]
        assert rotated.extra == {"circular_group": 9, "rotation": 2}
        assert rotated.options == {"A": "star", "B": "circle", "C": "square"}
        assert rotated.answer == "A"
        assert samples["7"].options == {"A": "yes", "B": "no"}  # empty C, D are no options
        assert samples["9"].hint == "Look left." and samples["7"].hint is None
        assert samples["9"].axis("l2_category") == ("finegrained_perception (instance-level)",)
        assert samples["9"].axis("category") == ("OCR",) and samples["9"].split == "dev"
        # The copies reuse their main row's image, stored once.
        assert store.image_hashes("mmbench", "2000009") == store.image_hashes("mmbench", "9")
    listed = cli("info", db, "--json")
    assert '"images": 2' in listed.stdout and '"samples": 5' in listed.stdout


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".xlsx"])
def test_predictions_in_every_format(cli, mmbench_tsv, tmp_path: Path, suffix: str) -> None:
    rows = [[7, "A"], [1000007, "The answer is (B)"], [9, "circle, I think"]]
    pred = tmp_path / f"pred{suffix}"
    if suffix == ".xlsx":
        import openpyxl

        book = openpyxl.Workbook()
        book.active.append(["index", "prediction"])
        for row in rows:
            book.active.append(row)
        book.save(pred)
    elif suffix == ".csv":
        pred.write_text("index,prediction\n" + "".join(f'{i},"{p}"\n' for i, p in rows))
    else:
        write_tsv(pred, ["index", "prediction"], rows)
    db = tmp_path / "r.db"
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", pred, "--model", "m")
    assert result.code == 0, result.stderr
    assert "no answer for 2 sample(s)" in result.stderr
    with Store.open(db) as store:
        assert store.answers("mmbench", "m") == {
            "7": "A", "1000007": "The answer is (B)", "9": "circle, I think",
        }  # fmt: skip


def test_test_split_without_answer_column_imports_with_unknown_gold(cli, tmp_path: Path) -> None:
    header = [c for c in MMBENCH_HEADER if c != "answer"]
    image = png_base64()
    row = [
        3,
        "Q?",
        "",
        "a",
        "b",
        "c",
        "d",
        "image_topic",
        image,
        "s",
        "coarse_perception",
        "",
        "test",
    ]
    tsv = write_tsv(tmp_path / "test.tsv", header, [row])
    db = tmp_path / "r.db"
    assert cli("import", "mmbench", db, tsv).code == 0
    with Store.open(db) as store:
        (sample,) = store.samples("test")
        assert sample.answer is None and sample.split == "test"


def test_reimport_changes_nothing(cli, mmbench_tsv, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    pred = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [[7, "A"]])
    args = ("import", "mmbench", db, mmbench_tsv, "--answers", pred, "--model", "m")
    assert cli(*args).code == 0
    before = dump(db)
    assert cli(*args).code == 0
    assert dump(db) == before


def _workbook(path: Path, rows: list[list[object]]) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.title = "preds"
    for row in (["index", "prediction"], *rows):
        book.active.append(row)
    book.save(path)
    return path


@pytest.mark.parametrize(
    ("cell", "kind"),
    [(True, "a true/false"), (datetime.datetime(2020, 1, 2), "a date or time")],
)
def test_a_true_false_or_date_prediction_cell_is_refused(
    cli, mmbench_tsv, tmp_path: Path, cell: object, kind: str
) -> None:
    """Excel typed the cell: its text ("True", "2020-01-02 00:00:00") was stored as the
    model's answer."""
    pytest.importorskip("openpyxl")
    pred = _workbook(tmp_path / "pred.xlsx", [[7, "A"], [9, cell]])
    db = tmp_path / "r.db"
    assert cli("import", "mmbench", db, mmbench_tsv).code == 0
    before = dump(db)
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", pred, "--model", "m")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.startswith(
        f"error: {pred}: sheet 'preds', row 3, column 'prediction': {kind} cell ("
    ), result.stderr
    assert result.stderr.count("\n") == 1 and dump(db) == before


def test_a_number_prediction_cell_is_the_text_typed(cli, mmbench_tsv, tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    pred = _workbook(tmp_path / "pred.xlsx", [[7, 3.0], [9, 3.5], [1000007, 12]])
    db = tmp_path / "r.db"
    result = cli("import", "mmbench", db, mmbench_tsv, "--answers", pred, "--model", "m")
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        assert store.answers("mmbench", "m") == {"7": "3", "9": "3.5", "1000007": "12"}


def test_a_circular_copy_of_another_question_in_the_tsv_is_refused(
    cli, mmbench_tsv: Path, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    assert cli("import", "mmbench", db, mmbench_tsv).code == 0
    before = dump(db)
    lines = mmbench_tsv.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "bad.tsv"  # copy 1000009 (line 5) asks another question than 9 (line 4)
    bad.write_text("".join(lines[:4]) + lines[4].replace("Which shape?", "Which colour?")
                   + "".join(lines[5:]), encoding="utf-8")  # fmt: skip
    result = cli("import", "mmbench", db, bad)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: {bad}: line 5: circular copy 1000009 asks 'Which colour?', but its main row "
        "(index 9, line 4) asks 'Which shape?'\n"
    )
    assert dump(db) == before
