"""The defaults and limits the command line states in its help, in a module that imports
nothing: `lmmreview --help` reads them without loading the rules they belong to."""

DEFAULT_JUDGE_MODEL = "gpt-4-0613"  # the judge of the MM-Vet paper
DISAGREEMENT = 0.3  # the |judge - human| filter's default threshold (engine.review)
SPREAD = 0.0  # the run-variance filter's default threshold: runs that disagree at all
# OpenAI's limits per batch input file (engine.batch).
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1000 * 1000
