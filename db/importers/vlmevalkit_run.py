"""`lmmreview import vlmevalkit`: a VLMEvalKit run folder, every dataset lmmreview has a
reader for, each file read by its benchmark's own reader (db/benchmarks/*/vlmevalkit.py).

Paths and lines below are VLMEvalKit's (open-compass/VLMEvalKit @ e8e78f05).

- A run folder is `{work_dir}/{model}/T%Y%m%d-%H%M%S/` (vlmeval/smp/file.py:453-454,
  run.py:668-671), or the legacy `T{date}_G{commit}` (file.py:23-24). After each dataset
  run.py symlinks the run's files of it, and status.json, into `{work_dir}/{model}/`
  (run.py:995-1014); before the run folders (2024) the files were there themselves. So the
  folder given may also be the model's folder: its files are read where they really are,
  each with its own run's status.json (the links point at the runs that wrote them).
- status.json (vlmeval/smp/status_report.py) names the model, the commit (8 digits of
  the vlmeval checkout), the command line (argv) and, per dataset, the judge requested
  (run.py:673-688, 757-781). VLMEvalKit replaces a judge that does not answer by exact
  matching without saying so there (image_mcq.py:281-286, image_yorn.py:63-71): a
  multiple-choice row it could not match then says so in its `log`
  (utils/multiple_choice.py:383), and its verdicts are filed under `exact_matching`.
- A dataset's files are named `{model}_{dataset}.{xlsx|tsv|json}` (the prediction file,
  file.py:190-219) and `{model}_{dataset}{suffix}.{same}` for the files with verdicts
  (get_intermediate_file_path, file.py:687-706): see `READERS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from lmmreview.db.benchmarks.hallusionbench import vlmevalkit as hallusionbench
from lmmreview.db.benchmarks.llava_bench import vlmevalkit as llava_bench
from lmmreview.db.benchmarks.mathvista import vlmevalkit as mathvista
from lmmreview.db.benchmarks.mmbench import vlmevalkit as mmbench
from lmmreview.db.benchmarks.mme import vlmevalkit as mme
from lmmreview.db.benchmarks.mmmu import vlmevalkit as mmmu
from lmmreview.db.benchmarks.mmmu_pro import vlmevalkit as mmmu_pro
from lmmreview.db.benchmarks.mmstar.files import VLMEVALKIT_DATASETS as MMSTAR
from lmmreview.db.benchmarks.mmvet import vlmevalkit as mmvet
from lmmreview.db.benchmarks.ocrbench import v2_vlmevalkit as ocrbench_v2
from lmmreview.db.benchmarks.ocrbench import vlmevalkit as ocrbench
from lmmreview.db.importers import ImportSummary, import_target, load_within
from lmmreview.db.importers.batch import (
    ImportBatch,
    ImportFailure,
    ImportRequest,
    ToolRun,
    listed,
)
from lmmreview.db.importers.read import existing, parse_json, read_text
from lmmreview.db.store import larger_cache

TOOL = "VLMEvalKit"
STATUS = "status.json"  # RUN_STATUS_NAME, file.py:25
_NEW_ID = re.compile(r"T(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})")  # file.py:23, 453-454
_LEGACY_ID = re.compile(r"T(\d{4})(\d{2})(\d{2})_G([0-9a-fA-F]+)")  # file.py:24
_FORMATS = (".xlsx", ".tsv", ".json")  # PRED_FORMAT's, get_pred_file_format file.py:190-196
EXACT_MATCHING = "exact_matching"
# What a multiple-choice row's log says when no judge matched it (multiple_choice.py:383)
_NO_JUDGE = "no GPT-based answer matching under `exact_matching` policy"
# The extractor names a multiple-choice result file gives two judges (image_mcq.py:277):
# not a model's name, so status.json's is taken
_ALIASES = {"openai", "gpt4"}

# A multiple-choice result `{E}_{judge}_result` (image_mcq.py:276-278, 312-313), a _COT
# dataset's `{E}_cotpost_{judge}_result` (image_mcq.py:656-660)
_MCQ = re.compile(r"(?:cotpost_)?(?P<judge>.+)_result")
# A judge's workbook `{E}_{judge}` (MathVista image_vqa.py:592-593, MMVet :2058-2059), not
# its score files `{E}_{judge}_score` and `_score_fine` (:631, :2094-2097)
_JUDGE_WORKBOOK = re.compile(r"(?P<judge>.+)(?<!_score)(?<!_score_fine)")
_AUXMATCH = re.compile("auxmatch")  # image_yorn.py:48: names no judge
# OCRBench and OCRBench_v2 write only a score.json (image_vqa.py:567, :3982)
_NONE = re.compile("(?!)")


@dataclass(frozen=True, slots=True)
class Reader:
    """Which `lmmreview import` command reads a VLMEvalKit dataset's files."""

    command: str
    datasets: str  # the dataset names it reads (a regular expression)
    verdicts: re.Pattern[str]  # a file with verdicts: its name's part after the dataset's
    # the option its reader reads the prediction file with beside a file of verdicts
    # (MMBench's result workbook holds only each circular group's main row)
    beside: str = ""


