"""Benchmarks as plug-ins: a third-party package (tests/plugin_package/yesno) built and
installed on the fly, found through its entry point by the real `lmmreview` command, and
broken plug-ins (tests/plugin_package/broken) that must not stop lmmreview."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tui_harness import drive, until

from lmmreview.engine import registry
from lmmreview.engine.benchmark import Benchmark, Tables
from lmmreview.engine.guarded import GuardedBenchmark, PluginFailure
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.plugin_watch import screen_on_terminal, watched
from lmmreview.tui.screens import BreakdownScreen

PACKAGES = Path(__file__).parent / "plugin_package"
LMMREVIEW = Path(sys.executable).with_name("lmmreview")  # the script pip installed

QUESTIONS = """id,question,answer,topic
q1,Is the sky blue?,yes,colour
q2,Is grass red?,no,colour
q3,Is 2+2 five?,no,math
q4,Is 3 odd?,yes,math
q5,Is 1 prime?,no,math
"""
# q1, q3, q4 right; q2 wrong ("Yes." against "no"); q5 no yes/no word: left unscored.
ANSWERS = """id,prediction
q1,"Yes, it is."
q2,Yes.
q3,"No, it is four."
q4,yes
q5,Maybe
"""

# The shipped benchmarks, in the registry's order (no plug-in is installed where tests run).
BUILTIN_NAMES = list(registry.benchmarks())


def install(package: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package of tests/plugin_package built and installed into a folder of its own, as
    pip puts it into site-packages (offline: this environment's setuptools builds it)."""
    work = tmp_path_factory.mktemp(package)
    source = shutil.copytree(PACKAGES / package, work / "source")  # the build writes beside it
    site = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--target", str(site), str(source)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return site


@pytest.fixture(scope="module")
def yesno_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install("yesno", tmp_path_factory)


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install("broken", tmp_path_factory)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install("hostile", tmp_path_factory)


def environment(sites: tuple[Path, ...]) -> dict[str, str]:
    """This environment with only `sites` on PYTHONPATH (as a user's installed packages)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if sites:
        env["PYTHONPATH"] = os.pathsep.join(map(str, sites))
    return env


def lmmreview(
    *args: str | Path, sites: tuple[Path, ...], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """The `lmmreview` command, with only `sites` on PYTHONPATH; no stdin, so nothing
    waits for a terminal."""
    return subprocess.run(
        [LMMREVIEW, *map(str, args)],
        cwd=cwd,
        env=environment(sites),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def listing(*sites: Path, cwd: Path) -> dict[str, list]:
    """What `lmmreview benchmarks --json` says with `sites` on the path."""
    result = lmmreview("benchmarks", "--json", sites=sites, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def yesno_files(folder: Path) -> tuple[Path, Path]:
    """The questions and one model's answers, as the plug-in's importer reads them."""
    questions, answers = folder / "quiz.csv", folder / "answers.csv"
    questions.write_text(QUESTIONS, encoding="utf-8")
    answers.write_text(ANSWERS, encoding="utf-8")
    return questions, answers


def imported_and_scored(site: Path, folder: Path) -> Path:
    """A database holding the yesno dataset "quiz", with model m's answers scored."""
    db = folder / "quiz.db"
    questions, answers = yesno_files(folder)
    for args in (("import", "yesno", db, questions, "--answers", answers, "--model", "m"),
                 ("score", db)):  # fmt: skip
        result = lmmreview(*args, sites=(site,), cwd=folder)
        assert result.returncode == 0, result.stderr
    return db


def test_benchmarks_lists_an_installed_plugin_from_its_distribution(
    yesno_site: Path, tmp_path: Path
) -> None:
    document = listing(yesno_site, cwd=tmp_path)
    yesno = {"name": "yesno", "title": "Yes/No", "from": "lmmreview-yesno", "import": ["yesno"],
             "export": ["yesno-sheet"], "official_rules": False}  # fmt: skip
    assert yesno in (document["benchmarks"])
    assert document["problems"] == []


