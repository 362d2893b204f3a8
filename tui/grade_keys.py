"""The grading keys, shared by the review screen and the compare view: 0-9 and = score
an open answer, A-I choose an option of a multiple-choice answer."""

from __future__ import annotations

from textual.binding import Binding

OPTION_KEYS = "ABCDEFGHI"  # MMMU questions have up to nine options; these letters choose


def score_keys() -> list[Binding]:
    """0-9 and = (scores 0.0 to 1.0), A-I (choices); each with an id for the keymap."""
    keys = [
        Binding(str(d), f"score({d / 10})", f"score {d / 10:.1f}", show=False, id=f"score-{d}")
        for d in range(10)
    ]
    keys.append(
        Binding(
            "equals_sign", "score(1.0)", "score 1.0", key_display="=", show=False, id="score-10"
        )
    )
    keys += [
        Binding(
            letter, f"choose('{letter}')", f"choose {letter}", show=False, id=f"choose-{letter}"
        )
        for letter in OPTION_KEYS
    ]
    return keys
