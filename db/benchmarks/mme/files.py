"""MME: the official eval_tool's result files, one model's answers.

The official tool (eval_tool/calculation.py) reads a folder of 14 files named by subtask
(existence.txt ... code_reasoning.txt, `OCR.txt` capitalised), each line
image TAB question TAB gold TAB response, and pairs the lines by position: lines 1 and 2
are the first image's two questions, and so on. It refuses an odd number of lines and a
line without exactly four fields (a tab inside a response), and so does this reader. The
line's ending is not part of the response: the official rule reads the same label with or
without it.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lmmreview.db.importers.batch import (
    AnswerRecord,
    ImportBatch,
    ImportFailure,
    ImportRequest,
    check_model_argument,
    listed,
    model_name,
)
from lmmreview.db.importers.read import ImageFiles, existing, read_text
from lmmreview.engine.benchmarks.mme import rules
from lmmreview.engine.benchmarks.mme.benchmark import IMAGE, MME_BENCHMARK, ORDER, PAIR, SUBTASK
from lmmreview.engine.types import QuestionType, Sample

FIELDS = 4  # image, question, gold, response
GOLDS = (rules.YES, rules.NO)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a subtask file, as the official tool splits it."""

    image: str
    question: str
    gold: str
    response: str


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import mme`."""
    results = request.path("results")
    if results is None:
        raise ImportFailure("mme", "give the folder of the subtask files")
    dataset = request.dataset or MME_BENCHMARK.name
    return read_results(results, request.text("model"), dataset, request.path("images"))


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's results folder, with the images."""
    folder = data / "mme"
    return [
        ImportRequest({"results": path, "model": path.name, "images": folder / "images"})
        for path in sorted((folder / "results").iterdir())
        if path.is_dir()
    ]


def read_results(
    folder: Path, model: str | None = None, dataset: str = "mme", images: Path | None = None
) -> ImportBatch:
    """The questions and one model's answers of every subtask file in `folder`; with
    `images`, each question's image from MME's release folder."""
    check_model_argument(model)
    folder = existing(folder, "folder")
    name = model_name(model, folder)
    batch = ImportBatch(dataset, MME_BENCHMARK.name, str(folder))
    release = existing(images, "folder") if images is not None else None
    for subtask, path in _subtask_files(folder, batch):
        pictures = _pictures(release, subtask)
        for sample, response, where in subtask_samples(subtask, path):
            batch.samples.append(sample)
            batch.answers.append(AnswerRecord(sample.key, name, response, str(path)))
            if pictures is not None:
                _add_image(batch, pictures, sample, path, where)
        if pictures is not None:
            batch.warnings.extend(pictures.warnings())
    return batch


def _subtask_files(folder: Path, batch: ImportBatch) -> list[tuple[str, Path]]:
    """The subtask files the folder holds, in the paper's order; a warning names those
    missing (the official tool needs all 14)."""
    files = [(subtask, folder / f"{subtask}.txt") for subtask in rules.SUBTASKS]
    found = [(subtask, path) for subtask, path in files if path.is_file()]
    if not found:
        names = ", ".join(path.name for _, path in files)
        raise ImportFailure(folder, f"holds no subtask file ({names})")
    if len(found) < len(files):
        missing = [path.name for subtask, path in files if (subtask, path) not in found]
        batch.warnings.append(
            f"{folder}: {len(missing)} of the 14 subtask files missing ({listed(missing)}); "
            "Perception and Cognition sum the subtasks present"
        )
    return found


def subtask_samples(subtask: str, path: Path) -> list[tuple[Sample, str, str]]:
    """Each line of a subtask file as a sample, with its response and where it was read;
    lines 2k-1 and 2k are a pair (as the official tool pairs them), named by the first
    one's image: the same pair in every model's file, wherever its lines stand."""
    found = []
    seen: dict[str, str] = {}  # key -> where it was read
    pair = ""
    for index, line in enumerate(read_lines(path)):
        where = f"line {index + 1}"
        order = index % 2 + 1
        pair = line.image if order == 1 else pair
        sample = mme_sample(subtask, line.image, pair, order, line.question, line.gold)
        if sample.key in seen:
            message = f"image {line.image!r} has a second pair (also {seen[sample.key]})"
            raise ImportFailure(path, message, where)
        seen[sample.key] = where
        found.append((sample, line.response, where))
    return found


def read_lines(path: Path) -> list[Line]:
    """A subtask file's lines, split and checked as the official tool does: lines end at
    \\n, \\r\\n or \\r (its text mode), and come in pairs."""
    texts = io.StringIO(read_text(path), newline=None).read().split("\n")
    if texts[-1] == "":
        texts.pop()  # the last line's ending
    if not texts:
        raise ImportFailure(path, "empty: no questions")
    if len(texts) % 2:
        message = f"{len(texts)} lines, an odd number: each image has two questions, one pair"
        raise ImportFailure(path, message, f"line {len(texts)}")
    return [_line(text, path, f"line {number}") for number, text in enumerate(texts, start=1)]


def _line(text: str, path: Path, where: str) -> Line:
    fields = text.split("\t")
    if len(fields) != FIELDS:
        message = (
            f"{len(fields)} tab-separated fields, expected 4: image, question, gold, response "
            "(a response on one line, without tabs)"
        )
        raise ImportFailure(path, message, where)
    image, question, gold, response = fields
    if not image.strip():
        raise ImportFailure(path, "no image name", where)
    check_gold(gold, path, where)
    return Line(image, question, gold, response)


def check_gold(gold: str, path: Path, where: str) -> None:
    if gold.lower() not in GOLDS:
        raise ImportFailure(path, f"gold {gold!r}: expected Yes or No", where)


def mme_sample(subtask: str, image: str, pair: str, order: int, question: str, gold: str) -> Sample:
    """A question: `<subtask>/<image>/<order>`, the `order`-th of its subtask's pair `pair`
    (what the tables count once in acc+)."""
    return Sample(
        f"{subtask}/{image}/{order}",
        question,
        QuestionType.OPEN,
        gold,
        axes={SUBTASK: (subtask,)},
        extra={IMAGE: image, PAIR: f"{subtask}/{pair}", ORDER: order},
    )


def _pictures(release: Path | None, subtask: str) -> ImageFiles | None:
    """A subtask's images in MME's release folder: <subtask>/images/ where it has one (the
    five with a questions_answers_YN/ beside it), else <subtask>/."""
    if release is None:
        return None
    folder = release / subtask
    nested = folder / "images"
    return ImageFiles(nested if nested.is_dir() else folder)


def _add_image(
    batch: ImportBatch, pictures: ImageFiles, sample: Sample, path: Path, where: str
) -> None:
    image = pictures.read(str(sample.extra[IMAGE]), path, where)
    if image is not None:
        batch.add_image(sample.key, image)


class Pairs:
    """Numbers each image's questions in the order they are read, for the tools that pair
    an image's two by its id (lmms-eval, VLMEvalKit), and checks that each has two."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()

    def sample(self, subtask: str, image_id: str, question: str, gold: str) -> Sample:
        """The next question on the image `image_id` of `subtask` (a path: its file's
        name is the image's)."""
        self.seen[subtask, image_id] += 1
        order = self.seen[subtask, image_id]
        return mme_sample(subtask, PurePosixPath(image_id).name, image_id, order, question, gold)

    def check(self, source: str) -> None:
        """Refuse an image with other than two questions, as both tools do."""
        for (subtask, image_id), count in self.seen.items():
            if count != 2:
                message = f"{subtask} image {image_id!r} has {count} question(s): MME pairs two"
                raise ImportFailure(source, message)


def check_subtask(subtask: str, path: Path, where: str) -> None:
    if subtask not in rules.SUBTASKS:
        raise ImportFailure(path, f"category {subtask!r}: not one of MME's 14 subtasks", where)
