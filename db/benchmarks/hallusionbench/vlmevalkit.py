"""`lmmreview import hallusionbench-vlmevalkit`: VLMEvalKit's HallusionBench prediction file
(`{model}_HallusionBench.xlsx`) or its `{model}_HallusionBench_auxmatch.xlsx`, as
vlmeval/dataset/image_yorn.py and utils/yorn.py write them (open-compass/VLMEvalKit @ e8e78f0).

VLMEvalKit asks the 951 questions with a figure (the VS questions asked without one are left
out) and its rows hold neither `gt_answer_details` nor `visual_input`, which the judge and the
easy/hard split read: so its answers meet questions imported before, from the official files
(`lmmreview import hallusionbench`). A row finds its question by `l2-category` (category and
subcategory, `VD_illusion`) and by the set, figure and question ids, which VLMEvalKit's
`Hallusion_rating` reads as the 4th, 5th and 6th `_`-separated fields of `index` (it reads no
other field of it). The auxmatch workbook's `extracted` (Yes, No or Unknown: VLMEvalKit's
yes/no extraction, an LLM's where the rule found neither) and `score` (extracted equals
`answer`) are imported as a judgment of VLMEvalKit's.
"""

from __future__ import annotations

from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
)
from lmmreview.db.importers.vlmevalkit import PROMPT_VERSION, has, names_of, read_rows, require
from lmmreview.engine.benchmarks.hallusionbench import rules
from lmmreview.engine.benchmarks.hallusionbench.benchmark import CATEGORIES, HALLUSIONBENCH
from lmmreview.engine.scoring import IMPORTED, Judgment

JUDGE = "vlmevalkit-yorn"  # VLMEvalKit's yes/no matching (the file names no judge model;
# --judge files it under another name)
DATASETS = "HallusionBench"  # the dataset part of VLMEvalKit's file names
_COLUMNS = ("index", "l2-category", "prediction")
_JUDGED = ("extracted", "score", "answer")
_EXTRACTED = ("Yes", "No", "Unknown")
_IDS = (rules.SET_ID, rules.FIGURE_ID, rules.QUESTION_ID)  # index fields 4, 5 and 6


def read_request(request: ImportRequest) -> ImportBatch:
    """The answers of a prediction file, and an auxmatch workbook's verdicts on them."""
    file = request.path("file")
    assert file is not None  # the command requires it
    names = names_of(request, file, DATASETS)
    rows = read_rows(file, flags=("score",))  # pandas writes auxmatch's score as true/false
    require(rows, file, _COLUMNS, "VLMEvalKit's HallusionBench rows")
    judged = has(rows, "extracted") or has(rows, "score")
    if judged:
        require(rows, file, _JUDGED, "an auxmatch workbook's verdicts")
    batch = ImportBatch(request.dataset or HALLUSIONBENCH.name, HALLUSIONBENCH.name, str(file))
    seen: dict[str, str] = {}  # key -> the row it was read from
    for where, row in rows:
        key = question_key(row["index"], row["l2-category"], file, where)
        if key in seen:
            raise ImportFailure(file, f"duplicate question {key!r} (also {seen[key]})", where)
        seen[key] = where
        batch.answers.append(AnswerRecord(key, names.model, row["prediction"], str(file)))
        if judged:
            judgment = _judgment(row, file, where)
            batch.judgments.append(JudgmentRecord(key, names.model, judgment))
    return batch


def question_key(index: str, l2_category: str, file: Path, where: str) -> str:
    """The question's id, category_subcategory_set_figure_question, from `l2-category` and
    the 4th to 6th fields of `index`."""
    category, _, subcategory = l2_category.partition("_")
    if category not in CATEGORIES or not subcategory:
        message = f"l2-category {l2_category!r}: expected VD_ or VS_ and a subcategory"
        raise ImportFailure(file, message, where)
    ids = index.split("_")[3:6]
    if len(ids) < len(_IDS) or not all(i.isdigit() for i in ids):
        message = f"index {index!r}: no set, figure and question numbers in its fields 4 to 6"
        raise ImportFailure(file, message, where)
    values = {rules.CATEGORY: category, rules.SUBCATEGORY: subcategory}
    return rules.sample_key(values | dict(zip(_IDS, ids, strict=True)))


def _judgment(row: dict[str, str], file: Path, where: str) -> Judgment:
    """The auxmatch verdict: right when `score` is true, which must be `extracted` equal to
    `answer`, as VLMEvalKit computes it."""
    extracted, answer, score = row["extracted"], row["answer"], row["score"].lower()
    if extracted not in _EXTRACTED:
        raise ImportFailure(file, f"extracted {extracted!r}: expected Yes, No or Unknown", where)
    if score not in ("true", "false"):
        raise ImportFailure(file, f"score {row['score']!r}: expected True or False", where)
    if (score == "true") != (extracted == answer):
        message = (
            f"score {row['score']} disagrees with extracted {extracted!r} and answer {answer!r}"
        )
        raise ImportFailure(file, message, where)
    return Judgment(
        run=0,
        score=1.0 if score == "true" else 0.0,
        method=IMPORTED,
        kind=IMPORTED,
        judge_model=JUDGE,
        prompt_version=PROMPT_VERSION,
        reply=f"extracted {extracted}",
        source=str(file),
    )
