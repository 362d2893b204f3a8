"""What an importer produces: everything parsed and checked, nothing written yet."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from lmmreview.db.store import StoredImage
from lmmreview.engine.checks import Expected
from lmmreview.engine.scoring import GroupVerdict, Judgment
from lmmreview.engine.secrets import redact_command
from lmmreview.engine.types import QuestionType, Sample


class ImportFailure(Exception):
    """Bad input: one line naming the file and the row or id."""

    def __init__(self, file: str | Path, message: str, where: str | None = None) -> None:
        self.file = str(file)
        self.where = where
        self.message = message
        text = f"{file}: {where}: {message}" if where else f"{file}: {message}"
        super().__init__(one_line(text))


# What str.splitlines() breaks a line at: shown as escapes so a message stays one line.
_LINE_BREAKS = str.maketrans(
    {c: c.encode("unicode_escape").decode() for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}
)


def one_line(text: str) -> str:
    """`text` with its line breaks written as escapes (an id may hold any character)."""
    return text.translate(_LINE_BREAKS)


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """One model's answer to one sample, and where it came from."""

    key: str
    model: str
    text: str
    source: str  # file name, for messages


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    """A human verdict lmmreview exported into another tool's format (a grade run named
    "human:<reviewer>"), read back as the verdict it was."""

    key: str
    model: str
    score: float
    reviewer: str
    source: str


@dataclass(frozen=True, slots=True)
class JudgmentRecord:
    """A judgment another tool made of one model's answer (kind IMPORTED, with its file)."""

    key: str
    model: str
    judgment: Judgment


_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ToolRun:
    """What the tool that wrote a file recorded of its run, kept with the import of its
    judgments (`lmmreview imports`): each as the tool recorded it, "" where it did not."""

    tool: str  # "lmms-eval", "VLMEvalKit", "inspect_ai", ...
    version: str = ""
    commit: str = ""  # the tool's git commit, where it names one
    command: str = ""  # the command line, or the options it resolved
    judge: str = ""  # the judge or extractor model it names
    date: str = ""  # when the run was made

    def recorded(self) -> dict[str, str]:
        """The fields the tool recorded (the empty ones left out), with every secret hidden:
        a command line may carry an API key (lmms-eval's model_args), and a key never lands
        in the database."""
        secrets = environment_secrets()
        return {
            f.name: redact_command(getattr(self, f.name), secrets)
            for f in fields(self)
            if getattr(self, f.name)
        }


def environment_secrets() -> list[str]:
    """The values of this process's environment variables named like a key, token, secret
    or password (OPENAI_API_KEY, HF_TOKEN, ...): texts never to store."""
    return [value for name, value in os.environ.items() if _SECRET_VARIABLE.search(name)]


def every_sample(key: str) -> bool:
    """ImportBatch.answers_for's default: a model is to answer every sample."""
    return True


