"""Benchmark rules, scoring and judging: pure functions over plain values.

Nothing here touches SQLite or a screen; the store and the TUI call in.
"""
