"""HallusionBench: the official result files, one model's answers.

`HallusionBench_result.json` is the official HallusionBench.json (a list of question rows:
category, subcategory, visual_input, set_id, figure_id, question_id, question,
gt_answer_details, gt_answer, ...) with the model's `model_prediction` on each row. The
official judge writes the same rows back in two files (`hallusion_output_vd_*.json`,
`_vs_*.json`) with its verdict `gpt4v_output_gpt_check` ("0" incorrect, "1" correct,
"2" uncertain): those are imported as the official judge's judgments.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    check_model_argument,
    model_name,
)
from lmmreview.db.importers.read import (
    ImageFiles,
    existing,
    optional_text_field,
    read_json,
    text_field,
)
from lmmreview.db.store import StoredImage
from lmmreview.engine.benchmarks.hallusionbench import rules
from lmmreview.engine.benchmarks.hallusionbench.benchmark import (
    CATEGORIES,
    HALLUSIONBENCH,
    verdict_score,
)
from lmmreview.engine.scoring import Judgment, imported
from lmmreview.engine.types import Extra, QuestionType, Sample

VERDICT = "gpt4v_output_gpt_check"  # the official judge's verdict on a row
PREDICTION = "model_prediction"
JUDGE_TEXT = "gpt_answer"  # lmms-eval's judge files: the prompt and the judge's reply
OFFICIAL_JUDGE = "gpt-4"  # the model evaluate_by_chatgpt asks unless told otherwise
_AXES = (rules.CATEGORY, rules.SUBCATEGORY)
# The id-like fields kept as extra fields, as the official json writes them (text).
_EXTRA = (rules.SET_ID, rules.FIGURE_ID, rules.QUESTION_ID, rules.VISUAL_INPUT, rules.GT_ANSWER)
_JUDGED_NAME = re.compile(r"^hallusion_output_v[ds]_")

_NUMBER = re.compile(r"0|[1-9][0-9]*", re.ASCII)  # a figure number, written plainly


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import hallusionbench`."""
    results = request.path("results")
    if results is None:
        raise ImportFailure("hallusionbench", "give a result file")
    dataset = request.dataset or HALLUSIONBENCH.name
    return read_results(results, request.text("model"), dataset, request.path("images"))


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's result file (its folder names the model), with the
    figures, then the official judge's files where the folder has them."""
    folder = data / "hallusionbench"
    requests = []
    for model in sorted(path for path in folder.glob("demo-*") if path.is_dir()):
        files = [model / "HallusionBench_result.json", *sorted(model.glob("hallusion_output_*"))]
        requests += [
            ImportRequest(
                {"results": path, "model": model.name, "images": folder / "hallusion_bench"}
            )
            for path in files
        ]
    return requests


def read_results(
    path: Path,
    model: str | None = None,
    dataset: str = "hallusionbench",
    images: Path | None = None,
) -> ImportBatch:
    """The questions, one model's answers and any official verdicts of one file (the
    questions only of a file with no `model_prediction`, the release's HallusionBench.json);
    with `images`, the figures each row's `filename` names there."""
    check_model_argument(model)
    name = model or _model_of(path)
    batch = ImportBatch(dataset, HALLUSIONBENCH.name, str(path))
    figures = ImageFiles(existing(images, "folder")) if images is not None else None
    lines: dict[str, int] = {}  # key -> the row it was read from
    rows = _rows(existing(path))
    # The release's HallusionBench.json, no row answered: its questions only (for other
    # tools' answers, VLMEvalKit's, to meet)
    answered = any(isinstance(row, dict) and PREDICTION in row for row in rows)
    for number, row in enumerate(rows, start=1):
        where = f"row {number}"
        sample = hallusion_sample(row, path, where)
        if sample.key in lines:
            message = f"duplicate question {sample.key!r} (also row {lines[sample.key]})"
            raise ImportFailure(path, message, where)
        lines[sample.key] = number
        batch.samples.append(sample)
        if (figure := _figure(figures, sample, path, where)) is not None:
            batch.add_image(sample.key, figure)
        if not answered:
            continue
        answer = text_field(row, PREDICTION, path, where)
        batch.answers.append(AnswerRecord(sample.key, name, answer, str(path)))
        if row.get(VERDICT) is not None:
            judgment = official_judgment(sample, row, path, where)
            batch.judgments.append(JudgmentRecord(sample.key, name, judgment))
    if figures is not None:
        batch.warnings.extend(figures.warnings())
    return batch


