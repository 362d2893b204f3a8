"""Each bad input: one line on stderr naming the file and row or id, exit 1, database unchanged."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from conftest import MMBENCH_HEADER, dump, png_base64, write_json, write_lines, write_tsv

from lmmreview.db import store as store_module
from lmmreview.tui.output import clear_errors

Case = Callable[[Path], tuple[list[object], list[str]]]


def _mmbench_row(index: int, image: str, **cells: str) -> list[object]:
    row: dict[str, object] = {
        "index": index, "question": "Q", "hint": "", "A": "a", "B": "b", "C": "", "D": "",
        "answer": "A", "category": "OCR", "image": image, "source": "", "l2-category": "x",
        "comment": "", "split": "dev",
    }  # fmt: skip
    row.update(cells)
    return [row[c] for c in MMBENCH_HEADER]


def malformed_json(tmp: Path):
    bad = tmp / "q.json"
    bad.write_text('{"v1_0": {"question": "x",\n "answer": }}')
    return ["import", "mmvet", bad], ["q.json", "line 2, column"]


def malformed_tsv(tmp: Path):
    rows = [_mmbench_row(1, png_base64()), [*_mmbench_row(2, png_base64()), "extra"]]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 3",
    ]


def missing_column(tmp: Path):
    header = [c for c in MMBENCH_HEADER if c != "category"]
    row = _mmbench_row(1, png_base64())
    del row[MMBENCH_HEADER.index("category")]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", header, [row])], ["d.tsv", "'category'"]


def missing_field(tmp: Path):
    q = write_json(
        tmp / "q.json", {"v1_0": {"imagename": "a.png", "question": "?", "capability": "rec"}}
    )
    return ["import", "mmvet", q], ["q.json", "id v1_0", "'answer'"]


def missing_response(tmp: Path):
    write_json(tmp / "out" / "Art" / "output.json",
                     [{"id": "validation_Art_1", "question_type": "open", "answer": "1"}])  # fmt: skip
    return ["import", "mmmu", tmp / "out", "--model", "m"], [
        "output.json",
        "validation_Art_1",
        "'response'",
    ]


def broken_base64(tmp: Path):
    rows = [_mmbench_row(1, png_base64()), _mmbench_row(2, "@@not base64@@" * 10)]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 3",
        "base64",
    ]


def base64_of_a_non_image(tmp: Path):
    import base64

    text = base64.b64encode(b"just some text, not a picture" * 5).decode()
    rows = [_mmbench_row(1, text)]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 2",
        "the image is not an image Pillow can read",
    ]


def non_image_file(tmp: Path):
    (tmp / "img").mkdir()
    (tmp / "img" / "a.png").write_text("this is not a PNG")
    q = write_json(tmp / "q.json", {"v1_7": {"imagename": "a.png", "question": "?", "answer": "1",
                                             "capability": "rec"}})  # fmt: skip
    return ["import", "mmvet", q, "--images", tmp / "img"], [
        "q.json: id v1_7: image ",
        "a.png is not an image Pillow can read",
    ]


def non_utf8_file(tmp: Path):
    path = tmp / "d.tsv"
    write_tsv(path, MMBENCH_HEADER, [_mmbench_row(1, png_base64(), question="caf\u00e9")])
    path.write_bytes(path.read_bytes().decode().encode("latin-1"))
    return ["import", "mmbench", path], ["d.tsv", "line 2", "not UTF-8"]


def duplicate_json_key(tmp: Path):
    q = tmp / "q.json"
    entry = '{"imagename": "a.png", "question": "?", "answer": "1", "capability": "rec"}'
    q.write_text(f'{{"v1_0": {entry},\n "v1_0": {entry}}}')
    return ["import", "mmvet", q], ["q.json", "duplicate key 'v1_0'"]


def duplicate_tsv_index(tmp: Path):
    rows = [_mmbench_row(4, png_base64()), _mmbench_row(4, png_base64("blue"))]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 3",
        "duplicate index 4",
    ]


def duplicate_prediction_index(tmp: Path):
    data = write_tsv(tmp / "d.tsv", MMBENCH_HEADER, [_mmbench_row(4, png_base64())])
    pred = write_tsv(tmp / "p.tsv", ["index", "prediction"], [[4, "A"], [4, "B"]])
    return ["import", "mmbench", data, "--answers", pred, "--model", "m"], [
        "p.tsv",
        "line 3",
        "duplicate index 4",
    ]


def duplicate_jsonl_id(tmp: Path):
    f = write_lines(tmp / "g.jsonl", [{"id": "a", "question": "?"}, {"id": "a", "question": "!"}])
    return ["import", "jsonl", f], ["g.jsonl", "line 2", "duplicate id 'a'"]


def duplicate_mmmu_id_across_files(tmp: Path):
    record = {"id": "validation_Art_1", "question_type": "open", "answer": "1", "response": "1"}
    write_json(tmp / "out" / "Art" / "output.json", [record])
    write_json(tmp / "out" / "Art2" / "output.json", [record])
    return ["import", "mmmu", tmp / "out", "--model", "m"], [
        "output.json",
        "validation_Art_1",
        "duplicate",
    ]


def options_not_a_list_literal(tmp: Path):
    q = write_lines(tmp / "q.jsonl", [{"id": "validation_Art_2", "question": "?",
                                       "options": "['a', 'b'", "answer": "A",
                                       "question_type": "multiple-choice"}])  # fmt: skip
    return ["import", "mmmu", "--questions", q], [
        "q.jsonl",
        "validation_Art_2",
        "not a list literal",
    ]


def options_literal_that_is_code(tmp: Path):
    q = write_lines(tmp / "q.jsonl", [{"id": "validation_Art_3", "question": "?",
                                       "options": "__import__('os').system('false')",
                                       "answer": "A", "question_type": "multiple-choice"}])  # fmt: skip
    return ["import", "mmmu", "--questions", q], [
        "q.jsonl",
        "validation_Art_3",
        "not a list literal",
    ]


def path_does_not_exist(tmp: Path):
    return ["import", "mmvet", tmp / "nope.json"], ["nope.json", "no such file"]


def images_folder_does_not_exist(tmp: Path):
    q = write_json(tmp / "q.json", {})
    return ["import", "mmvet", q, "--images", tmp / "nowhere"], ["nowhere", "no such folder"]


def unknown_capability(tmp: Path):
    q = write_json(tmp / "q.json", {"v1_3": {"imagename": "a.png", "question": "?", "answer": "1",
                                             "capability": ["rec", "vision"]}})  # fmt: skip
    return ["import", "mmvet", q], ["q.json", "id v1_3", "'vision'"]


def answer_not_an_option(tmp: Path):
    rows = [_mmbench_row(1, png_base64(), answer="D")]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 2",
        "'D'",
    ]


def image_reference_to_nothing(tmp: Path):
    rows = [_mmbench_row(1, png_base64()), _mmbench_row(1000001, "55")]
    return ["import", "mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, rows)], [
        "d.tsv",
        "line 3",
        "55",
    ]


def non_text_answer(tmp: Path):
    q = write_json(tmp / "q.json", {"v1_0": {"imagename": "a.png", "question": "?", "answer": "1",
                                             "capability": "rec"}})  # fmt: skip
    results = write_json(tmp / "m.json", {"v1_0": {"text": "1"}})
    return ["import", "mmvet", q, "--answers", results], ["m.json", "id v1_0", "must be text"]


CASES: list[Case] = [
    malformed_json, malformed_tsv, missing_column, missing_field, missing_response,
    broken_base64, base64_of_a_non_image, non_image_file, non_utf8_file, duplicate_json_key,
    duplicate_tsv_index, duplicate_prediction_index, duplicate_jsonl_id,
    duplicate_mmmu_id_across_files, options_not_a_list_literal, options_literal_that_is_code,
    path_does_not_exist, images_folder_does_not_exist, unknown_capability, answer_not_an_option,
    image_reference_to_nothing, non_text_answer,
]  # fmt: skip


@pytest.fixture
def populated(cli, mmvet_files, tmp_path: Path) -> Path:
    """A database that already holds data, so "unchanged" means something."""
    db = tmp_path / "existing.db"
    f = mmvet_files
    assert cli("import", "mmvet", db, f["questions"], "--answers", f["alpha"]).code == 0
    return db


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_bad_input_is_refused_cleanly(cli, populated: Path, tmp_path: Path, case: Case) -> None:
    (tmp_path / "case").mkdir()
    args, expected = case(tmp_path / "case")
    before = dump(populated)
    result = cli(args[0], args[1], populated, *args[2:])
    assert result.code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in expected:
        assert fragment in lines[0]
    assert dump(populated) == before


@pytest.mark.parametrize("case", CASES[:4], ids=lambda c: c.__name__)
def test_a_failed_import_creates_no_database(cli, tmp_path: Path, case: Case) -> None:
    (tmp_path / "case").mkdir()
    args, _ = case(tmp_path / "case")
    db = tmp_path / "new.db"
    assert cli(args[0], args[1], db, *args[2:]).code == 1
    assert not db.exists()


def test_xlsx_without_openpyxl_says_how_to_get_it(cli, demo_db, tmp_path, monkeypatch) -> None:
    """For a pip install and for a pipx or uv tool one (extras do not reach those)."""
    import builtins

    real_import = builtins.__import__

    def no_openpyxl(name: str, *args: object, **kwargs: object):
        if name == "openpyxl":
            raise ImportError("no openpyxl")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_openpyxl)
    data = write_tsv(tmp_path / "d.tsv", MMBENCH_HEADER, [_mmbench_row(1, png_base64())])
    (tmp_path / "p.xlsx").write_bytes(b"")
    result = cli("import", "mmbench", tmp_path / "r.db", data, "--answers", tmp_path / "p.xlsx",
                 "--model", "m")  # fmt: skip
    assert result.code == 1
    assert "p.xlsx" in result.stderr and "pip install 'lmmreview[xlsx]'" in result.stderr
    assert "pipx inject lmmreview openpyxl" in result.stderr
    result = cli("export", demo_db, "--dataset", "mmbench", "--format", "mmbench-submission",
                 "--out", tmp_path / "subs")  # fmt: skip
    assert result.code == 1 and "subs" in result.stderr and ".xlsx" in result.stderr
    assert "pip install 'lmmreview[xlsx]'" in result.stderr
    assert "pipx inject lmmreview openpyxl" in result.stderr
    assert "uv tool install --with openpyxl lmmreview" in result.stderr


def test_an_export_to_a_missing_folder_is_one_line(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    target = tmp_path / "no such folder" / "tables.md"
    result = cli("export", db, "--out", target)
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [f"error: {target}: No such file or directory"]


def test_a_database_busy_with_another_writer_is_one_line(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 200)  # wait briefly, not 10 s
    path = tmp_path / "demo.db"
    cli("demo", path, "--no-open")
    with sqlite3.connect(path, isolation_level=None) as other:
        other.execute("BEGIN IMMEDIATE")  # another process mid-write
        before = dump(path)
        result = cli("score", path)
        other.execute("ROLLBACK")
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {path}: database is locked; another process is writing to it, "
        "try again when it is done"
    ]
    assert dump(path) == before


def test_a_database_in_a_missing_folder_is_refused_by_name(cli, mmvet_files, tmp_path) -> None:
    db = tmp_path / "nowhere" / "r.db"
    result = cli("import", "mmvet", db, mmvet_files["questions"])
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {db}: no folder {db.parent} to create it in"
    ]
    assert not db.parent.exists()


def test_a_damaged_database_is_one_line(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    with db.open("r+b") as f:  # clobber pages past the header: the schema is still readable
        f.seek(20_480)
        f.write(b"\xff" * 80_000)
    for command in (["info", db], ["report", db], ["judge", db, "--dry-run"]):
        result = cli(*command)
        assert result.code == 1, command
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(f"error: {db}: ") and "malformed" in line, line


def test_a_database_error_without_an_error_code_is_still_one_line(tmp_path: Path) -> None:
    """sqlite3.ProgrammingError carries no sqlite_errorcode: reading it raised AttributeError."""
    with pytest.raises(typer.Exit) as ended, clear_errors(tmp_path / "x.db"):
        raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
    assert ended.value.exit_code == 1
