"""A plug-in whose importers() raises, and one whose importer has no help text."""

from lmmreview.engine.benchmark import Benchmark, Importer, Option, Tables
from lmmreview.engine.types import Sample


class Quiet(Benchmark):
    name = "quiet"
    title = "Quiet"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        return [], {}


class BadImporters(Quiet):
    name = "badimporters"
    title = "Bad importers"

    def importers(self) -> dict[str, Importer]:
        raise ValueError("importers() of its own")


BAD_IMPORTERS = BadImporters()


class NoHelp(Quiet):
    name = "nohelp"
    title = "No help"
    importer = Importer("hostile-no-reader", None, Option("file", "FILE", "Any file."))


NO_HELP = NoHelp()
