"""Names from the data (models, tags, datasets, files, sample ids) and judge-server error
text reach no terminal as control and no Rich or Textual parser as markup: every command
and every screen shows them literally, with visible stand-ins."""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import CliResult, write_lines
from rich.console import Console
from textual.widgets import DataTable, Input
from tui_harness import drive, pick, until

from lmmreview.tui.app import ReviewApp
from lmmreview.tui.screens import MODEL_WIDTH, BreakdownScreen, CompareScreen, JudgeScreen, Menu

# An OSC 52 clipboard write, Rich markup that crashes ("[/]") or links, a zero-width space.
HOSTILE = "\x1b]52;c;SGVsbG8=\x07[/][link=file:///etc/passwd]x[/link]\u200b"
# What a reader sees of it instead: every control and invisible code point as a stand-in.
SHOWN = "␛]52;c;SGVsbG8=␇[/][link=file:///etc/passwd]x[/link]⟨U+200B⟩"
# A file name cannot hold "/": the same attack, with markup that needs none.
FILE_PART = "\x1b]52;c;SGVsbG8=\x07[link=x]x[bold]\u200b"
FILE_SHOWN = "␛]52;c;SGVsbG8=␇[link=x]x[bold]⟨U+200B⟩"
DATASET = f"bench[v2]{FILE_PART}"  # named after its file, bench[v2]….jsonl
DATASET_SHOWN = f"bench[v2]{FILE_SHOWN}"
# ESC, BEL and the other C0 controls but newline, C1 controls, and the invisible ones.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b\u200d\u2060\ufeff]")


def _assert_literal(output: str, *shown: str) -> None:
    """`output` holds no raw control or invisible code point, and shows each of `shown`."""
    assert not RAW.findall(output), RAW.findall(output)
    for text in shown:
        assert text in output, (text, output)


def _import_hostile(cli, tmp_path: Path) -> tuple[Path, CliResult]:
    """Import a JSONL dataset named after its hostile file, with a hostile model, tag and
    sample id; the database and what the import printed."""
    lines = [
        {"id": "q1", "question": "Q1?", "answer": "yes", "tags": {HOSTILE: [HOSTILE, "plain"]},
         "prediction": "yes", "model": HOSTILE},
        {"id": "q1", "prediction": "no", "model": "=HYPERLINK(\"http://x\")"},
        {"id": f"q{HOSTILE}", "question": "Q2?", "answer": "no", "tags": {HOSTILE: "plain"},
         "prediction": "yes", "model": HOSTILE},
    ]  # fmt: skip
    db = tmp_path / "hostile.db"
    result = cli("import", "jsonl", db, write_lines(tmp_path / f"{DATASET}.jsonl", lines))
    assert result.code == 0, result.stderr
    return db, result


@pytest.fixture
def hostile_db(cli, tmp_path: Path) -> Path:
    return _import_hostile(cli, tmp_path)[0]


def test_the_import_summary_shows_names_literally(cli, tmp_path: Path) -> None:
    result = _import_hostile(cli, tmp_path)[1]
    _assert_literal(result.stdout + result.stderr, DATASET_SHOWN, SHOWN)


def test_info_shows_names_literally(cli, hostile_db: Path) -> None:
    result = cli("info", hostile_db)
    assert result.code == 0, result.stderr
    _assert_literal(result.stdout.replace("\n", ""), DATASET_SHOWN, "␛]52;c;SGVsbG8=␇[/]")


def test_info_json_keeps_the_names_exact_and_escaped(cli, hostile_db: Path) -> None:
    result = cli("info", hostile_db, "--json")
    assert result.code == 0, result.stderr
    _assert_literal(result.stdout)
    (dataset,) = json.loads(result.stdout)["datasets"]
    assert dataset["name"] == DATASET
    assert HOSTILE in {m["model"] for m in dataset["models"]}


def test_score_and_report_show_names_literally(cli, hostile_db: Path) -> None:
    scored = cli("score", hostile_db)
    assert scored.code == 0, scored.stderr
    _assert_literal(scored.stdout, DATASET_SHOWN)
    result = cli("report", hostile_db)
    assert result.code == 0, result.stderr
    output = result.stdout
    _assert_literal(output, DATASET_SHOWN[:20], "␛]52;c;SGVsbG8=␇[/][link=file:///etc/passwd]")


