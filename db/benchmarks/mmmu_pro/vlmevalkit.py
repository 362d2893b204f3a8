"""`lmmreview import mmmu-pro-vlmevalkit`: VLMEvalKit's MMMU-Pro files, datasets MMMU_Pro_10c
and MMMU_Pro_V and their _COT prompts (open-compass/VLMEvalKit @ e8e78f0; paths below are
in its vlmeval/, lines at that commit).

- The prediction file `{model}_{dataset}.xlsx` (or .tsv, .json): the dataset's TSV rows
  without their images, each with the model's `prediction` (inference.py 244-283). In the
  vision setting every `question` is the text "placeholder" (MMMUProDataset.__init__,
  dataset/image_mcq.py 559-562): the screenshot shows the question.
- The result workbook `{model}_{dataset}_{judge}_result.xlsx` (the judge gpt-4o-mini unless
  told: run.py 345-356): the same rows, its column names lower-cased but the option letters
  (ImageMCQDataset.evaluate_heuristic, dataset/image_mcq.py 289-313), with `hit` and `log`
  (mcq_vanilla_eval, dataset/utils/multiple_choice.py 475-507: its option matching, then
  the judge, then a random letter), imported as that judge's verdicts.
- A _COT dataset's result workbook is `{model}_{dataset}_cotpost_{judge}_result.xlsx`:
  MMMUProDataset.evaluate (dataset/image_mcq.py 652-664) first replaces each prediction with
  cot_postproc's reading of it (the letter after the last `Answer:`, or the text there), so
  its verdicts judge the answers imported before from the prediction file, not its rows'.

Of a row only what VLMEvalKit's code reads is read: `index`, `question`, the options `A` to
`J` (build_choices, dataset/utils/multiple_choice.py 346-351: the letters whose cell is not
empty), `answer` (the gold letter) and `prediction`. The TSV's other columns are not in
VLMEvalKit's repository: a sample is keyed by `index`, with no MMMU-Pro id, subject,
difficulty or image type.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import ascii_uppercase

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
    HIT,
    LOG,
    Names,
    has,
    hit_judgment,
    names_of,
    read_rows,
    refuse_repeated,
    require,
)
from lmmreview.engine.benchmarks.mmmu.benchmark import SubjectBenchmark
from lmmreview.engine.benchmarks.mmmu_pro.benchmark import MMMU_PRO
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.types import QuestionType, Sample

DATASETS = r"MMMU_Pro_(?:10c|V)(?:_COT)?"  # the dataset part of a file name
_COT = "_COT"  # a dataset's chain-of-thought prompt: the same questions as its direct one
# MMMUProDataset.evaluate's file of cot_postproc's readings, and its result workbook's name
_COTPOST = re.compile(r"_COT_cotpost(?:_|$)", re.IGNORECASE)
_COTPOST_JUDGE = "cotpost_"  # before the judge's part of the result workbook's name
_COLUMNS = ("index", "question", "answer", "prediction")
_OPTIONS = ascii_uppercase[:10]  # MMMU-Pro's ten options at most


def read_request(request: ImportRequest) -> ImportBatch:
    """A prediction file's questions and answers; a result workbook's also with its judge's
    verdicts (a _COT one's verdicts only)."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file)
    require(rows, file, _COLUMNS, "VLMEvalKit's MMMU-Pro rows")
    cot = bool(names.dataset and names.dataset.upper().endswith(_COT))
    dataset = request.dataset or _dataset_of(names, file)
    batch = ImportBatch(dataset, MMMU_PRO.name, str(file))
    # The direct and chain-of-thought answers of one model are two rows of the tables, as
    # the official files' are; --model names the one.
    model = names.model if request.text("model") or not cot else f"{names.model}{_COT}"
    postprocessed = _COTPOST.search(file.stem) is not None
    if postprocessed and not has(rows, HIT):
        message = "holds cot_postproc's readings of the answers: import the prediction file"
        raise ImportFailure(file, message)
    samples = [(row_sample(row, file, where), where, row) for where, row in rows]
    refuse_repeated(((s.key, where) for s, where, _ in samples), file)
    # The questions too when only verdicts come (cotpost): one that differs is refused.
    batch.samples = [sample for sample, _, _ in samples]
    if not postprocessed:  # a cotpost workbook's predictions are VLMEvalKit's readings
        batch.answers = [
            AnswerRecord(s.key, model, r["prediction"], str(file)) for s, _, r in samples
        ]
    if has(rows, HIT):
        require(rows, file, (HIT, LOG), "a result workbook's verdicts")
        judge = request.text("judge") or _judge(names, file)
        verdicts = [(s, r, hit_judgment(r, judge, file, where)) for s, where, r in samples]
        batch.judgments = [JudgmentRecord(s.key, model, j) for s, _, j in verdicts]
        if not postprocessed:
            batch.warnings.extend(disagreements(verdicts, file, MMMU_PRO))
    batch.warnings.extend(unmatched_golds(batch.samples, file))
    return batch


def _dataset_of(names: Names, file: Path) -> str:
    """The dataset a file's name gives: its VLMEvalKit dataset, without _COT (both prompts
    ask one TSV's questions)."""
    if names.dataset is None:
        raise ImportFailure(file, "the dataset is not in the file name: give --dataset")
    return re.sub(f"{_COT}$", "", names.dataset, flags=re.IGNORECASE)


def _judge(names: Names, file: Path) -> str:
    """The judge the result workbook's name gives (after a _COT workbook's cotpost_)."""
    judge = (names.judge or "").removeprefix(_COTPOST_JUDGE)
    if not judge:
        raise ImportFailure(file, "the judge is not in the file name: give --judge")
    return judge


def row_sample(row: dict[str, str], file: Path, where: str) -> Sample:
    """A row's multiple-choice question, keyed by its index: its options the letters A to J
    whose cell is not empty (VLMEvalKit's build_choices), its gold `answer`."""
    key = str(row_index(row["index"], file, where))
    options = {letter: row[letter] for letter in _OPTIONS if row.get(letter, "") != ""}
    if not options:
        raise ImportFailure(file, "no options: the columns A to J are empty or missing", where)
    answer = row["answer"].strip()
    if not answer:
        raise ImportFailure(file, "no answer: the gold letter is empty", where)
    return Sample(key, row["question"], QuestionType.CHOICE, answer, options=options)


def disagreements(
    verdicts: list[tuple[Sample, dict[str, str], Judgment]],
    file: Path,
    benchmark: SubjectBenchmark,
) -> list[str]:
    """A warning naming the answers whose VLMEvalKit verdict is not the official parse's
    (its random letter aside): VLMEvalKit matches an option's letter or text, then asks
    its judge, where the official code reads `Answer:` (MMMU-Pro), then MMMU's rules."""
    differ = [
        sample.key
        for sample, row, judgment in verdicts
        if not (official := benchmark.verdict(sample, row["prediction"])).fallback
        and official.correct != (judgment.score == 1.0)
    ]
    if not differ:
        return []
    return [
        f"{file}: {len(differ)} of VLMEvalKit's verdicts differ from the official "
        f"{benchmark.title} parse of the same answer (both are kept, as two judges): "
        f"{listed(differ)}"
    ]


def unmatched_golds(samples: list[Sample], file: Path) -> list[str]:
    """A gold that is none of its row's option letters is never right."""
    unmatched = [s.key for s in samples if s.answer not in s.options]
    if not unmatched:
        return []
    return [
        f"{file}: {len(unmatched)} answer(s) not among their question's option letters, "
        f"never right: {listed(unmatched)}"
    ]