READERS = (
    Reader("mmbench-vlmevalkit", mmbench.DATASETS, _MCQ, beside="predictions"),
    Reader("mmstar", MMSTAR, _MCQ),
    Reader("mmmu-vlmevalkit", mmmu.DATASETS, _MCQ),
    Reader("mmmu-pro-vlmevalkit", mmmu_pro.DATASETS, _MCQ),
    Reader("mathvista-vlmevalkit", mathvista.DATASETS, _JUDGE_WORKBOOK),
    Reader("mmvet-vlmevalkit", mmvet.DATASETS, _JUDGE_WORKBOOK),
    Reader("llava-bench-vlmevalkit", llava_bench.DATASETS, re.compile("openai_result")),
    Reader("mme-vlmevalkit", mme.DATASETS, _AUXMATCH),
    Reader("hallusionbench-vlmevalkit", hallusionbench.DATASETS, _AUXMATCH),
    # before OCRBench's, whose name begins OCRBench v2's
    Reader("ocrbench-v2-vlmevalkit", ocrbench_v2.DATASETS, _NONE),
    Reader("ocrbench-vlmevalkit", ocrbench.DATASETS, _NONE),
)


@dataclass(frozen=True, slots=True)
class Planned:
    """One file to import, through its benchmark's command."""

    dataset: str  # VLMEvalKit's name
    command: str
    request: ImportRequest
    run: ToolRun


@dataclass(slots=True)
class Plan:
    """What a run folder holds for lmmreview, in import order, and what it leaves out."""

    imports: list[Planned] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # "dataset (run folder): why"
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Dataset:
    reader: Reader
    predictions: Path | None = None
    verdicts: list[tuple[Path, str | None]] = field(default_factory=list)  # file, judge part


def plan_run(folder: Path) -> Plan:
    """The imports of a run folder, or of a model folder's files (or links to them)."""
    existing(folder, "folder")
    plan = Plan()
    for run_dir, files in _by_run(folder).items():
        _plan_one(run_dir, files, plan)
    if not plan.imports and not plan.left_out:
        runs = sorted(p.name for p in folder.iterdir() if _is_run(p))
        hint = (
            f"name one of its runs ({', '.join(runs)})"
            if runs
            else "give a run folder (outputs/MODEL/T...) or a model's folder"
        )
        raise ImportFailure(folder, f"no VLMEvalKit prediction files in it: {hint}")
    return plan


def _is_run(path: Path) -> bool:
    return (
        path.is_dir()
        and (_NEW_ID.fullmatch(path.name) or _LEGACY_ID.fullmatch(path.name)) is not None
    )