@dataclass(slots=True)
class ImportBatch:
    """A dataset's samples, their images and any answers, ready to load in one transaction."""

    dataset: str
    kind: str  # the benchmark's name
    source: str
    samples: list[Sample] = field(default_factory=list)
    images: dict[str, StoredImage] = field(default_factory=dict)  # by content hash
    sample_images: dict[str, list[str]] = field(default_factory=dict)  # key -> hashes, in order
    answers: list[AnswerRecord] = field(default_factory=list)
    judgments: list[JudgmentRecord] = field(default_factory=list)
    verdicts: list[VerdictRecord] = field(default_factory=list)  # lmmreview's own, exported
    group_verdicts: list[GroupVerdict] = field(default_factory=list)
    checks: list[Expected] = field(default_factory=list)  # numbers to compare the tables with
    warnings: list[str] = field(default_factory=list)
    # --replace: remove the earlier imports of the same judge on these answers first
    replace: bool = False
    # the sha256 its import of judgments is recorded by, read before `source` was renamed
    # to something this machine may not hold (the demo's sample_data/...)
    sha256: str | None = None
    # which of the dataset's samples (by key) its models are to answer: those a model
    # without an answer is warned of (MMStar's answers in one setting are not for the
    # questions of the others)
    answers_for: Callable[[str], bool] = every_sample
    run: ToolRun | None = None  # what the writing tool recorded of its run, if anything
    # whether its judgments are one judge's, which --judge NAME may rename (an Inspect
    # log's are one judge per scorer: its command has no --judge)
    one_judge: bool = True

    def add_image(self, key: str, image: StoredImage) -> None:
        """Attach an image to sample `key` (after its other images)."""
        self.images.setdefault(image.hash, image)
        self.sample_images.setdefault(key, []).append(image.hash)

    def name_judge(self, judge: str) -> None:
        """File the judgments and circular verdicts under judge `judge` (--judge)."""
        if not judge.strip():
            raise ImportFailure("--judge", "the judge name is empty: give a name or leave it out")
        self.judgments = [
            replace(r, judgment=replace(r.judgment, judge_model=judge)) for r in self.judgments
        ]
        self.group_verdicts = [replace(v, judge_model=judge) for v in self.group_verdicts]


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """What `lmmreview import NAME` was given: the values of the argument and options its
    benchmark's `Importer` declares, by name (a list for a repeatable one, None if absent)."""

    values: dict[str, object]
    dataset: str | None = None

    def path(self, name: str) -> Path | None:
        value = self.values.get(name)
        return value if isinstance(value, Path) else None

    def paths(self, name: str) -> list[Path]:
        value = self.values.get(name)
        return [v for v in value if isinstance(v, Path)] if isinstance(value, list) else []

    def text(self, name: str) -> str | None:
        value = self.values.get(name)
        return value if isinstance(value, str) else None

    def texts(self, name: str) -> list[str]:
        value = self.values.get(name)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def listed(names: list[str], shown: int = 8) -> str:
    """A few names for a message, and how many more there are."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def check_batch(batch: ImportBatch) -> dict[str, list[AnswerRecord]]:
    """Refuse what the database cannot store; return the answers by model.

    Every text must be valid Unicode (a lone surrogate, from a JSON escape or a byte that
    is not UTF-8 in a file name or argument, cannot be stored).
    """
    _check_unicode(batch.source, batch.source, "the file name")
    _check_unicode(batch.dataset, batch.source, "the dataset name")
    for sample in batch.samples:
        texts = _texts([getattr(sample, name) for name in _SAMPLE_FIELDS], [])
        _check_row(texts, batch.source, sample.key)
    by_model: dict[str, list[AnswerRecord]] = {}
    for record in batch.answers:
        _check_row(
            (record.source, record.model, record.key, record.text), record.source, record.key
        )
        by_model.setdefault(record.model, []).append(record)
    return by_model


_SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))


def _check_row(texts: Sequence[str], file: str, key: str) -> None:
    """`_check_unicode` for each of a row's texts, the row named by its id. Most text is
    ASCII, hence valid: the row's texts are tested together, and a message is made only
    for a bad one (a million rows)."""
    if not all(map(str.isascii, texts)):
        for text in texts:
            _check_unicode(text, file, f"id {_shown(key)}")


def first_answers(records: list[AnswerRecord]) -> dict[str, AnswerRecord]:
    """One model's answers by sample key, identical repeats left out: a model may not give
    two different answers to one sample within one import. (Checked a model at a time,
    so that only one model's keys are held at once.)"""
    first: dict[str, AnswerRecord] = {}
    for record in records:
        seen = first.setdefault(record.key, record)
        if seen.text != record.text:
            other = "the same file" if seen.source == record.source else seen.source
            raise ImportFailure(
                record.source,
                f"model {record.model!r} has two different answers to this sample "
                f"(the other in {other}); give each model one answer per sample",
                f"id {record.key}",
            )
    return first


def check_model_argument(model: str | None) -> None:
    """Refuse a --model name that is not valid Unicode (a byte that is not UTF-8 on the
    command line), blaming the argument rather than the data it would be stored with."""
    if model is not None and _lone_surrogate(model) is not None:
        raise ImportFailure(
            "--model", f"'{_shown(model)}' is not valid Unicode (a byte that is not UTF-8)"
        )


def model_name(model: str | None, path: Path) -> str:
    """The model an import files answers under: --model if given, else the file's name
    without its extension (a folder's whole name, as MMMU's outputs folder is the model's)."""
    if model:
        return model
    return path.name if path.is_dir() else path.stem


def _texts(value: object, found: list[str]) -> list[str]:
    """Every string in a field value (text, or lists, tuples and dicts of them), added to
    `found` (twice as fast as a generator at each level)."""
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _texts(key, found)
            _texts(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _texts(item, found)
    return found


def _check_unicode(text: str, file: str, where: str) -> None:
    bad = _lone_surrogate(text)
    if bad is not None:
        raise ImportFailure(
            _shown(file), f"text that is not valid Unicode (a lone surrogate {bad})", where
        )


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in `text`, escaped; None when `text` is valid Unicode."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start].encode("utf-8", "backslashreplace").decode()
    return None


def contents_problem(batch: ImportBatch) -> str | None:
    """Why a batch a plug-in's reader returned cannot be stored (its first sample or answer
    that is not of the types lmmreview's own readers give), or None. The check is on the
    types only: a plug-in decides its own values."""
    for sample in batch.samples:
        problem = _sample_problem(sample)
        if problem is not None:
            return f"sample {quoted(getattr(sample, 'key', sample))}: {problem}"
    for answer in batch.answers:
        if not isinstance(answer, AnswerRecord) or not all(
            isinstance(text, str) for text in (answer.key, answer.model, answer.text, answer.source)
        ):
            return (
                f"answer {quoted(answer)}: not an AnswerRecord of texts (key, model, text, source)"
            )
    return None


def _sample_problem(sample: object) -> str | None:
    if not isinstance(sample, Sample):
        return f"{type(sample).__name__}, not a Sample"
    if not isinstance(sample.key, str) or not sample.key or not isinstance(sample.question, str):
        return "key and question must be text (key not empty)"
    if not isinstance(sample.question_type, QuestionType):
        return f"question_type {quoted(sample.question_type)} is not a QuestionType"
    texts = [sample.answer, sample.hint, sample.split]
    if not all(text is None or isinstance(text, str) for text in texts):
        return "answer, hint and split must be text or None"
    if not all(isinstance(text, str) for text in sample.alt_answers):
        return "alt_answers must be texts"
    if not isinstance(sample.options, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in sample.options.items()
    ):
        return "options must map letters to texts"
    if not isinstance(sample.axes, dict) or not all(
        isinstance(axis, str)
        and isinstance(values, tuple)
        and all(isinstance(v, str) for v in values)
        for axis, values in sample.axes.items()
    ):
        return "axes must map names to tuples of texts"
    if not isinstance(sample.extra, dict) or not all(
        isinstance(k, str) and _plain(v) for k, v in sample.extra.items()
    ):
        return "extra must map names to text, whole numbers, finite numbers, true/false or None"
    return None


def _plain(value: object) -> bool:
    """A plain JSON value lmmreview stores: a finite float, not NaN or infinity."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


def quoted(value: object, width: int = 40) -> str:
    """A value as an error message shows it: quoted, cut when long."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown(text: str) -> str:
    """Text with lone surrogates written as escapes, so a message can be printed."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
