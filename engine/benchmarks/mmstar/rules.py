"""MMStar's rules, restated from the official `eval/vlmeval/evaluate/mmstar.py`
(MMStar-Benchmark/MMStar @ 79e6d1c) and `eval/README.md` (@ 88f243a).

Every question has four options and a letter gold. An answer is read by one strict rule,
no judge, no fallback: lowercased, stripped, newlines made spaces, it is right when the
character after one of four openings is the gold's letter: no opening (its first
character), "(", "option " or "the answer is ". Anything else (an empty answer, "Answer: B")
is wrong. Scores are micro accuracies: an axis's, a capability's (its 250 questions) and
the final one over all 1,500. Multi-modal gain MG = S_v - S_wv and multi-modal leakage
ML = max(0, S_wv - S_t) compare the final scores of the model with its images (S_v),
without them (S_wv) and of its language model alone (S_t).
"""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D")
# What may come before the letter, tried in the official order (the first: nothing).
OPENINGS = ("", "(", "option ", "the answer is ")

# The 6 core capabilities, each with its 3 axes (the `l2_category` values), in the
# paper's order, and the paper's abbreviation of each capability.
CAPABILITIES: tuple[tuple[str, str, tuple[str, str, str]], ...] = (
    ("coarse perception", "CP",
     ("image scene and topic", "image style & quality", "image emotion")),
    ("fine-grained perception", "FP", ("object counting", "recognition", "localization")),
    ("instance reasoning", "IR",
     ("single-instance reasoning", "cross-instance attribute reasoning",
      "cross-instance relation reasoning")),
    ("logical reasoning", "LR",
     ("code & sequence reasoning", "diagram reasoning", "common reasoning")),
    ("science & technology", "ST",
     ("biology & chemistry & physics", "electronics & energy & mechanical eng.",
      "geography & earth science & agriculture")),
    ("math", "MA",
     ("geometry", "numeric commonsense and calculation", "statistical reasoning")),
)  # fmt: skip
AXES = {axis: capability for capability, _, axes in CAPABILITIES for axis in axes}

# The three settings whose final scores MG and ML compare (eval/README.md).
WITH_IMAGE, WITHOUT_IMAGE, LLM = "with-image", "without-image", "llm"
SETTINGS = (WITH_IMAGE, WITHOUT_IMAGE, LLM)


def normalised(text: str) -> str:
    """The text as the rule compares it: lowercased, stripped, newlines made spaces."""
    return text.lower().strip().replace("\n", " ")


def choice(answer: str) -> str | None:
    """The option letter (A to D) the rule reads in an answer, or None: "B" and "b. cat"
    read B, "(c)" C, "Option D" D, "The answer is A" A; so do "A cat..." (A), "Based on..."
    (B), "Correct: D" (C) and "Due to..." (D), by their first letter; "The answer is (B)",
    "Answer: B" and "" read none."""
    text = normalised(answer)
    for opening in OPENINGS:
        if text.startswith(opening) and len(text) > len(opening):
            letter = text[len(opening)].upper()
            if letter in LETTERS:
                return letter
    return None


def is_right(answer: str, gold: str) -> bool:
    """Whether the rule reads the gold's letter in the answer."""
    return choice(answer) == normalised(gold).upper()


def gain(with_image: float, without_image: float) -> float:
    """Multi-modal gain MG = S_v - S_wv: what the images add (may be negative)."""
    return with_image - without_image


def leakage(without_image: float, llm: float) -> float:
    """Multi-modal leakage ML = max(0, S_wv - S_t): what the model answers without the
    image beyond its language model, i.e. what it saw of the questions in training."""
    return max(0.0, without_image - llm)
