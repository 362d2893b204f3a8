"""Names cut to fit a column or a chart's label, in the middle (`llava-v1.5-7b` and
`llava-v1.5-13b` differ at their end, other names at their start), each still telling
itself apart from the others: for the review list and screens, the report's charts and
`figure`. Width in terminal cells (a wide character takes two)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from rich.cells import cell_len

from lmmreview.engine.visible import visible


def fitting(chars: Iterable[str], width: int) -> str:
    """The first of `chars` that fit in `width` cells (wide characters take two)."""
    taken = ""
    for char in chars:
        if cell_len(taken + char) > width:
            break
        taken += char
    return taken


ENDS = 256  # only the ends of a long name can show in a column of 14 cells at most


def _model_line(model: str) -> str:
    """A model name as one visible line, a long one first cut to its ends (cheaply)."""
    if len(model) > 2 * ENDS:
        model = model[:ENDS] + model[-ENDS:]
    return visible(model, one_line=True)


def _shared(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def shared_ends(models: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Each model's longest start and end (in characters of its visible line) that it
    shares with another model: a cut must keep some of what lies between to tell it apart."""
    lines = {model: _model_line(model) for model in set(models)}
    ends: dict[str, tuple[int, int]] = {}
    for model, line in lines.items():
        others = [other for other in lines.values() if other != line]
        ends[model] = (
            max((_shared(line, other) for other in others), default=0),
            max((_shared(line[::-1], other[::-1]) for other in others), default=0),
        )
    return ends


def _middle_cut(line: str, width: int) -> tuple[str, str]:
    """The head and tail of `line` that fit in `width` cells around one "…"."""
    head = fitting(line, (width - 1) // 2)
    return head, fitting(reversed(line), width - 1 - cell_len(head))[::-1]


def short_model(model: str, width: int, shared: tuple[int, int] = (0, 0)) -> str:
    """A model name cut to `width` in the middle: `llava-v1.5-7b` and `llava-v1.5-13b`
    differ at their end, other names at their start. When the cut would keep only the
    `shared` start and end (see shared_ends), the shared start is dropped instead."""
    line = _model_line(model)
    if cell_len(line) <= width:
        return line
    head, tail = _middle_cut(line, width)
    start, end = shared
    if len(head) > start or len(tail) > end:
        return head + "…" + tail
    rest = line[start:]  # begins where the name differs from its nearest neighbour
    if cell_len(rest) <= width - 1:
        return "…" + rest
    head, tail = _middle_cut(rest, width - 1)
    return "…" + head + "…" + tail


def cut_names(names: Sequence[str], width: int) -> dict[str, str]:
    """Each name cut to `width` by short_model, all of them told apart: names whose cuts
    still match (the same ends, different middles) are numbered."""
    ends = shared_ends(names)
    cut = {name: short_model(name, width, ends[name]) for name in names}
    seen = Counter(cut.values())
    numbers: Counter[str] = Counter()
    for name in names:
        if seen[shown := cut[name]] > 1:
            numbers[shown] += 1
            tag = f"#{numbers[shown]}"
            cut[name] = short_model(name, width - len(tag), ends[name]) + tag
    return cut
