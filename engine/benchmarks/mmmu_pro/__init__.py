"""MMMU-Pro in the engine: its answer parser (rules.py) and its Benchmark (benchmark.py)."""
