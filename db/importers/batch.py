"""What an importer produces: everything parsed and checked, nothing written yet."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from db.store import StoredImage
from engine.types import DatasetKind, Sample


class ImportFailure(Exception):
    """Bad input: one line naming the file and the row or id."""

    def __init__(self, file: str | Path, message: str, where: str | None = None) -> None:
        self.file = str(file)
        self.where = where
        self.message = message
        super().__init__(f"{file}: {where}: {message}" if where else f"{file}: {message}")


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """One model's answer to one sample, and where it came from."""

    key: str
    model: str
    text: str
    source: str  # file name, for messages


@dataclass(slots=True)
class ImportBatch:
    """A dataset's samples, their images and any answers, ready to load in one transaction."""

    dataset: str
    kind: DatasetKind
    source: str
    samples: list[Sample] = field(default_factory=list)
    images: dict[str, StoredImage] = field(default_factory=dict)  # by content hash
    sample_images: dict[str, list[str]] = field(default_factory=dict)  # key -> hashes, in order
    answers: list[AnswerRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add_image(self, key: str, image: StoredImage) -> None:
        """Attach an image to sample `key` (after its other images)."""
        self.images.setdefault(image.hash, image)
        self.sample_images.setdefault(key, []).append(image.hash)


def listed(names: list[str], shown: int = 8) -> str:
    """A few names for a message, and how many more there are."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
