"""OCRBench v2's parsing rules (engine.benchmarks.ocrbench.v2_parsing): TEDS of HTML,
markdown and chart tables, STEDS of documents, from the official eval.py and
TEDS_metric.py (Yuliang-Liu/MultimodalOCR @ 7776efc). The tables are our own; each figure
was derived by hand and equals the official functions' on the same texts."""

from __future__ import annotations

import json

import pytest

from lmmreview.engine.benchmarks.ocrbench import v2_parsing as parsing

TABLE = "<table><tr><td>ab</td><td>c</td></tr></table>"


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        (TABLE, 1.0),
        ("Here it is:\n<table>\n<tr><td>ab</td><td>c</td></tr>\n</table>\nDone.", 1.0),
        ("```html\n<table><tr><td>ab</td><td>c</td></tr>", 1.0),  # </table> added
        ("<table><tr><td>ab</td><td>d</td></tr></table>", 1 - 1 / 3),  # a cell: 1 token of 1
        ("<table><tr><td>ab</td></tr></table>", 1 - 1 / 3),  # a cell deleted, of 3 elements
        ('<table><tr><td colspan="2">ab</td><td>c</td></tr></table>', 1 - 1 / 3),  # a span
        ("<tr><td>ab</td><td>c</td></tr>", 0.0),  # no <table or <body: nothing
        ("| ab | c |", 0.0),
    ],
)
def test_html_tables(answer: str, score: float) -> None:
    assert parsing.html_table(answer, [TABLE]) == pytest.approx(score)


def test_a_cells_tokens_are_its_characters_and_tags() -> None:
    # <td><b>ab</b></td>: tokens <b> a b </b> against a b: 2 edits of 4
    bold = "<table><tr><td><b>ab</b></td><td>c</td></tr></table>"
    assert parsing.html_table(bold, [TABLE]) == pytest.approx(1 - 0.5 / 4)  # 4 elements now


MARKDOWN = "| a | b |\n| --- | --- |\n| 1 | 2 |"


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        (MARKDOWN, 1.0),
        (f"```markdown\n{MARKDOWN}\n```", 1.0),
        ("| a | b |\n| 1 | 2 |", 0.5),  # the second line is taken for the separator: 3 of 6
        ("| a | b |\n| --- | --- |\n| 1 | 3 |", 1 - 1 / 6),
    ],
)
def test_markdown_tables(answer: str, score: float) -> None:
    assert parsing.markdown_table(answer, [MARKDOWN]) == pytest.approx(score)


def test_markdown_cells() -> None:
    html = parsing.markdown_html("| a |   |  b |\n|-|-|-|")
    assert (
        html == "<html><body><table><tr><td>a</td><td> </td><td>b</td></tr></table></body></html>"
    )


CHART = json.dumps({"2019": 12, "2020": 15})


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("{'2019': 12, '2020': 15}", 1.0),
        ("```python\ndata = {'2019': 12, '2020': 16}  # sales\n```", 1 - (1 / 3) / 6),  # 1 6, 1 5
        ('```json\n{"2019": 12}\n```', 1 - 3 / 6),  # a row of three elements missing
        ("The sales were 12 and 15.", 0.0),  # no dict
        ("", 0.0),
    ],
)
def test_charts(answer: str, score: float) -> None:
    assert parsing.chart(answer, [CHART]) == pytest.approx(score)


def test_a_chart_value_is_spaced_by_characters() -> None:
    html = parsing.dict_html({"x": 12, "y": [1, 2]})
    assert "<td>x</td><td>1 2</td>" in html and "<td>y</td><td>[ 1 ,   2 ]</td>" in html


DOCUMENT = "# Title\ntext\n## Part\nmore"


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        (DOCUMENT, 1.0),
        ("# Heading\nwords\n# Other\nstuff", 1.0),  # the structure counts, not the words
        ("# Title\ntext\nmore", 0.5),  # 3 edits of 6 nodes
        ("# Title\n\n## Part\nmore", 1 - 1 / 6),  # a blank line for a line: renamed
        ("# Title\ntext\n## Part\n**", 1 - 1 / 6),  # `*` cleaned away: blank
    ],
)
def test_documents(answer: str, score: float) -> None:
    assert parsing.steds(answer, [DOCUMENT]) == pytest.approx(score)


def test_a_repeated_heading_takes_lines_to_its_first_namesake() -> None:
    tree = parsing.document_tree("# A\nx\n# A\ny")
    (first, second) = tree.children[1:]
    assert [n.label for n in first.children] == ["x", "y"] and second.children == []
