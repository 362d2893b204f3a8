"""`lmmreview import mmbench-vlmevalkit`: VLMEvalKit's MMBench prediction workbook or result
workbook (`{model}_{dataset}_{judge}_result.xlsx`: its own CircularEval verdicts)
(db.importers.vlmevalkit reads the rows)."""

from __future__ import annotations

import re
from pathlib import Path

from lmmreview.db.benchmarks.mmbench.files import (
    check_circular_copies,
    row_index,
    row_sample,
    warn_unknown_l2,
)
from lmmreview.db.benchmarks.mmbench.files import read_mmbench as read_mmbench_tsv
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
)
from lmmreview.db.importers.vlmevalkit import (
    Names,
    Rows,
    has,
    names_of,
    read_rows,
    require,
    unit_number,
)
from lmmreview.engine.benchmarks.mmbench.benchmark import MMBENCH
from lmmreview.engine.benchmarks.mmbench.rules import circular_position
from lmmreview.engine.scoring import GroupVerdict

_QUESTION_COLUMNS = ("question", "A", "B")
DATASETS = r"MMBench(?:_(?:DEV|TEST|EN|CN|V11|[0-9]{8}))*"  # the dataset part of a file name
_FAILED_ROLLING = re.compile(r"Failed in (?:Prefetching )?Rolling ([0-9]+)")


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mmbench-vlmevalkit`: a prediction file, or the result workbook
    (`hit`, `log`, `g_index`), whose circular verdicts are imported beside the answers."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    questions = request.path("questions")
    dataset = request.dataset or (questions.stem if questions else names.dataset)
    if dataset is None:
        raise ImportFailure(file, "the dataset is not in the file name: give --dataset")
    if questions is not None:
        batch = read_mmbench_tsv(questions, dataset=dataset)
    else:
        require(rows, file, _QUESTION_COLUMNS, "or give the MMBench TSV with --questions")
        batch = ImportBatch(dataset, MMBENCH.name, str(file))
    predictions = request.path("predictions")
    no_tsv = questions is None  # the files' own question columns make the samples
    if predictions is not None:
        _rows(read_rows(predictions), predictions, names.model, batch, no_tsv)
    indices = _rows(rows, file, names.model, batch, no_tsv and predictions is None)
    if has(rows, "hit"):
        _verdicts(rows, indices, file, names, batch, predictions is not None)
    if no_tsv:  # else the TSV's reader warned
        warn_unknown_l2(batch, predictions or file)
    return batch


def _rows(rows: Rows, file: Path, model: str, batch: ImportBatch, questions: bool) -> list[int]:
    """Add each row's answer (and, when `questions`, the question it carries); return the
    rows' indices."""
    indices: dict[int, str] = {}
    for where, row in rows:
        index = row_index(row["index"], file, where)
        if index in indices:
            raise ImportFailure(file, f"duplicate index {index} (also at {indices[index]})", where)
        indices[index] = where
        if questions:  # rows without a category count in Overall only
            batch.samples.append(row_sample(index, {"category": "", **row}, file, where))
        batch.answers.append(AnswerRecord(str(index), model, row["prediction"], str(file)))
    if questions:
        check_circular_copies(batch.samples, indices, file)
    return list(indices)


def _verdicts(
    rows: Rows,
    indices: list[int],
    file: Path,
    names: Names,
    batch: ImportBatch,
    with_predictions: bool,
) -> None:
    """VLMEvalKit's CircularEval verdicts, one per main row of the result workbook."""
    if not has(rows, "g_index", "log"):
        raise ImportFailure(
            file, "a result workbook needs the columns hit, log and g_index (CircularEval's)"
        )
    judge = names.judge or ""
    if not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    answered = {int(a.key) for a in batch.answers}
    groups = _groups(answered | {int(s.key) for s in batch.samples})
    for (where, row), index in zip(rows, indices, strict=True):
        group, rotation = circular_position(index)
        if rotation or row_index(row["g_index"], file, where) != group:
            raise ImportFailure(
                file, f"index {index} is not the main row of group {row['g_index']}", where
            )
        if with_predictions and (len(groups[group]) < 2 or not groups[group] <= answered):
            raise ImportFailure(
                file,
                f"group {group}'s other rotations have no answers in the prediction workbook",
                where,
            )
        log = row["log"]
        failed = _FAILED_ROLLING.search(log)
        batch.group_verdicts.append(
            GroupVerdict(
                str(index), names.model, unit_number(row["hit"], "hit", file, where),
                int(failed[1]) if failed else None, judge, log, str(file),
            )
        )  # fmt: skip
    if not with_predictions:
        batch.warnings.append(
            f"{file}: a result workbook holds only each group's main row: lmmreview's own "
            "CircularEval of these groups needs the other rotations' answers, from the "
            "prediction workbook imported before (or given with --predictions)"
        )


def _groups(indices: set[int]) -> dict[int, set[int]]:
    """The rows of each circular group, by group."""
    groups: dict[int, set[int]] = {}
    for index in indices:
        groups.setdefault(circular_position(index)[0], set()).add(index)
    return groups
