"""Plug-ins lmmreview must leave out: not a benchmark, one taking a built-in's name, and
one whose import command is a built-in's."""

from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables
from lmmreview.engine.types import Sample

NOT_A_BENCHMARK = "a string"


class Impostor(Benchmark):
    name = "mmvet"
    title = "Not MM-Vet"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        return [], {}


class Hijack(Impostor):
    name = "jsonl"  # the built-in generic benchmark's import command
    title = "Not JSONL"
    importer = Importer(
        "broken-no-reader", "Not lmmreview's JSONL.", Option("file", "FILE", "Any file.")
    )


HIJACK = Hijack()
