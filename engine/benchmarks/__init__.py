"""The benchmarks lmmreview ships, one module each (see `engine.benchmark`)."""

# The --model option of the lmms-eval import commands (mmvet, mmbench, mmmu).
LMMS_EVAL_MODEL_HELP = (
    "Model name (default: for a *_samples_*.jsonl, the folder holding it, as lmms-eval "
    "writes {output}/{model}/; else the file's name)."
)
