"""MMBench's circular groups as the group view (r) shows them: the group's CircularEval
result, in words, from its outcome (engine.layouts combines the rotations' outcomes)."""

from __future__ import annotations

from lmmreview.engine.scoring import MICRO, Outcome


def circular_result(outcome: Outcome) -> str:
    """CircularEval (SCORING.md §2): a group passes a run only when every rotation is
    right; a wrong one fails it; else a rotation not scored yet leaves it undecided."""
    runs = outcome.micro
    passed = sum(score is not None and score >= MICRO for score in runs)
    failed = sum(score is not None and score < MICRO for score in runs)
    if len(runs) == 1:
        return PASSES if passed else FAILS if failed else UNDECIDED
    undecided = len(runs) - passed - failed
    rest = f", undecided in {undecided}" if undecided else ""
    return f"passes in {passed} of {len(runs)} runs, fails in {failed}{rest}"


PASSES = "passes: every rotation is right"
FAILS = "fails: a rotation is wrong"
UNDECIDED = "undecided: no rotation wrong, one not scored yet"
