"""The documentation: the site builds with no warning, every command it (and the README)
shows runs as written, and every reliability promise names a test that exists."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIXTURES, png_base64, png_bytes, write_lines, write_tsv
from test_hallusionbench import hallusionbench_files
from test_hallusionbench_vlmevalkit import vlmevalkit_files
from test_import_llava_bench import llava_bench_files
from test_import_llava_bench_tools import llava_bench_tool_files
from test_import_lmms_eval import (
    MMMU_DOCS,
    mmbench_line,
    mmmu_line,
    mmvet_line,
    model_vqa,
    samples_file,
)
from test_import_mathvista_lmms_eval import mathvista_lines
from test_import_mathvista_vlmevalkit import workbook as mathvista_workbook
from test_import_mme import mme_results
from test_import_mme_tools import lmms_eval_samples, vlmevalkit_workbook
from test_import_mmmu_pro_lmms_eval import mmmu_pro_lines
from test_import_mmmu_pro_vlmevalkit import workbook as mmmu_pro_workbook
from test_import_mmmu_vlmevalkit import workbook as mmmu_workbook
from test_import_mmstar import mmstar_files
from test_import_ocrbench import ocrbench_results
from test_import_ocrbench_tools import lmms_eval_samples as ocrbench_lmms_eval_samples
from test_import_ocrbench_tools import vlmevalkit_workbook as ocrbench_workbook
from test_import_ocrbench_v2 import ocrbench_v2_results
from test_import_ocrbench_v2_lmms_eval import lmms_eval_v2_samples
from test_import_ocrbench_v2_vlmevalkit import workbook as ocrbench_v2_workbook
from test_import_vlmevalkit import (
    mmbench_predictions,
    mmbench_result,
    mmvet_judge_workbook,
    write_records,
)
from test_import_vlmevalkit_run import new_run as vlmevalkit_run
from test_open_terminal import run_in_terminal
from textual.binding import Binding
from typer.testing import CliRunner

from bench.fake_batch import FakeBatchAPI
from lmmreview.tui.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
SAMPLES = ROOT / "sample_data"
INSPECT_LOG = ROOT / "tests" / "data" / "inspect" / "tiny.eval"  # inspect_ai 0.3.285 wrote it

# -- the reliability promises ---------------------------------------------------------------

# A row of the table: | promise | `tests/test_x.py::test_name` ... |
_NODE = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _reliability_rows() -> list[str]:
    page = (DOCS / "reliability.md").read_text(encoding="utf-8")
    return [line for line in page.splitlines() if line.startswith("| ") and "---" not in line]


def test_every_reliability_promise_is_backed_by_a_named_test_that_exists() -> None:
    rows = _reliability_rows()[1:]  # the first row is the header
    assert len(rows) >= 20
    for row in rows:
        nodes = _NODE.findall(row)
        assert nodes, f"a promise without a test: {row}"
        for path, name in nodes:
            source = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^(async )?def {name}\(", source, re.MULTILINE), f"{path}::{name}"


def test_every_import_command_has_an_overview_row_and_an_example() -> None:
    """Each `lmmreview import NAME` the installed benchmarks declare appears in the
    overview of import formats and in at least one example command of the docs."""
    from lmmreview.engine.registry import benchmarks

    overview = (DOCS / "import.md").read_text(encoding="utf-8")
    overview = overview.split("## Import formats", 1)[1].split("\n## ", 1)[0]
    shown = "\n".join(block.text for block in _blocks())
    commands = [c for b in benchmarks().values() for c in b.importers()]
    assert len(commands) >= 12
    for command in commands:
        assert f"| `{command}` |" in overview, command
        assert re.search(rf"^lmmreview import {re.escape(command)} ", shown, re.MULTILINE), command


# -- the README and the site ----------------------------------------------------------------


def test_the_readme_is_short_and_links_to_pages_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    links = re.findall(r"\]\((docs/[\w-]+\.md)(?:#[\w-]+)?\)", readme)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link


def test_the_site_builds_strictly_with_no_warning(tmp_path: Path) -> None:
    """`mkdocs build --strict` fails on a broken link, a missing anchor or page, and on any
    warning; the hook writes the command-line reference from the commands themselves."""
    pytest.importorskip("mkdocs", reason="mkdocs is in the `test` extra; install it to build")
    site = tmp_path / "site"
    quiet = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about its future
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=quiet, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    warnings = [line for line in build.stderr.splitlines() if line.startswith("WARNING")]
    assert not warnings, build.stderr
    reference = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("lmmreview import mmvet", "lmmreview judge", "lmmreview export"):
        assert f"<code>{command}</code>" in reference, command
    assert "--unscored-as-zero" in reference


# -- every command shown runs ---------------------------------------------------------------

# Before a block, a mark starts the page's examples afresh from there: in a new folder,
# with the demo database as results.db (and ana.db, ben.db), or with no database. Without
# one, a block goes on from the page's block before it, as a reader following the page.
MARKS = {"<!-- examples: demo -->": "demo", "<!-- examples: new -->": "new"}
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# Servers an example names: the test's fake judge (with its Batch API) plays each.
EXAMPLE_SERVERS = ("http://localhost:8000/v1", "http://127.0.0.1:8001/v1")
# Shell lines an example shows for the reader's set-up, which the test plays itself.
SET_UP = ("export ", "python -m bench.fake_batch ")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page, where it is, and how it starts (a mark, or "")."""

    page: Path
    line: int
    language: str
    text: str
    start: str

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def commands(self) -> list[str]:
        """Its lines, continuations joined, comments and blank lines dropped."""
        joined = self.text.replace("\\\n", " ")
        return [shlex.join(shlex.split(line, comments=True)) for line in joined.splitlines()]


