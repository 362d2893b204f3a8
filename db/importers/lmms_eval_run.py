"""lmms-eval's record of a run, `{date}_results.json`, written beside the run's samples
files `{date}_samples_{task}.jsonl` (loggers/evaluation_tracker.py:206-212 and :254-258 at
v0.7.2), read into the import's ToolRun.

What each field is read from (lmms_eval/evaluator.py at v0.7.2 cb45ac4d):
- version: `lmms_eval_version` (:561, from v0.7; "branch@commit" of the git checkout lmms-eval
  ran in, utils.py:801-805: not a release number); before v0.7 the file has none;
- commit: `git_hash` (:559; `git describe --always` in the working folder);
- command: `config.resolved_cli_args` (:548-557, from v0.7: every CLI option as resolved),
  else `config.model`, `config.model_args` (:524-527) and the tasks of `configs`;
- date: `date` (:562, `%Y%m%d_%H%M%S`; `start_time` is a perf_counter reading, no date).
lmms-eval records no judge model in the file (an environment variable's); the lines of
MM-Vet and LLaVA-Bench name theirs, which the import puts in the run's judge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import ImportFailure, ToolRun
from lmmreview.db.importers.read import existing, read_json

TOOL = "lmms-eval"
SAMPLES_MARK = "_samples_"  # in the name lmms-eval gives a --log_samples file
RESULTS_SUFFIX = "_results.json"
VERSION_KEY = "lmms_eval_version"  # in results.json from v0.7 on


def results_beside(samples: Path) -> Path | None:
    """The results.json lmms-eval wrote with a samples file, where it is beside it."""
    date, mark, _ = samples.name.partition(SAMPLES_MARK)
    if not mark or not date:
        return None
    found = samples.with_name(date + RESULTS_SUFFIX)
    return found if found.is_file() else None


def read_results(samples: Path, given: Path | None, warnings: list[str]) -> dict[str, Any] | None:
    """The run's results.json (`given`, else the one beside the samples file) as an object
    with its `config`; None when there is none. A named file must exist; one that is not
    lmms-eval's adds a warning instead of failing the import (the samples are the data)."""
    path = existing(given) if given is not None else results_beside(samples)
    if path is None:
        return None
    try:
        record = read_json(path)
    except ImportFailure as failure:
        warnings.append(f"{failure}; the run's record is left out")
        return None
    # every version writes the run's config (evaluator.py:295@v0.5, :524@v0.7.2)
    if not isinstance(record, dict) or not isinstance(record.get("config"), dict):
        warnings.append(
            f"{path}: not lmms-eval's results.json (an object with the run's config); "
            "the run's record is left out"
        )
        return None
    return record


def tool_run(record: dict[str, Any], judge: str) -> ToolRun:
    """The run as results.json (read_results') records it (a field of another type read as
    absent), with the judge the lines named."""
    config = record["config"]
    return ToolRun(
        TOOL,
        version=_text(record.get(VERSION_KEY)),
        commit=_text(record.get("git_hash")),
        command=_command(config, record.get("configs")),
        judge=judge,
        date=_text(record.get("date")),
    )


def _command(config: dict[str, Any], configs: object) -> str:
    """The resolved CLI options as one line (v0.7+), else the model, its arguments and the
    tasks run."""
    resolved = config.get("resolved_cli_args")
    if isinstance(resolved, dict):
        return " ".join(_option(name, value) for name, value in resolved.items() if _set(value))
    tasks = ",".join(configs) if isinstance(configs, dict) else ""
    given = {"model": config.get("model"), "model_args": config.get("model_args"), "tasks": tasks}
    return " ".join(_option(name, value) for name, value in given.items() if _set(value))


def _set(value: object) -> bool:
    """An option given a value (argparse's unset ones are None or False)."""
    return value is not None and value is not False and value != ""


def _option(name: str, value: object) -> str:
    if value is True:
        return f"--{name}"
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"--{name} {shown}"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
