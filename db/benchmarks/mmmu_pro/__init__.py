"""MMMU-Pro's files: the official output files of `mmmu-pro/infer` (files.py)."""
