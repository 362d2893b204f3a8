"""MM-Vet: the six capabilities and how a sample's capability set is named."""

from __future__ import annotations

from collections.abc import Iterable

# The paper's order; it names integrations and orders capability columns.
CAPABILITIES: tuple[str, ...] = ("rec", "ocr", "know", "gen", "spat", "math")
CAPABILITY_TITLES: dict[str, str] = {
    "rec": "Rec",
    "ocr": "OCR",
    "know": "Know",
    "gen": "Gen",
    "spat": "Spat",
    "math": "Math",
}


def canonical_capabilities(raw: Iterable[str] | str) -> tuple[str, ...]:
    """Capabilities as a set in the paper's order.

    Accepts a list or a comma-separated string (both occur in redistributions).
    Raises ValueError naming any unknown capability.
    """
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = {str(item).strip().lower() for item in items if str(item).strip()}
    unknown = sorted(names - set(CAPABILITIES))
    if unknown:
        raise ValueError(
            f"unknown capability {', '.join(map(repr, unknown))} "
            f"(expected some of {', '.join(CAPABILITIES)})"
        )
    if not names:
        raise ValueError("no capability given")
    return tuple(c for c in CAPABILITIES if c in names)


def integration_name(capabilities: Iterable[str]) -> str:
    """One name per capability set, whatever order it came in: ``rec_know_gen``."""
    return "_".join(canonical_capabilities(list(capabilities)))
