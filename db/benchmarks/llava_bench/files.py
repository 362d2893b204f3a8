"""`lmmreview import llava-bench`: the official dataset folder (questions.jsonl,
answers_gpt4.jsonl, context.jsonl, images/), one model's answers file as the official
model_vqa.py writes it, and optionally the official review file of those answers
(eval_gpt_review_bench.py's output), whose `tuple`s are imported as its judge's scores.

questions.jsonl: `question_id`, `image`, `text`, `category` (conv, detail or complex);
answers_gpt4.jsonl: the reference answers, `question_id` and `text`; context.jsonl: `image`
and `caption` (text or a list of sentences). Answers: `question_id`, `text`, `model_id`.
Reviews: `question_id`, `category` (llava_bench_<category>), `content` (the judge's reply)
and `tuple` ([reference, model]; [-1, -1] where the first line did not read). The official
scripts pair the files line by line; lmmreview pairs them by `question_id` and refuses a
file whose ids disagree.
"""

from __future__ import annotations

from dataclasses import replace
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
from lmmreview.db.importers.read import ImageFiles, existing, read_jsonl, text_field
from lmmreview.engine.benchmarks.llava_bench import rules
from lmmreview.engine.benchmarks.llava_bench.benchmark import (
    CAPTION,
    CATEGORY,
    LLAVA_BENCH,
    MODEL,
    OFFICIAL,
    ORDER,
    ORDERS,
    QUESTION_ID,
    REFERENCE,
    SCORED,
    SCORES,
    sample_key,
)
from lmmreview.engine.scoring import Judgment, Status, imported
from lmmreview.engine.types import QuestionType, Sample

QUESTIONS, REFERENCES, CONTEXT = "questions.jsonl", "answers_gpt4.jsonl", "context.jsonl"
IMAGES = "images"


def read_request(request: ImportRequest) -> ImportBatch:
    """`lmmreview import llava-bench`: the questions, and the answers and reviews given."""
    folder = request.path("folder")
    assert folder is not None  # the command requires it
    answers, reviews = request.path("answers"), request.path("reviews")
    if reviews is not None and answers is None:
        raise ImportFailure("--reviews", "reviews are of a model's answers: give --answers too")
    model = request.text("model")
    check_model_argument(model)
    source = reviews or answers or folder  # the file the judgments, if any, come from
    batch = ImportBatch(request.dataset or LLAVA_BENCH.name, LLAVA_BENCH.name, str(source))
    questions = read_questions(existing(folder, "folder"), batch)
    if answers is not None:
        name = model or _model_of(answers)
        read_answers(answers, name, questions, batch)
        if reviews is not None:
            read_reviews(reviews, name, questions, batch)
    return batch


def _question_id(row: dict[str, Any], path: Path, where: str) -> str:
    value = row.get("question_id")
    if isinstance(value, bool) or not isinstance(value, int | str) or str(value) == "":
        raise ImportFailure(path, f"question_id must be a number or text, not {value!r}", where)
    return str(value)


