"""MM-Vet (and MM-Vet v2) in the engine: its rules (rules.py), its Benchmark (benchmark.py,
v2.py) and its official files (official.py)."""
