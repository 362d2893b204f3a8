"""`lmmreview export --format mmvet-csv|mmvet-grades|mmbench-submission|mmmu-submission`:
the benchmarks' official files, one or several per dataset, written to --out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmmreview.db import Store
from lmmreview.db.files import Export, refuse_database, write_text
from lmmreview.db.official import grade_files, mmbench_workbooks, mmmu_submissions, write_workbook
from lmmreview.db.scoring import dataset_scores
from lmmreview.engine import official
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.benchmarks.mmbench import MMBench
from lmmreview.engine.benchmarks.mmmu import MMMU
from lmmreview.engine.benchmarks.mmvet import MMVet
from lmmreview.engine.scoring import Judge
from lmmreview.tui.output import clear_errors, err, fail, say

Workbook = tuple[list[str], list[list]]  # header, rows
Content = str | Workbook
Files = dict[str, Content]  # file name -> what goes in it
Named = list[tuple[str, str | None, Content]]  # a dataset's files: name, model (None: all)


@dataclass(frozen=True, slots=True)
class Official:
    """One official format: the benchmark it is for, how its files are made, and whether a
    single file may be named by --out (else --out is a folder)."""

    benchmark: type[Benchmark]
    title: str
    files: Callable[[Store, str, Benchmark, bool, Judge | None], Named]
    one_file_allowed: bool


def _mmvet_csvs(
    store: Store, name: str, benchmark: Benchmark, unscored_as_zero: bool, judge: Judge | None
) -> Named:
    tables = {
        t.name: t
        for t in dataset_scores(store, name, benchmark, judge).breakdown.tables(unscored_as_zero)
    }
    capabilities, integrations = tables[f"{name}.capabilities"], tables[f"{name}.integrations"]
    left_out = official.unscored(capabilities)
    for model in left_out:
        say(
            f"warning: {name}: {model} has no scored answer: left out of the CSVs "
            "(score or judge it, or --unscored-as-zero counts its answers as 0)",
            style="yellow",
            console=err,
        )
    partly = {} if unscored_as_zero else official.partly_scored(capabilities)
    if partly:
        counts = ", ".join(f"{model} {count}" for model, count in partly.items())
        say(
            f"warning: {name}: answers with no score ({counts}) are left out of the means, as "
            "the tables leave them; the official grader scores every question (judge them, "
            "or --unscored-as-zero counts them as 0, as `import mmvet-grades --check` does)",
            style="yellow",
            console=err,
        )
    if len(left_out) == len(capabilities.rows):
        return []
    names = official.grader_csv_names(name, capabilities.runs)
    contents = map(official.grader_csv, (capabilities, integrations))
    return [(file, None, content) for file, content in zip(names, contents, strict=True)]


def _mmvet_grades(
    store: Store, name: str, benchmark: Benchmark, unscored_as_zero: bool, judge: Judge | None
) -> Named:
    return [
        (official.grade_file_name(model, grades), model, official.grade_json(grades))
        for model, grades in grade_files(store, name, judge).items()
    ]


def _mmbench(
    store: Store, name: str, benchmark: Benchmark, unscored_as_zero: bool, judge: Judge | None
) -> Named:
    return [
        (f"{official.file_part(model)}_{official.file_part(name)}.xlsx", model, book)
        for model, book in mmbench_workbooks(store, name).items()
    ]


def _mmmu(
    store: Store, name: str, benchmark: Benchmark, unscored_as_zero: bool, judge: Judge | None
) -> Named:
    return [
        (
            f"{official.file_part(model)}_{official.file_part(name)}.json",
            model,
            official.submission_json(answers),
        )
        for model, answers in mmmu_submissions(store, name, judge).items()
    ]


OFFICIAL: dict[str, Official] = {
    "mmvet-csv": Official(MMVet, "MM-Vet", _mmvet_csvs, one_file_allowed=False),
    "mmvet-grades": Official(MMVet, "MM-Vet", _mmvet_grades, one_file_allowed=False),
    "mmbench-submission": Official(MMBench, "MMBench", _mmbench, one_file_allowed=True),
    "mmmu-submission": Official(MMMU, "MMMU", _mmmu, one_file_allowed=True),
}


def export_official(
    db: Path,
    fmt: str,
    output: Path | None,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    judge_name: str | None = None,
) -> None:
    """Write a format's files for every dataset of its benchmark and say where."""
    spec = OFFICIAL[fmt]
    if output is None:
        where = "FILE or DIR" if spec.one_file_allowed else "DIR"
        raise fail(f"--format {fmt} writes files: --out {where} is needed")
    with clear_errors(db):
        refuse_database(output, db)  # before the database is read, or anything written
    files: Files = {}
    owners: dict[str, tuple[str, str | None]] = {}  # file name -> (dataset, model)
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        for name, benchmark in store.datasets(datasets or None):
            if isinstance(benchmark, spec.benchmark):
                judge = store.chosen_judge(name, judge_name)
                named = spec.files(store, name, benchmark, unscored_as_zero, judge)
                _add(files, owners, named, fmt, name)
    if not files:
        raise fail(f"{db}: no {spec.title} answers to write as {fmt}")
    folder, destinations = _destinations(output, files, spec.one_file_allowed, fmt)
    with clear_errors(db), Export(db) as export:
        if folder is not None:
            export.folder(folder)
        for path, content in destinations.items():
            export.file(path, _writer(content))
    for path in destinations:
        say(f"wrote {path}")


def _add(
    files: Files,
    owners: dict[str, tuple[str, str | None]],
    named: Named,
    fmt: str,
    dataset: str,
) -> None:
    """Add a dataset's files; two files of one name would leave only the last."""
    for name, model, content in named:
        if name in files:
            first, second = _owner(*owners[name]), _owner(dataset, model)
            way = (
                "give --dataset NAME, one at a time"
                if owners[name][0] != dataset
                else "a file name replaces '/', control and direction characters"
            )
            raise fail(
                f"--format {fmt} would write two files named {name}, for {first} and for "
                f"{second}: {way}"
            )
        files[name] = content
        owners[name] = (dataset, model)


def _owner(dataset: str, model: str | None) -> str:
    return f"model {model!r} of {dataset}" if model is not None else dataset


def _writer(content: Content) -> Callable[[Path], None]:
    """What writes `content` to a path: text as UTF-8, a workbook as .xlsx."""
    if isinstance(content, str):
        return lambda path: write_text(path, content)
    return lambda path: write_workbook(path, *content)


def _destinations(
    output: Path, files: Files, one_file_allowed: bool, fmt: str
) -> tuple[Path | None, dict[Path, Content]]:
    """The folder to make (None: none), and where each file goes: into the folder --out,
    or, for a format that allows it, to the file --out names (an existing file or device,
    or a name with a suffix) when there is one file to write."""
    names_a_file = one_file_allowed and (output.suffix or output.exists()) and not output.is_dir()
    if not names_a_file:
        return output, {output / name: content for name, content in files.items()}
    if len(files) > 1:
        raise fail(
            f"{output}: --format {fmt} writes {len(files)} files here (one per model); "
            "give --out a folder"
        )
    return None, {output: next(iter(files.values()))}
