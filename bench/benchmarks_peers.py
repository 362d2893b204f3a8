"""Peers in the same run (issue 26): the tools a user would use instead, on the same inputs.

- visidata (`vd`, when installed) opening the generated generic JSONL of the launch
  benchmarks in a pty: its first data row drawn, all rows loaded, peak RSS.
- The official MMMU, MMMU-Pro and MathVista scorers, per answer, beside lmmreview's own
  rules on the same answers (the shared fixtures). Their code is read from where the user
  keeps it ($LMMREVIEW_PEER_MMMU, $LMMREVIEW_PEER_MMMU_PRO, $LMMREVIEW_PEER_MATHVISTA: the
  file, or the repository it is in); it is never part of this project.

All are figures with no target; each is skipped, saying why, when its peer is absent.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.benchmarks_import import run_measured
from bench.benchmarks_launch import ANSWERS, FIXTURES, input_files, user_env
from bench.benchmarks_scoring import mmmu_cases
from bench.harness import Context, Measurement, Skipped, benchmark, timed
from bench.terminal import Drawn, in_terminal
from lmmreview.engine.benchmarks.mathvista import rules as mathvista
from lmmreview.engine.benchmarks.mmmu.rules import MmmuVerdict, judge
from lmmreview.engine.benchmarks.mmmu_pro import rules as mmmu_pro
from lmmreview.engine.types import QuestionType, Sample

GENERIC = f"generic {ANSWERS:,} answers"
# Where each official scorer is, inside its repository.
MMMU_SCORER = ("MMMU", "LMMREVIEW_PEER_MMMU", ("eval/eval_utils.py", "mmmu/utils/eval_utils.py"))
MMMU_PRO_SCORER = ("MMMU-Pro", "LMMREVIEW_PEER_MMMU_PRO", ("mmmu-pro/evaluate.py",))
MATHVISTA_SCORER = (
    "MathVista",
    "LMMREVIEW_PEER_MATHVISTA",
    ("evaluation/calculate_score.py",),
)


def _visidata_command() -> str:
    """`vd` on PATH, or beside this Python (a virtual environment's scripts)."""
    found = shutil.which("vd") or shutil.which("vd", path=str(Path(sys.executable).parent))
    if found is None:
        raise Skipped("visidata not installed: pip install visidata")
    return found


def _visidata(ctx: Context) -> Drawn:
    """`vd generic.jsonl` in a pty, once per repetition: the first sample's row drawn."""
    cache = ctx.fixture(f"peer visidata {ctx.repetition}", lambda _: {})
    if "drawn" not in cache:
        vd = _visidata_command()
        [[_, jsonl, *_]] = input_files(ctx, "generic", ANSWERS)
        markers = {"row": r"q0 *│ *What does figure 0"}
        env = user_env(ctx.scratch / "home")
        cache["drawn"] = in_terminal(
            [vd, jsonl], markers, env=env, cwd=ctx.scratch, quit_keys=b"gq"
        )
    drawn = cache["drawn"]
    assert isinstance(drawn, Drawn)
    return drawn


def _visidata_batch(ctx: Context) -> Measurement:
    """`vd -b` reads the whole file, then writes it nowhere: the screen's row count is
    redrawn digit by digit (curses), so the end of loading is timed in batch mode."""
    [[_, jsonl, *_]] = input_files(ctx, "generic", ANSWERS)
    command = [_visidata_command(), "-b", jsonl, "-o", os.devnull, "--save-filetype", "tsv"]
    done = run_measured(command, ctx.scratch, user_env(ctx.scratch / "home"))
    if done.returncode != 0:
        raise RuntimeError(f"vd -b: exit code {done.returncode}: {done.stderr[-300:]}")
    return Measurement(done.seconds, {"peak_rss_bytes": done.peak_rss_bytes or 0})


SAID = "`vd` on the launch benchmarks' generic JSONL"
benchmark(
    name=f"launch peer visidata, {GENERIC}: first screen",
    unit="s",
    target=None,
    description=f"{SAID}, in a pty, from launch: the first sample's row drawn",
)(lambda ctx: Measurement(_visidata(ctx).seconds["row"]))
benchmark(
    name=f"launch peer visidata, {GENERIC}: peak memory",
    unit="MB",
    target=None,
    description=f"{SAID}, in a pty: peak RSS once the first screen is drawn",
)(lambda ctx: Measurement(_visidata(ctx).peak_rss_bytes / 1e6))
benchmark(
    name=f"launch peer visidata, {GENERIC}: all rows loaded",
    unit="s",
    target=None,
    description=f"{SAID}: `vd -b FILE -o /dev/null`, from launch to exit (every row read "
    "and written nowhere); extra: its peak RSS",
)(_visidata_batch)


def _official(ctx: Context, scorer: tuple[str, str, tuple[str, ...]]) -> ModuleType:
    """The official scorer's module, loaded (once per run) from the path its variable
    gives: the file itself, or the repository holding it."""
    name, variable, inside = scorer
    value = os.environ.get(variable, "").strip()
    if not value:
        raise Skipped(f"set {variable} to the official {name} scorer (or its repository)")
    given = Path(value).expanduser()
    candidates = [given] if given.is_file() else [given / part for part in inside]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise Skipped(f"{variable}: no {' or '.join(map(str, candidates))}")
    return ctx.fixture(f"peer scorer {path}", lambda _: _load(path))


def _load(path: Path) -> ModuleType:
    """The module at `path`, its imports of modules beside it (its folder, and the folder
    above, as its authors run it) found there."""
    spec = importlib.util.spec_from_file_location(f"peer_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise Skipped(f"{path} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    beside = [str(path.parent), str(path.parent.parent)]
    sys.path[:0] = beside
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # e.g. a package it imports is not installed here
        raise Skipped(f"{path} does not load here: {type(exc).__name__}: {exc}") from exc
    finally:
        del sys.path[: len(beside)]
    return module


def _per_answer(cases: list[Any], score: Callable[[Any], object]) -> float:
    """µs per case of `score` over every case."""
    with timed() as clock:
        for case in cases:
            score(case)
    return clock.seconds / len(cases) * 1e6


def _ours(
    cases: list[tuple[Sample, str]], rules: Callable[[Sample, str], MmmuVerdict] = judge
) -> float:
    return _per_answer(cases, lambda case: rules(*case))


@benchmark(
    name="launch peer MMMU official scorer, 900 fixture answers, per answer",
    unit="us",
    target=None,
)
def mmmu_scorer(ctx: Context) -> Measurement:
    """The official MMMU eval_utils' parse and verdict of LLaVA-1.5-13B's 900 answers (as
    `main_parse_and_eval.py` calls them); extra: lmmreview's rules on the same answers."""
    official = _official(ctx, MMMU_SCORER)
    cases = ctx.fixture("mmmu-fixture-samples", mmmu_cases)

    def theirs(case: tuple[Sample, str]) -> object:
        sample, response = case
        golds = sample.golds
        gold = golds[0] if len(golds) == 1 else golds
        if sample.question_type is QuestionType.CHOICE:
            choices = list(sample.options)
            parsed = official.parse_multi_choice_response(response, choices, sample.options)
            return official.eval_multi_choice(gold, parsed)
        return official.eval_open(gold, official.parse_open_response(response))

    return Measurement(_per_answer(cases, theirs), {"lmmreview_us": _ours(cases)})


MMMU_PRO = FIXTURES / "mmmu-pro" / "gpt-4o_standard(10 options)_cot.jsonl"


def _mmmu_pro_records(_: Path) -> list[dict[str, Any]]:
    if not MMMU_PRO.is_file():
        raise Skipped(f"the MMMU-Pro fixture is absent ({MMMU_PRO})")
    lines = MMMU_PRO.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@benchmark(
    name="launch peer MMMU-Pro official scorer, 1,730 fixture answers, per answer",
    unit="us",
    target=None,
)
def mmmu_pro_scorer(ctx: Context) -> Measurement:
    """The official mmmu-pro/evaluate.py's `mmmu_process_results` on GPT-4o's 1,730 chain-
    of-thought answers (10 options; it reads the option list per answer); extra: lmmreview's
    MMMU-Pro rules on the same answers, options read beforehand as an import does."""
    official = _official(ctx, MMMU_PRO_SCORER)
    records = ctx.fixture("mmmu-pro-fixture", _mmmu_pro_records)
    theirs = _per_answer(records, lambda record: official.mmmu_process_results(dict(record)))
    ours = _ours([_pro_case(r) for r in records], mmmu_pro.judge)
    return Measurement(theirs, {"lmmreview_us": ours})


def _pro_case(record: dict[str, Any]) -> tuple[Sample, str]:
    options = ast.literal_eval(record["options"])
    letters = {chr(ord("A") + i): str(text) for i, text in enumerate(options)}
    sample = Sample(
        record["id"], record["question"], QuestionType.CHOICE, record["answer"], options=letters
    )
    return sample, str(record["response"])


MATHVISTA = FIXTURES / "mathvista" / "output_claude.json"


@benchmark(
    name="launch peer MathVista official scorer, 1,000 fixture answers, per answer",
    unit="us",
    target=None,
)
def mathvista_scorer(ctx: Context) -> Measurement:
    """The official calculate_score.py's `normalize_extracted_answer` and `safe_equal` on
    one model's 1,000 testmini extractions; extra: lmmreview's normalisation and comparison
    (rules.verdict) of the same extractions, each problem read beforehand as an import does."""
    official = _official(ctx, MATHVISTA_SCORER)
    if not MATHVISTA.is_file():
        raise Skipped(f"the MathVista fixture is absent ({MATHVISTA})")
    problems = list(json.loads(MATHVISTA.read_text(encoding="utf-8")).values())

    def theirs(problem: dict[str, Any]) -> object:
        prediction = official.normalize_extracted_answer(
            problem["extraction"],
            problem["choices"],
            problem["question_type"],
            problem["answer_type"],
            problem["precision"],
        )
        return official.safe_equal(prediction, problem["answer"])

    cases = [(p["extraction"], _mathvista_problem(p)) for p in problems]
    ours = _per_answer(cases, lambda case: mathvista.verdict(*case))
    return Measurement(
        _per_answer(problems, theirs), {"answers": len(problems), "lmmreview_us": ours}
    )


def _mathvista_problem(problem: dict[str, Any]) -> mathvista.Problem:
    return mathvista.Problem(
        problem["question_type"], problem["answer_type"], tuple(problem["choices"] or ()),
        problem["precision"], problem["answer"],
    )  # fmt: skip
