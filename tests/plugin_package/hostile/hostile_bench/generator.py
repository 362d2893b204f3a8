"""A plug-in whose module raises GeneratorExit as it is imported."""

raise GeneratorExit("stray")
