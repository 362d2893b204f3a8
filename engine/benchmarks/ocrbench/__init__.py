"""OCRBench in the engine: its rules (rules.py) and its Benchmark (benchmark.py)."""
