"""Inspect AI's `.eval` logs (`lmmreview import inspect`), read through inspect_ai's own
log API (the optional extra lmmreview[inspect]), never unpacked here.

Each sample of the log (each epoch of it) becomes a sample of a generic dataset: the input's
text is the question, its images (data URIs) the sample's images, the target the gold, the
choices its options; the output's completion is the model's answer, and every scorer's
score an imported judgment of a judge named after the scorer. The sample keeps its Inspect
id and epoch (extra fields), by which `export --format inspect` finds it again.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    JudgmentRecord,
    ToolRun,
    check_model_argument,
    listed,
)
from lmmreview.db.importers.read import existing, image_from_bytes
from lmmreview.db.imports import file_sha256
from lmmreview.db.optional import INSTALL_INSPECT
from lmmreview.engine.benchmarks.generic import GENERIC
from lmmreview.engine.scoring import Judgment, Status, imported
from lmmreview.engine.types import QuestionType, Sample

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample, EvalSpec
    from inspect_ai.scorer import Score

TOOL = "inspect_ai"  # ToolRun.tool of an Inspect import: `export --format inspect` finds it
PROMPT_VERSION = "inspect_ai"  # the judgments followed the log's scorers, not lmmreview's
ID, EPOCH = "inspect_id", "inspect_epoch"  # a sample's extra fields
# Inspect's own score letters as its value_to_float maps them: correct, partial,
# incorrect, no answer; and the words it reads as true and false.
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
TWICE = (
    "another sample has this id (as text or as a number) and epoch: Inspect requires unique "
    "ids (`inspect eval` refuses such a dataset), and `export --format inspect` finds a "
    "sample by them: give each sample its own id"
)
CHUNKED = (
    "a log whose samples are stored in chunks (`inspect log convert-chunked`) is one it "
    "cannot read back yet: open it in `inspect view`, or give the log as Inspect wrote it"
)


def inspect_log_api(file: str | Path) -> ModuleType:
    """inspect_ai.log, or one line saying how to install the extra it comes with."""
    try:
        import inspect_ai.log
    except ImportError:
        raise ImportFailure(
            file, f"reading Inspect AI logs needs the extra lmmreview[inspect]: {INSTALL_INSPECT}"
        ) from None
    return inspect_ai.log


def inspect_version() -> str:
    from inspect_ai import __version__

    return f"inspect_ai {__version__}"


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import inspect`."""
    path = request.path("log")
    assert path is not None  # the command requires it
    model = request.text("model")
    check_model_argument(model)
    api = inspect_log_api(path)
    sha256 = file_sha256(existing(path))  # before inspect_ai reads it: the file imported
    spec = _header(api, path).eval
    source = str(path.absolute())  # where `export --format inspect` finds the log again
    batch = ImportBatch(request.dataset or spec.task, GENERIC.name, source, sha256=sha256)
    batch.run = tool_run(spec)
    batch.one_judge = False  # a judge per scorer
    seen: set[str] = set()
    failed: list[str] = []  # the samples that ended in an error: no answer
    edited: list[str] = []  # scores edited since the scorer gave them (score edits)
    for sample in _samples(api, path):
        key = sample_key(sample.id, sample.epoch)
        if key in seen:  # importing one would lose an answer silently
            raise ImportFailure(path, TWICE, f"sample {key!r}")
        seen.add(key)
        if not _add_sample(batch, key, sample, model or spec.model, path):
            failed.append(key)
        edited += [f"{key} ({name})" for name, s in (sample.scores or {}).items() if s.history]
    if not batch.samples:
        raise ImportFailure(path, "the log holds no samples")
    if failed:
        batch.warnings.append(
            f"{path}: {len(failed)} sample(s) ended in an error in Inspect, no answer "
            f"imported: {listed(failed)}"
        )
    if edited:
        batch.warnings.append(
            f"{path}: {len(edited)} score(s) were edited after the scorer gave them (an "
            f"`export --format inspect` copy, or Inspect's edit_score): the scorers' own "
            f"values imported, the edits not: {listed(edited)}"
        )
    batch.warnings.extend(_unmapped(batch.judgments, path))
    return batch


def _add_sample(batch: ImportBatch, key: str, sample: EvalSample, model: str, path: Path) -> bool:
    """Add a sample and its images, and unless it ended in an error, the model's answer
    and every scorer's judgment of it; whether it had an answer."""
    batch.samples.append(_sample(key, sample))
    _add_images(batch, key, sample, path)
    if sample.error is not None:
        return False
    batch.answers.append(AnswerRecord(key, model, sample.output.completion, batch.source))
    batch.judgments.extend(
        JudgmentRecord(key, model, judgment(name, score, batch.source))
        for name, score in (sample.scores or {}).items()
    )
    return True


def _header(api: ModuleType, path: Path) -> EvalLog:
    """The log's header (EvalLog without samples); anything inspect_ai cannot read as a
    log is refused, with what it said."""
    try:
        header: EvalLog = api.read_eval_log(str(path), header_only=True)
    except Exception as exc:  # inspect_ai raises many kinds for a file that is no log
        raise ImportFailure(
            path, f"not a log {inspect_version()} can read ({_said(exc)})"
        ) from None
    return header


