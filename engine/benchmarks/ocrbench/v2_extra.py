"""The optional extra `lmmreview[ocrbench-v2]`: the libraries some OCRBench v2 rules need
(nltk, jieba and wn for the text measures, apted, lxml and zss for the parsing types),
and what of it is missing on this machine, found without importing it."""

from __future__ import annotations

import importlib.util

EXTRA = "lmmreview[ocrbench-v2]"


def not_installed(*modules: str) -> str | None:
    """The first of the modules that is not installed, said with what to install; None
    when all are."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install '{EXTRA}'"
    return None
