"""The paper tables' options: model order and display names ([models] in the settings or
`--models FILE`), empty rows and columns left out unless `--show-empty`, LaTeX that fits
the line, Markdown marks without HTML."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tui_harness import drive, until

from lmmreview.engine.export import LATEX_PREAMBLE, to_latex
from lmmreview.engine.table_options import model_of, with_names, without_empty
from lmmreview.engine.tables import Cell, Column, Row, Table
from lmmreview.tui.screens import BreakdownScreen

# A display name holding what each format would read as syntax, and what a terminal obeys.
HOSTILE = "Beta *1* <b>x</b> & 50% $_{a}$ [l](u) \x1b[31m\u202e"


def _table(rows: dict[str, dict[str, float | None]], name: str = "d.t") -> Table:
    columns = [Column("x", "X"), Column("y", "Y"), Column("z", "Z")]
    table = Table(name, "T", "d", columns)
    for label, values in rows.items():
        cells = {k: Cell(v, 4) for k, v in values.items()}
        table.rows.append(Row(label, cells))
    return table


# -- the engine --------------------------------------------------------------------------


def test_names_order_and_rename_rows_splits_included() -> None:
    table = _table({m: {"x": 1.0} for m in ["a", "b (dev)", "b (test)", "c", "d"]})
    found = with_names([table], {"c": "C-13B", "b": "B", "ghost": "G"})
    rows = found.tables[0].rows
    assert [r.label for r in rows] == ["C-13B", "B (dev)", "B (test)", "a", "d"]
    assert [r.name for r in rows] == ["c", "b (dev)", "b (test)", "a", "d"]
    assert found.unknown == ["ghost"] and found.clashes == []
    assert table.rows[0].label == "a"  # the tables read are left as they were


def test_a_split_row_belongs_to_the_longest_listed_model() -> None:
    names = {"m": "M", "m (x)": "MX"}
    assert model_of("m (x) (dev)", names) == "m (x)"
    assert model_of("m (dev)", names) == "m"
    assert model_of("mm (dev)", names) is None and model_of("m", names) == "m"


def test_a_display_name_another_row_shows_is_not_used() -> None:
    found = with_names([_table({"a": {"x": 1.0}, "b": {"x": 2.0}})], {"a": "b"})
    assert [r.label for r in found.tables[0].rows] == ["a", "b"]
    assert found.clashes == ["a"]


def test_no_names_leave_the_tables_as_they_are() -> None:
    tables = [_table({"b": {"x": 1.0}, "a": {"x": 2.0}})]
    assert with_names(tables, {}).tables is tables


def test_unscored_rows_and_columns_with_n_0_are_left_out_and_recorded() -> None:
    table = _table({"a": {"x": 50.0, "y": None}, "b": {"x": None, "y": None}, "c": {"x": 20.0}})
    (shown,) = without_empty([table])
    assert [r.label for r in shown.rows] == ["a", "c"]
    assert [c.key for c in shown.columns] == ["x", "y"]  # y has N = 4 (a's unscored cell)
    assert [r.label for r in shown.hidden_rows] == ["b"]
    assert [c.key for c in shown.hidden_columns] == ["z"]


def test_a_table_with_nothing_empty_is_the_same_table() -> None:
    table = _table({"a": {"x": 1.0, "y": 2.0, "z": 3.0}})
    assert without_empty([table])[0] is table


def test_a_table_of_unscored_rows_keeps_its_columns() -> None:
    (shown,) = without_empty([_table({"a": {"x": None}})])
    assert shown.rows == [] and shown.hidden_columns == () and len(shown.hidden_rows) == 1


# -- LaTeX ---------------------------------------------------------------------------------


def _wide() -> Table:
    """MM-Vet's integration table's width: 17 columns."""
    columns = [Column(f"c{i}", f"Rec+OCR+Know {i}") for i in range(17)]
    table = Table("mmvet.integrations", "Capability integrations", "mmvet", columns)
    for label, value in (("llava_1.5 & co", 50.0), ("b", 40.0)):
        table.rows.append(Row(label, {c.key: Cell(value, 3) for c in columns}))
    return table


def _balanced(text: str) -> bool:
    depth = 0
    for char in re.sub(r"\\.", "", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_every_latex_table_is_scaled_to_the_line_only_when_wider() -> None:
    tex = to_latex([_wide(), _table({"a": {"x": 1.0}})], [])
    assert tex.startswith(f"{LATEX_PREAMBLE}\n") and "graphicx" in LATEX_PREAMBLE
    floats = re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, re.S)
    assert len(floats) == 2
    for body in floats:
        assert _balanced(body)
        fit = r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%"
        assert re.search(
            re.escape(fit) + r"\n\\begin\{tabular\}.*\\end\{tabular\}%\n\}\n\\end\{table\}",
            body,
            re.S,
        )
        spec = re.search(r"\\begin\{tabular\}\{(l r*)\}".replace(" ", ""), body)
        assert spec is not None
        for line in body.splitlines():
            if line.endswith(r" \\"):  # every row has a cell per column
                assert line.count(" & ") == len(spec.group(1)) - 1


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex on this machine")
def test_every_latex_table_compiles(cli, demo_db: Path, tmp_path: Path) -> None:
    result = cli("export", demo_db, "--format", "latex", "--show-empty")
    document = (
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}"
        "\\usepackage{booktabs,graphicx}\\begin{document}\n" + result.stdout + "\n\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Overfull \\hbox" not in run.stdout


# -- through the command line ----------------------------------------------------------------


@pytest.fixture
def demo_db(cli, tmp_path: Path) -> Path:
    db = tmp_path / "demo.db"
    assert cli("demo", db, "--no-open").code == 0
    return db


def _settings(config_home: Path, text: str) -> None:
    path = config_home / "lmmreview" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _models_file(tmp_path: Path) -> Path:
    path = tmp_path / "models.toml"
    path.write_text(
        f'[models]\n"demo-gamma" = "Gamma (13B)"\n"demo-beta" = {json.dumps(HOSTILE)}\n'
        '"demo-nobody" = "N"\n',
        encoding="utf-8",
    )
    return path


def _models_column(markdown: str, heading: str) -> list[str]:
    """The model column of the Markdown table under `heading`."""
    table = markdown.split(f"### {heading}\n\n", 1)[1].split("\n\n")[0]
    return [line.split(" | ")[0][2:] for line in table.splitlines()[2:-1]]


def test_settings_order_and_name_the_models_of_every_table(
    cli, demo_db: Path, config_home: Path
) -> None:
    _settings(config_home, '[models]\n"demo-gamma" = "Gamma (13B)"\n"demo-alpha" = "Alpha"\n')
    result = cli("export", demo_db, "--format", "md", "--dataset", "mmvet")
    assert result.code == 0, result.stderr
    assert _models_column(result.stdout, "MM-Vet: capabilities (mmvet)") == [
        "Gamma (13B)",
        "Alpha",
        "demo-beta",
    ]
    assert result.stderr == ""
    shown = cli("config")
    assert "models.demo-gamma" in shown.stdout and "Gamma (13B)" in shown.stdout


def test_a_models_file_names_models_in_every_format_each_escaped(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    models = _models_file(tmp_path)
    given = ("--dataset", "mmvet", "--models", models)
    md = cli("export", demo_db, "--format", "md", *given)
    assert md.code == 0, md.stderr
    assert "warning: no table has these listed models: demo-nobody" in md.stderr
    assert _models_column(md.stdout, "MM-Vet: capabilities (mmvet)")[:1] == ["Gamma (13B)"]
    escaped = r"Beta \*1\* &lt;b&gt;x&lt;/b&gt; & 50% \$\_{a}\$ \[l\](u) "
    assert f"| {escaped}" in md.stdout and "\x1b" not in md.stdout and "\u202e" not in md.stdout
    tex = cli("export", demo_db, "--format", "latex", *given).stdout
    b, end_b = r"\textless{}b\textgreater{}", r"\textless{}/b\textgreater{}"
    assert rf"Beta *1* {b}x{end_b} \& 50\% \$\_\{{a\}}\$ {{[}}l{{]}}(u)" in tex
    assert "Gamma (13B) &" in tex
    rows = list(
        csv.DictReader(io.StringIO(cli("export", demo_db, "--format", "csv", *given).stdout))
    )
    assert {(r["model"], r["display"]) for r in rows if r["model"] == "demo-gamma"} == {
        ("demo-gamma", "Gamma (13B)")
    }
    assert {r["display"] for r in rows if r["model"] == "demo-alpha"} == {"demo-alpha"}
    document = json.loads(cli("export", demo_db, "--format", "json", *given).stdout)
    first = document["tables"][0]["rows"][0]
    assert (first["model"], first["display"]) == ("demo-gamma", "Gamma (13B)")
    assert document["tables"][0]["rows"][1]["display"] == HOSTILE  # JSON keeps it exact


def test_report_shows_display_names_made_safe_in_the_terminal_and_the_page(
    cli, demo_db: Path, tmp_path: Path
) -> None:
    models = _models_file(tmp_path)
    result = cli("report", demo_db, "--dataset", "mmvet", "--models", models)
    assert result.code == 0, result.stderr
    # the long hostile name cut in the middle to 30 cells (the page shows it whole)
    assert "Gamma (13B)" in result.stdout and "Beta *1* <b>x<…" in result.stdout
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    page = tmp_path / "report.html"
    html = cli("report", demo_db, "--dataset", "mmvet", "--models", models,
               "--format", "html", "--out", page)  # fmt: skip
    assert html.code == 0, html.stderr
    text = page.read_text(encoding="utf-8")
    assert "Gamma (13B)" in text and "&lt;b&gt;x&lt;/b&gt;" in text and "<b>x</b>" not in text
    assert text.index("Gamma (13B)") < text.index("demo-alpha")


def test_bad_models_tables_are_errors_naming_file_and_key(
    cli, demo_db: Path, config_home: Path, tmp_path: Path
) -> None:
    _settings(config_home, '[models]\n"a" = "A"\n"b" = "A"\n')
    result = cli("export", demo_db)
    assert result.code == 1 and "models.b: a is shown as 'A' too" in result.stderr
    _settings(config_home, '[models]\n"a" = 3\n')
    assert "models.a: expected a display name" in cli("report", demo_db).stderr
    _settings(config_home, "")
    missing = cli("export", demo_db, "--models", tmp_path / "none.toml")
    assert missing.code == 1 and "none.toml: no such file" in missing.stderr
    plain = tmp_path / "plain.toml"
    plain.write_text('theme = "nord"\n', encoding="utf-8")
    assert "no [models] table" in cli("export", demo_db, "--models", plain).stderr
    official = cli("export", demo_db, "--format", "mmvet-csv", "--show-empty")
    assert official.code == 1 and "for the tables' formats" in official.stderr


def test_empty_rows_and_columns_are_left_out_with_a_note_where_people_read(
    cli, demo_db: Path
) -> None:
    given = ("--dataset", "mmstar")
    md = cli("export", demo_db, "--format", "md", *given).stdout
    assert "| Model | CP | image emotion |" in md
    note = (
        "MMStar: coarse perception (CP) (mmstar): left out 2 column(s) with N = 0: image scene "
        "and topic, image style & quality (--show-empty keeps them)."
    )
    assert f"- {note}" in md
    tex = cli("export", demo_db, "--format", "latex", *given).stdout
    assert "% MMStar: coarse perception (CP) (mmstar): left out 2 column(s)" in tex
    document = json.loads(cli("export", demo_db, "--format", "json", *given).stdout)
    cp = next(t for t in document["tables"] if t["name"] == "mmstar.CP")
    assert len(cp["columns"]) == 4  # data for scripts: every row and column kept
    rows = list(
        csv.DictReader(io.StringIO(cli("export", demo_db, "--format", "csv", *given).stdout))
    )
    assert "image emotion" in {r["column"] for r in rows if r["table"] == "mmstar.CP"}
    report = cli("report", demo_db, *given).stdout
    assert "left out 2 column(s) with N = 0" in report
    assert "image scene and topic" not in cli("report", demo_db, *given).stdout.split("left out")[0]
    llava = cli("export", demo_db, "--format", "md", "--dataset", "llava-bench").stdout
    assert "model first (llava-bench)\n" not in llava  # every model unscored: no table
    assert "left out 3 unscored model(s), every cell –: demo-alpha, demo-beta, demo-gamma" in llava


def test_the_screens_tables_show_the_names_and_a_renamed_cell_still_filters(
    demo_db: Path,
) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        table = app.screen.query_one("#table-0", DataTable)
        seen["labels"] = [str(table.get_row_at(i)[0]) for i in range(3)]
        table.focus()
        math_column = 1 + [c.key for c in app.screen.tables[0].columns].index("math")
        table.move_cursor(row=1, column=math_column)  # Beta (13B): demo-beta's Math cell
        await pilot.press("enter")
        await until(pilot, lambda: app.session.filter.cell_ids is not None)
        seen["models"] = {app.session.entries[i].model for i in app.session.visible}

    drive(demo_db, steps, models={"demo-gamma": "Gamma", "demo-beta": "Beta (13B)"})
    assert seen["labels"] == ["Gamma", "Beta (13B)", "demo-alpha"]
    assert seen["models"] == {"demo-beta"}
