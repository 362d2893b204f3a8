"""Export renderers: the papers' shape, ranks, escaping, and pinned snapshots."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import matches_golden, needs_fixture

from lmmreview.engine.export import DASH, Notes, to_csv, to_json, to_latex, to_markdown
from lmmreview.engine.tables import Cell, Column, Row, Table

# A control or invisible code point written raw (newline aside).
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b\u202e\U000e0000-\U000e007f]")


def _table(values: dict[str, float | None], std: float | None = None) -> Table:
    table = Table(
        "d.t",
        "Some table",
        "d",
        [Column("x", "X"), Column("total", "Total")],
        std_columns=("total",),
    )
    for label, value in values.items():
        cells = {"x": Cell(value, 10, offline=10), "total": Cell(value, 12, std=std)}
        table.rows.append(Row(label, cells))
    return table


NOTES = [Notes("d", "generic", ("gpt-4-0613",), 5, 30, 4, 2, 1)]
# A value marked second in Markdown: italic, in single stars (bold is in double ones).
SECOND = re.compile(r"(?<!\*)\*[-\d.]+\*(?!\*)")


def test_best_is_bold_second_italic_ties_share() -> None:
    md = to_markdown([_table({"a": 50.0, "b": 70.0, "c": 60.0, "d": 70.0})], NOTES)
    lines = {line.split(" | ")[0][2:]: line for line in md.splitlines() if line.startswith("| ")}
    assert "**70.0**" in lines["b"] and "**70.0**" in lines["d"]
    # b and d share first place, so nobody is second.
    assert not SECOND.search(md)
    md = to_markdown([_table({"a": 50.0, "b": 70.0, "c": 60.0})], NOTES)
    assert "| c | *60.0* | *60.0* |" in md and "**70.0**" in md and "| a | 50.0 |" in md
    assert "<" not in md  # Markdown's own marks, no HTML


def test_all_equal_marks_nothing() -> None:
    assert "**" not in to_markdown([_table({"a": 0.0, "b": 0.0, "c": 0.0})], NOTES)


def test_two_rows_mark_only_the_best_and_one_row_nothing() -> None:
    assert not SECOND.search(to_markdown([_table({"a": 50.0, "b": 70.0})], NOTES))
    assert "**" not in to_markdown([_table({"a": 50.0})], NOTES)


def test_a_column_may_rank_the_lowest_best_or_mark_nothing() -> None:
    """MMStar's leakage is best low; its score without the image is neither better high
    nor low (Column.best)."""
    table = Table("d.t", "t", "d", [Column("ml", "ML", best="lower"), Column("s", "S", best="")])
    for label, value in {"a": 5.0, "b": 1.0, "c": 3.0}.items():
        table.rows.append(Row(label, {"ml": Cell(value, 10), "s": Cell(value, 10)}))
    lines = to_markdown([table], NOTES).splitlines()
    assert "| b | **1.0** | 1.0 |" in lines and "| c | *3.0* | 3.0 |" in lines
    assert "| a | 5.0 | 5.0 |" in lines


def test_std_columns_show_mean_plus_minus_std_and_n_row() -> None:
    md = to_markdown([_table({"a": 33.34, "b": None}, std=0.12)], NOTES)
    assert "| a | 33.3 | 33.3±0.1 |" in md  # the only value: nothing to rank against
    assert f"| b | {DASH} | {DASH} |" in md
    assert "| N | 10 | 12 |" in md
    assert "judge gpt-4-0613 (5 runs); 4 of 30 answers human-reviewed; 2 unscored" in md


def test_markdown_escapes_pipes_in_names() -> None:
    md = to_markdown([_table({"my|model": 1.0})], NOTES)
    assert "| my\\|model |" in md


def test_latex_is_booktabs_and_escapes_names() -> None:
    tex = to_latex([_table({"llava_1.5 & co %": 50.0, "b": 40.0, "c": 30.0}, std=1.25)], NOTES)
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "llava\\_1.5 \\& co \\%" in tex
    assert "\\textbf{50.0$\\pm$1.2}" in tex or "\\textbf{50.0$\\pm$1.3}" in tex
    assert "\\underline{40.0}" in tex
    assert "\\begin{tabular}{lrr}" in tex


def test_csv_has_one_line_per_cell_with_every_statistic() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv([_table({"a": 50.0, "b": None})], NOTES))))
    assert len(rows) == 4
    first = rows[0]
    assert (first["model"], first["column"], first["value"], first["n"]) == ("a", "x", "50.0", "10")
    assert rows[2]["value"] == ""  # b has no score: empty, not 0


def test_json_has_the_documented_shape() -> None:
    document = json.loads(to_json([_table({"a": 50.0, "b": None})], NOTES))
    (table,) = document["tables"]
    assert {"name", "dataset", "columns", "rows"} <= set(table)
    assert table["columns"] == ["x", "total"]
    assert table["rows"][0] == {
        "model": "a",
        "values": {"x": 50.0, "total": 50.0},
        "n": {"x": 10, "total": 12},
        "std": {"x": None, "total": None},
        "reviewed": {"x": 0, "total": 0},
        "unscored": {"x": 0, "total": 0},
        "partial": {"x": 0, "total": 0},
        "fallback": {"x": 0, "total": 0},
        "offline": {"x": 10, "total": 0},
    }
    assert table["rows"][1]["values"] == {"x": None, "total": None}
    assert document["notes"]["d"]["runs"] == 5


# -- pinned snapshots of real exports ---------------------------------------------------


def test_demo_export_markdown_snapshot(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert cli("demo", db, "--no-open").code == 0
    result = cli("export", db, "--format", "md")
    assert result.code == 0, result.stderr
    matches_golden(result.stdout, "demo_tables.md")


def test_show_empty_keeps_every_row_and_column(cli, tmp_path: Path) -> None:
    """--show-empty gives the tables as before empty rows and columns were left out (the
    snapshot is the earlier one, seconds in italic instead of <u>)."""
    db = tmp_path / "demo.db"
    assert cli("demo", db, "--no-open").code == 0
    result = cli("export", db, "--format", "md", "--show-empty")
    assert result.code == 0, result.stderr
    matches_golden(result.stdout, "demo_tables_all.md")


@needs_fixture("mmmu")
def test_mmmu_fixture_export_markdown_snapshot(cli, mmmu_fixture_db: Path) -> None:
    db = mmmu_fixture_db
    assert cli("score", db).code == 0
    result = cli("export", db, "--format", "md")
    matches_golden(result.stdout, "mmmu_llava_tables.md")


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "latex"])
def test_export_to_a_file(cli, tmp_path: Path, fmt: str) -> None:
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    out = tmp_path / f"tables.{fmt}"
    result = cli("export", db, "--format", fmt, "--out", out)
    assert result.code == 0 and f"wrote {out}" in result.stderr
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "demo-alpha" in text and "mmvet" in text


# -- names from the data are text, never syntax or control (issue 9, item 12) ----------

HOSTILE_NAMES = [
    "a\n| fake | 99.9 |",  # a newline would end the row and start a forged one
    "<img src=x onerror=alert(1)>",
    "**bold** _em_ `code` [link](http://x) ~~gone~~ *",
    "&lt; &#60; \\| back\\slash",
    "__init__ and snake_case",
    "esc\x1b[31m bell\x07 c1\x9b zero\u200bwidth",
]


def _inline_tokens(md: str) -> list:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(md)
    return [child for t in tokens if t.type == "inline" for child in t.children or []]


def test_markdown_shows_names_as_literal_text() -> None:
    from markdown_it import MarkdownIt

    table = _table(dict.fromkeys(HOSTILE_NAMES, 50.0))  # all equal: no bold of our own
    md = to_markdown([table], NOTES)
    assert not RAW_CONTROL.search(md)
    kinds = {token.type for token in _inline_tokens(md)}
    syntax = {"html_inline", "strong_open", "em_open", "s_open", "code_inline", "link_open"}
    assert not kinds & syntax, kinds & syntax
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    assert not any(t.type == "html_block" for t in tokens)
    rows = [i for i, t in enumerate(tokens) if t.type == "tr_open"]
    assert len(rows) == 1 + len(HOSTILE_NAMES) + 1  # header, one per model, N: none forged
    first_cells = [tokens[i + 2].content for i in rows[1:-1]]  # tr_open, td_open, inline
    # What a reader sees in each row is the name, with controls and newlines as stand-ins.
    assert [_rendered_text(c) for c in first_cells] == [
        "a⏎| fake | 99.9 |",
        "<img src=x onerror=alert(1)>",
        "**bold** _em_ `code` [link](http://x) ~~gone~~ *",
        "&lt; &#60; \\| back\\slash",
        "__init__ and snake_case",
        "esc␛[31m bell␇ c1⟨U+009B⟩ zero⟨U+200B⟩width",
    ]


def _rendered_text(cell: str) -> str:
    """The text Markdown shows for one table cell's source."""
    from markdown_it import MarkdownIt

    return html.unescape(MarkdownIt("commonmark").renderInline(cell))