def _by_question(path: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """A jsonl file's rows by question id, each with its line; an id only once."""
    rows: dict[str, tuple[str, dict[str, Any]]] = {}
    for number, row in read_jsonl(existing(path)):
        where = f"line {number}"
        question_id = _question_id(row, path, where)
        if question_id in rows:
            message = f"question_id {question_id} again (also {rows[question_id][0]})"
            raise ImportFailure(path, message, where)
        rows[question_id] = (where, row)
    return rows


def _captions(path: Path) -> dict[str, str]:
    """Each image's caption as the review shows it (rules.context)."""
    captions = {}
    for number, row in read_jsonl(existing(path)):
        where = f"line {number}"
        caption = row.get("caption")
        if not isinstance(caption, str) and not (
            isinstance(caption, list) and all(isinstance(c, str) for c in caption)
        ):
            raise ImportFailure(path, "caption must be text or a list of texts", where)
        captions[text_field(row, "image", path, where)] = rules.context(caption)
    return captions


def read_questions(folder: Path, batch: ImportBatch) -> dict[str, str]:
    """Each question's four samples (see the benchmark), with its reference answer,
    caption and image; returns each question id's category."""
    path, references = folder / QUESTIONS, _by_question(folder / REFERENCES)
    captions = _captions(folder / CONTEXT)
    images = ImageFiles(folder / IMAGES)
    categories: dict[str, str] = {}
    for where, row in _by_question(path).values():
        question_id = _question_id(row, path, where)
        category = text_field(row, "category", path, where)
        if category not in rules.CATEGORIES:
            expected = ", ".join(rules.CATEGORIES)
            raise ImportFailure(path, f"category {category!r}: expected {expected}", where)
        image = text_field(row, "image", path, where)
        if image not in captions:
            raise ImportFailure(path, f"image {image!r} has no caption in {CONTEXT}", where)
        if question_id not in references:
            raise ImportFailure(path, f"question_id {question_id} has no reference answer", where)
        ref_where, reference = references[question_id]
        gold = text_field(reference, "text", folder / REFERENCES, ref_where)
        sample = question_sample(
            question_id, text_field(row, "text", path, where), gold, category, captions[image]
        )
        stored = images.read(image, path, where)
        for each in siblings(sample):
            batch.samples.append(each)
            if stored is not None:
                batch.add_image(each.key, stored)
        categories[question_id] = category
    batch.warnings += images.warnings()
    return categories


def _model_of(path: Path) -> str:
    """The answers' `model_id` (model_vqa.py writes the model's name there), else the file's."""
    for _, row in read_jsonl(existing(path)):
        found = row.get("model_id")
        return found if isinstance(found, str) and found.strip() else model_name(None, path)
    return model_name(None, path)


def _known(question_id: str, questions: dict[str, str], path: Path, where: str) -> str:
    if question_id not in questions:
        raise ImportFailure(path, f"question_id {question_id} is not in {QUESTIONS}", where)
    return questions[question_id]


def read_answers(path: Path, model: str, questions: dict[str, str], batch: ImportBatch) -> None:
    """The model's answer to each question, as its answer to all four of its samples."""
    for question_id, (where, row) in _by_question(path).items():
        _known(question_id, questions, path, where)
        answer = AnswerRecord(question_id, model, text_field(row, "text", path, where), str(path))
        batch.answers += answered(answer)


def read_reviews(path: Path, model: str, questions: dict[str, str], batch: ImportBatch) -> None:
    """The official reviews (reference first) as the official judge's two scores of each."""
    answered = {a.key for a in batch.answers}
    for question_id, (where, row) in _by_question(path).items():
        category = _known(question_id, questions, path, where)
        if row.get("category") != rules.CATEGORY_PREFIX + category:
            expected = rules.CATEGORY_PREFIX + category
            message = f"category {row.get('category')!r}: the question's is {expected!r}"
            raise ImportFailure(path, message, where)
        if sample_key(question_id, OFFICIAL, MODEL) not in answered:
            raise ImportFailure(path, f"question_id {question_id} has no answer", where)
        content = text_field(row, "content", path, where)
        pair = score_pair(row.get("tuple"), "tuple", path, where)
        judgment = imported(rules.JUDGE_MODEL, rules.PROMPT_VERSION, None, content, str(path))
        batch.judgments += review_judgments(question_id, model, judgment, pair)


def score_pair(value: object, name: str, path: Path, where: str) -> tuple[float, float]:
    """A review's two scores, reference first, as a file records them (`name`)."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise ImportFailure(path, f"{name} must be two numbers, not {value!r}", where)
    return float(value[0]), float(value[1])


def question_sample(
    question_id: str, question: str, reference: str, category: str, caption: str
) -> Sample:
    """A question's first sample: the model's score with the reference shown first."""
    return Sample(
        sample_key(question_id, OFFICIAL, MODEL),
        question,
        QuestionType.OPEN,
        reference,
        axes={CATEGORY: (category,), ORDER: (OFFICIAL,), SCORED: (MODEL,)},
        extra={CAPTION: caption, QUESTION_ID: question_id},
    )


def siblings(sample: Sample) -> list[Sample]:
    """A question's four samples (see the benchmark) from its first."""
    question_id = str(sample.extra[QUESTION_ID])
    return [
        replace(
            sample,
            key=sample_key(question_id, order, scored),
            axes=sample.axes | {ORDER: (order,), SCORED: (scored,)},
        )
        for order in ORDERS
        for scored in SCORES
    ]


def answered(answer: AnswerRecord) -> list[AnswerRecord]:
    """An answer to a question (keyed by its id) as the answer to its four samples."""
    return [
        replace(answer, key=sample_key(answer.key, order, scored))
        for order in ORDERS
        for scored in SCORES
    ]


def review_judgments(
    question_id: str, model: str, review: Judgment, pair: tuple[float, float]
) -> list[JudgmentRecord]:
    """A reference-first review (`review`, its score not yet set) as the judgments of the
    question's reference and model scores: each score over 10 and both as the choice; a
    pair off the 0 to 10 scale (the official [-1, -1] of a reply that did not read) is
    stored unparseable, with no score (docs/benchmarks/llava-bench.md)."""
    if rules.storable(pair):
        choice = f"{pair[0]:g} {pair[1]:g}"
        scores = [replace(review, score=s / rules.SCALE, choice=choice) for s in pair]
    else:
        error = f"scores [{pair[0]:g}, {pair[1]:g}]: not two scores from 0 to 10"
        scores = [replace(review, score=None, status=Status.UNPARSEABLE, error=error)] * 2
    keys = (sample_key(question_id, OFFICIAL, s) for s in (REFERENCE, MODEL))
    return [JudgmentRecord(key, model, j) for key, j in zip(keys, scores, strict=True)]


def demo_requests(data: Path) -> list[ImportRequest]:
    """The demo: each sample model's answers and their official reviews."""
    folder = data / "llava-bench"
    dataset = folder / "llava-bench-in-the-wild"
    return [
        ImportRequest(
            {"folder": dataset, "answers": path, "reviews": folder / "reviews" / path.name}
        )
        for path in sorted((folder / "answers").glob("*.jsonl"))
    ]
