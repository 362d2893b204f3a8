"""The launch benchmarks' inputs: files in four import formats, with realistic breakdowns,
for `lmmreview import` to read (bench/benchmarks_launch.py builds the databases with it).

Each writer takes a folder and a number of samples, answered by MODELS models, and returns
the import commands' arguments after the database (one list per command). Everything is
drawn from seeded generators, so the same size writes the same files.

- MM-Vet: its 16 capability integrations, in the real benchmark's mix (INTEGRATION_COUNTS);
  short golds the offline grader can score, answers right or wrong.
- MMBench: MMBench's 6 L-2 abilities and their 20 L-3 categories (bench/mmbench_data.py),
  questions in 4 circular copies, one image shared by every row (a reference, as the TSV
  allows), one predictions TSV per model.
- MMMU: the 30 subjects, multiple choice (a letter or a sentence naming one) and a few
  open numeric questions, in the official example-output layout, with an answer dict.
- Generic JSONL: 12 topics, each sample with 1-3 of 6 tags, a third multiple choice.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from bench.mmbench_data import ABILITIES, CIRCULAR_STRIDE, HEADER, LETTERS
from lmmreview.engine.benchmarks.mmmu.rules import DISCIPLINES
from lmmreview.engine.benchmarks.mmvet.rules import INTEGRATION_ORDER

GENERATOR_VERSION = 1  # bump when the written files change, so cached databases are rebuilt
MODELS = 5
# How many of the real MM-Vet's 218 questions (mm-vet.json) have each integration, in
# INTEGRATION_ORDER: the mix the generated samples are drawn in.
INTEGRATION_COUNTS = (62, 37, 26, 14, 12, 12, 11, 9, 8, 8, 7, 4, 3, 2, 2, 1)
TOPICS = (
    "charts", "tables", "maps", "documents", "diagrams", "screenshots",
    "photos", "medical", "science", "math", "memes", "handwriting",
)  # fmt: skip
TAGS = ("ocr", "counting", "spatial", "colour", "reasoning", "knowledge")
SUBJECTS = tuple(subject for subjects in DISCIPLINES.values() for subject in subjects)

Arguments = list[list[str]]


def model_names() -> list[str]:
    return [f"model-{m}" for m in range(MODELS)]


def _answer(rng: random.Random, gold: str, wrong: str) -> str:
    """A model's answer: right about 60 % of the time, in a sentence or bare."""
    said = gold if rng.random() < 0.6 else wrong
    return said if rng.random() < 0.5 else f"Looking at the image, the answer is {said}."


def write_mmvet(folder: Path, samples: int) -> Arguments:
    """mm-vet.json (no images: each names a file the import reports missing) and one
    result JSON per model."""
    rng = random.Random(1)
    integrations = rng.choices(INTEGRATION_ORDER, INTEGRATION_COUNTS, k=samples)
    questions: dict[str, dict[str, Any]] = {
        f"v1_{i}": {
            "imagename": f"v1_{i}.png",
            "question": f"How many bars does chart {i} show?",
            "answer": str(i % 50),
            "capability": list(caps),
        }
        for i, caps in enumerate(integrations)
    }
    (folder / "mm-vet.json").write_text(json.dumps(questions), encoding="utf-8")
    command = ["mmvet", str(folder / "mm-vet.json")]
    for name in model_names():
        answers = {
            key: _answer(rng, q["answer"], str(rng.randrange(50))) for key, q in questions.items()
        }
        path = folder / f"{name}.json"
        path.write_text(json.dumps(answers), encoding="utf-8")
        command += ["--answers", str(path)]
    return [command]


