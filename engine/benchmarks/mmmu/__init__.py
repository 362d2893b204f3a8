"""MMMU in the engine: its rules (rules.py), its Benchmark (benchmark.py) and its official file
(official.py)."""
