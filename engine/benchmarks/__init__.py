"""The benchmarks lmmreview ships, one module each (see `engine.benchmark`), and the
options their import commands of other tools' files share."""

from lmmreview.engine.benchmark import Option

# --model and --judge where the tool names its files {model}_{dataset}[_{judge}] (VLMEvalKit).
MODEL_FROM_FILE_NAME = Option(
    "model", "NAME", "Model name (default: from the file name).", text=True
)
JUDGE_FROM_FILE_NAME = Option(
    "judge", "NAME", "Judge model (default: from the file name).", text=True
)
# --model of the lmms-eval import commands (mmvet, mmbench, mmmu).
LMMS_EVAL_MODEL = Option(
    "model",
    "NAME",
    "Model name (default: for a *_samples_*.jsonl, the folder holding it, as lmms-eval "
    "writes {output}/{model}/; else the file's name).",
    text=True,
)
# --results of the lmms-eval import commands: the run's record (version, commit, command).
LMMS_EVAL_RESULTS = Option(
    "results",
    "FILE",
    "lmms-eval's results.json of the run, kept as the import's run record (default: the "
    "{date}_results.json beside a {date}_samples_{task}.jsonl, if there).",
)
# Every lmms-eval import command's options.
LMMS_EVAL_OPTIONS = (LMMS_EVAL_MODEL, LMMS_EVAL_RESULTS)
# --judge and --replace of the commands that import another tool's judgments: an import of
# judgments over one of the same judge on the same answers is refused unless one is given.
JUDGE_NAME = Option(
    "judge",
    "NAME",
    "The judge to file the judgments under (default: the one the file names); another "
    "name keeps them beside an earlier import of the same judge.",
    text=True,
)
REPLACE = Option(
    "replace",
    "",
    "Remove the earlier imports of the same judge on these answers (their judgments), "
    "then import; `lmmreview imports DB` lists them.",
    flag=True,
)