def test_markdown_names_never_become_links_by_themselves() -> None:
    """GitHub's Markdown links bare URLs, www. addresses and e-mail addresses."""
    names = ["http://evil.example/x", "see www.evil.example", "ftp://f", "me@evil.example"]
    md = to_markdown([_table(dict.fromkeys(names, 1.0))], NOTES)
    autolink = re.compile(r"(?<!\\)(?:[a-z]+:(?=//)|\bwww\.|\w@\w)")
    assert not autolink.search(md), autolink.findall(md)
    assert [_rendered_text(f"x {n}")[2:] for n in ("http\\://a", "me\\@b")] == ["http://a", "me@b"]


def test_markdown_keeps_ordinary_names_as_they_were() -> None:
    md = to_markdown([_table({"image_scene": 1.0, "Art & Design": 2.0, "llava-1.5": 3.0})], NOTES)
    assert "| image_scene |" in md and "| Art & Design |" in md and "| llava-1.5 |" in md


def test_csv_names_are_never_formulas_and_numbers_stay_numbers() -> None:
    names = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "plain", "a\x1bb"]
    table = _table(dict.fromkeys(names, -1.5))
    text = to_csv([table], NOTES)
    assert not RAW_CONTROL.search(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    models = list(dict.fromkeys(row["model"] for row in rows))
    assert models == [
        "'=HYPERLINK(\"http://x\")", "'+1", "'-2", "'@SUM(A1)", " x", "␍x", "plain", "a␛b"
    ]  # fmt: skip
    assert {row["value"] for row in rows} == {"-1.5"}  # a value is a number, not a name


def test_latex_names_cannot_end_the_table_or_take_an_argument() -> None:
    names = ["a", "[3cm] raised", "two\n\nparagraphs", "esc\x1b]0;t\x07"]
    tex = to_latex([_table(dict.fromkeys(names, 10.0))], NOTES)
    assert not RAW_CONTROL.search(tex)
    body = tex[tex.index(r"\begin{table}") : tex.index(r"\end{table}")]
    assert "\n\n" not in body  # a blank line is a paragraph break: an error inside tabular
    assert not any(line.startswith("[") for line in body.splitlines())
    assert r"{[}3cm{]} raised" in body
    caret = r"\textasciicircum{}"
    assert f"two{caret}J{caret}Jparagraphs" in body and f"esc{caret}{{[}}{{]}}0;t{caret}G" in body


def test_latex_names_are_typeset_as_written_by_pdflatex() -> None:
    """OT1 prints "<" ">" as "¡" "¿", and pdflatex rejects control pictures ("␛") and the
    code-point brackets: all written in commands or ASCII. The ± note is in the caption."""
    names = ["<script>", "a\x1bb", "bidi\u202e"]
    table = replace(_table(dict.fromkeys(names, 10.0)), intervals=True)
    tex = to_latex([table], NOTES)
    body = tex[tex.index(r"\begin{table}") : tex.index(r"\end{table}")]
    assert r"\textless{}script\textgreater{}" in body and "<" not in body
    assert r"a\textasciicircum{}{[}b" in body
    assert r"bidi\textless{}U+202E\textgreater{}" in body
    assert body.isascii()
    caption = next(line for line in body.splitlines() if line.startswith(r"\caption"))
    assert r"$\pm$h): half the 95 \% bootstrap interval" in caption


def test_markdown_escapes_dollars_so_no_name_reads_as_math() -> None:
    md = to_markdown([_table({"$x$ and $y$": 10.0})], NOTES)
    assert r"| \$x\$ and \$y\$ |" in md


def test_json_keeps_names_exact_with_unsafe_code_points_escaped() -> None:
    names = ["c1\x9b bidi\u202e zero\u200b tag\U000e0041", "lone\ud800", "ok ❤️ 👍🏽"]
    text = to_json([_table(dict.fromkeys(names, 1.0))], NOTES)
    assert not RAW_CONTROL.search(text) and "\ud800" not in text
    text.encode("utf-8")  # a lone surrogate written raw would fail here
    document = json.loads(text)
    assert [row["model"] for row in document["tables"][0]["rows"]] == names
    assert "👍🏽" in text  # ordinary non-ASCII stays readable


# -- an export never lands on a database (the review of issue 9, item 1) ----------------


def _spellings(db: Path) -> dict[str, Path]:
    """The database's own path, and other names for the same file."""
    link = db.parent / "link.db"
    link.symlink_to(db)
    (db.parent / "sub").mkdir()
    return {"same": db, "symlink": link, "dotdot": db.parent / "sub" / ".." / db.name}


@pytest.mark.parametrize("spelling", ["same", "symlink", "dotdot"])
def test_export_refuses_to_write_over_its_own_database(cli, demo_db: Path, spelling: str) -> None:
    target = _spellings(demo_db)[spelling]
    before = demo_db.read_bytes()
    result = cli("export", demo_db, "--out", target)
    assert result.code == 1
    assert result.stderr == f"error: not writing the tables to {target}: that is the database\n"
    assert demo_db.read_bytes() == before
    assert cli("info", demo_db).code == 0


def test_export_refuses_to_write_over_the_databases_wal_file(cli, demo_db: Path) -> None:
    """A connection keeps the -wal file while it is open; the tables would damage it."""
    reader = sqlite3.connect(demo_db)
    reader.execute("SELECT COUNT(*) FROM answers").fetchone()
    wal = Path(f"{demo_db}-wal")
    try:
        assert wal.exists()
        before = wal.read_bytes()
        result = cli("export", demo_db, "--out", wal)
        assert result.code == 1
        assert f"that is {wal}, a file of the database" in result.stderr
        assert wal.read_bytes() == before
    finally:
        reader.close()


def _companion_names(db: Path, suffix: str) -> dict[str, Path]:
    """Names of a companion file SQLite has not made yet: as spelled, through `..`, and
    a symbolic link to it (dangling until SQLite makes the file)."""
    (db.parent / "sub").mkdir(exist_ok=True)
    link = db.parent / f"link{suffix}"
    link.symlink_to(f"{db.name}{suffix}")
    return {
        "same": Path(f"{db}{suffix}"),
        "dotdot": db.parent / "sub" / ".." / f"{db.name}{suffix}",
        "symlink": link,
    }


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
@pytest.mark.parametrize("spelling", ["same", "dotdot", "symlink"])
def test_export_refuses_a_companion_file_the_database_does_not_have_yet(
    cli, demo_db: Path, suffix: str, spelling: str
) -> None:
    """Between connections there is no -wal file; written then, SQLite would read the
    tables as the database's log."""
    target = _companion_names(demo_db, suffix)[spelling]
    result = cli("export", demo_db, "--out", target)
    assert result.code == 1
    assert result.stderr == (
        f"error: not writing the tables to {target}: that is {demo_db}{suffix}, "
        "a file of the database\n"
    )
    assert not Path(f"{demo_db}{suffix}").exists()
    assert cli("info", demo_db).code == 0


def test_export_refuses_the_companion_beside_the_file_a_database_link_names(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    """SQLite keeps the -wal file beside the file a link to the database points to."""
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "results.db"
    link.symlink_to(demo_db)
    result = cli("export", link, "--out", f"{demo_db}-wal")
    assert result.code == 1
    assert "a file of the database" in result.stderr
    assert not Path(f"{demo_db}-wal").exists()


def test_export_to_a_full_device_names_it(cli, demo_db: Path) -> None:
    result = cli("export", demo_db, "--out", "/dev/full")
    assert result.code == 1
    assert result.stderr == "error: /dev/full: No space left on device\n"


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_export_to_a_fifo_no_program_reads_is_refused_not_waited_on(
    demo_db: Path, tmp_path: Path, fmt: str
) -> None:
    """Opening a FIFO for writing waits for a reader: the export (and the screen's `e`,
    which writes through the same code) would hang for ever."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    result = subprocess.run(
        [sys.executable, "-m", "lmmreview", "export", str(demo_db), "--format", fmt,
         "--dataset", "mmvet", "--out", str(fifo)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.endswith(f"{fifo}: a FIFO no program reads\n"), result.stderr


def test_export_refuses_to_write_over_another_sqlite_database(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    other = tmp_path / "notes.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE kept (x)")
    before = other.read_bytes()
    result = cli("export", demo_db, "--out", other)
    assert result.code == 1
    assert result.stderr.count("\n") == 1
    assert f"not writing the tables to {other}: it is an SQLite database" in result.stderr
    assert other.read_bytes() == before


def test_export_still_replaces_an_ordinary_file(cli, demo_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "tables.md"
    target.write_text("last week's tables\n", encoding="utf-8")
    result = cli("export", demo_db, "--out", target)
    assert result.code == 0
    assert "demo-alpha" in target.read_text(encoding="utf-8")
