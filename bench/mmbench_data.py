"""Synthetic MMBench-style TSVs for benchmarks: the real layout, circular copies, real ability
names, and one distinct JPEG of about a chosen size per row, base64 in the `image` column.

Everything is seeded, so the same arguments write the same file.
"""

from __future__ import annotations

import base64
import csv
import io
import random
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

HEADER: tuple[str, ...] = (
    "index", "question", "hint", "A", "B", "C", "D", "answer", "category", "image",
    "source", "l2-category", "comment", "split",
)  # fmt: skip
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
CIRCULAR_STRIDE = 1_000_000  # copy k of question q has index q + k * CIRCULAR_STRIDE

# MMBench's L-2 abilities and their L-3 categories (the `l2-category` and `category` columns).
ABILITIES: dict[str, tuple[str, ...]] = {
    "coarse_perception": (
        "image_emotion", "image_quality", "image_scene", "image_style", "image_topic",
    ),
    "finegrained_perception (instance-level)": (
        "attribute_recognition", "celebrity_recognition", "object_localization", "ocr",
    ),
    "finegrained_perception (cross-instance)": (
        "action_recognition", "attribute_comparison", "spatial_relationship",
    ),
    "attribute_reasoning": (
        "function_reasoning", "identity_reasoning", "physical_property_reasoning",
    ),
    "relation_reasoning": ("nature_relation", "physical_relation", "social_relation"),
    "logic_reasoning": ("future_prediction", "structuralized_imagetext_understanding"),
}  # fmt: skip
_SOURCES = ("MMBench", "COCO", "ScienceQA", "ARAS", "KonIQ-10k", "Places")
_WORDS = (
    "red", "small", "wooden", "crowded", "quiet", "bright", "round", "old", "striped", "wet",
    "kitchen", "beach", "street", "forest", "office", "river", "market", "stadium", "garden",
    "dog", "bicycle", "bottle", "clock", "umbrella", "child", "bridge", "train", "lamp",
)  # fmt: skip

# Image shape: random colour blocks of NOISE_SIZE, scaled up smoothly to IMAGE_SIZE.
IMAGE_SIZE = (512, 384)
NOISE_SIZE = (32, 24)


@dataclass(frozen=True, slots=True)
class TsvInfo:
    """What `write_mmbench_tsv` wrote."""

    path: Path
    rows: int
    questions: int
    file_bytes: int
    image_bytes_mean: float
    jpeg_quality: int


def noise_jpeg(rng: random.Random, quality: int) -> bytes:
    """A valid, seeded, practically unique JPEG: smooth colour noise at IMAGE_SIZE."""
    width, height = NOISE_SIZE
    noise = Image.frombytes("RGB", NOISE_SIZE, rng.randbytes(width * height * 3))
    image = noise.resize(IMAGE_SIZE, Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def calibrate_quality(target_bytes: int, seed: int = 0, probes: int = 8) -> int:
    """The JPEG quality whose mean size over `probes` images comes closest to `target_bytes`.

    Size grows with quality, so a bisection over 1..95 finds it in a few steps.
    """

    def mean_size(quality: int) -> float:
        rng = random.Random(seed)
        return sum(len(noise_jpeg(rng, quality)) for _ in range(probes)) / probes

    low, high = 1, 95
    while low < high:
        middle = (low + high) // 2
        if mean_size(middle) < target_bytes:
            low = middle + 1
        else:
            high = middle
    if low > 1 and target_bytes - mean_size(low - 1) < mean_size(low) - target_bytes:
        return low - 1
    return low


def question_rows(index: int, rng: random.Random) -> tuple[dict[str, str], int]:
    """Base question `index` (rotation 0) without its image, and its answer's position."""
    l2 = list(ABILITIES)[index % len(ABILITIES)]
    categories = ABILITIES[l2]
    category = categories[(index // len(ABILITIES)) % len(categories)]
    subject = " ".join(rng.sample(_WORDS, 2))
    options = [f"The {' '.join(rng.sample(_WORDS, 3))} one" for _ in LETTERS]
    row = {
        "question": f"Which option best matches the {subject} in this image? (#{index})",
        "hint": f"Look at the {rng.choice(_WORDS)} area first." if index % 3 == 0 else "",
        "category": category,
        "source": _SOURCES[index % len(_SOURCES)],
        "l2-category": l2,
        "comment": "",
        "split": "dev",
        **dict(zip(LETTERS, options, strict=True)),
    }
    return row, rng.randrange(len(LETTERS))


def rotated(row: dict[str, str], answer: int, k: int) -> dict[str, str]:
    """Circular copy k of a question: options shifted left by k, the answer letter remapped."""
    options = [row[letter] for letter in LETTERS]
    shifted = options[k:] + options[:k]
    return {
        **row,
        **dict(zip(LETTERS, shifted, strict=True)),
        "answer": LETTERS[(answer - k) % len(LETTERS)],
    }


def write_mmbench_tsv(
    path: Path,
    questions: int = 1100,
    copies: int = 4,
    image_bytes: int = 30_000,
    seed: int = 0,
) -> TsvInfo:
    """Write `questions` x `copies` rows (originals first, then each rotation).

    Every row, circular copies included, carries its own distinct base64 JPEG of about
    `image_bytes` bytes.
    """
    if not 1 <= copies <= len(LETTERS) or questions >= CIRCULAR_STRIDE:
        raise ValueError("copies must be 1..4 and questions fewer than 1,000,000")
    quality = calibrate_quality(image_bytes, seed)
    rng = random.Random(seed)
    bases = [question_rows(q, rng) for q in range(questions)]
    total_image_bytes = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(HEADER)
        for k in range(copies):
            for q, (row, answer) in enumerate(bases):
                image = noise_jpeg(rng, quality)
                total_image_bytes += len(image)
                cells = rotated(row, answer, k)
                cells["index"] = str(q + k * CIRCULAR_STRIDE)
                cells["image"] = base64.b64encode(image).decode("ascii")
                writer.writerow([cells[name] for name in HEADER])
    rows = questions * copies
    return TsvInfo(path, rows, questions, path.stat().st_size, total_image_bytes / rows, quality)