def test_a_plugin_imports_and_scores_a_dataset_by_its_own_rules(
    yesno_site: Path, tmp_path: Path
) -> None:
    def run(*args: str | Path) -> str:
        result = lmmreview(*args, sites=(yesno_site,), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert "CSV with the columns id, question, answer, topic." in run("import", "yesno", "--help")
    db = imported_and_scored(yesno_site, tmp_path)
    tables = {t["name"]: t for t in json.loads(run("export", db, "--format", "json"))["tables"]}
    assert list(tables) == ["quiz.overall", "quiz.topics"]
    (overall,) = tables["quiz.overall"]["rows"]
    assert overall["values"] == {"overall": 75.0}  # 3 of the 4 scored
    assert overall["unscored"] == {"overall": 1}
    (topics,) = tables["quiz.topics"]["rows"]
    assert topics["values"] == {"math": 100.0, "colour": 50.0}
    (dataset,) = json.loads(run("info", db, "--json"))["datasets"]
    assert (dataset["kind"], dataset["samples"]) == ("yesno", 5)
    assert [(m["answers"], m["judged"]) for m in dataset["models"]] == [(5, 4)]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name, kind FROM datasets").fetchall() == [("quiz", "yesno")]


def test_a_dataset_whose_plugin_is_not_installed_fails_in_one_line(
    yesno_site: Path, tmp_path: Path
) -> None:
    db = imported_and_scored(yesno_site, tmp_path)
    before = db.read_bytes()
    result = lmmreview("report", db, sites=(), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"error: {db}: dataset 'quiz': no benchmark 'yesno' is installed; "
        f"installed: {', '.join(BUILTIN_NAMES)}"
    ]
    assert db.read_bytes() == before


def test_plugins_that_cannot_load_are_left_out_with_one_warning_each(
    yesno_site: Path, broken_site: Path, tmp_path: Path
) -> None:
    result = lmmreview("benchmarks", sites=(broken_site, yesno_site), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()  # the header may wrap: the rows follow its "name" line
    rows = lines[[line.split()[:1] for line in lines].index(["name"]) + 1 :]
    listed = [line.split()[0] for line in rows if line[:2].strip()]
    assert listed == [*BUILTIN_NAMES, "yesno"]
    warnings = result.stderr.splitlines()
    assert len(warnings) == 4  # one per broken entry point
    assert all(w.startswith("warning: ") and "(lmmreview-broken)" in w for w in warnings)
    assert any("crash (" in w and "the plug-in's own bug" in w for w in warnings)
    assert any("notabench (" in w and "is not a lmmreview Benchmark" in w for w in warnings)


def test_a_plugin_claiming_a_builtin_name_is_left_out_and_the_builtin_kept(
    broken_site: Path, tmp_path: Path
) -> None:
    document = listing(broken_site, cwd=tmp_path)
    (mmvet,) = [b for b in document["benchmarks"] if b["name"] == "mmvet"]
    assert (mmvet["title"], mmvet["from"]) == ("MM-Vet", "lmmreview")
    assert (
        "impostor (lmmreview-broken): the name 'mmvet' is taken by lmmreview; left out"
        in document["problems"]
    )


def test_a_plugin_cannot_take_over_a_builtin_import_command(
    broken_site: Path, tmp_path: Path
) -> None:
    """The plug-in named "jsonl" is left out: `lmmreview import jsonl` stays the generic
    format's, and imports."""
    lines = tmp_path / "demo.jsonl"
    lines.write_text('{"id": "a", "question": "2+2?", "answer": "4", "prediction": "4"}\n')
    db = tmp_path / "generic.db"
    result = lmmreview("import", "jsonl", db, lines, "--model", "m", sites=(broken_site,), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name, kind FROM datasets").fetchall() == [("demo", "generic")]
    assert (
        "hijack (lmmreview-broken): the name 'jsonl' is taken by lmmreview; left out"
        in listing(broken_site, cwd=tmp_path)["problems"]
    )


def test_commands_that_need_no_plugin_run_none(hostile_site: Path, tmp_path: Path) -> None:
    """With plug-ins that raise KeyboardInterrupt, print escapes or hang at import
    installed, commands on lmmreview's own benchmarks never load them: no warning."""
    lines = tmp_path / "demo.jsonl"
    lines.write_text('{"id": "a", "question": "2+2?", "answer": "4", "prediction": "4"}\n')
    db = tmp_path / "generic.db"
    runs = {
        "--version": ("--version",),
        "--help": ("--help",),
        "judge --help": ("judge", "--help"),
        "import": ("import", "jsonl", db, lines, "--model", "m"),
        "info": ("info", db),
        "report": ("report", db),
        "export": ("export", db, "--format", "json"),
    }
    for name, args in runs.items():
        result = lmmreview(*args, sites=(hostile_site,), cwd=tmp_path)
        assert (name, result.returncode, result.stderr) == (name, 0, ""), result.stderr
    assert lmmreview("--version", sites=(hostile_site,), cwd=tmp_path).stdout.startswith(
        "lmmreview "
    )


def test_plugins_that_raise_print_or_hang_are_left_out_with_one_warning_each(
    hostile_site: Path, yesno_site: Path, tmp_path: Path
) -> None:
    started = time.monotonic()
    result = lmmreview("benchmarks", "--json", sites=(hostile_site, yesno_site), cwd=tmp_path)
    assert time.monotonic() - started < 60  # the hanging one is given LOAD_SECONDS
    assert result.returncode == 0, result.stderr
    listed = [b["name"] for b in json.loads(result.stdout)["benchmarks"]]
    assert listed == [*BUILTIN_NAMES, *sorted(["noisy", "yesno"], key=listed.index)]
    warnings = result.stderr.splitlines()
    prefix = "warning: {} (lmmreview-hostile): cannot load "
    assert sorted(warnings) == sorted(
        [
            prefix.format("generator") + "hostile_bench.generator:BENCHMARK: GeneratorExit: stray",
            prefix.format("hang") + "hostile_bench.hang:BENCHMARK: took more than "
            f"{registry.LOAD_SECONDS:g} s to load; left out",
            prefix.format("importers") + "hostile_bench:BAD_IMPORTERS: ValueError: "
            "importers() of its own",
            prefix.format("interrupt") + "hostile_bench.interrupt:BENCHMARK: KeyboardInterrupt",
            prefix.format("nohelp") + "hostile_bench:NO_HELP: TypeError: "
            "importers() must map command names to Importers",
        ]
    )
    assert "\x1b" not in result.stdout + result.stderr
    assert "noisy" not in result.stderr


def test_a_plugin_imports_beside_plugins_that_cannot_load(
    hostile_site: Path, yesno_site: Path, tmp_path: Path
) -> None:
    questions, answers = yesno_files(tmp_path)
    db = tmp_path / "quiz.db"
    args = ("import", "yesno", db, questions, "--answers", answers, "--model", "m")
    result = lmmreview(*args, sites=(hostile_site, yesno_site), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(result.stderr.splitlines()) == 5  # one warning per plug-in left out
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM answers").fetchone() == (5,)
    listed = lmmreview("import", "--help", sites=(hostile_site, yesno_site), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "yesno" in listed.stdout and "nohelp" not in listed.stdout


def _interrupted_once(
    command: list[str | Path], env: dict[str, str], cwd: Path, reached: Callable[[], bool]
) -> tuple[int, str, str]:
    """Run COMMAND until `reached()` (or its end), then Ctrl-C it; (exit code, stdout,
    stderr). Its stderr goes to a file, which `reached` may read (tmp_path / "stderr")."""
    stderr = cwd / "stderr"
    with stderr.open("w") as errors:
        running = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=errors, text=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not reached() and running.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        running.send_signal(signal.SIGINT)
        stdout, _ = running.communicate(timeout=60)
    finally:
        running.kill()
    return running.returncode, stdout, stderr.read_text()


def _interrupted_once_marked(
    args: list[str | Path], env: dict[str, str], marker: Path, cwd: Path
) -> tuple[int, str, str]:
    """Run lmmreview ARGS until the plug-in code under test writes `marker`, then Ctrl-C
    it; (exit code, stdout, stderr)."""
    return _interrupted_once([LMMREVIEW, *args], env, cwd, marker.exists)


def test_ctrl_c_while_a_plugin_hangs_stops_the_command(hostile_site: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hanging"
    env = environment((hostile_site,)) | {"HOSTILE_HANG_MARKER": str(marker)}
    code, stdout, stderr = _interrupted_once_marked(["benchmarks"], env, marker, tmp_path)
    assert code == 130  # stopped as a Ctrl-C stops any command
    assert (stdout, "Traceback" in stderr) == ("", False)  # no listing, no traceback


@pytest.fixture
def yesno_in_process(yesno_site: Path) -> Iterator[None]:
    """The plug-in importable in this process and the registry made to look again; both
    restored afterwards, so later tests see only the built-ins."""
    sys.path.append(str(yesno_site))
    registry._plugins.cache_clear()
    registry.declared.cache_clear()
    try:
        yield
    finally:
        sys.path.remove(str(yesno_site))
        for name in [m for m in sys.modules if m.split(".")[0] == "yesno_bench"]:
            del sys.modules[name]
        registry._plugins.cache_clear()
    registry.declared.cache_clear()


def _quiz_tables(db: Path, **settings: object) -> dict[str, object]:
    """The yesno dataset "quiz" opened in the screen (with these settings): each table's
    first row by column, and the topic table's column titles, as the tables view (b) shows
    them."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        seen["tables"] = {
            t.name: {c.key: t.rows[0].cells[c.key].value for c in t.columns}
            for t in app.screen.tables
        }
        seen["topic columns"] = [
            str(c.label) for c in app.screen.query_one("#table-1", DataTable).columns.values()
        ]

    drive(db, steps, dataset="quiz", **settings)
    return seen


def test_the_screen_shows_a_plugin_datasets_tables(
    yesno_site: Path, yesno_in_process: None, tmp_path: Path
) -> None:
    db = imported_and_scored(yesno_site, tmp_path)
    seen = _quiz_tables(db)
    assert seen["tables"] == {
        "quiz.overall": {"overall": 75.0},
        "quiz.topics": {"math": 100.0, "colour": 50.0},
    }
    assert seen["topic columns"] == ["Model", "math", "colour"]


def test_a_plugin_brings_its_own_export_format_and_prompt_variant(
    yesno_site: Path, yesno_in_process: None, judge_env: str, fake_judge, tmp_path: Path
) -> None:
    """Issue 27's acceptance (a): the yesno plug-in declares an official format and a judge
    prompt variant, and nothing in lmmreview names them: `judge --prompt-variant` asks the
    plug-in's variant of the fake judge, `export --format` writes the plug-in's file by
    the judge chosen, and the screen shows that judge's tables."""

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return lmmreview(*args, sites=(yesno_site,), cwd=tmp_path)

    db = imported_and_scored(yesno_site, tmp_path)
    refused = run("judge", db, "--model", "judge-x", "--prompt-variant", "loose")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "error: plug-in lmmreview-yesno: Yes/No has no prompt variant 'loose': it has strict"
    ]
    assert fake_judge.requests == 0
    judged = run("judge", db, "--model", "judge-x", "--prompt-variant", "strict")
    assert judged.returncode == 0, judged.stderr
    asked = list(fake_judge.prompts)
    assert len(asked) == 5 and all(prompt.startswith("Strictly: ") for prompt in asked)

    assert "yesno-sheet         Yes/No: one CSV of id, model and score per dataset" in (
        run("export", "--help").stdout
    )
    out = tmp_path / "sheets"
    written = run("export", db, "--format", "yesno-sheet", "--judge", "judge-x", "--out", out)
    assert written.returncode == 0, written.stderr
    rows = (out / "quiz-sheet.csv").read_text(encoding="utf-8").splitlines()
    assert rows == ["id,model,score", *(f"q{n},m,0.5" for n in range(1, 6))]
    by_rules = run("export", db, "--format", "yesno-sheet", "--judge", "offline rules",
                   "--out", tmp_path / "rules")  # fmt: skip
    assert by_rules.returncode == 0, by_rules.stderr
    assert (tmp_path / "rules" / "quiz-sheet.csv").read_text(encoding="utf-8").splitlines()[1:] == [
        "q1,m,1.0",
        "q2,m,0.0",
        "q3,m,1.0",
        "q4,m,1.0",
        "q5,m,",
    ]

    seen = _quiz_tables(db, shown_judge="judge-x")
    assert seen["tables"] == {
        "quiz.overall": {"overall": 50.0},
        "quiz.topics": {"math": 50.0, "colour": 50.0},
    }


@pytest.fixture(scope="module")
def faulty_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install("faulty", tmp_path_factory)


def faulty(
    site: Path, folder: Path, fault: str, *args: str | Path
) -> subprocess.CompletedProcess[str]:
    """`lmmreview ARGS` with the faulty plug-in failing as `fault` says."""
    return subprocess.run(
        [LMMREVIEW, *map(str, args)],
        cwd=folder,
        env=environment((site,)) | {"FAULTY": fault, "OPENAI_API_KEY": "sk-faulty-SECRET-42"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def faulty_db(site: Path, folder: Path) -> Path:
    """A database holding the faulty plug-in's dataset "quiz" and model m's answers, unscored."""
    questions = folder / "quiz.json"
    questions.write_text(
        json.dumps([["a", "Sky blue?", "yes", "yes"], ["b", "Grass red?", "no", "yes"]])
    )
    db = folder / "quiz.db"
    result = faulty(site, folder, "", "import", "faulty", db, questions)
    assert result.returncode == 0, result.stderr
    return db


@pytest.mark.parametrize(
    ("fault", "command", "failure"),
    [
        ("tables-exit", "report", "faulty.tables() (dataset 'quiz') raised SystemExit: 0"),
        ("tables-interrupt", "report", "faulty.tables() (dataset 'quiz') raised KeyboardInterrupt"),
        ("tables-key", "report", "faulty.tables() (dataset 'quiz') raised RuntimeError: cannot reach [redacted]"),
        ("tables-lost", "report", "faulty.tables() (dataset 'quiz') counts sample 'a' in column "
         "'elsewhere' of table 'quiz.overall', which its tables lack"),
        ("tables-rule", "report", "faulty.tables() (dataset 'quiz') gives sample 'a' a unit of "
         "rule 'most', not one of ('all', 'none', 'mixed')"),
        ("offline-generator", "score", "faulty.offline() (dataset 'quiz', sample 'a') raised GeneratorExit"),
        ("reader-exit", "import", "reader faulty raised SystemExit: 3"),
        ("reader-list", "import", "reader faulty returned list, not an ImportBatch"),
        ("reader-kind", "import", "reader faulty sample 'a': question_type 'weird' "
         "is not a QuestionType"),
        ("reader-nan", "import", "reader faulty sample 'a': answer, hint and split "
         "must be text or None"),
    ],
)  # fmt: skip
def test_a_plugin_failing_as_it_runs_ends_the_command_in_one_line(
    faulty_site: Path, tmp_path: Path, fault: str, command: str, failure: str
) -> None:
    """Whatever a loaded plug-in's method raises (its own exit included) ends the command
    with exit code 1 and one line naming the plug-in, the method and the reason; the key
    its message quotes is redacted; the database is as it was."""
    db = faulty_db(faulty_site, tmp_path)
    before = db.read_bytes()
    args = (
        ("import", "faulty", db, tmp_path / "quiz.json") if command == "import" else (command, db)
    )
    result = faulty(faulty_site, tmp_path, fault, *args)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [f"error: plug-in lmmreview-faulty: {failure}"]
    assert db.read_bytes() == before


@pytest.mark.parametrize(
    ("fault", "failure"),
    [
        ("writer-escape", "writer faulty-sheet named a file '../escaped.txt': a file's name, "
         "with no folder, is needed"),
        ("writer-none", "writer faulty-sheet returned NoneType, not OfficialFiles"),
        ("writer-int", "writer faulty-sheet gave 'quiz.txt' a int, not text or a sheet"),
        ("writer-exit", "writer faulty-sheet raised SystemExit: 4"),
        ("writer-undeclared", "writer faulty-ghost raised UndeclaredFunction: lmmreview-faulty "
         "declares no 'faulty-ghost' under the entry-point group lmmreview.files"),
    ],
)  # fmt: skip
def test_a_plugin_writer_failing_ends_the_export_in_one_line_writing_nothing(
    faulty_site: Path, tmp_path: Path, fault: str, failure: str
) -> None:
    """A plug-in's official format: its writer found, run and checked under the guard; a
    file it names outside --out is refused, as a writer that fails or returns nonsense."""
    db = faulty_db(faulty_site, tmp_path)
    out = tmp_path / "out"
    args = ("export", db, "--format", "faulty-sheet", "--out", out)
    assert faulty(faulty_site, tmp_path, "", *args).returncode == 0
    assert (out / "quiz.txt").read_text(encoding="utf-8") == "faulty quiz\n"
    shutil.rmtree(out)
    result = faulty(faulty_site, tmp_path, fault, *args)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [f"error: plug-in lmmreview-faulty: {failure}"]
    assert not out.exists() and not (tmp_path / "escaped.txt").exists()


def test_a_name_two_plugins_declare_reaches_each_plugins_own_function(
    faulty_site: Path, yesno_site: Path, tmp_path: Path
) -> None:
    """faulty declares a file function under yesno's writer's name, and comes first on the
    path: yesno's format still writes with yesno's own writer."""
    db = imported_and_scored(yesno_site, tmp_path)
    out = tmp_path / "sheets"
    result = lmmreview("export", db, "--format", "yesno-sheet", "--out", out,
                       sites=(faulty_site, yesno_site), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["quiz-sheet.csv"]


def test_a_plugin_format_named_as_a_table_format_is_left_out(
    faulty_site: Path, tmp_path: Path
) -> None:
    result = faulty(faulty_site, tmp_path, "format-csv", "benchmarks", "--json")
    listed = json.loads(result.stdout)
    assert "faulty" not in [b["name"] for b in listed["benchmarks"]]
    assert (
        "faulty (lmmreview-faulty): the name 'export csv' is taken by lmmreview; left out"
        in (listed["problems"])
    )


def test_a_plugin_demo_that_cannot_be_found_is_left_out_of_the_demo_with_one_warning(
    faulty_site: Path, tmp_path: Path
) -> None:
    result = faulty(faulty_site, tmp_path, "demo-undeclared", "demo", tmp_path / "d.db",
                    "--no-open")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "warning: plug-in lmmreview-faulty: demo raised UndeclaredFunction: lmmreview-faulty "
        "declares no 'faulty-ghost-demo' under the entry-point group lmmreview.files; its "
        "demo is left out"
    ]


@pytest.mark.parametrize(
    ("fault", "returned"),
    [
        ("score-2", "returned the score 2.0; a score is a number from 0 to 1"),
        ("score-nan", "returned the score nan; a score is a number from 0 to 1"),
        ("choice-z", "returned the choice 'Z'; the question's letters are none: the question "
         "has no options"),
    ],
)  # fmt: skip
def test_a_plugin_judgment_lmmreview_cannot_store_is_refused_naming_the_sample(
    faulty_site: Path, tmp_path: Path, fault: str, returned: str
) -> None:
    db = faulty_db(faulty_site, tmp_path)
    before = db.read_bytes()
    result = faulty(faulty_site, tmp_path, fault, "score", db)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        f"error: plug-in lmmreview-faulty: faulty.offline() (dataset 'quiz', sample 'a') {returned}"
    ]
    assert db.read_bytes() == before


def test_a_thread_a_plugin_leaves_running_does_not_keep_a_command_from_ending(
    faulty_site: Path, tmp_path: Path
) -> None:
    """The plug-in's module starts a thread that never ends: the command still ends, with
    its exit code and all of its output."""
    for args, code in ((("benchmarks", "--json"), 0), (("report", tmp_path / "none.db"), 1)):
        result = faulty(faulty_site, tmp_path, "thread", *args)  # times out if it hangs
        assert result.returncode == code, result.stderr
    listed = json.loads(faulty(faulty_site, tmp_path, "thread", "benchmarks", "--json").stdout)
    assert [b["name"] for b in listed["benchmarks"]][-2:] == ["faulty", "loading"]


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        ("exit", "ended the process as it loaded; left out"),
        ("interpreter", f"took more than {registry.LOAD_SECONDS:g} s to load; left out"),
    ],
)
def test_a_plugin_that_ends_the_process_or_holds_the_interpreter_is_left_out(
    faulty_site: Path, tmp_path: Path, fault: str, why: str
) -> None:
    """os._exit() at import, or a C loop that never lets the time bound's thread run: the
    trial in a process of its own finds it, and the command lists the others."""
    result = faulty(faulty_site, tmp_path, fault, "benchmarks", "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert [b["name"] for b in listed["benchmarks"]] == [*BUILTIN_NAMES, "faulty"]
    problem = f"loading (lmmreview-faulty): cannot load faulty_bench.loading:BENCHMARK: {why}"
    assert listed["problems"] == [problem]
    assert result.stderr.splitlines() == [f"warning: {problem}"]


def test_the_users_ctrl_c_while_a_plugin_method_runs_stops_the_command_as_usual(
    faulty_site: Path, tmp_path: Path
) -> None:
    """The guard tells the user's Ctrl-C (exit code 130, no message) from a plug-in that
    raises KeyboardInterrupt itself (a failure in one line, above)."""
    db, marker = faulty_db(faulty_site, tmp_path), tmp_path / "hanging"
    env = environment((faulty_site,)) | {"FAULTY": "tables-hang", "FAULTY_MARKER": str(marker)}
    code, stdout, stderr = _interrupted_once_marked(["report", db], env, marker, tmp_path)
    assert (code, stdout, "plug-in" in stderr) == (130, "", False), stderr
    assert "Traceback" not in stderr


def test_a_plugin_method_that_does_not_return_is_told_in_one_line_until_ctrl_c(
    faulty_site: Path, tmp_path: Path
) -> None:
    """tables() hangs: after SLOW_SECONDS (lowered here) one line names the plug-in and
    the method, on the terminal's stderr though descriptor 2 points elsewhere meanwhile."""
    db = faulty_db(faulty_site, tmp_path)
    env = environment((faulty_site,)) | {"FAULTY": "tables-hang", "FAULTY_MARKER": str(tmp_path / "m")}  # fmt: skip
    lowered = (
        "import lmmreview.tui.plugin_watch as watch; watch.SLOW_SECONDS = 0.2; "
        "from lmmreview.tui.cli import main; main()"
    )
    told = "warning: plug-in lmmreview-faulty: faulty.tables() (dataset 'quiz') has not returned after 0.2 s; Ctrl-C stops lmmreview"  # fmt: skip
    errors = tmp_path / "stderr"
    command: list[str | Path] = [sys.executable, "-c", lowered, "report", db]
    code, stdout, stderr = _interrupted_once(command, env, tmp_path, lambda: told in errors.read_text())  # fmt: skip
    assert (code, stdout, stderr.splitlines()) == (130, "", [told])


@pytest.mark.parametrize(
    ("fault", "command", "told"),
    [
        ("write", "benchmarks", "loading (lmmreview-faulty): loading faulty_bench.loading:BENCHMARK "
         r"wrote to the terminal itself; not shown there: '\x1b]0;title\x07\x1b[2J written'"),
        ("reader-write", "import", "plug-in lmmreview-faulty: reader faulty "
         r"wrote to the terminal itself; not shown there: '\x1b]0;title\x07\x1b[2J key [redacted]'"),
    ],
)  # fmt: skip
def test_what_a_plugin_writes_to_the_terminal_itself_is_told_in_one_line_never_shown(
    faulty_site: Path, tmp_path: Path, fault: str, command: str, told: str
) -> None:
    """os.write to descriptors 1 and 2, as its module loads (in lmmreview's process, after
    the trial's) or as its reader runs: captured, and quoted in one warning line, the key
    redacted."""
    questions = tmp_path / "quiz.json"
    questions.write_text(json.dumps([["a", "Sky blue?", "yes", "yes"]]))
    args = ("import", "faulty", tmp_path / "quiz.db", questions) if command == "import" else (command,)  # fmt: skip
    result = faulty(faulty_site, tmp_path, fault, *args)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert result.stderr.splitlines() == [f"warning: {told}"]


def test_plugin_code_run_while_a_screen_draws_leaves_the_terminal_descriptors_alone() -> None:
    """Descriptor 2 is where Textual draws: captured on a command, not under a screen."""
    seen: list[int] = []
    terminal = os.fstat(2).st_ino
    with screen_on_terminal(), watched("plug-in x: tables()", True):
        seen.append(os.fstat(2).st_ino)
    with watched("plug-in x: tables()", True):
        seen.append(os.fstat(2).st_ino)
    assert (seen[0] == terminal, seen[1] == terminal, os.fstat(2).st_ino) == (True, False, terminal)


def test_a_plugin_judge_prompt_or_judgment_that_fails_ends_the_judge_in_one_line(
    faulty_site: Path, tmp_path: Path, fake_judge
) -> None:
    """Its prompt builder exits (a dry run), its reading of a real reply scores 5.0."""
    db = faulty_db(faulty_site, tmp_path)
    before = db.read_bytes()
    dry = faulty(faulty_site, tmp_path, "judge-ladder-exit", "judge", db, "--dry-run")
    assert (dry.returncode, dry.stdout) == (1, "")
    assert dry.stderr.splitlines() == [
        "error: plug-in lmmreview-faulty: faulty.judge_work().ladder() (answer 1) raised "
        "SystemExit: 0"
    ]
    assert db.read_bytes() == before
    judged = faulty(faulty_site, tmp_path, "judge-score-5", "judge", db,
                    "--base-url", fake_judge.base_url, "--concurrency", "1")  # fmt: skip
    assert judged.returncode == 1
    assert judged.stderr.splitlines()[-1] == (
        "error: plug-in lmmreview-faulty: faulty.judge_work().interpret() (answer 1) returned "
        "the score 5.0; a score is a number from 0 to 1"
    )
    with sqlite3.connect(db) as conn:  # a judge writes as it goes: no judgment here
        assert conn.execute("SELECT count(*) FROM judgments").fetchone() == (0,)


def test_what_a_plugin_prints_never_reaches_the_terminal(faulty_site: Path, tmp_path: Path) -> None:
    """Neither as its module loads (to sys.__stdout__, past a redirect) nor as its reader runs."""
    questions = tmp_path / "quiz.json"
    questions.write_text(json.dumps([["a", "Sky blue?", "yes", "yes"]]))
    for args in (("benchmarks",), ("import", "faulty", tmp_path / "quiz.db", questions)):
        result = faulty(faulty_site, tmp_path, "print", *args)
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout + result.stderr


class _Grouped(Benchmark):
    name, title = "grouped", "Grouped"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        return [], {}


@pytest.mark.parametrize("group_by", [("group", "order"), None])
def test_a_plugin_benchmark_may_count_groups_by_two_extra_fields(group_by) -> None:
    inner = type("Mine", (_Grouped,), {"group_by": group_by})()
    assert GuardedBenchmark(inner, "p", {}).group_by == group_by


@pytest.mark.parametrize("group_by", [("group",), ("a b", "order"), "group", (1, 2)])
def test_a_plugin_benchmark_with_other_group_fields_is_refused(group_by) -> None:
    """The fields go into SQL text (db.sample_columns): names only."""
    inner = type("Mine", (_Grouped,), {"group_by": group_by})()
    with pytest.raises(TypeError, match="group_by must be None or two extra fields' names"):
        GuardedBenchmark(inner, "p", {})


def test_a_plugin_benchmark_declares_whether_its_offline_rules_are_official() -> None:
    """Read once through the guard (a dataset records it), refused unless True or False;
    what it lacks to score offline is asked through the guard and checked to be text."""
    official = type("Mine", (_Grouped,), {"official_rules": True})()
    assert GuardedBenchmark(official, "p", {}).official_rules is True
    assert GuardedBenchmark(_Grouped(), "p", {}).official_rules is False
    with pytest.raises(TypeError, match="official_rules must be True or False"):
        GuardedBenchmark(type("Mine", (_Grouped,), {"official_rules": "yes"})(), "p", {})
    lacking = type("Mine", (_Grouped,), {"offline_lacks": lambda self, sample: 42})()
    sample = Sample("k", "Q?", QuestionType.OPEN, "a")
    with pytest.raises(PluginFailure, match=r"offline_lacks\(\) .*returned int"):
        GuardedBenchmark(lacking, "p", {}).offline_lacks(sample)
    applies = type("Mine", (_Grouped,), {"offline_applies": lambda self, s, a: "yes"})()
    with pytest.raises(PluginFailure, match=r"offline_applies\(\) .*returned str"):
        GuardedBenchmark(applies, "p", {}).offline_applies(sample, "a")


@pytest.mark.parametrize(
    ("stale", "why"),
    [
        ("moved", "lmmreview.benchmarks mmvet = lmmreview.engine.benchmarks.mmvet:MMVET: "),
        ("none", "it declares no lmmreview.benchmarks"),
    ],
)
def test_an_install_older_than_the_code_is_told_in_one_line_with_the_fix(
    tmp_path: Path, stale: str, why: str
) -> None:
    """An editable install made before the entry points changed (here: metadata found first
    on the path, naming a module the code has moved, or no benchmark at all)."""
    from importlib.metadata import distribution

    declared = distribution("lmmreview").read_text("entry_points.txt") or ""
    if stale == "moved":
        declared = declared.replace("mmvet.benchmark:MMVET", "mmvet:MMVET")
    else:
        declared = declared.split("[lmmreview.benchmarks]")[0]
    info = tmp_path / "site" / "lmmreview-0.0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lmmreview\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text(declared)
    result = lmmreview("benchmarks", sites=(tmp_path / "site",), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: lmmreview's installed metadata is older than its code ({why}")
    assert line.endswith("install it again (pip install -e . in a source checkout, else pip "
                         "install --upgrade lmmreview)")  # fmt: skip


def test_a_plugin_says_through_the_guard_whether_its_rule_draws_at_random() -> None:
    """lmmreview reconcile asks it of imported choices: a bool, else the plug-in is named."""
    sample = Sample("k", "Q?", QuestionType.CHOICE, "A", options={"A": "a", "B": "b"})
    assert GuardedBenchmark(_Grouped(), "p", {}).draws_at_random(sample, "?") is False
    drawing = type("Mine", (_Grouped,), {"draws_at_random": lambda self, s, a: a == "?"})()
    assert GuardedBenchmark(drawing, "p", {}).draws_at_random(sample, "?") is True
    wrong = type("Mine", (_Grouped,), {"draws_at_random": lambda self, s, a: "yes"})()
    with pytest.raises(PluginFailure, match=r"draws_at_random\(\) .*returned str"):
        GuardedBenchmark(wrong, "p", {}).draws_at_random(sample, "?")
