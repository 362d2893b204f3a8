"""`lmmreview import mmmu-vlmevalkit`: VLMEvalKit's MMMU files, dataset MMMU_DEV_VAL
(open-compass/VLMEvalKit @ e8e78f0; paths below are in its vlmeval/, lines at that commit).

- The prediction file `{model}_MMMU_DEV_VAL.xlsx` (or .tsv, .json): the dataset's TSV rows
  without their images, each with the model's `prediction` (inference.py 244-283).
- The result workbook `{model}_MMMU_DEV_VAL_{judge}_result.xlsx` (the judge gpt-4o-mini
  unless told: run.py 345-358): the same rows, column names lower-cased but the option
  letters (ImageMCQDataset.evaluate_heuristic, dataset/image_mcq.py 289-313), with `hit`
  and `log` (mcq_vanilla_eval, dataset/utils/multiple_choice.py 475-507), imported as that
  judge's verdicts. A `log` saying "Failed to predict, thus randomly generate one."
  (multiple_choice.py 404-405) is a random letter: its verdict is flagged as a fallback.

Of a row only what VLMEvalKit's code reads is read: `index`, `question`, the option letters
(build_choices, multiple_choice.py 346-351: those whose cell is not empty), `answer`,
`prediction` and `split` (dev or validation, report_acc, multiple_choice.py 81-90; kept as
the sample's split). VLMEvalKit's
MMMU code reads no MMMU id, so a sample is keyed by `index` in a dataset of its own
(MMMU_DEV_VAL), never mixed with the official files' `validation_Art_1` keys.

MMMU's open questions have no options; mcq_vanilla_eval rewrites each as two options, A
its gold answer and B "Other Answers" (MMMU_preproc, multiple_choice.py 62-74, called at
482), whose gold is A (answer_map, 483). They are imported in that form, the question
VLMEvalKit's judge was asked: lmmreview's rules then read them as two-option questions,
never as MMMU's open questions (whose number and substring rules would judge the answer
against a gold VLMEvalKit did not use).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from string import ascii_uppercase

from lmmreview.db.benchmarks.mmbench.files import row_index
from lmmreview.db.benchmarks.mmmu_pro.vlmevalkit import disagreements, row_sample, unmatched_golds
from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
)
from lmmreview.db.importers.vlmevalkit import (
    HIT,
    LOG,
    has,
    hit_judgment,
    names_of,
    read_rows,
    refuse_repeated,
    require,
)
from lmmreview.engine.benchmarks.mmmu.benchmark import MMMU_BENCHMARK
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.types import QuestionType, Sample

DATASETS = "MMMU_DEV_VAL"  # the dataset part of a file name, and the default dataset
_COLUMNS = ("index", "question", "answer", "prediction")
_LETTERS = frozenset(ascii_uppercase)  # a gold answer_map keeps (multiple_choice.py 483)
_OTHER = "Other Answers"  # MMMU_preproc's option B (multiple_choice.py 69)
_RANDOM = "Failed to predict, thus randomly generate one."  # multiple_choice.py 405


def read_request(request: ImportRequest) -> ImportBatch:
    """A prediction file's questions and answers; a result workbook's also with its judge's
    verdicts."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, _COLUMNS, "VLMEvalKit's MMMU rows")
    batch = ImportBatch(request.dataset or DATASETS, MMMU_BENCHMARK.name, str(file))
    samples = [(_sample(row, file, where), where, row) for where, row in rows]
    refuse_repeated(((s.key, where) for s, where, _ in samples), file)
    batch.samples = [sample for sample, _, _ in samples]
    batch.answers = [
        AnswerRecord(s.key, names.model, r["prediction"], str(file)) for s, _, r in samples
    ]
    if has(rows, HIT):
        require(rows, file, (HIT, LOG), "a result workbook's verdicts")
        judge = request.text("judge") or names.judge
        if not judge:
            raise ImportFailure(file, "the judge is not in the file name: give --judge")
        verdicts = [(s, r, _verdict(r, judge, file, where)) for s, where, r in samples]
        batch.judgments = [JudgmentRecord(s.key, names.model, j) for s, _, j in verdicts]
        # The official parse reads MMMU's own multiple-choice questions only
        asked = [(s, r, j) for s, r, j in verdicts if not _rewritten(r)]
        batch.warnings.extend(disagreements(asked, file, MMMU_BENCHMARK))
    batch.warnings.extend(unmatched_golds(batch.samples, file))
    return batch


def _rewritten(row: dict[str, str]) -> bool:
    """An open question, which mcq_vanilla_eval asks as two options: its gold no letter."""
    return row["answer"].strip() not in _LETTERS


def _sample(row: dict[str, str], file: Path, where: str) -> Sample:
    """A row's question, keyed by its index, in its split: a multiple-choice one as it is,
    an open one as MMMU_preproc rewrites it (A its gold, B "Other Answers", gold A)."""
    gold = row["answer"].strip()
    if not gold:
        raise ImportFailure(file, "no answer: the gold is empty", where)
    if _rewritten(row):
        key = str(row_index(row["index"], file, where))
        options = {"A": gold, "B": _OTHER}
        sample = Sample(key, row["question"], QuestionType.CHOICE, "A", options=options)
    else:
        sample = row_sample(row, file, where)
    return replace(sample, split=row.get("split") or None)


def _verdict(row: dict[str, str], judge: str, file: Path, where: str) -> Judgment:
    """VLMEvalKit's verdict; its random letter flagged as a fallback."""
    judgment = hit_judgment(row, judge, file, where)
    if _RANDOM in row[LOG]:
        return replace(judgment, status=Status.FALLBACK)
    return judgment
