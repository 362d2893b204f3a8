"""HallusionBench's files: the official results and judged outputs (files.py)."""
