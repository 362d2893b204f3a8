"""The benchmarks lmmreview ships, one module each (see `engine.benchmark`)."""
