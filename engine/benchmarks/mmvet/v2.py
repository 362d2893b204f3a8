"""MM-Vet v2: MM-Vet with a seventh capability (seq) and questions that interleave images.

A question holds its images inline: its text is split at ``<IMG>``, and a segment ending in
``.jpg``, ``jpeg`` or ``.png`` is an image file name, in order (SCORING.md section 1b). The
judge sees each image as ``<image>`` in a Markdown pipe table; everything else (ground truths
with <AND>/<OR>, the retry ladder, the score) is as in v1.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from lmmreview.engine.benchmark import Benchmark, Importer, JudgeWork, Option
from lmmreview.engine.benchmarks.mmvet import rules as mmvet
from lmmreview.engine.benchmarks.mmvet.benchmark import Grading, MMVet
from lmmreview.engine.types import Sample

# v1's six and seq (image-text sequence understanding), in the tables' order.
CAPABILITY_TITLES: dict[str, str] = {**mmvet.CAPABILITY_TITLES, "seq": "Seq"}
CAPABILITIES: tuple[str, ...] = tuple(CAPABILITY_TITLES)

IMAGE_MARKER = "<IMG>"  # encloses each image file name in a question
IMAGE_ENDINGS = (".jpg", "jpeg", ".png")  # as the reference tests a segment, case and all
JUDGE_IMAGE = "<image>"  # what the judge sees where an image stands


def question_segments(question: str) -> list[tuple[str, bool]]:
    """The question's segments in order, each with whether it is an image file name."""
    return [(part, part.endswith(IMAGE_ENDINGS)) for part in question.split(IMAGE_MARKER)]


def image_names(question: str) -> list[str]:
    """The image file names a question holds, in order (a name may repeat)."""
    return [part for part, is_image in question_segments(question) if is_image]


def _with_images_as(question: str, shown: list[str]) -> str:
    """The question with its n-th image written `shown[n]` and the markers dropped."""
    images = iter(shown)
    return "".join(
        next(images) if is_image else part for part, is_image in question_segments(question)
    )


def judge_question(question: str) -> str:
    """The question as the judge sees it: every image written ``<image>``."""
    return _with_images_as(question, [JUDGE_IMAGE] * len(image_names(question)))


def screen_question(question: str) -> str:
    """The question as the screen shows it: the n-th image written ``[image n]``, matching
    the caption under that image."""
    count = len(image_names(question))
    return _with_images_as(question, [f"[image {n}]" for n in range(1, count + 1)])


# --- The judge prompt (a protocol constant: its text must stay byte for byte) ---------------

IMAGE_NOTE = f"{JUDGE_IMAGE} in the question indicates where an image is."
# v1's instruction with the image note after its first sentence.
INSTRUCTION = mmvet.INSTRUCTION.replace(
    " <AND> in the ground truth", f" {IMAGE_NOTE} <AND> in the ground truth", 1
)


def _cells(*cells: str) -> str:
    """Cells joined by `` | `` with the leading bar; a query row's empty last cell leaves
    its trailing space."""
    return "| " + " | ".join(cells)


def _table_row(*cells: str) -> str:
    """A complete Markdown table row: ``| a | b |``."""
    return _cells(*cells) + " |"


JUDGE_PROMPT: str = (
    f"{INSTRUCTION}\n\n"
    + _table_row("Question", "Ground truth", "Prediction", "Correctness")
    + "\n"
    + _table_row("---", "---", "---", "---")
    + "\n"
    + "".join(
        _table_row(question + JUDGE_IMAGE, truth, prediction, score) + "\n"
        for question, truth, prediction, score in mmvet.FEW_SHOT
    )
)
PROMPT_VERSION: str = hashlib.sha256(JUDGE_PROMPT.encode("utf-8")).hexdigest()[:12]
# v2's retry leaves a blank line between the query row and v1's retry request.
RETRY_SUFFIX = "\n" + mmvet.RETRY_SUFFIX


def _one_line(text: str) -> str:
    """A table cell: newlines written ``<br>``."""
    return text.replace("\n", "<br>")


def judge_prompt(question: str, ground_truth: str, prediction: str) -> str:
    """The user message for one answer: the template, then the query row
    ``| question | ground truth | prediction | `` with images as ``<image>``, the ground
    truth's <AND>/<OR> spaced, and newlines as ``<br>`` in all three fields."""
    fields = (judge_question(question), mmvet.spaced(ground_truth), prediction)
    return JUDGE_PROMPT + _cells(*map(_one_line, fields), "")


class GradingV2(Grading):
    """The MM-Vet judge with v2's prompt; a reply such as "BadRequestError" is no score."""

    retry_suffix = RETRY_SUFFIX

    def prompt(self, question: str, gold: str, prediction: str) -> str:
        return judge_prompt(question, gold, prediction)

    def prompt_version(self) -> str:
        return PROMPT_VERSION


class MMVetV2(MMVet):
    name = "mmvet-v2"
    title = "MM-Vet v2"
    capability_titles = CAPABILITY_TITLES
    # v1's sets in the paper's order; sets with seq follow by count (MMVet.tables).
    integration_order = mmvet.INTEGRATION_ORDER
    grading: JudgeWork = GradingV2()
    importer = replace(
        MMVet.importer,
        reader="mmvet-v2",
        help="MM-Vet v2: questions with inline images, results.\n\n"
        "The official mm-vet-v2.json (each question names its images between <IMG> "
        "markers), its images folder, and one or more result JSONs.",
        argument=Option(
            "questions", "QUESTIONS", "MM-Vet v2 question JSON (id -> fields).", required=True
        ),
        # --answers and --model as v1's
        options=(
            Option("images", "FOLDER", "Folder of the images the questions name."),
            *MMVet.importer.options[1:],
        ),
        demo="mmvet-v2-demo",
    )
    # The v2 grader writes v1's grade JSON ("BadRequestError" is its give-up).
    tool_importers: tuple[Importer, ...] = (
        replace(
            MMVet.tool_importers[0],
            reader="mmvet-v2-grades",
            help=MMVet.tool_importers[0].help.replace("MM-Vet:", "MM-Vet v2:", 1),
            command="mmvet-v2-grades",
        ),
    )

    def prompt_variant(self, name: str) -> JudgeWork:
        # MM-Vet's variants keep rows of v1's few-shot table; v2's prompt has none of them
        return Benchmark.prompt_variant(self, name)

    def question_text(self, sample: Sample) -> str:
        return screen_question(sample.question)


MMVET_V2 = MMVetV2()
