"""Benchmarks for lmmreview: `python bench/run.py` runs them all (see bench/README.md)."""