def _samples(api: ModuleType, path: Path) -> Iterator[EvalSample]:
    """Every sample the log lists, with its attachments (images) resolved. One the log
    lists and inspect_ai cannot read back refuses the log."""
    for summary in api.read_eval_log_sample_summaries(str(path)):
        try:
            yield api.read_eval_log_sample(
                str(path), summary.id, summary.epoch, resolve_attachments=True
            )
        except Exception as exc:  # IndexError, or pydantic's for a sample half read
            where = f"sample {summary.id!r}, epoch {summary.epoch}"
            message = f"{inspect_version()} cannot read it ({_said(exc)}); {CHUNKED}"
            raise ImportFailure(path, message, where) from None


def _said(exc: Exception) -> str:
    """An exception's first line, named by its type."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def sample_key(sample_id: int | str, epoch: int) -> str:
    """A sample's key: its Inspect id, and for an epoch after the first, the epoch too
    (each epoch is another answer to the question, so another sample here)."""
    return str(sample_id) if epoch == 1 else f"{sample_id} epoch {epoch}"


def _sample(key: str, sample: EvalSample) -> Sample:
    """The question (the input's text), gold (the target) and options (the choices)."""
    golds = [sample.target] if isinstance(sample.target, str) else list(sample.target)
    golds = [gold for gold in golds if gold]
    options = {chr(ord("A") + i): text for i, text in enumerate(sample.choices or [])}
    return Sample(
        key=key,
        question=_input_text(sample.input),
        question_type=QuestionType.CHOICE if options else QuestionType.OPEN,
        answer=golds[0] if golds else None,
        alt_answers=tuple(golds[1:]),
        options=options,
        extra={ID: sample.id, EPOCH: sample.epoch},
    )


def _input_text(value: str | list[Any]) -> str:
    """The input as text: the text of each message, a blank line between them."""
    if isinstance(value, str):
        return value
    return "\n\n".join(message.text for message in value if message.text)


def _add_images(batch: ImportBatch, key: str, sample: EvalSample, path: Path) -> None:
    """The input's images (ContentImage data URIs) as the sample's images, in order; an
    image given by a URL or a path is not in the log, and is warned of."""
    images = [
        part.image
        for message in (sample.input if isinstance(sample.input, list) else [])
        if isinstance(message.content, list)
        for part in message.content
        if part.type == "image"
    ]
    where = f"sample {key!r}"
    for number, image in enumerate(images, start=1):
        head, _, data = image.partition(",")
        if not (head.startswith("data:") and head.endswith(";base64")):
            batch.warnings.append(f"{path}: {where}: image {number} is not in the log, left out")
            continue
        try:
            decoded = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            message = f"image {number} is not valid base64 ({exc})"
            raise ImportFailure(path, message, where) from None
        batch.add_image(key, image_from_bytes(decoded, path, where, f"image {number}"))


def judgment(scorer: str, score: Score, source: str) -> Judgment:
    """A scorer's score as an imported judgment of judge `scorer`: Inspect's letters and
    true/false words as its value_to_float maps them, and a number in [0, 1] as it is. A
    value with no such meaning (another scale, a list, a dict, NaN) is kept unscored, the
    value in the reply, for a human or another judge to score. An edited score is read as
    the scorer gave it: the first of its history (the edits are somebody's verdicts, not
    the scorer's)."""
    own = score.history[0] if score.history else score
    recorded = {"value": own.value, "answer": own.answer, "explanation": own.explanation}
    reply = json.dumps({k: v for k, v in recorded.items() if v is not None}, ensure_ascii=False)
    value = mapped(own.value)
    found = imported(scorer, PROMPT_VERSION, value, reply, source)
    if value is None:
        error = f"Inspect's value {own.value!r} is not a score in [0, 1]"
        return replace(found, status=Status.UNPARSEABLE, error=error)
    return found


def mapped(value: object) -> float | None:
    """An Inspect score value as a score in [0, 1], or None when it has no such meaning."""
    if isinstance(value, str):
        if value in LETTERS:
            return LETTERS[value]
        if value.strip().lower() in WORDS:
            return WORDS[value.strip().lower()]
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 1:
        return float(value)
    return None


def _unmapped(records: list[JudgmentRecord], path: Path) -> list[str]:
    """A warning per scorer with values kept unscored."""
    kept: dict[str, list[str]] = {}
    for record in records:
        if record.judgment.score is None:
            kept.setdefault(record.judgment.judge_model, []).append(record.key)
    return [
        f"{path}: scorer {scorer!r}: {len(keys)} value(s) not a score in [0, 1], kept "
        f"unscored: {listed(keys)}"
        for scorer, keys in kept.items()
    ]


def tool_run(spec: EvalSpec) -> ToolRun:
    """What the log records of its run: the packages' versions, the task's git commit,
    the task and its arguments (as `inspect eval` takes them), the grader model and when."""
    packages = dict(spec.packages)
    versions = [packages.pop(TOOL, ""), *(f"{name} {v}" for name, v in packages.items())]
    arguments = [
        f"-T {name}={value if isinstance(value, str) else json.dumps(value)}"
        for name, value in spec.task_args.items()
    ]
    return ToolRun(
        TOOL,
        version=", ".join(v for v in versions if v),
        commit=spec.revision.commit if spec.revision else "",
        command=" ".join([spec.task, *arguments]),
        judge=_grader(spec.model_roles or {}),
        date=spec.created,
    )


def _grader(roles: dict[str, Any]) -> str:
    """The model (or models) of the "grader" role, which Inspect's model-graded scorers use."""
    grader = roles.get("grader")
    configs = grader if isinstance(grader, list) else [grader] if grader else []
    return ", ".join(config.model for config in configs)
