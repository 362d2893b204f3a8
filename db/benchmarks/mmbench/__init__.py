"""MMBench's files: its TSV and predictions (files.py) and its submission workbook (official.py)."""
