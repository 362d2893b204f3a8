"""Assignments for a team: a seeded split of a dataset's answers among reviewers, with a
common overlap every reviewer grades (to measure agreement on), and how far each is.

The units of a split are answers, except that the answers of one model to one group of
samples (a benchmark's `group_by`: MMBench's circular group, every rotation) are one
unit: a group is never split between reviewers. Pure values: db/assign.py reads and
writes them.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from lmmreview.engine.review import HistoryRow
from lmmreview.engine.reviewers import own_verdict
from lmmreview.engine.scoring import Verdict

Unit = tuple[int, ...]  # the answer ids of one unit, in id order
# A reviewer's name names their file (DIR/<name>.db): a word, then letters, digits, _ . -
_SAFE_NAME = re.compile(r"\w[\w.-]{0,63}")


@dataclass(frozen=True, slots=True)
class Split:
    """The units every reviewer gets (the overlap) and each reviewer's own share."""

    overlap: list[Unit]
    shares: dict[str, list[Unit]]

    def rows(self) -> list[tuple[int, str, bool]]:
        """(answer, reviewer, in the overlap) of every answer each reviewer gets."""
        return [
            (answer, reviewer, in_overlap)
            for reviewer, share in self.shares.items()
            for units, in_overlap in ((self.overlap, True), (share, False))
            for unit in units
            for answer in unit
        ]


def group_units(answers: Iterable[tuple[int, Hashable | None]]) -> list[Unit]:
    """The units of (answer id, group) pairs: an answer whose group is None is a unit of
    its own; those of one group (the same model's answers to one group of samples) are
    one. In order of their first answer id."""
    alone: list[Unit] = []
    grouped: dict[Hashable, list[int]] = {}
    for answer, group in answers:
        if group is None:
            alone.append((answer,))
        else:
            grouped.setdefault(group, []).append(answer)
    return sorted(alone + [tuple(sorted(ids)) for ids in grouped.values()])


def unassigned(units: Sequence[Unit], taken: Iterable[int]) -> tuple[list[Unit], int]:
    """The units none of whose answers is `taken` (assigned already), and how many were."""
    held = set(taken)
    left = [unit for unit in units if held.isdisjoint(unit)]
    return left, len(units) - len(left)


def safe_name(name: str) -> bool:
    """Whether `name` can name a reviewer's file (DIR/<name>.db)."""
    return _SAFE_NAME.fullmatch(name) is not None


def problem(reviewers: Sequence[str], overlap: float) -> str | None:
    """Why these reviewers and overlap cannot make a split (None: they can)."""
    if "" in reviewers:
        return (
            "--reviewers: a name is empty (two commas in a row, or one at either end): "
            "name each reviewer, separated by commas (ana,bo,cy)"
        )
    unsafe = [name for name in reviewers if not safe_name(name)]
    if unsafe:
        return (
            f"--reviewers: {unsafe[0]!r} is not a safe file name (a name names its file "
            "DIR/<name>.db: letters, digits, _ . - up to 64, not starting with . or -)"
        )
    # Case aside: "Ana.db" and "ana.db" are one file on macOS's and Windows' file systems.
    repeated = [name for name, n in Counter(r.casefold() for r in reviewers).items() if n > 1]
    if repeated:
        return f"--reviewers: {repeated[0]!r} is named twice (letter case aside)"
    if len(reviewers) < 2:
        return "--reviewers: name at least two reviewers, separated by commas (ana,bo,cy)"
    if not 0 <= overlap < 1:
        return f"--overlap: {overlap:g} is not in [0, 1) (the share of units every reviewer gets)"
    return None


def overlap_size(units: int, overlap: float) -> int:
    """How many of `units` the overlap takes: the fraction `overlap` as written, rounded
    half up (0.7 of 45 is 32: in floats 45 * 0.7 is 31.499999999999996)."""
    return math.floor(Fraction(str(overlap)) * units + Fraction(1, 2))


def thin(found: Split, overlap: float) -> str | None:
    """Why a split of some units is refused (None: it is not): an overlap asked for that
    takes no unit (no agreement to measure), or a reviewer left no share of their own
    (more reviewers than units; with no overlap, their file would hold no assignment and
    open as anyone's)."""
    units = len(found.overlap) + sum(len(share) for share in found.shares.values())
    if units and overlap > 0 and not found.overlap:
        return (
            f"--overlap {overlap:g} of {units} units is no unit, so no answer is graded by "
            "every reviewer: give a larger --overlap, or 0"
        )
    empty = [name for name, share in found.shares.items() if not share]
    if units and empty:
        return (
            f"{units} units, {len(found.overlap)} of them to every reviewer, leave {empty[0]} "
            "no share of their own: name fewer reviewers, or give a smaller --overlap"
        )
    return None


def split(units: Sequence[Unit], reviewers: Sequence[str], overlap: float, seed: int) -> Split:
    """Shuffle `units` with `seed` (the same seed, the same split); the first
    `overlap_size` go to every reviewer, the rest are dealt out in turn, so that shares
    differ by at most one unit. Each list comes back in answer id order."""
    order = sorted(units)
    random.Random(seed).shuffle(order)
    common = overlap_size(len(order), overlap)
    rest = order[common:]
    shares = {name: sorted(rest[i :: len(reviewers)]) for i, name in enumerate(reviewers)}
    return Split(sorted(order[:common]), shares)


@dataclass(slots=True)
class Assigned:
    """What a dataset assigns to the reviewer at the screen, and how far they are."""

    reviewer: str
    ids: frozenset[int]
    done: set[int]  # those with the reviewer's own verdict in force

    def counts(self) -> tuple[int, int]:
        """(done, assigned)."""
        return len(self.done), len(self.ids)

    def changed(self, answer: int, history: Sequence[HistoryRow]) -> None:
        """An answer's review history as it is now: done if the reviewer's own rows leave
        a verdict in force (engine.reviewers.own_verdict, as `reviewers --progress`)."""
        if answer not in self.ids:
            return
        if own_verdict(history, self.reviewer) is None:
            self.done.discard(answer)
        else:
            self.done.add(answer)


@dataclass(frozen=True, slots=True)
class Progress:
    """One reviewer's assignments in one dataset, counted in answers (a group's too)."""

    reviewer: str
    assigned: int
    done: int  # assigned answers with the reviewer's own verdict in force
    overlap: int  # assigned answers in the common overlap
    overlap_done: int


def reviewed_by(verdicts: Mapping[int, Mapping[str, Verdict]]) -> dict[str, list[int]]:
    """reviewer -> the answers with their own verdict in force (from
    `engine.reviewers.own_verdicts`), in the order of `verdicts`."""
    answers: dict[str, list[int]] = {}
    for answer, by in verdicts.items():
        for reviewer in by:
            answers.setdefault(reviewer, []).append(answer)
    return answers
