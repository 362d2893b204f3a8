"""LLaVA-Bench (in-the-wild)'s files: the official dataset folder, answers and reviews."""
