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