@pytest.mark.parametrize("format", ["md", "csv", "latex", "json"])
def test_exports_hold_no_raw_control(cli, hostile_db: Path, format: str) -> None:
    assert cli("score", hostile_db).code == 0
    result = cli("export", hostile_db, "--format", format)
    assert result.code == 0, result.stderr
    _assert_literal(result.stdout)
    if format == "json":  # exact data, escaped
        document = json.loads(result.stdout)
        assert HOSTILE in {row["model"] for table in document["tables"] for row in table["rows"]}
    elif format == "latex":  # what pdflatex can typeset: caret notation, ASCII brackets
        caret = r"\textasciicircum{}"
        assert f"{caret}{{[}}" in result.stdout and f"SGVsbG8={caret}G" in result.stdout
        assert r"\textless{}U+200B\textgreater{}" in result.stdout
    else:
        assert "␛" in result.stdout and "SGVsbG8=␇" in result.stdout  # escaped brackets between
        assert "⟨U+200B⟩" in result.stdout


def test_an_error_naming_a_hostile_file_is_one_literal_line(cli, tmp_path: Path) -> None:
    missing = tmp_path / f"{DATASET}.jsonl"
    result = cli("import", "jsonl", tmp_path / "x.db", missing)
    assert result.code == 1
    _assert_literal(result.stderr, FILE_SHOWN)
    assert result.stderr.count("\n") == 1


@contextmanager
def refusing_judge(message: str) -> Iterator[str]:
    """A chat-completions server on 127.0.0.1 that refuses every request (HTTP 401) with
    `message` as its error text; yields its base URL."""

    class Refuse(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.dumps({"error": {"message": message}}).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass  # keep the test output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_judge_server_error_is_printed_literally(cli, hostile_db: Path, monkeypatch) -> None:
    with refusing_judge(HOSTILE) as url:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        result = cli("judge", hostile_db, "--base-url", url, "--runs", "1", "--max-attempts", "1")
    assert result.code == 1
    _assert_literal(result.stderr, "the judge server refused: 401", SHOWN)


# -- the review screen ---------------------------------------------------------------------


def screen_text(app: ReviewApp) -> str:
    """The text of everything the terminal would be sent for the screen, notifications
    included (Textual's own cursor moves left out)."""
    console = Console(file=io.StringIO(), record=True, width=app.size.width)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def test_the_model_and_axis_menus_show_names_literally(hostile_db: Path) -> None:
    shown: list[str] = []

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await pick(app, pilot, "By model…")
        await until(pilot, lambda: isinstance(app.screen, Menu))
        await pilot.pause(0.1)
        shown.append(screen_text(app))
        await pick(app, pilot, SHOWN)  # the menu's label is what a reader sees
        await until(pilot, lambda: app.session.filter.model == HOSTILE)
        shown.append(screen_text(app))  # the status line names the filter
        await pilot.press("v")
        await pick(app, pilot, "By breakdown axis…")
        await until(pilot, lambda: isinstance(app.screen, Menu))
        await pilot.pause(0.1)
        shown.append(screen_text(app))
        await pick(app, pilot, f"tag:{SHOWN}")  # the axis
        axis = f"tag:{HOSTILE}"
        await until(pilot, lambda: isinstance(app.screen, Menu) and app.screen.title_text == axis)
        await pilot.pause(0.1)
        shown.append(screen_text(app))  # its values, under the axis as title
        await pick(app, pilot, SHOWN)
        await until(pilot, lambda: app.session.filter.axis == (axis, HOSTILE))

    drive(hostile_db, steps, dataset=DATASET)
    for text in shown:
        _assert_literal(text, "␛]52;c;SGVsbG8=␇[/]")


def test_the_breakdown_tables_show_names_literally(hostile_db: Path) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)
        table = app.screen.query_one("#table-1", DataTable)  # by the hostile tag
        seen["labels"] = [str(c.label) for c in table.columns.values()]
        seen["rows"] = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]

    drive(hostile_db, steps, dataset=DATASET)
    _assert_literal(str(seen["text"]), "␛]52;c;SGVsbG8=␇[/]")
    assert SHOWN in seen["labels"]  # a column's title holds it whole
    # a row's model is cut in the middle (screens.MODEL_WIDTH) so that the numbers stay on
    # screen: both its ends still literal
    (row,) = [r for r in seen["rows"] if r.startswith(SHOWN[:12])]
    assert "…" in row and row.endswith(SHOWN[-12:]) and len(row) <= MODEL_WIDTH


def test_compare_shows_a_model_named_like_markup(hostile_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)

    drive(hostile_db, steps, dataset=DATASET)
    _assert_literal(seen["text"], "␛]52;c;SGVsbG8=␇[/]", "=HYPERLINK")


def test_the_jump_prompt_says_no_such_id_literally(hostile_db: Path) -> None:
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await pilot.press(*"[/][link=file:///etc/shadow]x")  # no id holds it
        await pilot.press("enter")
        await until(pilot, lambda: app._notifications)
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)
        print(seen["text"])

    drive(hostile_db, steps, dataset=DATASET, notifications=True)
    _assert_literal(seen["text"], "No listed id holds '[/][link=file:///etc/shadow]x'")


