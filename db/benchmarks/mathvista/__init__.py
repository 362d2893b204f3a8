"""MathVista's files: the official output files of its evaluation (files.py)."""
