"""The edit (Levenshtein) distance, one implementation for every rule that needs it
(MathVista's choice matching, OCRBench v2's ANLS, text measures and parsing scores)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The edit distance between two texts (or two token lists): the fewest insertions,
    deletions and substitutions of characters (tokens) that turn one into the other.

    Computed a column at a time with one bit per character of `a` (Myers' bit-vector
    method, in Hyyrö's form for whole-text distance): the vertical deltas of the
    dynamic-programming column as bit masks, the distance tracked at its last row. A
    text of thousands of characters costs as many big-integer steps, not their square.
    """
    if not a or not b:
        return len(a) + len(b)
    if len(b) > len(a):
        a, b = b, a  # the bits for the longer, a step for each character of the shorter
    full, last = (1 << len(a)) - 1, 1 << (len(a) - 1)
    matches: dict[Hashable, int] = {}  # character -> the positions in `a` that hold it
    for i, x in enumerate(a):
        matches[x] = matches.get(x, 0) | 1 << i
    up, down, distance = full, 0, len(a)  # +1 and -1 vertical deltas
    for y in b:
        eq = matches.get(y, 0)
        xv = eq | down
        xh = (((eq & up) + up) ^ up) | eq
        right, left = down | ~(xh | up), up & xh  # +1 and -1 horizontal deltas
        distance += 1 if right & last else -1 if left & last else 0
        right, left = right << 1 | 1, left << 1
        up, down = (left | ~(xv | right)) & full, right & xv & full
    return distance