def _by_run(folder: Path) -> dict[Path, list[Path]]:
    """The folder's files by the folder they really are in (a link's target's)."""
    found: dict[Path, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix.lower() in _FORMATS and path.name != STATUS:
            real = path.resolve()
            found.setdefault(real.parent, []).append(real)
    return found


def _plan_one(run_dir: Path, files: list[Path], plan: Plan) -> None:
    """Add the imports of one run's files; the datasets status.json names that lmmreview
    has no reader for or that have no files, and the files of datasets it does not know,
    are left out."""
    status = read_status(run_dir / STATUS)
    model = _text(status, "model_name", run_dir / STATUS) or _model(run_dir)
    named = _status_datasets(status, run_dir / STATUS)
    datasets, unknown = _classify(files, model, named)
    run = _tool_run(run_dir, status)
    for name, found in datasets.items():
        _plan_dataset(name, found, named.get(name, {}), run, plan)
    for name, entry in named.items():
        if name not in datasets:
            why = "lmmreview has no reader for it" if _reader(name) is None else _no_files(entry)
            plan.left_out.append(f"{name} ({run_dir}): {why}")
    if unknown:
        plan.left_out.append(f"{listed(unknown)} ({run_dir}): no dataset lmmreview reads")


def _plan_dataset(
    name: str, found: _Dataset, entry: dict[str, object], run: ToolRun, plan: Plan
) -> None:
    requested = entry.get("judge_model")
    judge = requested if isinstance(requested, str) and requested else None
    command = found.reader.command
    beside = bool(found.reader.beside and found.verdicts and found.predictions)
    if found.predictions is not None and not beside:
        request = ImportRequest({"file": found.predictions})
        plan.imports.append(Planned(name, command, request, run))
    for file, part in found.verdicts:
        from_status = part is None or part in _ALIASES
        values: dict[str, object] = {"file": file}
        if from_status and judge:
            values["judge"] = judge
        if beside:
            values[found.reader.beside] = found.predictions
        named = judge if from_status and judge else part or ""
        plan.imports.append(
            Planned(name, command, ImportRequest(values), replace(run, judge=named))
        )
        if from_status and judge and found.reader.verdicts is _AUXMATCH:
            plan.warnings.append(
                f"{file}: filed under {judge}, the judge status.json names; VLMEvalKit uses "
                "exact matching instead when that judge does not answer, and says so nowhere"
            )


def _classify(
    files: list[Path], model: str, named: dict[str, dict[str, object]]
) -> tuple[dict[str, _Dataset], list[str]]:
    """The files of each dataset lmmreview reads, by VLMEvalKit's name (those with a
    prediction file or verdicts); and the names of the model's files of no dataset known
    (neither status.json's nor one a reader reads)."""
    longest = sorted(named, key=len, reverse=True)
    datasets: dict[str, _Dataset] = {}
    unknown: list[str] = []
    for file in files:
        rest = file.stem.removeprefix(f"{model}_")
        if rest == file.stem:
            continue  # another model's, or no VLMEvalKit file
        name, part = _dataset_of(rest, longest)
        if name is None:
            unknown.append(file.name)
            continue
        reader = _reader(name)
        if reader is None:  # status.json names it: left out by its name
            continue
        verdicts = None if part is None else reader.verdicts.fullmatch(part)
        if part is None:
            datasets.setdefault(name, _Dataset(reader)).predictions = file
        elif verdicts is not None:  # else a file of counts, a cache, ...
            judge = verdicts.groupdict().get("judge")
            datasets.setdefault(name, _Dataset(reader)).verdicts.append((file, judge))
    return datasets, unknown


def _dataset_of(rest: str, longest: list[str]) -> tuple[str | None, str | None]:
    """The dataset a file name's rest (after the model) names, and the part after it:
    status.json's names first (longest first), else a reader's names."""
    for name in longest:
        if rest == name or rest.startswith(f"{name}_"):
            return name, rest[len(name) + 1 :] or None
    for reader in READERS:
        match = re.fullmatch(rf"({reader.datasets})(?:_(.+))?", rest)
        if match is not None:
            return match[1], match[2]
    return None, None


def _reader(name: str) -> Reader | None:
    return next((r for r in READERS if re.fullmatch(r.datasets, name)), None)


def _no_files(entry: dict[str, object]) -> str:
    said = [
        f"{key} {entry[key]}" for key in ("status", "skip_reason", "error_message") if key in entry
    ]
    return "no prediction file" + (f" (status.json: {', '.join(map(str, said))})" if said else "")


def read_status(path: Path) -> dict[str, object]:
    """A run's status.json ({} when there is none: a legacy run's folder, or a model's
    folder whose status.json is a link to another run's)."""
    if path.is_symlink() or not path.is_file():
        return {}
    status = parse_json(read_text(path), path)
    if not isinstance(status, dict):
        raise ImportFailure(path, "expected a JSON object (VLMEvalKit's run status)")
    for key in ("model_name", "commit", "eval_id"):
        _text(status, key, path)
    argv = status.get("argv", [])
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ImportFailure(path, "argv: expected a list of texts (the command line)")
    return status


def _status_datasets(status: dict[str, object], path: Path) -> dict[str, dict[str, object]]:
    datasets = status.get("datasets", {})
    if not isinstance(datasets, dict) or not all(isinstance(d, dict) for d in datasets.values()):
        raise ImportFailure(path, "datasets: expected an object of one object per dataset")
    for name, entry in datasets.items():
        if not isinstance(entry.get("judge_model", ""), str):
            raise ImportFailure(path, "judge_model: expected a text", f"datasets {name!r}")
    return datasets


def _text(status: dict[str, object], key: str, path: Path) -> str:
    value = status.get(key, "")
    if not isinstance(value, str):
        raise ImportFailure(path, f"{key}: expected a text")
    return value


def _model(run_dir: Path) -> str:
    """The model a folder's files are of: a run folder's parent's name, else its own."""
    return run_dir.parent.name if _is_run(run_dir) else run_dir.name


def _tool_run(run_dir: Path, status: dict[str, object]) -> ToolRun:
    """What the run recorded: status.json's commit and command line, and the date its id
    (the folder's name) holds; a legacy id holds the commit too."""
    eval_id = _text(status, "eval_id", run_dir / STATUS) or run_dir.name
    commit = _text(status, "commit", run_dir / STATUS)
    argv = status.get("argv", [])
    command = " ".join(argv) if isinstance(argv, list) else ""
    if new := _NEW_ID.fullmatch(eval_id):
        date = "{}-{}-{} {}:{}:{}".format(*new.groups())
    elif legacy := _LEGACY_ID.fullmatch(eval_id):
        date, commit = "{}-{}-{}".format(*legacy.groups()[:3]), commit or legacy[4]
    else:
        date = ""
    return ToolRun(TOOL, commit=commit, command=command, date=date)


def settle(batch: ImportBatch, planned: Planned) -> None:
    """Keep the run with the batch, under the judge that made its verdicts: exact matching
    where a row says no judge matched it (VLMEvalKit then used none at all)."""
    replies = [r.judgment.reply for r in batch.judgments] + [v.log for v in batch.group_verdicts]
    judge = planned.run.judge
    if judge != EXACT_MATCHING and any(_NO_JUDGE in reply for reply in replies):
        batch.name_judge(EXACT_MATCHING)
        batch.warnings.append(
            f'{batch.source}: its rows say no judge matched them ("{_NO_JUDGE}"): '
            f"VLMEvalKit did not reach {judge or 'its judge'}, its verdicts are filed under "
            f"{EXACT_MATCHING}"
        )
        judge = EXACT_MATCHING
    batch.run = replace(planned.run, judge=judge)


@dataclass(slots=True)
class Loaded:
    """What `load_run` wrote, and the batches it left out (why, in a line each)."""

    summaries: list[ImportSummary] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def load_run(path: Path, batches: list[ImportBatch], tell: Callable[[str], None]) -> Loaded:
    """Load every batch in one transaction: all or nothing. A batch of answers only
    (HallusionBench's) whose dataset is not there yet is left out."""
    loaded = Loaded()
    if not batches:  # no database made for nothing
        return loaded
    with import_target(path) as store, larger_cache(store.conn), store.transaction():
        for number, batch in enumerate(batches, start=1):
            tell(f"Writing {batch.dataset} to {path} ({number} of {len(batches)})")
            if (
                not batch.samples
                and store.conn.execute(
                    "SELECT 1 FROM datasets WHERE name = ?", (batch.dataset,)
                ).fetchone()
                is None
            ):
                loaded.left_out.append(
                    f"{batch.source}: only answers, and dataset {batch.dataset!r} is not in "
                    "the database: import its questions first, then the run again"
                )
                continue
            loaded.summaries.append(load_within(store, batch))
    return loaded
