"""`lmmreview import mathvista-vlmevalkit`: VLMEvalKit's MathVista_MINI files (open-compass/
VLMEvalKit @ e8e78f0; paths below are in its vlmeval/, lines at that commit).

- The prediction file `{model}_MathVista_MINI.xlsx` (or .tsv, .json): the dataset's TSV rows
  without their images, each with the model's `prediction` (inference.py 244-283).
- The judge workbook `{model}_MathVista_MINI_{judge}.xlsx` (the judge gpt-4o-mini unless
  told: run.py 366-371) MathVista.evaluate_heuristic writes (dataset/image_vqa.py 588-628):
  the same rows with `res`, the extraction (the option letter its matching found in the
  prediction, or the prediction's number when it equals the gold, else its judge's reply to
  its few-shot prompt, '' after five failed calls), and
  `log` (dataset/utils/mathvista.py 107-124). `res` is imported as that judge's
  extraction, scored by the official rules; its `_score.csv` holds counts only.

Of a row only what VLMEvalKit's code reads is read (post_check and MathVista_acc,
dataset/utils/mathvista.py 77-167): `index`, `question` (the text the default prompt sends,
ImageBaseDataset.build_prompt, dataset/image_base.py 320-336), `question_type`,
`answer_type`, `choices` (a Python list literal, read with literal_eval), `answer` (the gold
text) and `answer_option` (a choice's gold letter), `task` and `skills` (a list literal, or
one skill), and `prediction`. The TSV's other columns are not in VLMEvalKit's repository: a
problem is keyed by `index`, with no pid, unit or the other metadata; a float answer's
precision, which the official rules round to, is its gold's number of decimals (so in all
40 float problems of testmini).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmmreview.db.benchmarks.mathvista.files import extraction_judgment, problem_sample
from lmmreview.db.benchmarks.mmbench.files import row_index
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    listed,
)
from lmmreview.db.importers.vlmevalkit import (
    PROMPT_VERSION,
    Rows,
    has,
    literal,
    names_of,
    read_rows,
    refuse_repeated,
    require,
)
from lmmreview.engine.benchmarks.mathvista import rules
from lmmreview.engine.benchmarks.mathvista.benchmark import MATHVISTA, problem_of
from lmmreview.engine.benchmarks.mathvista.vlmevalkit import vlmevalkit_right
from lmmreview.engine.types import Sample

DATASETS = "MathVista_MINI"  # the dataset part of VLMEvalKit's file names
_COLUMNS = ("index", "question", "question_type", "answer_type", "answer", "task", "skills")
_JUDGED = ("res", "log")
_CHOICE_COLUMNS = ("choices", "answer_option")


def read_request(request: ImportRequest) -> ImportBatch:
    """A prediction file's problems and answers; a judge workbook's also with its judge's
    extractions, and a warning naming the problems VLMEvalKit scores otherwise."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, _COLUMNS, "VLMEvalKit's MathVista rows")
    judge = _judge(rows, names.judge, file)
    batch = ImportBatch(request.dataset or names.dataset or DATASETS, MATHVISTA.name, str(file))
    problems = [(row_problem(row, file, where), where, row) for where, row in rows]
    refuse_repeated(((s.key, where) for s, where, _ in problems), file)
    differ: list[str] = []
    for sample, where, row in problems:
        batch.samples.append(sample)
        batch.answers.append(AnswerRecord(sample.key, names.model, row["prediction"], str(file)))
        if judge is None:
            continue
        judgment = extraction_judgment(sample, row["res"], file, where, judge, PROMPT_VERSION)
        if judgment is None:  # no gold
            continue
        batch.judgments.append(JudgmentRecord(sample.key, names.model, judgment))
        if (judgment.score == 1.0) != vlmevalkit_right(row["res"], problem_of(sample)):
            differ.append(sample.key)
    if differ:
        batch.warnings.append(
            f"{file}: on {len(differ)} problem(s) VLMEvalKit's verdict on its extraction "
            f"differs from the official rules' (whose verdicts are imported): {listed(differ)}"
        )
    return batch


def _judge(rows: Rows, judge: str | None, file: Path) -> str | None:
    """The judge of a judge workbook's extractions (its name's); None for a prediction file."""
    if not has(rows, "res"):
        return None
    require(rows, file, _JUDGED, "a judge workbook's extractions")
    if not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    return judge


def row_problem(row: dict[str, str], file: Path, where: str) -> Sample:
    """A row's problem, keyed by its index, as the official reader reads one (its checks
    included); a multiple-choice gold's letter must be `answer_option`."""
    key = str(row_index(row["index"], file, where))
    choice = row["question_type"] == rules.MULTI_CHOICE
    if choice:
        require([(where, row)], file, _CHOICE_COLUMNS, "a multi_choice problem's options")
    fields: dict[str, Any] = {
        "question": row["question"],
        "query": row["question"],
        "question_type": row["question_type"],
        "answer_type": row["answer_type"],
        "choices": literal(row["choices"], "choices", file, where) if choice else None,
        "answer": row["answer"],
        "precision": _decimals(row["answer"]) if row["answer_type"] == rules.FLOAT else None,
        "metadata": {"task": row["task"], "skills": _skills(row["skills"], file, where)},
    }
    sample = problem_sample(key, fields, file, where)
    if choice and sample.answer != row["answer_option"]:
        message = (
            f"answer_option {row['answer_option']!r} is not the letter of the answer "
            f"{row['answer']!r} among the choices"
        )
        raise ImportFailure(file, message, where)
    return sample


def _decimals(gold: str) -> int:
    """The gold's number of decimals: the precision the official rules round to."""
    _, point, decimals = gold.strip().partition(".")
    return len(decimals) if point else 0


def _skills(cell: str, file: Path, where: str) -> object:
    """`skills` as MathVista_acc reads it: a list literal, else the one skill it names."""
    try:
        return literal(cell, "skills", file, where)
    except ImportFailure:
        return cell
