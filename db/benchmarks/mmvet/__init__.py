"""MM-Vet's files: its questions and results (files.py), v2's (v2.py), the grader's grade files
read (grades.py) and written with its CSVs (official.py)."""
