"""MMBench: circular copies and the ability hierarchy."""

from __future__ import annotations

CIRCULAR_STRIDE = 1_000_000

# L-2 ability -> its abbreviation in the paper's tables, in the paper's column order.
L2_ABBREVIATIONS: dict[str, str] = {
    "coarse_perception": "CP",
    "finegrained_perception (instance-level)": "FP-S",
    "finegrained_perception (cross-instance)": "FP-C",
    "attribute_reasoning": "AR",
    "relation_reasoning": "RR",
    "logic_reasoning": "LR",
}

OPTION_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")


def circular_position(index: int) -> tuple[int, int]:
    """(group, rotation) of a row: copy k of question q has index q + k * 1,000,000."""
    return index % CIRCULAR_STRIDE, index // CIRCULAR_STRIDE
