"""`lmmreview import mmstar`: the official submission workbook (eval/submits/
{model}_MMStar.xlsx, as the official run.py writes it) or VLMEvalKit's MMStar predictions
({model}_MMStar.xlsx, .tsv or .json), one model's answers in one setting.

With --questions, the dataset's own TSV (`MMStar.tsv`: `index` and a base64 `image` per
question) gives the questions asked with the image their images.

A row holds `index`, `question` (its options inside the text), `answer` (A to D),
`category` (one of the 6 core capabilities), `l2_category` (VLMEvalKit: `l2-category`; one
of that capability's 3 axes) and the model's `prediction`; VLMEvalKit's also has the
options in `A` to `D`. The official script reads the same columns and nothing else.
VLMEvalKit's result workbook (`{model}_MMStar_{judge}_result.xlsx`) adds `hit` (1 or 0:
its lenient choice matching, then its judge model) and `log`, imported as that judge's
verdicts beside the strict rule's.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
)
from lmmreview.db.importers.read import base64_images, read_table
from lmmreview.db.importers.vlmevalkit import (
    HIT,
    Rows,
    has,
    hit_judgment,
    names_of,
    read_rows,
    require,
)
from lmmreview.engine.benchmarks.mmstar import rules
from lmmreview.engine.benchmarks.mmstar.benchmark import AXIS, CAPABILITY, MMSTAR, SETTING
from lmmreview.engine.types import QuestionType, Sample

COLUMNS = ("question", "answer", "category")
L2_COLUMNS = ("l2_category", "l2-category")  # the official file's, VLMEvalKit's
IMAGE_COLUMNS = ("index", "image")  # what --questions is read for
JUDGE = "vlmevalkit mcq"  # when the file's name names no judge model
VLMEVALKIT_DATASETS = "MMStar"  # the dataset part of VLMEvalKit's file names


def read_request(request: ImportRequest) -> ImportBatch:
    """One model's answers in the setting --setting names (default: with the image)."""
    file = request.path("file")
    assert file is not None  # the command requires it
    setting = request.text("setting") or rules.WITH_IMAGE
    if setting not in rules.SETTINGS:
        raise ImportFailure("--setting", f"{setting!r}: expected {', '.join(rules.SETTINGS)}")
    names = names_of(request, file, VLMEVALKIT_DATASETS)
    rows = read_rows(file)
    require(rows, file, COLUMNS, "the official MMStar prediction workbook")
    batch = ImportBatch(request.dataset or MMSTAR.name, MMSTAR.name, str(file))
    batch.answers_for = partial(in_setting, setting)
    for sample, prediction in _samples(rows, file, setting):
        batch.samples.append(sample)
        batch.answers.append(AnswerRecord(sample.key, names.model, prediction, str(file)))
    if has(rows, HIT):
        judge = names.judge or JUDGE
        for (where, row), sample in zip(rows, batch.samples, strict=True):
            judgment = hit_judgment(row, judge, file, where)
            batch.judgments.append(JudgmentRecord(sample.key, names.model, judgment))
    questions = request.path("questions")
    if questions is not None and setting == rules.WITH_IMAGE:  # the others saw no image
        _add_images(batch, questions)
    return batch


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's answers with the image (their images from the
    questions' TSV), then demo-alpha's without the image and its language model's."""
    folder = data / "mmstar"
    return [
        ImportRequest({"file": path, "setting": setting, "questions": folder / "MMStar.tsv"})
        for setting in rules.SETTINGS
        for path in sorted((folder / setting).glob("*_MMStar.tsv"))
    ]


def _add_images(batch: ImportBatch, questions: Path) -> None:
    """The images of the batch's questions, by index, from the dataset's TSV."""
    wanted = {sample.key for sample in batch.samples}
    with base64_images(questions) as decoded:
        for line, row in read_table(questions, IMAGE_COLUMNS):
            if (index := row["index"].strip()) in wanted:
                decoded.add(index, row["image"], f"line {line}")
        images = decoded.checked()
    for key, image in images:
        batch.add_image(key, image)


def _samples(rows: Rows, file: Path, setting: str) -> list[tuple[Sample, str]]:
    """Each row's question in `setting` and its prediction; an index only once."""
    l2 = next((name for name in L2_COLUMNS if name in rows[0][1]), None)
    if l2 is None:
        raise ImportFailure(file, f"missing column {L2_COLUMNS[0]!r} (or {L2_COLUMNS[1]!r})")
    seen: dict[str, str] = {}
    found = []
    for where, row in rows:
        index = row["index"].strip()
        if not index:
            raise ImportFailure(file, "empty index", where)
        if index in seen:
            raise ImportFailure(file, f"index {index} again (also at {seen[index]})", where)
        seen[index] = where
        category = check_axis(row["category"], row[l2], file, where)
        gold = check_gold(row["answer"], file, where)
        options = {letter: row.get(letter, "") for letter in rules.LETTERS}
        sample = mmstar_sample(index, row["question"], gold, category, row[l2], setting, options)
        found.append((sample, row["prediction"]))
    return found


def check_gold(gold: str, file: Path, where: str) -> str:
    """The gold's letter (the official rule lowercases and strips it)."""
    letter = rules.normalised(gold).upper()
    if letter not in rules.LETTERS:
        raise ImportFailure(file, f"answer {gold!r}: expected one of A, B, C, D", where)
    return letter


def check_axis(capability: str, axis: str, file: Path, where: str) -> str:
    """The capability, checked to be MMStar's and to hold the axis (the official script
    fails on any other)."""
    if capability not in {c for c, _, _ in rules.CAPABILITIES}:
        raise ImportFailure(file, f"category {capability!r}: not one of MMStar's 6", where)
    if rules.AXES.get(axis) != capability:
        message = f"l2 category {axis!r}: not one of the axes of {capability!r}"
        raise ImportFailure(file, message, where)
    return capability


def mmstar_sample(
    index: str,
    question: str,
    gold: str,
    capability: str,
    axis: str,
    setting: str,
    options: dict[str, str],
) -> Sample:
    """A question in a setting (its key: `sample_key`), which counts in that setting's
    score only when not with the image."""
    return Sample(
        sample_key(index, setting),
        question,
        QuestionType.CHOICE,
        gold,
        options=options,
        axes={CAPABILITY: (capability,), AXIS: (axis,), SETTING: (setting,)},
    )


def sample_key(index: str, setting: str) -> str:
    """A question's key: its index with the image, `<setting>/<index>` without (a question
    of its own)."""
    return index if setting == rules.WITH_IMAGE else f"{setting}/{index}"


def in_setting(setting: str, key: str) -> bool:
    """Whether the sample `key` (see `sample_key`) is a question in `setting`."""
    prefix, slash, _ = key.partition("/")
    found = prefix if slash and prefix in rules.SETTINGS else rules.WITH_IMAGE
    return found == setting
