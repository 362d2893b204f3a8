"""`lmmreview export --format NAME` for a benchmark's official format (Benchmark.exports,
written by the function its `writer` names): one or several files per dataset, to --out."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from lmmreview.db import Store
from lmmreview.db.files import Export, refuse_database, write_text
from lmmreview.db.official import Content, OfficialFile, OfficialFiles, Writer, write_workbook
from lmmreview.db.parts import declared_file_function
from lmmreview.engine.benchmark import Benchmark, ExportFormat
from lmmreview.engine.export import RENDERERS
from lmmreview.engine.guarded import plugin_call, unguarded
from lmmreview.engine.registry import origin
from lmmreview.engine.scoring import Judge, JudgeChoice
from lmmreview.tui.cli.official_formats import official_format, official_formats
from lmmreview.tui.output import clear_errors, err, fail, say

Files = dict[str, Content]  # file name -> what goes in it
T = TypeVar("T")  # what a file is made of


def export_official(
    db: Path,
    fmt: str,
    output: Path | None,
    datasets: list[str] | None,
    unscored_as_zero: bool,
    choice: JudgeChoice,
) -> None:
    """Write a format's files for every dataset of its benchmark and say where."""
    found = official_format(fmt)
    if found is None:
        known = ", ".join([*RENDERERS, *official_formats()])
        raise fail(f"--format {fmt!r} is not a format here; choose one of: {known}")
    owner, spec = found
    kind = type(unguarded(owner))
    if output is None:
        where = "FILE or DIR" if spec.one_file_allowed else "DIR"
        raise fail(f"--format {fmt} writes files: --out {where} is needed")
    with clear_errors(db):
        refuse_database(output, db)  # before the database is read, or anything written
    files: Files = {}
    owners: dict[str, tuple[str, str | None]] = {}  # file name -> (dataset, model)
    with clear_errors(db), Store.open(db, create=False) as store:
        store.require_datasets(datasets or [])
        write = partial(_write, owner, spec, origin(owner.name), store)
        titles = []
        for name, benchmark in store.datasets(datasets or None):
            if isinstance(unguarded(benchmark), kind):
                titles.append(benchmark.title)
                made = write(name, benchmark, store.chosen_judge(name, choice), unscored_as_zero)
                _warn(made)
                _add(files, owners, made, fmt, name)
    if not files:
        raise fail(f"{db}: no {titles[0] if titles else owner.title} answers to write as {fmt}")
    folder, places = destinations(output, files, spec.one_file_allowed, fmt)
    with clear_errors(db), Export(db) as export:
        if folder is not None:
            export.folder(folder)
        for path, content in places.items():
            export.file(path, _writer(content))
    for path in places:
        say(f"wrote {path}")


def _write(
    owner: Benchmark,
    spec: ExportFormat,
    package: str,
    store: Store,
    dataset: str,
    benchmark: Benchmark,
    judge: Judge | None,
    unscored_as_zero: bool,
) -> OfficialFiles:
    """A dataset's files, by the writer the format's package declares; a plug-in's writer
    is found and run guarded, and what it returns checked."""

    def run() -> OfficialFiles:
        writer: Writer = declared_file_function(spec.writer, package)
        return writer(store, dataset, benchmark, judge, unscored_as_zero)

    return plugin_call(owner, f"writer {spec.writer}", run, _files_problem)


def _files_problem(made: object) -> str | None:
    """What is wrong with a writer's return value, if anything: OfficialFiles of files
    each named as a file in the folder (no folder part), holding text or a sheet."""
    if not isinstance(made, OfficialFiles):
        return f"returned {type(made).__name__}, not OfficialFiles"
    for file in made.files:
        if not isinstance(file, OfficialFile) or not isinstance(file.name, str):
            return "returned a file that is not an OfficialFile with a name"
        if file.name in ("", ".", "..") or Path(file.name).name != file.name or "\\" in file.name:
            return f"named a file {file.name!r}: a file's name, with no folder, is needed"
        if not (isinstance(file.content, str) or _is_sheet(file.content)):
            return f"gave {file.name!r} a {type(file.content).__name__}, not text or a sheet"
    if not all(isinstance(w, str) for w in made.warnings):
        return "returned warnings that are not text"
    return None


def _is_sheet(content: object) -> bool:
    """A workbook's one sheet: (header, rows), a list of names and a list of lists."""
    return (
        isinstance(content, tuple)
        and len(content) == 2
        and isinstance(content[0], list)
        and isinstance(content[1], list)
        and all(isinstance(row, list) for row in content[1])
    )


def _warn(made: OfficialFiles) -> None:
    for warning in made.warnings:
        say(f"warning: {warning}", style="yellow", console=err)


def _add(
    files: Files,
    owners: dict[str, tuple[str, str | None]],
    made: OfficialFiles,
    fmt: str,
    dataset: str,
) -> None:
    """Add a dataset's files; two files of one name would leave only the last."""
    for name, model, content in ((f.name, f.model, f.content) for f in made.files):
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


def destinations(
    output: Path, files: dict[str, T], one_file_allowed: bool, fmt: str, each: str = "model"
) -> tuple[Path | None, dict[Path, T]]:
    """The folder to make (None: none), and where each file goes: into the folder --out,
    or, for a format that allows it, to the file --out names (an existing file or device,
    or a name with a suffix) when there is one file to write."""
    names_a_file = one_file_allowed and (output.suffix or output.exists()) and not output.is_dir()
    if not names_a_file:
        return output, {output / name: content for name, content in files.items()}
    if len(files) > 1:
        raise fail(
            f"{output}: --format {fmt} writes {len(files)} files here (one per {each}); "
            "give --out a folder"
        )
    return None, {output: next(iter(files.values()))}