def _figure(
    figures: ImageFiles | None, sample: Sample, path: Path, where: str
) -> StoredImage | None:
    """The figure the row's `filename` names in the figures' folder; None without a
    folder or a filename, or when it is missing there (ImageFiles warns of it)."""
    filename = sample.extra.get("filename")
    if figures is None or not isinstance(filename, str):
        return None
    return figures.read(filename, path, where)


def _model_of(path: Path) -> str:
    """The file's name without .json, and without the judge's hallusion_output_vd_ or _vs_
    (so a model's two judged files name one model)."""
    stem = model_name(None, path)
    return _JUDGED_NAME.sub("", stem) or stem


def _rows(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise ImportFailure(path, "expected a JSON list of question rows (HallusionBench.json's)")
    return data


def hallusion_sample(row: Any, path: Path, where: str) -> Sample:
    """One question row as a sample: its id is category_subcategory_set_figure_question;
    `gt_answer_details` is its answer (what the judge compares with), `gt_answer` (yes 1,
    no 0) an extra field beside the ids and visual_input."""
    if not isinstance(row, dict):
        raise ImportFailure(path, "expected a JSON object", where)
    fields = {name: _id(row, name, path, where) for name in (*_AXES, *_EXTRA)}
    _check(fields, path, where)
    extra: Extra = {name: fields[name] for name in _EXTRA}
    for name in ("sample_note", "filename"):
        extra[name] = optional_text_field(row, name, path, where)
    return Sample(
        rules.sample_key(fields),
        text_field(row, "question", path, where),
        QuestionType.OPEN,
        text_field(row, "gt_answer_details", path, where),
        axes={name: (fields[name],) for name in _AXES},
        extra=extra,
    )


def _check(fields: dict[str, str], path: Path, where: str) -> None:
    """The values the rules read: a known category, visual_input and gt_answer, and a
    figure number."""
    if fields[rules.CATEGORY] not in CATEGORIES:
        message = f"category {fields[rules.CATEGORY]!r}: HallusionBench's are VD and VS"
        raise ImportFailure(path, message, where)
    if fields[rules.VISUAL_INPUT] not in rules.VISUAL_INPUTS:
        message = f"visual_input {fields[rules.VISUAL_INPUT]!r}: expected 0, 1 or 2"
        raise ImportFailure(path, message, where)
    if not _NUMBER.fullmatch(fields[rules.FIGURE_ID]):  # "00": 0 by int(), not by "0" ==
        message = f"figure_id {fields[rules.FIGURE_ID]!r} is not a number (0, 1, 2, ...)"
        raise ImportFailure(path, message, where)
    if fields[rules.GT_ANSWER] not in ("0", "1"):
        message = f"gt_answer {fields[rules.GT_ANSWER]!r}: expected 1 (yes) or 0 (no)"
        raise ImportFailure(path, message, where)


def official_judgment(sample: Sample, row: dict[str, Any], path: Path, where: str) -> Judgment:
    """The official judge's verdict on a row as an imported judgment, scored by the
    official rule (uncertain is right only without a figure); its reply is the judge's
    text where the file keeps it (lmms-eval's `gpt_answer`), else the verdict."""
    value = row[VERDICT]
    verdict = str(value)
    if isinstance(value, bool) or verdict not in rules.VERDICTS:
        message = f"{VERDICT} {value!r}: expected 0, 1 or 2"
        raise ImportFailure(path, message, where)
    score = verdict_score(verdict, rules.without_figure(sample))
    reply = _judge_reply(row, sample, path, where) or f"{verdict} ({rules.VERDICTS[verdict]})"
    return imported(OFFICIAL_JUDGE, rules.PROMPT_VERSION, score, reply, str(path))


def _judge_reply(row: dict[str, Any], sample: Sample, path: Path, where: str) -> str | None:
    """The judge's reply in lmms-eval's `gpt_answer` (the prompt, then the reply); None
    when the row has none, or one that does not begin with this row's prompt."""
    kept = optional_text_field(row, JUDGE_TEXT, path, where)
    prompt = rules.judge_prompt(
        sample.question, sample.golds[0], text_field(row, PREDICTION, path, where)
    )
    if kept is None or not kept.startswith(prompt):
        return None
    return kept[len(prompt) :]


def _id(row: dict[str, Any], name: str, path: Path, where: str) -> str:
    """An id field as the official json writes it: text (a whole number is read as its text)."""
    value = row.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise ImportFailure(path, f"missing or non-text field {name!r}", where)
    return value