def _blocks() -> Iterator[Block]:
    """Every fenced block of the README and the docs pages, in page order."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n")
            start = next((MARKS[m] for m in MARKS if before.endswith(m)), "")
            line = text.count("\n", 0, match.start()) + 1
            yield Block(page, line, match.group(1), match.group(2), start)


def _examples() -> list[Block]:
    return [b for b in _blocks() if b.language == "sh"]


def _pages_with_examples() -> list[Path]:
    return sorted({b.page for b in _examples()}, key=PAGES.index)


def test_every_command_shown_is_in_a_block_the_tests_run() -> None:
    """A `lmmreview` line outside an `sh` block would be shown and never run."""
    for block in _blocks():
        if block.language != "sh":
            shown = [line for line in block.text.splitlines() if line.startswith("lmmreview ")]
            assert not shown, f"{block.id}: {shown} (make the block `sh`, so a test runs it)"
    assert len(_examples()) >= 15


def _workspace(folder: Path, demo: Path | None) -> None:
    """The files the examples name: the sample data, the real MM-Vet release, small files
    shaped as VLMEvalKit, lmms-eval and LLaVA write them, and the demo database if asked."""
    for name in ("mmvet", "mmvet-v2", "mmbench", "mmmu", "mmmu-pro", "mathvista", "generic"):
        (folder / name).symlink_to(SAMPLES / name)
    (folder / "mm-vet").symlink_to(FIXTURES / "mmvet-real")
    (folder / "mathvista-claude").symlink_to(FIXTURES / "mathvista")
    (folder / "llava-v1.5-7b").symlink_to(FIXTURES / "mmvet-real" / "llava-v1.5-7b")
    _vlmevalkit_files(folder / "vlmevalkit")
    mmmu_pro_workbook(folder / "vlmevalkit", "llava_MMMU_Pro_10c_gpt-4o-mini_result.xlsx", True)
    mmmu_workbook(folder / "vlmevalkit", "llava_MMMU_DEV_VAL_gpt-4o-mini_result.xlsx", True)
    mathvista_workbook(folder / "vlmevalkit")
    _lmms_eval_and_llava_files(folder)
    _jsonl_example(folder)
    _mmmu_pro_outputs(folder / "output")
    hallusionbench_files(folder, "llava")
    mme_results(folder / "Your_Results")
    lmms_eval_samples(folder)
    for auxmatch in (False, True):
        vlmevalkit_workbook(folder / "vlmevalkit", auxmatch)
    (folder / "MME_Benchmark_release_version").mkdir()
    vlmevalkit_files(folder / "vlmevalkit", "llava")
    ocrbench_results(folder / "llava_ocrbench.json")
    ocrbench_lmms_eval_samples(folder)
    ocrbench_workbook(folder / "vlmevalkit")
    (folder / "OCRBench_Images").mkdir()
    ocrbench_v2_results(folder / "internvl_ocrbench_v2.json")
    ocrbench_v2_workbook(folder / "vlmevalkit", "llava")
    lmms_eval_v2_samples(folder)
    mmstar_files(folder)
    llava_bench_files(folder)
    llava_bench_tool_files(folder)
    vlmevalkit_run(folder / "outputs")
    (folder / "logs").mkdir(exist_ok=True)  # an Inspect log (tests/data/inspect/write_log.py)
    shutil.copyfile(INSPECT_LOG, folder / "logs" / "tiny.eval")
    if demo is not None:
        for name in ("results.db", "ana.db", "ben.db"):
            shutil.copyfile(demo, folder / name)


def _vlmevalkit_files(folder: Path) -> None:
    """VLMEvalKit's MMBench prediction and result workbooks, MM-Vet judge workbook, and an
    MM-Vet prediction file with its MMVet.tsv (the tests' own, named after a model llava)."""
    folder.mkdir()
    for made in (mmbench_predictions(folder), mmbench_result(folder), mmvet_judge_workbook(folder)):
        made.rename(made.with_name(made.name.replace("tiny-llava", "llava")))
    questions = [[0, png_base64("red"), "What is x?", "-1<AND>-5", "ocr,math"],
                 [1, png_base64("green"), "Which colour?", "green", "rec"]]  # fmt: skip
    write_tsv(folder / "MMVet.tsv", ["index", "image", "question", "answer", "category"], questions)
    write_records(folder / "llava_MMVet.json", ["index", "prediction"], [[0, "-1"], [1, "green"]])


def _lmms_eval_and_llava_files(folder: Path) -> None:
    """lmms-eval's samples files (MM-Vet, MMBench, MMMU-Pro, MathVista in v0.3, MMMU in v0.4 with its
    questions) and LLaVA's model_vqa answers to MM-Vet and to the sample MMBench."""
    samples_file(folder, "mmvet", [mmvet_line(i, "v0.3") for i in range(3)])
    lines = [mmbench_line(i, "v0.3", answer) for i, answer in enumerate("AB")]
    samples_file(folder, "mmbench_en_dev", lines)
    samples_file(folder, "mmmu_val", [mmmu_line(i, "v0.4") for i in range(3)])
    samples_file(folder, "mmmu_pro_standard", mmmu_pro_lines("mmmu_pro_standard", "v0.3"))
    samples_file(folder, "mathvista_testmini", mathvista_lines("v0.3"))
    write_lines(folder / "mmmu_validation.jsonl", MMMU_DOCS)
    model_vqa(folder, "llava-mmvet-answers.jsonl", {0: "x = -1", 1: "green", "v1_2": "4"})
    model_vqa(folder, "llava-mmbench-answers.jsonl", {0: "A", 1000000: "B"})


def _jsonl_example(folder: Path) -> None:
    """The JSONL example of the formats page, as the file its command imports."""
    formats = (DOCS / "formats.md").read_text(encoding="utf-8")
    [jsonl] = [m.group(2) for m in _FENCE.finditer(formats) if m.group(1) == "jsonl"]
    (folder / "my-bench.jsonl").write_text(jsonl, encoding="utf-8")
    (folder / "img").mkdir()
    (folder / "img" / "q1.png").write_bytes(png_bytes())


def _mmmu_pro_outputs(folder: Path) -> None:
    """Two MMMU-Pro output files, as the official inference scripts name and write them."""
    line = {"id": "test_Math_1", "question": "<image 1> Which?", "options": "['1', '2', '3']",
            "explanation": "?", "img_type": "['Diagrams']", "answer": "B",
            "topic_difficulty": "Easy", "subject": "Math"}  # fmt: skip
    for name, response in (("standard(10 options)_cot", "Answer: B"), ("vision_cot", "(A)")):
        write_lines(folder / f"gpt-4o_{name}.jsonl", [{**line, "response": response}])


def _run(command: str, base_url: str) -> tuple[int, str]:
    """Run one example line as the shell would: its exit code and what it said."""
    for server in EXAMPLE_SERVERS:
        command = command.replace(server, base_url)
    words = shlex.split(command)[1:]
    out = None
    if ">" in words:
        words, out = words[: words.index(">")], words[words.index(">") + 1]
    if words[0] in ("open", "demo"):  # a screen: opened in a terminal, then quit
        return run_in_terminal(words, keys=b"q")
    result = CliRunner().invoke(app, words)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    if out is not None:
        Path(out).write_text(result.stdout, encoding="utf-8")
    return result.exit_code, result.stderr


@pytest.mark.parametrize("page", _pages_with_examples(), ids=lambda p: p.name)
def test_every_command_shown_runs_as_written(
    page: Path, demo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's example blocks in order, each from where its mark says (or on from the
    block before): every `lmmreview` line ends with exit code 0."""
    real = ("mm-vet/", "llava-v1.5-7b/", "mathvista-claude/")  # real files, beside the checkout
    if not (FIXTURES / "mmvet-real").exists() and any(r in page.read_text() for r in real):
        pytest.skip(f"{FIXTURES / 'mmvet-real'} is absent (it ships beside the repository)")
    for name in [n for n in os.environ if n.startswith("OPENAI_")]:
        monkeypatch.delenv(name)
    blocks = [b for b in _examples() if b.page == page]
    with FakeBatchAPI(delay=0) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        for number, block in enumerate(blocks):
            if number == 0 or block.start:
                folder = tmp_path / str(number)
                folder.mkdir()
                _workspace(folder, demo_template if block.start == "demo" else None)
                monkeypatch.chdir(folder)
            _run_block(block, server.base_url, monkeypatch)


def _run_block(block: Block, base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for command in block.commands():
        if command.startswith("export "):
            name, value = command.removeprefix("export ").split("=", 1)
            monkeypatch.setenv(name, value)
        elif command.startswith("lmmreview "):
            code, said = _run(command, base_url)
            assert code == 0, f"{block.id}: {command}\n{said}"
        else:
            assert command.startswith(SET_UP) or not command, f"{block.id}: {command}"


def test_the_docs_name_the_key_that_shows_the_tables() -> None:
    """Where the docs name the tables' key ("the screen's tables, `K`"; "`report`, the
    screen's `K`"), it is the tables binding's."""
    from lmmreview.tui.review_keys import review_keys

    (tables,) = [b for b in review_keys() if isinstance(b, Binding) and b.id == "breakdown"]
    named = [
        (page.name, key)
        for page in DOCS.glob("*.md")
        for key in re.findall(
            r"(?:the screen's tables, |`report`, the screen's )`(\w)`", page.read_text("utf-8")
        )
    ]
    assert named
    assert all(key == tables.key for _, key in named), named
