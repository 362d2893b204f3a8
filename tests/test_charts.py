"""engine/charts.py: SVG charts that parse, escape what the data say, and keep their layout."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from lmmreview.engine import charts
from lmmreview.engine.judge_stats import Calibration, Confusion, ReliabilityBin
from lmmreview.engine.names import cut_names
from lmmreview.engine.tables import Cell, Column, Row, Table

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert(1)</script>&"\x1b[31m'


def _table(models: dict[str, list[float | None]], titles: list[str]) -> Table:
    columns = [Column(f"c{i}", title) for i, title in enumerate(titles)]
    columns.append(Column("sum", "Sum", sum_of=(("d.t", "c0"),)))  # a score, not drawn
    table = Table("d.t", "capabilities", "d", columns)
    for model, values in models.items():
        cells = {f"c{i}": Cell(v, 10) for i, v in enumerate(values)}
        table.rows.append(Row(model, cells))
    return table


def _parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert not list(root.iter(f"{SVG}script"))
    for element in root.iter():
        assert not any(name.startswith("on") for name in element.attrib), element.attrib
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(e.itertext()) for e in root.iter(f"{SVG}text")]


def test_bars_draw_a_bar_per_model_and_percentage_column_and_escape_every_name() -> None:
    table = _table({"alpha": [80.0, 20.0, None], HOSTILE: [50.0, 100.0, 0.0]},
                   ["rec", "ocr", "math"])  # fmt: skip
    root = _parsed(charts.bars(table))
    bars = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(bars) == 5  # alpha has no math value; the Sum column is not a percentage
    heights = {r.find(f"{SVG}title").text: float(r.get("height")) for r in bars}  # type: ignore[union-attr]
    assert heights["alpha, rec: 80.0"] == pytest.approx(4 * heights["alpha, ocr: 20.0"])
    shown = " ".join(_texts(root))
    assert "<script>" in shown  # as text: the parser read no element from it
    assert "\x1b" not in ET.tostring(root, encoding="unicode")  # made visible (␛)


def test_a_long_name_is_cut_with_the_whole_in_a_tooltip() -> None:
    long = "organisation/a-very-long-model-family-name-13b"
    root = _parsed(charts.bars(_table({long: [50.0]}, ["a capability with a long title"])))
    labels = [e for e in root.iter(f"{SVG}text") if e.find(f"{SVG}title") is not None]
    cut = {e.find(f"{SVG}title").text: "".join(e.itertext()) for e in labels}  # type: ignore[union-attr]
    shown = cut[long].removeprefix(long)  # its text follows its tooltip's
    assert shown == "organis…name-13b"  # cut in the middle: a family's sizes differ at the end
    assert len(shown) == charts.LABEL_CHARS


def test_a_radar_has_an_axis_per_column_and_needs_three() -> None:
    table = _table({"alpha": [80.0, 20.0, 60.0, 40.0], "beta": [10.0, 90.0, None, 30.0]},
                   ["rec", "ocr", "math", "spat"])  # fmt: skip
    root = _parsed(charts.radar(table, ["beta"]))
    polygons = list(root.iter(f"{SVG}polygon"))
    assert len(polygons) == 5 + 1  # five rings, beta alone
    assert len(polygons[-1].get("points", "").split()) == 3  # math left out: beta has none
    with pytest.raises(ValueError, match="3 columns"):
        charts.radar(_table({"alpha": [1.0, 2.0]}, ["a", "b"]))


def test_the_confusion_matrix_counts_each_cell_and_escapes_its_labels() -> None:
    matrix = Confusion(("0", "0.5", HOSTILE), ((3, 1, 0), (0, 2, 1), (1, 0, 7)))
    root = _parsed(charts.confusion(matrix, "gpt-4 × human"))
    cells = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(cells) == 9
    counts = [e.text for e in root.iter(f"{SVG}text") if e.find(f"{SVG}title") is None]
    assert [t for t in counts if t and t.isdigit()] == ["3", "1", "0", "0", "2", "1", "1", "0", "7"]


def test_the_reliability_diagram_draws_a_bar_per_bin_with_a_human_mean() -> None:
    calibration = Calibration(
        (ReliabilityBin(0.0, 0.5, 4, 0.2, 0.25), ReliabilityBin(0.5, 1.0, 6, 0.9, 0.7),
         ReliabilityBin(0.5, 0.6, 0, None, None)),
        0.12, 0.08,
    )  # fmt: skip
    root = _parsed(charts.reliability(calibration, "judge"))
    bars = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(bars) == 2
    assert float(bars[1].get("height", 0)) == pytest.approx(0.7 * 240)
    assert any("ECE 0.120" in t and "Brier 0.080" in t for t in _texts(root))
    assert {"4", "6"} <= set(_texts(root))  # each bar's count of answers


def test_a_long_chart_title_is_cut_whole_in_the_tooltip() -> None:
    title = "judge " * 30
    root = _parsed(charts.reliability(Calibration((), None, None), title))
    shown = [t for t in _texts(root) if t.startswith("judge judge")]
    assert shown == [charts.short(title, charts.TITLE_CHARS)]
    assert root.findtext(f"{SVG}title") == title  # whole, in the tooltip


def test_confusion_levels_are_rounded_and_many_are_binned_to_tenths() -> None:
    few = Confusion(("0", "0.333333", "0.5"), ((1, 0, 0), (0, 2, 0), (0, 0, 3)))
    shown, binned = charts.shown_levels(few)
    assert (shown.labels, binned) == (("0", "0.33", "0.5"), False)
    assert _texts(_parsed(charts.confusion(few, "j")))[-9:].count("2") == 1
    # A judge's mean over three runs: thirds and sixths of tenths, 13 levels
    labels = tuple(f"{i / 30:.6f}" for i in range(0, 13))
    many = Confusion(labels, tuple(tuple(int(i == j) for j in range(13)) for i in range(13)))
    shown, binned = charts.shown_levels(many)
    assert binned and shown.labels == ("0", "0.1", "0.2", "0.3", "0.4")
    assert sum(map(sum, shown.counts)) == 13 and shown.counts[0][0] == 2  # 0 and 1/30
    svg = charts.confusion(many, "j")
    assert "0.033333" not in svg and "binned to tenths" in svg
    assert charts.shown_levels(Confusion(("wrong", "right"), ((1, 0), (0, 1))))[1] is False


def test_a_radar_leaves_out_summaries_and_values_a_model_lacks_and_has_a_scale() -> None:
    titles = ["rec", "ocr", "math", "spat", "Total"]
    table = _table({"alpha": [80.0, 20.0, 60.0, 40.0, 50.0], "beta": [10.0, 90.0, None, 30.0, 40.0]},
                   titles)  # fmt: skip
    assert charts.radar_axes(table) == [0, 1, 3]  # not math (beta lacks it), not Total
    assert charts.radar_axes(table, ["alpha"]) == [0, 1, 2, 3]
    root = _parsed(charts.radar(table))
    assert [len(p.get("points", "").split()) for p in root.iter(f"{SVG}polygon")][-2:] == [3, 3]
    texts = _texts(root)  # a name's text follows its tooltip's
    assert "mathmath" not in texts and "TotalTotal" not in texts and "spatspat" in texts
    assert {"20", "40", "60", "80", "100"} <= set(texts)  # the radial scale


def test_a_radar_with_many_axes_numbers_them_with_a_key() -> None:
    titles = [f"capability {i}" for i in range(17)]
    root = _parsed(charts.radar(_table({"alpha": [50.0] * 17}, titles)))
    texts = _texts(root)
    assert "capability 3capability 3" not in texts and "44" in texts
    assert "4. capability 34. capability 3" in texts


def test_cut_names_stay_apart_and_a_long_legend_flows_with_dashes_past_the_palette() -> None:
    models = [f"Qwen/Qwen2-VL-7B-Instruct-run{i:02d}" for i in range(25)]
    titles = ["Commonsense Reasoning (acc)", "Commonsense Reasoning (acc+)", "OCR"]
    svg = charts.bars(_table({m: [50.0, 40.0, 30.0] for m in models}, titles))
    root = _parsed(svg)
    shown = {
        e.find(f"{SVG}title").text: "".join(e.itertext()).removeprefix(e.find(f"{SVG}title").text)  # type: ignore[union-attr,arg-type]
        for e in root.iter(f"{SVG}text")
        if e.find(f"{SVG}title") is not None
    }
    assert len({shown[m] for m in models}) == 25  # every model told apart in the legend
    assert shown[titles[0]] != shown[titles[1]]
    swatches = [r for r in root.iter(f"{SVG}rect") if r.get("width") == "10"]
    assert len(swatches) == 25 and len({r.get("x") for r in swatches}) == 3  # 12 a column
    assert float(root.get("width", 0)) >= max(float(r.get("x", 0)) for r in swatches) + 150
    assert svg.count('stroke-dasharray="6 3"') == 12 * 3 + 12  # bars and swatches, 2nd round


def test_cut_names_numbers_names_whose_cuts_still_match() -> None:
    # Names alike for their first and last 256 characters (all a cut looks at) and shared ends.
    one, two = ("a" * 300 + digit + "b" * 300 for digit in "12")
    ends = ["llava-v1.5-7b", "llava-v1.5-13b"]
    assert cut_names([one, two, *ends], 9) == {
        one: "aaa…bbb#1",
        two: "aaa…bbb#2",
        ends[0]: "llav…5-7b",
        ends[1]: "llav…-13b",
    }
