"""Issue 9, the import path and opening files: each hostile input or file either imports or
is refused with one line naming the file and the row or id, exit code 1, and the database
(or the absence of one) exactly as it was."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import stat
import struct
import subprocess
import sys
import tempfile
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
from conftest import (
    MMBENCH_HEADER,
    CliResult,
    dump,
    png_base64,
    png_bytes,
    write_json,
    write_lines,
    write_tsv,
)
from PIL import Image

from lmmreview.db import Store, importers
from lmmreview.db.importers import jsonl as jsonl_module
from lmmreview.db.schema import MIGRATIONS, statements
from lmmreview.engine.registry import benchmarks

ROOT = Path(__file__).resolve().parents[1]
MAX_IMAGE_BYTES = 64 * 2**20  # the README's limit on an image file
Cli = Callable[..., CliResult]


def refused(result: CliResult, *fragments: str) -> str:
    """The command failed with exactly one error line holding every fragment."""
    assert result.code == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def populated(cli: Cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """A database that already holds data, so "unchanged" means something."""
    db = tmp_path / "existing.db"
    assert (
        cli("import", "mmvet", db, mmvet_files["questions"], "--answers", mmvet_files["alpha"]).code
        == 0
    )
    return db


def import_refused(cli: Cli, db: Path, args: list[object], *fragments: str) -> str:
    """`lmmreview import KIND DB ARGS...` is refused by one line and leaves `db` as it was."""
    before = dump(db)
    line = refused(cli("import", args[0], db, *args[1:]), *fragments)
    assert dump(db) == before
    return line


def mmvet_question(**fields: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "imagename": "a.png",
        "question": "?",
        "answer": "1",
        "capability": "rec",
    }
    entry.update(fields)
    return entry


def run_cli_in_another_process(*args: object) -> None:
    """`lmmreview ARGS...` as a separate process (another terminal)."""
    command = [sys.executable, "-m", "lmmreview", *map(str, args)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# -- 1: a failed import never deletes a file it did not make ---------------------------------


def test_a_failed_import_keeps_a_database_another_process_made_meanwhile(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "x.db"
    other = write_lines(
        tmp_path / "other.jsonl", [{"id": "q1", "question": "?", "prediction": "a", "model": "m"}]
    )
    answers_only = write_lines(
        tmp_path / "answers.jsonl", [{"id": "q1", "prediction": "b", "model": "m"}]
    )
    real_read = jsonl_module.read_generic

    def slow_read(*args: object, **kwargs: object) -> importers.ImportBatch:
        run_cli_in_another_process("import", "jsonl", db, other)  # finishes while this one reads
        return real_read(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(jsonl_module, "read_generic", slow_read)
    result = cli("import", "jsonl", db, answers_only, "--dataset", "nowhere")
    refused(result, "answers.jsonl", "'nowhere'")
    with Store.open(db, create=False) as store:
        assert store.answers("other", "m") == {"q1": "a"}


def test_a_new_database_that_appears_mid_import_is_never_overwritten(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "x.db"
    other = write_lines(tmp_path / "other.jsonl", [{"id": "q1", "question": "?"}])
    mine = write_lines(tmp_path / "mine.jsonl", [{"id": "q2", "question": "!"}])
    real_load = importers.load

    def racing_load(store: Store, batch: importers.ImportBatch) -> importers.ImportSummary:
        run_cli_in_another_process("import", "jsonl", db, other)
        return real_load(store, batch)

    monkeypatch.setattr(importers, "load", racing_load)
    refused(cli("import", "jsonl", db, mine), str(db), "another process created this file")
    with Store.open(db, create=False) as store:
        assert [name for name, _ in store.datasets()] == ["other"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.jsonl", "other.jsonl", "x.db"]


def test_a_failed_import_into_a_new_path_leaves_no_file_at_all(cli: Cli, tmp_path: Path) -> None:
    bad = write_lines(
        tmp_path / "bad.jsonl", [{"id": "q1", "question": "?"}, {"id": "q1", "question": "?"}]
    )
    refused(cli("import", "jsonl", tmp_path / "new.db", bad), "duplicate id")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


# -- 2: two different answers by one model to one sample in one import -----------------------


def test_two_different_predictions_in_one_jsonl_file_are_refused(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    rows = [{"id": "q1", "question": "?"}, {"id": "q1", "prediction": "yes", "model": "m"},
            {"id": "q1", "prediction": "no", "model": "m"}]  # fmt: skip
    import_refused(
        cli,
        populated,
        ["jsonl", write_lines(tmp_path / "g.jsonl", rows)],
        "g.jsonl",
        "id q1",
        "two different answers",
    )


def test_two_result_files_for_one_model_may_not_disagree(
    cli: Cli, populated: Path, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    one = write_json(tmp_path / "one.json", {"v1_0": "3"})
    two = write_json(tmp_path / "two.json", {"v1_0": "4"})
    args = [
        "mmvet",
        mmvet_files["questions"],
        "--answers",
        one,
        "--answers",
        two,
        "--model",
        "m",
        "--model",
        "m",
    ]
    import_refused(cli, populated, args, "two.json", "id v1_0", "one.json")


def test_an_identical_repeated_prediction_is_counted_once(cli: Cli, tmp_path: Path) -> None:
    rows = [{"id": "q1", "question": "?"}, {"id": "q1", "prediction": "yes", "model": "m"},
            {"id": "q1", "prediction": "yes", "model": "m"}]  # fmt: skip
    result = cli("import", "jsonl", tmp_path / "r.db", write_lines(tmp_path / "g.jsonl", rows))
    assert result.code == 0, result.stderr
    assert "answers: m 1 new" in result.stdout


# -- 7: JSONL lines end at \n only -----------------------------------------------------------

SEPARATORS = "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"


def test_line_separators_inside_jsonl_strings_are_text(cli: Cli, tmp_path: Path) -> None:
    question = f"one{SEPARATORS}two"
    path = tmp_path / "g.jsonl"
    raw = '{"id": "q1", "question": "' + question + '"}\r\n{"id": "q2", "question": "plain"}\r\n'
    path.write_text(raw, encoding="utf-8")
    assert cli("import", "jsonl", tmp_path / "r.db", path).code == 0
    with Store.open(tmp_path / "r.db", create=False) as store:
        assert [s.question for s in store.samples("g")] == [question, "plain"]


# -- 8 and 14: values refused by one line ----------------------------------------------------


def corrupt_pixels_png() -> bytes:
    """A PNG whose header and checksums are fine but whose pixel data does not decode."""
    data = png_bytes(size=(32, 32))
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[start : start + 4])
    body = bytes(length)  # zeros: not a zlib stream
    crc = struct.pack(">I", zlib.crc32(b"IDAT" + body))
    return data[: start + 8] + body + crc + data[start + 12 + length :]


def jsonl_line(text: str) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        (tmp / "g.jsonl").write_text(text + "\n", encoding="utf-8")
        return ["jsonl", tmp / "g.jsonl"]

    return make


def mmvet_entry(**fields: object) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        return ["mmvet", write_json(tmp / "q.json", {"v1_9": mmvet_question(**fields)})]

    return make


def mmvet_raw(text: str) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        (tmp / "q.json").write_text(text, encoding="utf-8")
        return ["mmvet", tmp / "q.json"]

    return make


def answer_dict(ground_truth: str) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        (tmp / "a.json").write_text(
            '{"validation_Art_1": {"question_type": "open", "ground_truth": ' + ground_truth + "}}"
        )
        q = write_lines(
            tmp / "q.jsonl", [{"id": "validation_Art_1", "question": "?", "question_type": "open"}]
        )
        return ["mmmu", "--questions", q, "--answer-dict", tmp / "a.json"]

    return make


def mmbench_index(index: str) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        row = [index, "Q", "", "a", "b", "", "", "A", "OCR", png_base64(), "", "x", "", "dev"]
        return ["mmbench", write_tsv(tmp / "d.tsv", MMBENCH_HEADER, [row])]

    return make


def image_named(make_image: Callable[[Path], None]) -> Callable[[Path], list[object]]:
    def make(tmp: Path) -> list[object]:
        (tmp / "img").mkdir()
        make_image(tmp / "img" / "a.png")
        return [
            "mmvet",
            write_json(tmp / "q.json", {"v1_9": mmvet_question()}),
            "--images",
            tmp / "img",
        ]

    return make


def image_called(name_json: str) -> Callable[[Path], list[object]]:
    """An MM-Vet question whose imagename is this JSON string, with an images folder."""

    def make(tmp: Path) -> list[object]:
        (tmp / "img").mkdir()
        entry = (
            '{"imagename": ' + name_json + ', "question": "?", "answer": "1", "capability": "rec"}'
        )
        (tmp / "q.json").write_text('{"v1_9": ' + entry + "}")
        return ["mmvet", tmp / "q.json", "--images", tmp / "img"]

    return make


REFUSED: dict[str, tuple[Callable[[Path], list[object]], tuple[str, ...]]] = {
    # 8
    "nan_gold_jsonl": (jsonl_line('{"id": "q1", "question": "?", "answer": NaN}'), ("g.jsonl", "line 1", "NaN")),
    "infinite_gold_mmvet": (mmvet_raw('{"v1_9": {"imagename": "a.png", "question": "?", "answer": 1e400, "capability": "rec"}}'),
                            ("q.json", "v1_9 > answer", "1e400")),
    "infinity_gold_mmmu": (answer_dict("[Infinity]"), ("a.json", "validation_Art_1", "Infinity")),
    "capability_object": (mmvet_entry(capability={"rec": 1}), ("q.json", "id v1_9", "capability must be text")),
    "gold_list_with_object": (answer_dict('[{"a": 1}]'), ("a.json", "id validation_Art_1", "ground truth")),
    "gold_list_with_null": (answer_dict("[null]"), ("a.json", "id validation_Art_1", "ground truth")),
    "option_keys_a_and_A": (jsonl_line('{"id": "q1", "question": "?", "options": {"a": "x", "A": "y"}, "answer": "A"}'),
                            ("g.jsonl", "line 1", "option 'A' is given twice")),
    "pixels_that_do_not_decode": (image_named(lambda p: p.write_bytes(corrupt_pixels_png())),
                                  ("a.png", "id v1_9", "not a readable image")),
    "image_is_a_folder": (image_named(lambda p: p.mkdir()), ("a.png", "id v1_9", "is a folder")),
    "image_is_a_fifo": (image_named(lambda p: os.mkfifo(p)), ("a.png", "id v1_9", "is a FIFO")),
    "image_name_with_a_nul": (image_called('"a\\u0000.png"'), ("q.json", "id v1_9", "not a possible file name")),
    "image_name_with_a_surrogate": (image_called('"\\ud800.png"'), ("q.json", "id v1_9", "not a possible file name")),
    "image_is_a_dangling_link": (image_named(lambda p: p.symlink_to(p.parent / "gone.png")),
                                 ("a.png", "id v1_9", "symbolic link", "gone.png", "does not exist")),
    # 14
    "capability_number": (mmvet_entry(capability=7), ("q.json", "id v1_9", "capability must be text")),
    "capability_boolean": (mmvet_entry(capability=True), ("q.json", "id v1_9", "capability must be text")),
    "integer_of_5000_digits": (jsonl_line('{"id": "q1", "question": "?", "answer": ' + "9" * 5000 + "}"),
                               ("g.jsonl", "line 1", "too many digits")),
    "nested_100000_deep": (jsonl_line('{"id": "q1", "question": "?", "answer": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                           ("g.jsonl", "line 1", "nested too deeply")),
    "surrogate_in_question": (jsonl_line('{"id": "q1", "question": "a \\ud800 b"}'),
                              ("g.jsonl", "id q1", "not valid Unicode", "\\ud800")),
    "surrogate_in_model_name": (jsonl_line('{"id": "q1", "question": "?", "prediction": "x", "model": "m\\udc80"}'),
                                ("g.jsonl", "id q1", "not valid Unicode", "\\udc80")),
    "mmbench_index_inf": (mmbench_index("inf"), ("d.tsv", "line 2", "'inf' is not a whole number")),
    "mmbench_index_1e400": (mmbench_index("1e400"), ("d.tsv", "line 2", "'1e400' is not a whole number")),
    "mmbench_index_1e25": (mmbench_index("1e25"), ("d.tsv", "line 2", "'1e25' is not a whole number")),
}  # fmt: skip


@pytest.mark.parametrize("name", REFUSED)
def test_hostile_values_are_refused_by_one_line(
    cli: Cli, populated: Path, tmp_path: Path, name: str
) -> None:
    make, fragments = REFUSED[name]
    (tmp_path / "case").mkdir()
    import_refused(cli, populated, make(tmp_path / "case"), *fragments)


def test_a_model_name_argument_that_is_not_utf8_is_refused(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    data = write_tsv(
        tmp_path / "d.tsv",
        MMBENCH_HEADER,
        [[1, "Q", "", "a", "b", "", "", "A", "OCR", png_base64(), "", "x", "", "dev"]],
    )
    pred = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [[1, "A"]])
    name = os.fsdecode(b"model-\xff")  # what Python makes of a byte that is not UTF-8 in argv
    line = import_refused(
        cli, populated, ["mmbench", data, "--answers", pred, "--model", name], "\\udcff"
    )
    # The argument is to blame, not the data it would have been stored with.
    assert line.startswith("error: --model: 'model-\\udcff' is not valid Unicode"), line


# -- 16: opening files -----------------------------------------------------------------------

READERS = (["info"], ["report"], ["export", "--format", "json"], ["score"], ["judge", "--dry-run"])


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_an_empty_file_is_not_a_database_for_any_command_but_import(
    cli: Cli, tmp_path: Path, command: list[str]
) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    refused(
        cli(command[0], empty, *command[1:]), str(empty), "not a lmmreview database (empty file)"
    )
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_import_may_fill_an_empty_file(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?"}])
    assert cli("import", "jsonl", empty, data).code == 0
    assert cli("info", empty).code == 0


def test_another_programs_sqlite_file_is_refused_untouched(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text)")
    conn.close()
    before = other.read_bytes()
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?"}])
    for args in (["info", other], ["import", "jsonl", other, data]):
        refused(cli(*args), "an SQLite file that is not a lmmreview database")
    assert other.read_bytes() == before
    with sqlite3.connect(other) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_a_negative_schema_version_is_refused_clearly(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "neg.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = -1")
    conn.close()
    refused(cli("info", path), "not a lmmreview database (schema version -1)")


@contextmanager
def as_a_user_who_cannot_write(folder: Path) -> Iterator[None]:
    """The folder made read-only; as root (who writes anywhere) run as nobody meanwhile."""
    folder.chmod(0o555)
    root = os.geteuid() == 0
    if root:
        os.seteuid(65534)
    try:
        yield
    finally:
        if root:
            os.seteuid(0)
        folder.chmod(0o755)


def test_a_database_in_a_read_only_folder_says_so(cli: Cli) -> None:
    with tempfile.TemporaryDirectory() as name:  # in /tmp, where nobody can reach it
        folder = Path(name)
        folder.chmod(0o755)
        path = folder / "r.db"
        data = write_lines(folder / "g.jsonl", [{"id": "q1", "question": "?"}])
        assert cli("import", "jsonl", path, data).code == 0
        with as_a_user_who_cannot_write(folder):
            line = refused(cli("info", path), str(path), "read-only")
            refused(
                cli("import", "jsonl", folder / "new.db", data),
                "new.db: cannot create it",
                "read-only",
            )
        assert sorted(p.name for p in folder.iterdir()) == ["g.jsonl", "r.db"]
    assert "not a lmmreview database" not in line


def _version_1_database(path: Path) -> None:
    """A file as the first release wrote it, holding one dataset."""
    with sqlite3.connect(path) as conn:
        for statement in statements(str(MIGRATIONS[0])):
            conn.execute(statement)
        conn.execute(
            "INSERT INTO datasets (name, kind, created_at) VALUES ('g', 'generic', 'then')"
        )
        conn.execute("PRAGMA user_version = 1")
    conn.close()


def test_a_failed_import_leaves_an_older_schema_as_it_was(cli: Cli, tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    _version_1_database(old)
    answers = write_lines(tmp_path / "a.jsonl", [{"id": "q1", "prediction": "x", "model": "m"}])
    import_refused(
        cli, old, ["jsonl", answers, "--dataset", "nowhere"], "'nowhere'"
    )  # fails writing
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
    good = write_lines(tmp_path / "good.jsonl", [{"id": "q1", "question": "?"}])
    assert cli("import", "jsonl", old, good).code == 0
    with Store.open(old, create=False) as store:
        assert store.schema_version == len(MIGRATIONS)


def test_a_failed_load_rolls_the_migration_back(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    _version_1_database(old)
    with Store.open(old, migrate=False) as store, pytest.raises(RuntimeError), store.transaction():
        assert store.schema_version == len(MIGRATIONS)  # migrated inside the transaction
        raise RuntimeError("the import fails")
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


# -- 18: quotes, huge image files, huge images -----------------------------------------------


def test_an_unclosed_quote_is_reported_where_it_opens(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    rows = [
        [i, "Q", "", "a", "b", "", "", "A", "OCR", png_base64(), "", "x", "", "dev"]
        for i in (1, 2, 3, 4)
    ]
    rows[1][1] = '"Which one?'  # the quote never closes
    data = write_tsv(tmp_path / "d.tsv", MMBENCH_HEADER, rows)
    line = import_refused(cli, populated, ["mmbench", data], "d.tsv", "line 3", "not closed")
    assert "line 3:" in line


def test_a_huge_image_file_is_refused_before_it_is_read(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    (tmp_path / "img").mkdir()
    with (tmp_path / "img" / "a.png").open("wb") as f:
        f.truncate(MAX_IMAGE_BYTES + 2**20)  # sparse: no disk used
    q = write_json(tmp_path / "q.json", {"v1_9": mmvet_question()})
    tracemalloc.start()
    try:
        import_refused(
            cli,
            populated,
            ["mmvet", q, "--images", tmp_path / "img"],
            "a.png",
            "id v1_9",
            "over the 64 MiB limit",
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MAX_IMAGE_BYTES // 4


def test_a_decompression_bomb_is_one_error_line(
    cli: Cli, populated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # a 40 x 30 image is "very large" now
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png_bytes(size=(40, 30)))
    q = write_json(tmp_path / "q.json", {"v1_9": mmvet_question()})
    import_refused(
        cli,
        populated,
        ["mmvet", q, "--images", tmp_path / "img"],
        "a.png",
        "id v1_9",
        "too large to decode",
    )


# -- 21: paths that leave the data folder ----------------------------------------------------


def test_paths_leaving_the_data_folder_are_listed(cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "img").mkdir(parents=True)
    (tmp_path / "outside.png").write_bytes(png_bytes("blue"))
    (data / "img" / "inside.png").write_bytes(png_bytes("green"))
    (data / "img" / "link.png").symlink_to(tmp_path / "outside.png")
    rows = [{"id": "q1", "question": "?", "images": ["img/inside.png", "../outside.png"]},
            {"id": "q2", "question": "?", "images": [str(tmp_path / "outside.png"), "img/link.png"]}]  # fmt: skip
    result = cli("import", "jsonl", tmp_path / "r.db", write_lines(data / "g.jsonl", rows))
    assert result.code == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if "outside" in line]
    assert "3 image path(s) lead outside" in warning
    for name in ("../outside.png", str(tmp_path / "outside.png"), "img/link.png"):
        assert name in warning
    assert "inside.png" not in warning.replace("outside.png", "")


def test_mmvet_and_mmmu_list_images_outside_their_folder(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "a.png").write_bytes(png_bytes())
    q = write_json(tmp_path / "q.json", {"v1_9": mmvet_question(imagename="../a.png")})
    result = cli("import", "mmvet", tmp_path / "r.db", q, "--images", tmp_path / "img")
    assert (
        result.code == 0
        and "1 image path(s) lead outside" in result.stderr
        and "../a.png" in result.stderr
    )
    (tmp_path / "hf").mkdir()
    questions = write_lines(tmp_path / "hf" / "q.jsonl", [{"id": "validation_Art_1", "question": "?",
                            "question_type": "open", "answer": "1", "image_1": "../a.png"}])  # fmt: skip
    result = cli("import", "mmmu", tmp_path / "r.db", "--questions", questions)
    assert result.code == 0 and "1 image path(s) lead outside" in result.stderr


def test_the_corrupt_pixel_png_passes_pillows_verify() -> None:
    """So refusing it (above) shows the importer decodes pixels, not only the header."""
    with Image.open(io.BytesIO(corrupt_pixels_png())) as image:
        image.verify()


def test_mmmu_output_files_reached_through_a_link_outside_are_listed(
    cli: Cli, tmp_path: Path
) -> None:
    elsewhere = write_json(tmp_path / "elsewhere" / "output.json",
                           [{"id": "validation_Art_1", "question_type": "open", "answer": "1", "response": "1"}])  # fmt: skip
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "Art").symlink_to(elsewhere.parent)
    result = cli("import", "mmmu", tmp_path / "r.db", tmp_path / "out", "--model", "m")
    assert result.code == 0, result.stderr
    assert (
        f"1 output file(s) lead outside {tmp_path / 'out'}, read anyway: Art/output.json"
        in result.stderr
    )


# -- the second review of the import path ------------------------------------------------------


def nobody_cli(*args: object) -> CliResult:
    """`lmmreview ARGS...` in another process; as root (who writes anywhere), as nobody.

    A separate process, because SQLite shares one process's open files between its
    connections: a connection held open by the test would lend its -wal and -shm."""
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    command = [sys.executable, "-m", "lmmreview", *map(str, args)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    done = subprocess.run(
        [*nobody, *command] if os.geteuid() == 0 else command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**env, "HOME": tempfile.gettempdir()},
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


@contextmanager
def another_users_connection(db: Path) -> Iterator[None]:
    """The database held open by another user (root): its -wal and -shm are not ours."""
    conn = sqlite3.connect(db)
    conn.execute("SELECT COUNT(*) FROM datasets").fetchone()
    for end in ("-wal", "-shm"):
        os.chown(f"{db}{end}", 0, 0)  # SQLite gives them the database's owner; undo that
    try:
        yield
    finally:
        conn.close()


WRITERS = {"score": ["score"], "judge": ["judge"], "import": ["import", "jsonl"]}
READ_ONLY = [
    ("folder", "score"), ("folder", "judge"), ("folder", "import"),
    ("file", "import"),
    ("wal", "score"), ("wal", "judge"), ("wal", "import"),
]  # fmt: skip


@pytest.mark.skipif(os.geteuid() == 0 and not Path("/usr/bin/setpriv").exists(), reason="setpriv")
@pytest.mark.parametrize(("part", "command"), READ_ONLY)
def test_writing_a_read_only_database_says_which_part_is_read_only(
    demo_template: Path, part: str, command: str
) -> None:
    with tempfile.TemporaryDirectory() as name:  # in /tmp, where nobody can reach it
        folder = Path(name)
        db = folder / "demo.db"
        shutil.copyfile(demo_template, db)
        data = write_lines(folder / "g.jsonl", [{"id": "new", "question": "?"}])
        for path in (folder, db, data):
            path.chmod(0o755 if path == folder else 0o644)
            os.chown(path, 65534, -1) if os.geteuid() == 0 else None
        expected = {
            "folder": f"the folder {folder} is read-only",
            "file": "the file is read-only",
            "wal": "its demo.db-wal file is read-only",
        }[part]
        before = dump(db)
        with another_users_connection(db) if part != "file" else nullcontext():
            folder.chmod(0o555 if part == "folder" else 0o755)
            db.chmod(0o444 if part == "file" else 0o644)
            args = [*WRITERS[command], db, *([data] if command == "import" else [])]
            line = refused(nobody_cli(*args), f"{db}: cannot write here: {expected}")
            folder.chmod(0o755)
        assert "copy it to a writable folder" in line
        assert dump(db) == before


def test_a_new_database_gets_the_mode_of_any_new_file(cli: Cli, tmp_path: Path) -> None:
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?"}])
    modes = {}
    for umask in (0o022, 0o002):
        old = os.umask(umask)
        try:
            db = tmp_path / f"u{umask:o}.db"
            assert cli("import", "jsonl", db, data).code == 0
        finally:
            os.umask(old)
        modes[umask] = stat.S_IMODE(db.stat().st_mode)
    assert modes == {0o022: 0o644, 0o002: 0o664}


def test_an_import_through_a_link_to_nothing_creates_the_database_where_it_points(
    cli: Cli, tmp_path: Path
) -> None:
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?"}])
    (tmp_path / "store").mkdir()
    link = tmp_path / "results.db"
    link.symlink_to(tmp_path / "store" / "real.db")
    assert cli("import", "jsonl", link, data).code == 0
    assert link.is_symlink() and (tmp_path / "store" / "real.db").is_file()
    with Store.open(link, create=False) as store:
        assert store.sample_ids(1).keys() == {"q1"}


def test_an_import_through_a_loop_of_links_says_so(cli: Cli, tmp_path: Path) -> None:
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?"}])
    (tmp_path / "a.db").symlink_to(tmp_path / "b.db")
    (tmp_path / "b.db").symlink_to(tmp_path / "a.db")
    refused(cli("import", "jsonl", tmp_path / "a.db", data), "a.db: a symbolic link in a loop")


NOT_AN_INDEX = ["1_000", "\uff15", " 5", "5 ", "1e3", "-1", "+5", "5.5"]


@pytest.mark.parametrize("cell", NOT_AN_INDEX, ids=ascii)
def test_an_mmbench_index_is_ascii_digits_only(
    cli: Cli, populated: Path, tmp_path: Path, cell: str
) -> None:
    data = mmbench_index(cell)(tmp_path)
    import_refused(cli, populated, data, "d.tsv: line 2: index", "not a whole number")


@pytest.mark.parametrize("cell", NOT_AN_INDEX, ids=ascii)
def test_a_prediction_index_is_ascii_digits_only(
    cli: Cli, populated: Path, tmp_path: Path, cell: str
) -> None:
    (data,) = mmbench_index("5")(tmp_path)[1:]
    pred = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [[cell, "A"]])
    args = ["mmbench", data, "--answers", pred, "--model", "m"]
    import_refused(cli, populated, args, "p.tsv: line 2: index", "not a whole number")


def test_an_index_written_by_pandas_as_a_float_is_taken(cli: Cli, tmp_path: Path) -> None:
    (data,) = mmbench_index("5.0")(tmp_path)[1:]
    pred = write_tsv(tmp_path / "p.tsv", ["index", "prediction"], [["5", "A"]])
    db = tmp_path / "r.db"
    assert cli("import", "mmbench", db, data, "--answers", pred, "--model", "m").code == 0
    with Store.open(db, create=False) as store:
        assert store.answers("d", "m") == {"5": "A"}


def test_a_column_named_twice_is_refused(cli: Cli, populated: Path, tmp_path: Path) -> None:
    header = [*MMBENCH_HEADER, "A"]
    row = [1, "Q", "", "a", "b", "", "", "A", "OCR", png_base64(), "", "x", "", "dev", "c"]
    data = write_tsv(tmp_path / "d.tsv", header, [row])
    import_refused(cli, populated, ["mmbench", data], "d.tsv: line 1: column 'A' appears twice")
    (good,) = mmbench_index("1")(tmp_path)[1:]
    pred = write_tsv(tmp_path / "p.tsv", ["index", "prediction", "prediction"], [[1, "A", "B"]])
    args = ["mmbench", good, "--answers", pred, "--model", "m"]
    import_refused(cli, populated, args, "p.tsv: line 1: column 'prediction' appears twice")


def test_a_prediction_row_shorter_than_the_header_is_refused(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    (data,) = mmbench_index("1")(tmp_path)[1:]
    pred = tmp_path / "p.tsv"
    pred.write_text("index\tprediction\n1\n", encoding="utf-8")
    args = ["mmbench", data, "--answers", pred, "--model", "m"]
    import_refused(cli, populated, args, "p.tsv: line 2:", "1 cells but the header has 2")


@pytest.mark.parametrize("text", ["", "\n\n  \n"], ids=["empty", "blank_lines"])
def test_a_jsonl_file_without_lines_says_so(
    cli: Cli, populated: Path, tmp_path: Path, text: str
) -> None:
    data = tmp_path / "empty.jsonl"
    data.write_text(text, encoding="utf-8")
    line = import_refused(cli, populated, ["jsonl", data], f"{data}: holds no samples or answers")
    assert "dataset" not in line
    refused(cli("import", "jsonl", tmp_path / "new.db", data), "holds no samples or answers")
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("kind", ["jsonl", "mmvet"])
def test_a_model_argument_that_is_not_utf8_is_blamed_not_the_data(
    cli: Cli, populated: Path, tmp_path: Path, kind: str
) -> None:
    name = os.fsdecode(b"m-\xff")
    if kind == "jsonl":
        data = write_lines(tmp_path / "s.jsonl", [{"id": "a", "question": "?", "prediction": "x"}])
        args = ["jsonl", data, "--model", name]
    else:
        results = write_json(tmp_path / "r.json", {"v1_9": "x"})
        questions = write_json(tmp_path / "q.json", {"v1_9": mmvet_question()})
        args = ["mmvet", questions, "--answers", results, "--model", name]
    line = import_refused(cli, populated, args)
    assert line == "error: --model: 'm-\\udcff' is not valid Unicode (a byte that is not UTF-8)"


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: p.write_text("not a picture"), "is not an image Pillow can read"),
        (lambda p: p.write_bytes(corrupt_pixels_png()), "is not a readable image"),
        (lambda p: p.symlink_to(p.parent / "gone.png"), "a symbolic link to"),
        (lambda p: p.mkdir(), "is a folder, not an image file"),
    ],
    ids=["text", "broken_pixels", "dangling_link", "folder"],
)
def test_a_bad_image_is_named_after_the_data_files_line(
    cli: Cli,
    populated: Path,
    tmp_path: Path,
    make: Callable[[Path], None],
    problem: str,
) -> None:
    image = tmp_path / "img" / "a.png"
    image.parent.mkdir()
    make(image)
    data = write_lines(tmp_path / "g.jsonl", [{"id": "q1", "question": "?", "images": "img/a.png"}])
    line = import_refused(cli, populated, ["jsonl", data], problem)
    assert line.startswith(f"error: {data}: line 1: image {image}"), line
    assert "object at 0x" not in line and "BytesIO" not in line


def test_a_workbook_or_binary_file_given_as_the_mmbench_tsv_says_what_it_is(
    cli: Cli, populated: Path, tmp_path: Path
) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(MMBENCH_HEADER)  # type: ignore[union-attr]
    book.active.append(["1", "Q", "", "a", "b", "", "", "A", "OCR", "x" * 100, "", "", "", ""])  # type: ignore[union-attr]
    workbook = tmp_path / "MMBench_DEV_EN.xlsx"
    book.save(workbook)
    line = import_refused(cli, populated, ["mmbench", workbook], f"{workbook}: looks like an Excel")
    assert "the dataset must be the MMBench .tsv file" in line and "line 1" not in line
    picture = tmp_path / "picture.tsv"
    picture.write_bytes(png_bytes())
    line = import_refused(cli, populated, ["mmbench", picture], f"{picture}: a binary file, not")
    assert "line 1" not in line


# -- issue 25, item 7f: an empty name is not the file's name ------------------------------------

NAME_OPTIONS = [
    *sorted(
        (command, option.name)
        for benchmark in benchmarks().values()
        for command, importer in benchmark.importers().items()
        for option in importer.options
        if option.text
    ),
    # --dataset: one check for every command; the one reported, and two others
    ("inspect", "dataset"),
    ("jsonl", "dataset"),
    ("mmmu-lmms-eval", "dataset"),
]


@pytest.mark.parametrize("name", ["", " \t "], ids=["empty", "blank"])
@pytest.mark.parametrize(
    ("command", "option"), NAME_OPTIONS, ids=[f"{c}-{o}" for c, o in NAME_OPTIONS]
)
def test_an_empty_name_is_refused_by_every_import_command(
    cli: Cli, populated: Path, tmp_path: Path, command: str, option: str, name: str
) -> None:
    """Without the check, `--model ''` named the model after the file, as if not given
    (and `--dataset ''` the dataset)."""
    data = write_lines(tmp_path / "g.jsonl", [{"id": "a", "question": "?", "prediction": "x"}])
    flag = f"--{option.replace('_', '-')}"
    line = import_refused(cli, populated, [command, data, flag, name])
    assert line == (
        f"error: {flag}: {name!r} is empty: give a name, or leave {flag} out to take it from "
        "the file"
    )
