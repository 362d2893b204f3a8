"""MMMU's files: its outputs, answers and questions (files.py) and its test-server JSON
(official.py)."""