def test_the_jump_picker_shows_hostile_ids_literally(hostile_db: Path) -> None:
    """`q` is held by q1 and by the hostile id: the picker lists both, literally."""
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        await pilot.press("q", "enter")
        await until(pilot, lambda: isinstance(app.screen, Menu))
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)
        await pick(app, pilot, f"q{SHOWN}")
        await until(pilot, lambda: app.current().key == f"q{HOSTILE}")

    drive(hostile_db, steps, dataset=DATASET)
    _assert_literal(seen["text"], "2 sample ids hold 'q'", "q1", f"q{SHOWN}"[:30])


def test_the_no_image_notice_shows_the_sample_id_on_one_line(cli, tmp_path: Path) -> None:
    """A sample id with a line break: the notice keeps it on its line ("⏎")."""
    key = "k[/]\nhuman verdict: 1.00"  # markup that crashes, and a fake verdict line
    line = {"id": key, "question": "Q?", "answer": "a", "prediction": "a", "model": "m"}
    db = tmp_path / "keys.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "keys.jsonl", [line])).code == 0
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("z")  # zoom: this sample has no image to zoom into
        await until(pilot, lambda: app._notifications)
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)

    drive(db, steps, dataset="keys", notifications=True)
    _assert_literal(seen["text"], "k[/]⏎human verdict: 1.00 has no image.")


def test_the_judge_error_pop_up_shows_server_text_literally(hostile_db: Path, monkeypatch) -> None:
    seen: dict[str, str] = {}
    with refusing_judge(HOSTILE) as url:
        monkeypatch.setenv("OPENAI_API_KEY", "k")

        async def steps(app, pilot) -> None:
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
            await pilot.press("enter")
            await until(pilot, lambda: "Judge run failed" in screen_text(app), 30)
            seen["text"] = screen_text(app)

        drive(hostile_db, steps, dataset=DATASET, judge_base_url=url, notifications=True)
    _assert_literal(seen["text"], "Judge run failed", "the judge server refused: 401")
    assert "␛]52;c;SGVsbG8=␇[/]" in seen["text"]


def test_markup_in_names_never_crashes_a_command(cli, tmp_path: Path) -> None:
    lines = [{"id": "q1", "question": "Q?", "answer": "a", "tags": {"[/]": "[/]"},
              "prediction": "a", "model": "[/]"}]  # fmt: skip
    db = tmp_path / "markup.db"
    source = write_lines(tmp_path / "m.jsonl", lines)
    assert cli("import", "jsonl", db, source, "--dataset", "[/][bold]").code == 0
    assert cli("score", db).code == 0
    for command in ("info", "report"):
        result = cli(command, db)
        assert result.code == 0, result.stderr
        assert "[/][bold]" in result.stdout, command


def test_assign_and_progress_show_names_literally(cli, hostile_db: Path, tmp_path: Path) -> None:
    result = cli("assign", hostile_db, "--reviewers", "ana,bo", "--out", tmp_path / "team")
    assert result.code == 0, result.stderr
    progress = cli("reviewers", hostile_db, "--progress")
    assert progress.code == 0, progress.stderr
    _assert_literal(result.stdout + progress.stdout.replace("\n", ""), DATASET_SHOWN)
    wrong = cli("assign", hostile_db, "--reviewers", "ana,bo", "--out", tmp_path / "x",
                "--model", HOSTILE)  # fmt: skip
    assert wrong.code == 1
    _assert_literal(wrong.stderr)


def test_the_circular_group_view_shows_hostile_options_answers_and_models_literally(
    cli, tmp_path: Path
) -> None:
    from conftest import MMBENCH_HEADER, png_base64, write_tsv

    from lmmreview.tui.group_view import GroupScreen

    rows = [
        [index, "Which?", "", HOSTILE, f"no {HOSTILE}", "", "", gold, "OCR", image, "s",
         "coarse_perception", "", "dev"]
        for index, gold, image in ((7, "A", png_base64()), (1000007, "B", "7"))
    ]  # fmt: skip
    tsv = write_tsv(tmp_path / "mmbench.tsv", MMBENCH_HEADER, rows)
    predictions = tmp_path / "predictions.tsv"
    predictions.write_text(f"index\tprediction\n7\tA {HOSTILE}\n1000007\tB\n", encoding="utf-8")
    db = tmp_path / "mmbench.db"
    result = cli("import", "mmbench", db, tsv, "--answers", predictions, "--model", HOSTILE)
    assert result.code == 0, result.stderr
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        await pilot.pause(0.1)
        seen["text"] = screen_text(app)

    drive(db, steps, dataset="mmbench", size=(160, 48))
    _assert_literal(seen["text"], "␛]52;c;SGVsbG8=␇[/]", "rotation 1", "CircularEval")
