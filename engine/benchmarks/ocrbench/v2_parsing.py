"""OCRBench v2's parsing rules, restated from `eval.py` and `TEDS_metric.py`
(Yuliang-Liu/MultimodalOCR @ 7776efc): table parsing (en, cn) and chart parsing by TEDS,
document parsing (en, cn) by STEDS.

- TEDS (PubTabNet's tree-edit-distance similarity): both HTML tables parsed by lxml as
  trees of tags; 1 - the APTED edit distance / the larger count of elements below the
  `table`, where renaming costs 1 across tags or spans, and between two cells the
  normalised edit distance of their tokens (each character of the text, each tag of
  what they hold). 0 when either has no `body/table`.
- An HTML table answer (a question naming html, and every Chinese one): from its first
  `<body`, else its first `<table` (none: 0), newlines removed, wrapped with the
  missing `<table>`, `<body>`, `<html>` tags, as is the gold.
- A markdown table answer (a question naming markdown): `markdown` and backquotes
  stripped from both ends as characters, the second line (the separator) dropped, each
  line's cells between its outer pipes (one of spaces only is a space), as HTML.
- A chart answer: its longest code fence (or the whole answer), without a leading
  `name =` and `#` comments, up to its last `}`, as a Python dict literal (none: 0);
  that dict and the gold dict as a table of one row per key whose second cell is the
  value's text with its characters spaced (`12` is `1 2`).
- STEDS: each text a tree of its lines (after the official clean-up of tokens, `*` and
  `_`): a `#` line is a heading under the root, another line goes under the last
  heading's first namesake, or under the title node before any heading; 1 - the
  Zhang-Shasha distance / the larger node count, where renaming costs 1 only to or from
  a blank line: the structure counts, not the words.
These need apted, lxml and zss, of the extra `lmmreview[ocrbench-v2]`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lmmreview.engine.benchmarks.ocrbench.v2_extra import not_installed
from lmmreview.engine.levenshtein import levenshtein

MODULES = ("apted", "lxml", "zss")
_FENCES = re.compile(r"```(?:python|json)?\n(.*?)\n```", re.DOTALL | re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^\s*\w+\s*=\s*")
_COMMENT = re.compile(r"#.*")
# The official clean-up of a document line, in order: (pattern, replacement).
_CLEAN = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"<bos>|<eos>|<pad>|<unk>", ""), (r"\s##(\S)", r"\1"), (r"\\\s", r"\\"),
        (r"\s\*\s\*\s", "**"), (r"{\s", "{"), (r"\s}", "}"), (r"\s}", "}"),  # twice: "a  }"
        (r"\\begin\s", r"\\begin"),
        (r"\\end\s", r"\\end"), (r"\\end{table}", "\\\\end{table} \n\n"),
    )
)  # fmt: skip


@lru_cache(maxsize=1)
def missing() -> str | None:
    """What of the extra these rules need is not installed (None: nothing)."""
    return not_installed(*MODULES)


@dataclass
class Cell:
    """A node of a table tree: its tag, spans and tokens (a cell's only)."""

    tag: str
    colspan: int | None = None
    rowspan: int | None = None
    tokens: list[str] = field(default_factory=list)
    children: list[Cell] = field(default_factory=list)


def teds(answer: str, gold: str) -> float:
    """The tree-edit-distance similarity of two HTML documents' first body/table; 0 when
    either has none, or the documents cannot be read."""
    if not answer or not gold:
        return 0.0
    from lxml import etree, html

    parser = html.HTMLParser(remove_comments=True, encoding="utf-8")
    try:
        tables = [
            html.fromstring(text, parser=parser).xpath("body/table") for text in (answer, gold)
        ]
        if not tables[0] or not tables[1]:
            return 0.0
        said, wanted = tables[0][0], tables[1][0]
        size = max(len(said.xpath(".//*")), len(wanted.xpath(".//*")))
        return 1.0 - _tree_distance(_tree(said), _tree(wanted)) / size
    except (etree.LxmlError, ValueError, ZeroDivisionError):  # no document; empty tables
        return 0.0


def _tree_distance(said: Cell, wanted: Cell) -> float:
    from apted import APTED, Config

    class CellConfig(Config):
        def rename(self, a: Cell, b: Cell) -> float:
            if (a.tag, a.colspan, a.rowspan) != (b.tag, b.colspan, b.rowspan):
                return 1.0
            if a.tag == "td" and (a.tokens or b.tokens):
                return levenshtein(a.tokens, b.tokens) / max(len(a.tokens), len(b.tokens))
            return 0.0

    return float(APTED(said, wanted, CellConfig()).compute_edit_distance())


def _tree(node: Any) -> Cell:
    """An lxml element as a Cell tree: a cell keeps its spans and tokens, not its parts."""
    if node.tag != "td":
        return Cell(str(node.tag), children=[_tree(child) for child in node])
    colspan, rowspan = int(node.attrib.get("colspan", "1")), int(node.attrib.get("rowspan", "1"))
    return Cell("td", colspan, rowspan, _tokens(node)[1:-1])


def _tokens(node: Any) -> list[str]:
    """The element's opening tag, text characters, children's tokens, closing tag (none
    for `unk`) and, but for a cell, its tail's characters."""
    tokens = [f"<{node.tag}>", *(node.text or "")]
    for child in node:
        tokens += _tokens(child)
    if node.tag != "unk":
        tokens.append(f"</{node.tag}>")
    if node.tag != "td" and node.tail is not None:
        tokens += node.tail
    return tokens


def wrap_table(text: str) -> str:
    """Newlines removed, the missing table, body and html tags added."""
    text = text.replace("\n", "")
    opens, closes = "<table" in text, "</table>" in text
    if opens != closes or not opens:
        text = ("" if opens else "<table>") + text + ("" if closes else "</table>")
    if "<body>" not in text:
        text = f"<body>{text}</body>"
    return text if "<html>" in text else f"<html>{text}</html>"


def html_table(answer: str, golds: Iterable[str]) -> float:
    """An HTML table answer: from its first <body (or <table), against the gold."""
    flat = answer.replace("\n", "")
    start = next((flat.find(tag) for tag in ("<body", "<table") if tag in flat), None)
    if start is None:
        return 0.0
    return teds(wrap_table(flat[start:]), wrap_table(next(iter(golds))))


def markdown_html(table: str) -> str:
    """A markdown table as the official HTML: the header line and the lines after the
    separator, each cell between the outer pipes stripped (spaces only: a space)."""
    lines = table.strip("`markdown").strip("`").strip().split("\n")
    rows = []
    for line in [lines[0], *lines[2:]]:
        cells = line.strip().split("|")[1:-1]
        rows.append("".join(f"<td>{' ' if set(c) == {' '} else c.strip()}</td>" for c in cells))
    return (
        "<html><body><table>"
        + "".join(f"<tr>{row}</tr>" for row in rows)
        + "</table></body></html>"
    )


def markdown_table(answer: str, golds: Iterable[str]) -> float:
    """A markdown table answer against the markdown gold."""
    return teds(markdown_html(answer), markdown_html(next(iter(golds))))


def chart_dict(answer: str) -> dict[Any, Any]:
    """A chart answer as the official convert_str_to_multi_dict reads it ({}: none)."""
    fences = _FENCES.findall(answer)
    content = max(fences, key=len) if fences else answer.strip()
    content = _COMMENT.sub("", _ASSIGNMENT.sub("", content.strip(), count=1))
    if (end := content.rfind("}")) != -1:
        content = content[: end + 1]
    try:
        data = ast.literal_eval(content)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def dict_html(data: dict[Any, Any]) -> str:
    """A dict as the official table: a row per key, the value's text with its characters
    spaced (its Python text, where it is no text)."""
    rows = "".join(
        f"  <tr><td>{key}</td><td>{' '.join(str(value))}</td></tr>\n" for key, value in data.items()
    )
    return f"<html><body><table>\n{rows}</table></body></html>"


def chart(answer: str, golds: Iterable[str]) -> float:
    """A chart answer read as a dict, against the gold dict (stored as JSON)."""
    said = chart_dict(answer) if answer else {}
    return teds(dict_html(said), dict_html(json.loads(next(iter(golds))))) if said else 0.0


def _clean(line: str) -> str:
    for pattern, replacement in _CLEAN:
        line = pattern.sub(replacement, line)
    return line.replace("\n", " ").replace("*", " ").replace("_", " ")


def document_tree(text: str) -> Any:
    """A document as the official zss tree of its lines."""
    from zss import Node

    tree = Node("ROOT").addkid(Node("TITLE"))
    heading = ""
    for line in map(_clean, text.split("\n")):
        if line.startswith("#"):
            heading = line.replace("#", "")
            tree.get("ROOT").addkid(Node(heading))
        else:
            tree.get(heading or "TITLE").addkid(Node(line))
    return tree


def steds(answer: str, golds: Iterable[str]) -> float:
    """Document parsing: 1 - the structural tree distance / the larger node count."""
    from zss import simple_distance

    said, wanted = document_tree(answer), document_tree(next(iter(golds)))
    distance = simple_distance(said, wanted, label_dist=_blank_distance)
    return 1 - distance / max(len(list(said.iter())), len(list(wanted.iter())))


def _blank_distance(a: str, b: str) -> int:
    return 1 if not a.split() or not b.split() else 0