def _png() -> str:
    """One small image as base64 text, for the TSV's first row."""
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 140, 200)).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def write_mmbench(folder: Path, samples: int) -> Arguments:
    """The TSV (samples // 4 questions x 4 circular copies) and one predictions TSV per
    model; one command per model, as `import mmbench` takes one model at a time."""
    rng = random.Random(2)
    categories = [(l2, l3) for l2, l3s in ABILITIES.items() for l3 in l3s]
    tsv, rows, golds = folder / "mmbench_dev_en.tsv", list[list[str]](), dict[int, str]()
    for q in range(samples // len(LETTERS)):
        l2, l3 = rng.choice(categories)
        options = [f"option {q}-{n}" for n in range(len(LETTERS))]
        gold = rng.randrange(len(LETTERS))
        for k in range(len(LETTERS)):
            index = q + k * CIRCULAR_STRIDE
            turned = options[k:] + options[:k]  # copy k: the options rotated by k
            golds[index] = LETTERS[(gold - k) % len(LETTERS)]
            image = _png() if not rows else "0"  # every later row reuses row 0's image
            rows.append(
                [str(index), f"Which option fits picture {q}?", "", *turned, golds[index],
                 l3, image, "MMBench", l2, "", "dev"]
            )  # fmt: skip
    _write_tsv(tsv, list(HEADER), rows)
    commands = []
    for name in model_names():
        path = folder / f"{name}.tsv"
        answers = [[str(i), _answer(rng, g, rng.choice(LETTERS))] for i, g in golds.items()]
        _write_tsv(path, ["index", "prediction"], answers)
        commands.append(["mmbench", str(tsv), "--answers", str(path)])
    return commands


def _write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_mmmu(folder: Path, samples: int) -> Arguments:
    """The answer dict and one outputs folder per model (<Subject>/output.json): samples
    spread over the 30 subjects, one in ten open with a number for gold."""
    rng = random.Random(3)
    records: dict[str, list[dict]] = {subject: [] for subject in SUBJECTS}
    golds = {}
    for i in range(samples):
        subject = SUBJECTS[i % len(SUBJECTS)]
        key = f"validation_{subject}_{i // len(SUBJECTS) + 1}"
        record: dict[str, Any]
        if i % 10 == 9:
            gold, record = str(rng.randrange(100)), {"question_type": "open"}
        else:
            gold = rng.choice(LETTERS)
            choices = {letter: f"choice {letter} of {key}" for letter in LETTERS}
            record = {"question_type": "multiple-choice", "all_choices": list(LETTERS),
                      "index2ans": choices}  # fmt: skip
        golds[key] = {"question_type": record["question_type"], "ground_truth": gold}
        records[subject].append({"id": key, "answer": gold, **record})
    answer_dict = folder / "answer_dict_val.json"
    answer_dict.write_text(json.dumps(golds), encoding="utf-8")
    commands = []
    for name in model_names():
        for subject, listed in records.items():
            out = folder / name / subject / "output.json"
            out.parent.mkdir(parents=True)
            responses = [
                {**r, "response": _answer(rng, r["answer"], _wrong(rng, r))} for r in listed
            ]
            out.write_text(json.dumps(responses), encoding="utf-8")
        commands.append(["mmmu", str(folder / name), "--answer-dict", str(answer_dict)])
    return commands


def _wrong(rng: random.Random, record: dict) -> str:
    return rng.choice(LETTERS) if "all_choices" in record else str(rng.randrange(100))


def write_mmmu_lmms_eval(folder: Path, mmmu: Arguments) -> Arguments:
    """A second judge of the MMMU input's answers (`mmmu`: write_mmmu's commands): one
    lmms-eval samples file per model (the v0.4 layout, no doc), each answer with
    lmms-eval's parsed choice: the letter it names, but the next letter for one answer
    in 50 (another extraction); open answers, which lmms-eval's MMMU leaves to its
    scorer, have none. The import commands, into the dataset `mmmu`."""
    commands = []
    for _, outputs, *_ in mmmu:
        model = Path(outputs).name
        records = [r for path in sorted(Path(outputs).glob("*/output.json"))
                   for r in json.loads(path.read_text(encoding="utf-8"))]  # fmt: skip
        log = folder / model / "20240801_120000_samples_mmmu_val.jsonl"
        log.parent.mkdir(parents=True)
        with log.open("w", encoding="utf-8") as file:
            for number, record in enumerate(records):
                file.write(json.dumps(_lmms_eval_line(number, record)) + "\n")
        commands.append(["mmmu-lmms-eval", str(log), "--dataset", "mmmu"])
    return commands


def _lmms_eval_line(number: int, record: dict[str, Any]) -> dict[str, Any]:
    """One answer's line: the response, and MMMU's metric dict with the parsed choice."""
    response, gold = record["response"], record["answer"]
    acc = {"id": record["id"], "question_type": record["question_type"], "answer": gold}
    if "all_choices" in record:
        named = response.rstrip(".")[-1]  # "A", or "... the answer is A."
        if number % 50 == 49:
            named = LETTERS[(LETTERS.index(named) + 1) % len(LETTERS)]
        acc["parsed_pred"] = [named]
    else:
        acc["parsed_pred"] = [[response]]
    return {"doc_id": number, "target": gold, "filtered_resps": [response], "mmmu_acc": acc}


def write_generic(folder: Path, samples: int) -> Arguments:
    """One lmmreview JSONL: the sample lines, then each model's answer lines."""
    rng = random.Random(4)
    path, golds, lines = folder / "generic.jsonl", [], []
    for i in range(samples):
        tags = {"topic": TOPICS[rng.randrange(len(TOPICS))],
                "skills": rng.sample(TAGS, rng.randint(1, 3))}  # fmt: skip
        sample = {"id": f"q{i}", "question": f"What does figure {i} show?", "tags": tags}
        if i % 3 == 0:
            sample["options"] = [f"figure {i} shows {word}" for word in ("a", "b", "c", "d")]
            gold, wrong = rng.choice(LETTERS), LETTERS
        else:
            gold, wrong = f"{rng.randrange(1000)} apples", ("pears", "plums")
        sample["answer"] = gold
        golds.append((gold, wrong))
        lines.append(json.dumps(sample))
    for name in model_names():
        for i, (gold, wrong) in enumerate(golds):
            text = _answer(rng, gold, rng.choice(wrong))
            lines.append(json.dumps({"id": f"q{i}", "prediction": text, "model": name}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [["jsonl", str(path)]]


WRITERS: dict[str, Callable[[Path, int], Arguments]] = {
    "mm-vet": write_mmvet,
    "mmbench": write_mmbench,
    "mmmu": write_mmmu,
    "generic": write_generic,
}
