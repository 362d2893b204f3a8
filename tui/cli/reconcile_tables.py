"""`lmmreview reconcile`'s tables (the groups db/reconcile.py reads, compared by
engine/reconcile.py), as a Rich table for the terminal, Markdown and JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table as RichTable

from lmmreview.db.reconcile import Group
from lmmreview.engine.export import md_escape
from lmmreview.engine.reconcile import TITLES, Pair, Reading, Share, agreeing, compare_all, figure
from lmmreview.tui.safe_text import safe

DASH = "—"
Grid = tuple[str, list[str], list[list[str]]]  # title, headers, rows


@dataclass(slots=True)
class Compared:
    """One group with its pairs of sources compared."""

    group: Group
    pairs: list[Pair]

    def figure(self, name: str) -> float | None:
        """A source's overall figure, in points."""
        readings = self.group.sources[name].values()
        return figure([r.score for r in readings if r.score is not None])

    def by_answer(self) -> dict[str, list[tuple[Pair, Share]]]:
        """Each answer on which a pair disagrees, with those disagreements, by key."""
        found: dict[str, list[tuple[Pair, Share]]] = {}
        for pair in self.pairs:
            for share in pair.shares:
                found.setdefault(share.key, []).append((pair, share))
        return dict(sorted(found.items()))

    @property
    def title(self) -> str:
        """The datasets with their kind, as `lmmreview info` names them, and the models."""
        group = self.group
        return f"{', '.join(group.datasets)} ({group.benchmark}), {', '.join(group.models)}"


def compared(groups: list[Group]) -> list[Compared]:
    """The groups with two sources or more, their pairs compared."""
    return [Compared(g, compare_all(g.sources)) for g in groups if len(g.sources) > 1]


def _points(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return DASH if value is None else f"{value:+.2f}"


def grids(one: Compared) -> list[Grid]:
    """The group's three tables: each source's figure, each pair's difference split by
    kind, and each answer on which two sources disagree."""
    sources = one.group.sources
    figures = [
        [name, _points(one.figure(name)), str(sum(r.score is not None for r in s.values()))]
        for name, s in sources.items()
    ]
    pairs = [
        [f"{p.first} - {p.second}", _signed(p.difference), TITLES[kind], str(n), _signed(pts)]
        for p in one.pairs
        for kind, (n, pts) in p.by_kind().items()
    ] + [
        [f"{p.first} - {p.second}", _signed(p.difference), "(all agree)", "0", "+0.00"]
        for p in one.pairs
        if not p.shares
    ]
    answers = [
        [key, *(_score(sources[n].get(key)) for n in sources), agree, why]
        for key, agree, why in _answer_rows(one)
    ]
    return [
        ("overall figure of each source (points)", ["Source", "Figure", "Scored"], figures),
        (
            "what explains each difference (points)",
            ["Pair", "Difference", "Cause", "Answers", "Points"],
            pairs,
        ),
        (
            "answers on which sources disagree",
            ["Answer", *sources, "Agree", "Why"],
            answers,
        ),
    ]


def _score(reading: Reading | None) -> str:
    """A source's score of an answer, with the option it chose."""
    if reading is None or reading.score is None:
        return DASH
    return f"{reading.score:g} ({reading.choice})" if reading.choice else f"{reading.score:g}"


def _answer_rows(one: Compared) -> list[tuple[str, str, str]]:
    """(answer key, the groups of agreeing sources, each disagreement's cause) of every
    answer on which a pair disagrees."""
    sources = one.group.sources
    return [
        (
            key,
            " | ".join(", ".join(g) for g in agreeing({n: s.get(key) for n, s in sources.items()})),
            "; ".join(f"{p.first} ≠ {p.second}: {TITLES[s.kind]}" for p, s in found),
        )
        for key, found in one.by_answer().items()
    ]


def to_markdown(groups: list[Compared]) -> str:
    """Each group's tables in Markdown."""
    parts = []
    for one in groups:
        for title, headers, rows in grids(one):
            lines = [
                f"### {md_escape(one.title)}: {title}",
                "",
                "| " + " | ".join(map(md_escape, headers)) + " |",
                "|" + "---|" * len(headers),
                *("| " + " | ".join(map(md_escape, row)) + " |" for row in rows),
            ]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n" if parts else "no dataset has two sources to compare\n"


def to_rich(groups: list[Compared]) -> RenderableType:
    """Each group's tables as Rich tables; names are shown literally, never as markup."""
    tables: list[RenderableType] = []
    for one in groups:
        for title, headers, rows in grids(one):
            view = RichTable(
                title=safe(f"{one.title}: {title}", one_line=True), title_justify="left"
            )
            for header in headers:
                view.add_column(safe(header, one_line=True))
            for row in rows:
                view.add_row(*(safe(cell, one_line=True) for cell in row))
            tables.append(view)
    return RichGroup(*tables) if tables else safe("no dataset has two sources to compare")


def to_json(groups: list[Compared]) -> str:
    """Every figure unrounded; non-ASCII text as \\u escapes."""
    document = {
        "causes": {kind.value: title for kind, title in TITLES.items()},
        "groups": [_group_json(one) for one in groups],
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def _group_json(one: Compared) -> dict[str, object]:
    sources = one.group.sources
    return {
        "benchmark": one.group.benchmark,
        "datasets": one.group.datasets,
        "models": one.group.models,
        "sources": [{"name": n, "figure": one.figure(n)} for n in sources],
        "pairs": [
            {
                "first": p.first,
                "second": p.second,
                "figures": list(p.figures),
                "difference": p.difference,
                "causes": {
                    k.value: {"answers": n, "points": v} for k, (n, v) in p.by_kind().items()
                },
            }
            for p in one.pairs
        ],
        "answers": [
            {
                "key": key,
                "scores": {n: _value(s.get(key)) for n, s in sources.items()},
                "disagreements": [
                    {
                        "first": p.first,
                        "second": p.second,
                        "cause": s.kind.value,
                        "points": s.points,
                    }
                    for p, s in found
                ],
            }
            for key, found in one.by_answer().items()
        ],
    }


def _value(reading: Reading | None) -> float | None:
    return None if reading is None else reading.score


RENDERERS: dict[str, Callable[[list[Compared]], str]] = {"md": to_markdown, "json": to_json}
