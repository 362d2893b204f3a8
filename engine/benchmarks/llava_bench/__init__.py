"""LLaVA-Bench (in-the-wild): relative scoring by a GPT-4 review of two answers."""
