"""MathVista in the engine: its extraction and scoring rules (rules.py) and its Benchmark
(benchmark.py)."""
