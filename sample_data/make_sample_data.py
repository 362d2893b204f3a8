"""Regenerate the lmmreview sample data (images, benchmark files and demo-model answers).

Run ``python sample_data/make_sample_data.py`` (no arguments).  Everything is written next to
this script and is fully deterministic: fixed seeds, no timestamps, PNGs without metadata, so
two runs produce byte-identical files (given the same Pillow/FreeType build).

What it makes:

* ``mmvet/`` - an MM-Vet style set in the official layout: ``mm-vet.json`` (20 samples keyed
  ``v1_0`` ... ``v1_19``, ground truths using ``<AND>`` / ``<OR>``, capability lists, three of
  them given as a comma-separated string), ``images/v1_N.png`` and ``answers/<model>.json``.
* ``mmbench/`` - an MMBench style ``mmbench_demo.tsv`` (12 questions with 2, 3 or 4 options plus
  their circular copies, images as base64 on the main rows and as index references on the
  copies) and ``predictions/<model>.tsv`` with free-text predictions for every row.
* ``mmmu/`` - an MMMU style ``questions.jsonl`` (Hugging Face field layout), ``images/``,
  ``answer_dict_val.json`` and ``outputs/<model>/<Subject>/output.json`` (official
  example-output layout with free-text responses).
* ``generic/`` - ``demo.jsonl`` in lmmreview's own JSONL format (six questions, open and
  multiple choice, with free tags, then the demo models' answer lines) and its ``images/``.
* ``README.md`` - a short description.

The three models ``demo-alpha`` (strong), ``demo-beta`` (mediocre, chatty) and ``demo-gamma``
(weak) are made-up demo models; their answers are hand-written tables in this file.

Images are drawn with Pillow only (``ImageFont.load_default(size=...)``, no system fonts).
"""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import random
import shutil
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFilter, ImageFont

OUT_DIR = Path(__file__).resolve().parent
MODELS = ("demo-alpha", "demo-beta", "demo-gamma")

Color = tuple[int, int, int]
Point = tuple[float, float]

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
GREY: Color = (128, 128, 128)
LIGHT_GREY: Color = (220, 220, 220)
RED: Color = (220, 40, 40)
GREEN: Color = (40, 150, 60)
BLUE: Color = (40, 90, 200)
YELLOW: Color = (245, 200, 30)
ORANGE: Color = (240, 130, 30)
PURPLE: Color = (130, 60, 170)
BROWN: Color = (130, 80, 40)
SKY: Color = (170, 210, 240)

LETTERS = "ABCDEFG"


# ---------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return Pillow's built-in default font at ``size`` pixels (cached)."""
    return ImageFont.load_default(size=size)


def canvas(
    width: int = 400, height: int = 300, bg: Color = WHITE
) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """Create a new RGB image and a drawing context for it."""
    img = Image.new("RGB", (width, height), bg)
    return img, ImageDraw.Draw(img)


def text(
    draw: ImageDraw.ImageDraw,
    xy: Point,
    s: str,
    size: int = 16,
    fill: Color = BLACK,
    anchor: str = "la",
) -> None:
    """Draw ``s`` at ``xy`` with the default font; ``anchor`` as in Pillow (``mm`` = centred)."""
    draw.text(xy, s, fill=fill, font=font(size), anchor=anchor)


def png_bytes(img: Image.Image, colors: int = 32) -> bytes:
    """Encode ``img`` as a small, metadata-free, palette PNG."""
    small = img.convert("RGB").quantize(
        colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def regenerate(folder: Path, build: Callable[[Path], None], title: str) -> None:
    """Make `folder` anew with `build` (a benchmark's sample data) and say so."""
    if folder.is_dir():
        shutil.rmtree(folder)
    build(folder)
    print(f"{title} sample data written to {folder}")


def save_png(img: Image.Image, path: Path) -> bytes:
    """Write ``img`` to ``path`` as PNG and return the encoded bytes."""
    data = png_bytes(img)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


def polygon_points(
    cx: float, cy: float, radius: float, sides: int, start_deg: float
) -> list[Point]:
    """Corners of a regular polygon centred on (cx, cy); angle 0 points right, -90 points up."""
    pts = []
    for i in range(sides):
        a = math.radians(start_deg + 360.0 * i / sides)
        pts.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return pts


def draw_shape(
    draw: ImageDraw.ImageDraw, kind: str, cx: float, cy: float, r: float, fill: Color
) -> None:
    """Draw a filled ``circle``, ``square`` or ``triangle`` of half-size ``r`` at (cx, cy)."""
    if kind == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=BLACK, width=2)
    elif kind == "square":
        draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=BLACK, width=2)
    elif kind == "triangle":
        draw.polygon(polygon_points(cx, cy + r * 0.2, r * 1.15, 3, -90), fill=fill, outline=BLACK)
    else:
        raise ValueError(f"unknown shape {kind!r}")


def dashed_line(draw: ImageDraw.ImageDraw, a: Point, b: Point, fill: Color, dash: int = 6) -> None:
    """Draw a dashed straight line from ``a`` to ``b``."""
    length = math.dist(a, b)
    steps = max(1, int(length // dash))
    for i in range(0, steps, 2):
        t0, t1 = i / steps, min(1.0, (i + 1) / steps)
        p0 = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
        p1 = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
        draw.line((p0, p1), fill=fill, width=2)


def arrow(draw: ImageDraw.ImageDraw, a: Point, b: Point, fill: Color, width: int = 4) -> None:
    """Draw a straight arrow from ``a`` to ``b`` with a triangular head at ``b``."""
    draw.line((a, b), fill=fill, width=width)
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    head = 14
    left = (b[0] - head * math.cos(ang - 0.45), b[1] - head * math.sin(ang - 0.45))
    right = (b[0] - head * math.cos(ang + 0.45), b[1] - head * math.sin(ang + 0.45))
    draw.polygon([b, left, right], fill=fill)


def bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    colors: Sequence[Color],
    value_fmt: Callable[[float], str] = lambda v: f"{v:g}",
    size: tuple[int, int] = (420, 300),
) -> Image.Image:
    """A titled bar chart with the value written on every bar (negative values allowed)."""
    w, h = size
    img, d = canvas(w, h)
    text(d, (w / 2, 22), title, 19, anchor="mm")
    left, right, top, bottom = 30, w - 20, 60, h - 40
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    if lo < 0:
        lo -= (hi - lo) * 0.15  # room for the labels under negative bars
    span = (hi - lo) * 1.15 or 1.0

    def y_of(v: float) -> float:
        return bottom - (v - lo) / span * (bottom - top)

    zero = y_of(0.0)
    slot = (right - left) / len(values)
    for i, (lab, val) in enumerate(zip(labels, values, strict=True)):
        x0 = left + slot * i + slot * 0.2
        x1 = left + slot * (i + 1) - slot * 0.2
        y = y_of(val)
        colour = colors[i % len(colors)]
        d.rectangle((x0, min(y, zero), x1, max(y, zero)), fill=colour, outline=BLACK)
        label_y = y - 10 if val >= 0 else y + 10
        text(d, ((x0 + x1) / 2, label_y), value_fmt(val), 15, anchor="mm")
        text(d, ((x0 + x1) / 2, bottom + 18), lab, 15, anchor="mm")
    d.line((left, zero, right, zero), fill=BLACK, width=2)
    d.line((left, top - 10, left, bottom), fill=BLACK, width=2)
    return img


def make_axes(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    x_ticks: Sequence[tuple[float, str]],
    y_ticks: Sequence[tuple[float, str]],
    x_label: str,
    y_label: str,
) -> Callable[[float, float], Point]:
    """Draw axes with ticks and light grid lines in ``box``; return a data-to-pixel mapper."""
    x0, y0, x1, y1 = box

    def to_px(x: float, y: float) -> Point:
        px = x0 + (x - x_range[0]) / (x_range[1] - x_range[0]) * (x1 - x0)
        py = y1 - (y - y_range[0]) / (y_range[1] - y_range[0]) * (y1 - y0)
        return px, py

    for yv, lab in y_ticks:
        _, py = to_px(x_range[0], yv)
        draw.line((x0, py, x1, py), fill=LIGHT_GREY, width=1)
        text(draw, (x0 - 6, py), lab, 13, anchor="rm")
    for xv, lab in x_ticks:
        px, _ = to_px(xv, y_range[0])
        draw.line((px, y1, px, y1 + 5), fill=BLACK, width=1)
        text(draw, (px, y1 + 15), lab, 13, anchor="mm")
    draw.line((x0, y1, x1 + 8, y1), fill=BLACK, width=2)
    draw.line((x0, y0 - 8, x0, y1), fill=BLACK, width=2)
    text(draw, ((x0 + x1) / 2, y1 + 34), x_label, 14, anchor="mm")
    text(draw, (x0 - 6, y0 - 22), y_label, 14, anchor="la")
    return to_px


def table_image(
    title: str,
    rows: Sequence[Sequence[str]],
    col_widths: Sequence[int],
    size: tuple[int, int] = (400, 260),
    header: bool = True,
) -> Image.Image:
    """A simple ruled table; the first column is left-aligned, the others right-aligned."""
    w, h = size
    img, d = canvas(w, h)
    text(d, (w / 2, 22), title, 19, anchor="mm")
    row_h = 32
    x_start = (w - sum(col_widths)) // 2
    y = 48
    for r, row in enumerate(rows):
        x = x_start
        if header and r == 0:
            d.rectangle((x_start, y, x_start + sum(col_widths), y + row_h), fill=LIGHT_GREY)
        for c, cell in enumerate(row):
            cw = col_widths[c]
            if c == 0:
                text(d, (x + 8, y + row_h / 2), cell, 15, anchor="lm")
            else:
                text(d, (x + cw - 8, y + row_h / 2), cell, 15, anchor="rm")
            x += cw
        y += row_h
    total_w = sum(col_widths)
    for i in range(len(rows) + 1):
        yy = 48 + i * row_h
        d.line((x_start, yy, x_start + total_w, yy), fill=BLACK, width=1)
    x = x_start
    for cw in [0, *col_widths]:
        x += cw
        d.line((x, 48, x, 48 + len(rows) * row_h), fill=BLACK, width=1)
    return img


# ---------------------------------------------------------------------------
# MM-Vet images
# ---------------------------------------------------------------------------


def img_fruit_sales() -> Image.Image:
    """Bar chart of fruit sold (apples 14)."""
    return bar_chart(
        "Fruit sold on Saturday",
        ["Apples", "Bananas", "Cherries", "Dates"],
        [14, 9, 6, 11],
        [RED, YELLOW, PURPLE, BROWN],
    )


def img_price_sign() -> Image.Image:
    """A shop price sign for a coffee mug at $12.99."""
    img, d = canvas(400, 300, (235, 225, 205))
    d.rectangle((40, 30, 360, 270), fill=WHITE, outline=BLACK, width=3)
    d.rectangle((40, 30, 360, 80), fill=RED)
    text(d, (200, 55), "SALE", 32, WHITE, "mm")
    # mug icon
    d.rectangle((80, 110, 140, 180), fill=BLUE, outline=BLACK, width=2)
    d.arc((125, 125, 165, 165), -90, 90, fill=BLACK, width=6)
    text(d, (250, 125), "Coffee Mug", 24, anchor="mm")
    text(d, (250, 180), "$12.99", 44, RED, "mm")
    text(d, (200, 245), "while stocks last", 15, GREY, "mm")
    return img


def img_count_shapes() -> Image.Image:
    """Twelve shapes on a grid: 5 triangles, 3 circles, 4 squares."""
    img, d = canvas(400, 300)
    kinds = "TCSTSCTSTCST"
    colours = {"T": ORANGE, "C": BLUE, "S": GREEN}
    names = {"T": "triangle", "C": "circle", "S": "square"}
    offsets = [(-8, 4), (6, -6), (0, 8), (10, 0), (-6, -4), (4, 6)]
    for i, k in enumerate(kinds):
        col, row = i % 4, i // 4
        dx, dy = offsets[i % len(offsets)]
        draw_shape(d, names[k], 55 + col * 97 + dx, 55 + row * 95 + dy, 28, colours[k])
    return img


def img_blackboard() -> Image.Image:
    """A blackboard with the sum 27 + 15 = ?."""
    img, d = canvas(420, 300, BROWN)
    d.rectangle((20, 20, 400, 260), fill=(30, 70, 50))
    chalk = (240, 240, 230)
    text(d, (40, 40), "Homework", 18, chalk)
    text(d, (210, 140), "27 + 15 = ?", 52, chalk, "mm")
    d.rectangle((150, 262, 270, 280), fill=(200, 190, 170))
    return img


def img_floor_plan() -> Image.Image:
    """To-scale floor plan: Kitchen | Bathroom | Bedroom on top, Living room below."""
    img, d = canvas(460, 330)
    scale, ox, oy = 36, 32, 52
    text(d, (230, 24), "Floor plan", 18, anchor="mm")
    rooms = [
        ("Kitchen", 0, 0, 4, 4, (250, 235, 200)),
        ("Bathroom", 4, 0, 2, 4, (210, 235, 250)),
        ("Bedroom", 6, 0, 5, 4, (230, 215, 245)),
        ("Living room", 0, 4, 11, 3, (215, 245, 215)),
    ]
    for name, x, y, w, h, fill in rooms:
        box = (ox + x * scale, oy + y * scale, ox + (x + w) * scale, oy + (y + h) * scale)
        d.rectangle(box, fill=fill, outline=BLACK, width=3)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        text(d, (cx, cy - 10), name, 14 if w > 2 else 13, anchor="mm")
        text(d, (cx, cy + 10), f"{w} m x {h} m", 13, (60, 60, 60), "mm")
    return img


def img_street_sign() -> Image.Image:
    """A sign post with 'Maple Ave' above '5th St'."""
    img, d = canvas(400, 300, SKY)
    d.rectangle((0, 250, 400, 300), fill=(150, 150, 150))
    d.rectangle((192, 40, 208, 260), fill=(90, 90, 90))
    sign_green = (20, 110, 60)
    for box, label in (((80, 50, 320, 100), "Maple Ave"), ((120, 115, 280, 165), "5th St")):
        d.rectangle(box, fill=sign_green, outline=WHITE, width=3)
        text(d, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), label, 28, WHITE, "mm")
    return img


def receipt(shop: str, items: Sequence[tuple[str, str]], total: str) -> Image.Image:
    """A till receipt with item prices right-aligned and a total line."""
    img, d = canvas(320, 320, (200, 200, 200))
    d.rectangle((40, 15, 280, 305), fill=WHITE)
    text(d, (160, 42), shop, 20, anchor="mm")
    text(d, (160, 64), "Receipt #0042", 13, GREY, "mm")
    y = 95
    for name, price in items:
        text(d, (60, y), name, 16, anchor="lm")
        text(d, (260, y), price, 16, anchor="rm")
        y += 28
    dashed_line(d, (55, y - 6), (265, y - 6), BLACK)
    text(d, (60, y + 14), "TOTAL", 18, anchor="lm")
    text(d, (260, y + 14), total, 18, anchor="rm")
    text(d, (160, 285), "Thank you!", 14, GREY, "mm")
    return img


def img_receipt_grocery() -> Image.Image:
    """Grocery receipt totalling $7.45."""
    return receipt("FRESH MART", [("Bread", "2.50"), ("Milk", "1.75"), ("Eggs", "3.20")], "$7.45")


def img_receipt_cafe() -> Image.Image:
    """Cafe receipt: coffee 2.50, sandwich 6.00, cookie 1.25."""
    return receipt(
        "CORNER CAFE", [("Coffee", "2.50"), ("Sandwich", "6.00"), ("Cookie", "1.25")], "$9.75"
    )


def img_clock() -> Image.Image:
    """An analogue clock showing 3:30."""
    img, d = canvas(320, 320, (240, 240, 235))
    cx, cy, r = 160, 160, 130
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE, outline=BLACK, width=6)
    for h in range(1, 13):
        a = math.radians(h * 30 - 90)
        text(d, (cx + (r - 25) * math.cos(a), cy + (r - 25) * math.sin(a)), str(h), 20, anchor="mm")
        d.line(
            (
                cx + (r - 8) * math.cos(a),
                cy + (r - 8) * math.sin(a),
                cx + (r - 2) * math.cos(a),
                cy + (r - 2) * math.sin(a),
            ),
            fill=BLACK,
            width=3,
        )
    hour_a = math.radians((3 + 30 / 60) * 30 - 90)
    minute_a = math.radians(30 * 6 - 90)
    d.line((cx, cy, cx + 65 * math.cos(hour_a), cy + 65 * math.sin(hour_a)), fill=BLACK, width=9)
    d.line(
        (cx, cy, cx + 100 * math.cos(minute_a), cy + 100 * math.sin(minute_a)), fill=BLACK, width=5
    )
    d.ellipse((cx - 7, cy - 7, cx + 7, cy + 7), fill=RED)
    return img


def img_traffic_light() -> Image.Image:
    """A traffic light with only the red lamp lit."""
    img, d = canvas(320, 320, SKY)
    d.rectangle((150, 220, 170, 320), fill=(70, 70, 70))
    d.rounded_rectangle((110, 20, 210, 230), 14, fill=(30, 30, 30))
    lamps = [((255, 30, 30), 60), ((90, 70, 20), 125), ((20, 70, 30), 190)]
    for colour, y in lamps:
        d.ellipse((135, y - 25, 185, y + 25), fill=colour, outline=(10, 10, 10), width=2)
    d.ellipse((147, 45, 160, 55), fill=(255, 170, 170))
    return img


def img_shape_layout(layout: Sequence[tuple[str, str, Color, float, float]]) -> Image.Image:
    """Named shapes at given centres; ``layout`` items are (name, kind, colour, x, y)."""
    img, d = canvas(400, 300)
    for _name, kind, colour, x, y in layout:
        draw_shape(d, kind, x, y, 34, colour)
    return img


def img_shapes_left() -> Image.Image:
    """Blue square centre, red circle left, green triangle above, orange triangle right."""
    return img_shape_layout(
        [
            ("blue square", "square", BLUE, 200, 175),
            ("red circle", "circle", RED, 80, 175),
            ("green triangle", "triangle", GREEN, 200, 65),
            ("orange triangle", "triangle", ORANGE, 320, 175),
        ]
    )


def img_shapes_above() -> Image.Image:
    """Blue square centre, green circle above, red triangle below, yellow square left."""
    return img_shape_layout(
        [
            ("blue square", "square", BLUE, 220, 150),
            ("green circle", "circle", GREEN, 220, 55),
            ("red triangle", "triangle", RED, 220, 248),
            ("yellow square", "square", YELLOW, 95, 150),
        ]
    )


def img_shelf() -> Image.Image:
    """Two shelves with price tags: ball $3.50 and cup $2.25 on top; book and box below."""
    img, d = canvas(400, 320, (245, 240, 230))
    wood = (160, 110, 60)
    for y in (140, 285):
        d.rectangle((20, y, 380, y + 14), fill=wood, outline=BLACK)
    d.rectangle((20, 10, 32, 300), fill=wood)
    d.rectangle((368, 10, 380, 300), fill=wood)
    # top shelf: ball and cup
    d.ellipse((80, 70, 150, 140), fill=RED, outline=BLACK, width=2)
    d.arc((80, 85, 150, 125), 0, 180, fill=WHITE, width=3)
    d.polygon([(240, 75), (300, 75), (292, 140), (248, 140)], fill=(90, 160, 220), outline=BLACK)
    d.arc((285, 88, 320, 125), -90, 90, fill=BLACK, width=6)
    # bottom shelf: book and box
    d.rectangle((80, 205, 150, 285), fill=GREEN, outline=BLACK, width=2)
    d.line((90, 215, 90, 280), fill=WHITE, width=3)
    d.rectangle((235, 225, 315, 285), fill=(200, 160, 100), outline=BLACK, width=2)
    d.line((235, 245, 315, 245), fill=BLACK, width=2)
    tags = [
        ((115, 168), "$3.50"),
        ((272, 168), "$2.25"),
        ((115, 303), "$4.00"),
        ((275, 303), "$1.75"),
    ]
    for (x, y), price in tags:
        d.rectangle((x - 32, y - 13, x + 32, y + 13), fill=YELLOW, outline=BLACK)
        text(d, (x, y), price, 16, anchor="mm")
    return img


def img_temperature() -> Image.Image:
    """Line chart of daily temperature, highest on Thursday (18 °C)."""
    img, d = canvas(420, 300)
    text(d, (210, 20), "Temperature this week", 19, anchor="mm")
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
    temps = [12, 15, 11, 18, 16]
    to_px = make_axes(
        d,
        (60, 70, 400, 240),
        (-0.5, 4.5),
        (0, 20),
        [(i, day) for i, day in enumerate(days)],
        [(v, str(v)) for v in (0, 5, 10, 15, 20)],
        "Day",
        "°C",
    )
    pts = [to_px(i, t) for i, t in enumerate(temps)]
    d.line(pts, fill=RED, width=3)
    for (px, py), t in zip(pts, temps, strict=True):
        d.ellipse((px - 5, py - 5, px + 5, py + 5), fill=RED)
        text(d, (px, py - 14), str(t), 14, anchor="mm")
    return img


def img_bottle() -> Image.Image:
    """A bottle labelled ORANGE JUICE, 1 L."""
    img, d = canvas(320, 320, (230, 240, 230))
    d.rectangle((140, 20, 180, 40), fill=(40, 120, 40))
    d.polygon([(145, 40), (175, 40), (215, 90), (105, 90)], fill=(250, 170, 60), outline=BLACK)
    d.rectangle((105, 90, 215, 300), fill=(250, 170, 60), outline=BLACK, width=2)
    d.rectangle((100, 140, 220, 250), fill=WHITE, outline=BLACK, width=2)
    d.ellipse((145, 148, 175, 178), fill=ORANGE, outline=BLACK)
    d.line((160, 148, 166, 140), fill=GREEN, width=3)
    text(d, (160, 195), "ORANGE", 20, anchor="mm")
    text(d, (160, 217), "JUICE", 20, anchor="mm")
    text(d, (160, 239), "1 L", 14, anchor="mm")
    return img


def img_snow_scene() -> Image.Image:
    """Winter scene: snowman, snowy roof, bare tree, falling snow."""
    img, d = canvas(420, 300, (170, 180, 195))
    d.rectangle((0, 210, 420, 300), fill=(250, 250, 255))
    # house with snowy roof
    d.rectangle((270, 130, 380, 220), fill=(170, 70, 60), outline=BLACK)
    d.polygon([(255, 135), (325, 80), (395, 135)], fill=WHITE, outline=BLACK)
    d.rectangle((310, 170, 340, 220), fill=BROWN)
    # bare tree
    d.line((60, 215, 60, 110), fill=(90, 60, 30), width=8)
    for end in ((30, 95), (95, 85), (40, 140), (85, 130)):
        d.line(((60, 150), end), fill=(90, 60, 30), width=4)
    # snowman
    for cy, r in ((235, 38), (178, 28), (133, 20)):
        d.ellipse((180 - r, cy - r, 180 + r, cy + r), fill=WHITE, outline=(120, 120, 140), width=2)
    d.polygon([(180, 133), (205, 138), (180, 141)], fill=ORANGE)
    d.ellipse((170, 124, 176, 130), fill=BLACK)
    d.ellipse((184, 124, 190, 130), fill=BLACK)
    d.rectangle((158, 150, 202, 160), fill=RED)
    d.rectangle((188, 150, 198, 185), fill=RED)
    rng = random.Random(7)
    for _ in range(60):
        x, y = rng.randint(0, 419), rng.randint(0, 205)
        d.ellipse((x - 2, y - 2, x + 2, y + 2), fill=WHITE)
    return img


def img_rainfall() -> Image.Image:
    """Bar chart of monthly rainfall decreasing from January to June."""
    return bar_chart(
        "Monthly rainfall (mm)",
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun"],
        [80, 65, 50, 40, 30, 15],
        [BLUE],
    )


def img_magnifier() -> Image.Image:
    """A magnifying glass enlarging part of a small printed word."""
    img, d = canvas(360, 300, (250, 248, 240))
    text(d, (40, 60), "tiny print tiny print tiny print", 11, GREY)
    d.line((230, 200, 320, 285), fill=(60, 40, 20), width=18)
    d.ellipse((90, 70, 250, 230), fill=(215, 235, 250), outline=(60, 60, 60), width=10)
    text(d, (170, 150), "print", 34, BLACK, "mm")
    return img


def img_speed_sign() -> Image.Image:
    """A speed limit 30 road sign."""
    img, d = canvas(320, 320, SKY)
    d.rectangle((150, 200, 170, 320), fill=(110, 110, 110))
    d.rectangle((85, 30, 235, 220), fill=WHITE, outline=BLACK, width=5)
    text(d, (160, 65), "SPEED", 26, anchor="mm")
    text(d, (160, 97), "LIMIT", 26, anchor="mm")
    text(d, (160, 160), "30", 64, anchor="mm")
    return img


# ---------------------------------------------------------------------------
# MMBench images
# ---------------------------------------------------------------------------


def img_beach() -> Image.Image:
    """Beach: sky, sun, sea with waves, sand and a parasol."""
    img, d = canvas(400, 300, SKY)
    d.ellipse((300, 25, 360, 85), fill=YELLOW)
    d.rectangle((0, 140, 400, 200), fill=(40, 120, 200))
    for x in range(0, 400, 40):
        d.arc((x, 150, x + 40, 170), 180, 360, fill=WHITE, width=2)
    d.rectangle((0, 200, 400, 300), fill=(240, 215, 150))
    d.line((120, 280, 140, 185), fill=BROWN, width=4)
    d.pieslice((75, 160, 205, 240), 180, 360, fill=RED, outline=BLACK)
    d.ellipse((250, 250, 290, 270), fill=(200, 170, 110))
    return img


def img_happy_face() -> Image.Image:
    """A smiling face."""
    img, d = canvas(320, 320, (235, 240, 250))
    d.ellipse((40, 40, 280, 280), fill=YELLOW, outline=BLACK, width=4)
    d.ellipse((105, 105, 135, 145), fill=BLACK)
    d.ellipse((185, 105, 215, 145), fill=BLACK)
    d.arc((90, 120, 230, 235), 20, 160, fill=BLACK, width=8)
    return img


def img_blurry() -> Image.Image:
    """A checkerboard with letters, strongly blurred."""
    img, d = canvas(400, 300)
    for i in range(8):
        for j in range(6):
            if (i + j) % 2 == 0:
                d.rectangle((i * 50, j * 50, i * 50 + 50, j * 50 + 50), fill=(40, 40, 90))
    text(d, (200, 150), "ABC", 72, RED, "mm")
    return img.filter(ImageFilter.GaussianBlur(6))


def img_ball_corner() -> Image.Image:
    """Image split into quadrants with a red ball bottom-right and a blue box top-left."""
    img, d = canvas(400, 300, (245, 245, 245))
    d.line((200, 0, 200, 300), fill=LIGHT_GREY, width=2)
    d.line((0, 150, 400, 150), fill=LIGHT_GREY, width=2)
    d.rectangle((60, 40, 130, 110), fill=BLUE, outline=BLACK, width=2)
    d.ellipse((270, 190, 340, 260), fill=RED, outline=BLACK, width=2)
    d.arc((282, 200, 328, 235), 200, 340, fill=WHITE, width=3)
    return img


def img_open_sign() -> Image.Image:
    """A shop door sign reading OPEN."""
    img, d = canvas(400, 300, (120, 85, 60))
    d.line((150, 0, 200, 60), fill=(200, 200, 200), width=3)
    d.line((250, 0, 200, 60), fill=(200, 200, 200), width=3)
    d.rectangle((80, 70, 320, 210), fill=WHITE, outline=RED, width=8)
    text(d, (200, 140), "OPEN", 64, RED, "mm")
    return img


def draw_car(d: ImageDraw.ImageDraw, x: float, y: float, colour: Color, scale: float = 1.0) -> None:
    """Draw a side-view car whose bottom-left corner of the body is at (x, y)."""
    s = scale
    d.rectangle((x, y - 40 * s, x + 180 * s, y), fill=colour, outline=BLACK, width=2)
    d.polygon(
        [
            (x + 40 * s, y - 40 * s),
            (x + 65 * s, y - 75 * s),
            (x + 125 * s, y - 75 * s),
            (x + 150 * s, y - 40 * s),
        ],
        fill=colour,
        outline=BLACK,
    )
    d.rectangle((x + 70 * s, y - 68 * s, x + 120 * s, y - 44 * s), fill=SKY)
    for wx in (x + 40 * s, x + 140 * s):
        d.ellipse((wx - 20 * s, y - 20 * s, wx + 20 * s, y + 20 * s), fill=(30, 30, 30))
        d.ellipse((wx - 8 * s, y - 8 * s, wx + 8 * s, y + 8 * s), fill=(180, 180, 180))


def img_red_car() -> Image.Image:
    """A red car on a road."""
    img, d = canvas(400, 300, SKY)
    d.rectangle((0, 220, 400, 300), fill=(90, 90, 90))
    for x in range(10, 400, 60):
        d.rectangle((x, 262, x + 30, 268), fill=WHITE)
    draw_car(d, 100, 225, RED)
    return img


def img_house_tree_car() -> Image.Image:
    """From left to right: a house, a tree, a blue car."""
    img, d = canvas(440, 300, SKY)
    d.rectangle((0, 230, 440, 300), fill=(110, 180, 90))
    d.rectangle((25, 140, 135, 235), fill=(230, 200, 150), outline=BLACK, width=2)
    d.polygon([(15, 145), (80, 90), (145, 145)], fill=(170, 60, 50), outline=BLACK)
    d.rectangle((65, 185, 95, 235), fill=BROWN)
    d.rectangle((205, 160, 225, 235), fill=BROWN)
    d.ellipse((170, 80, 260, 175), fill=GREEN)
    draw_car(d, 285, 225, BLUE, 0.75)
    return img


def img_circle_sizes() -> Image.Image:
    """Four circles of different sizes; the green one is largest."""
    img, d = canvas(440, 300)
    for colour, cx, r in ((RED, 60, 32), (BLUE, 160, 44), (GREEN, 275, 66), (YELLOW, 390, 26)):
        d.ellipse((cx - r, 150 - r, cx + r, 150 + r), fill=colour, outline=BLACK, width=2)
    return img


def img_umbrella() -> Image.Image:
    """A person holding an umbrella in the rain."""
    img, d = canvas(360, 320, (150, 160, 175))
    rng = random.Random(11)
    for _ in range(70):
        x, y = rng.randint(0, 359), rng.randint(0, 300)
        d.line((x, y, x - 4, y + 14), fill=(220, 230, 245), width=2)
    d.polygon([(115, 110), (305, 110), (305, 320), (115, 320)], fill=(150, 160, 175))
    d.pieslice((115, 40, 305, 180), 180, 360, fill=PURPLE, outline=BLACK, width=2)
    d.line((210, 110, 210, 205), fill=BLACK, width=3)
    d.arc((210, 195, 226, 215), 0, 180, fill=BLACK, width=3)
    d.ellipse((160, 135, 200, 175), fill=(240, 200, 170), outline=BLACK)
    d.line((180, 175, 180, 250), fill=BLACK, width=4)
    d.line((180, 192, 210, 200), fill=BLACK, width=4)
    d.line((180, 192, 155, 225), fill=BLACK, width=4)
    d.line((180, 250, 155, 305), fill=BLACK, width=4)
    d.line((180, 250, 205, 305), fill=BLACK, width=4)
    return img


def img_cup_on_table() -> Image.Image:
    """A cup standing on top of a table."""
    img, d = canvas(400, 300, (245, 240, 230))
    d.rectangle((0, 270, 400, 300), fill=(200, 180, 150))
    d.rectangle((70, 150, 330, 168), fill=BROWN, outline=BLACK)
    d.rectangle((90, 168, 104, 272), fill=BROWN)
    d.rectangle((296, 168, 310, 272), fill=BROWN)
    d.polygon([(175, 90), (225, 90), (220, 150), (180, 150)], fill=WHITE, outline=BLACK)
    d.arc((212, 100, 245, 135), -90, 90, fill=BLACK, width=5)
    for x in (190, 205):
        d.arc((x - 6, 60, x + 6, 85), 90, 270, fill=GREY, width=2)
    return img


def img_monthly_sales() -> Image.Image:
    """Shop sales per month, highest in April."""
    return bar_chart("Shop sales (units)", ["Jan", "Feb", "Mar", "Apr"], [20, 35, 30, 45], [GREEN])


def img_bowling() -> Image.Image:
    """A bowling ball rolling (arrow) towards a triangle of pins."""
    img, d = canvas(440, 280, (235, 215, 170))
    d.ellipse((30, 150, 100, 220), fill=(40, 40, 60))
    for cx, cy in ((55, 170), (72, 168), (64, 184)):
        d.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=(200, 200, 200))
    arrow(d, (115, 185), (245, 185), RED, 5)
    pins = [(290, 185), (320, 165), (320, 205), (350, 145), (350, 185), (350, 225)]
    for px, py in pins:
        d.ellipse((px - 10, py - 26, px + 10, py + 10), fill=WHITE, outline=BLACK)
        d.rectangle((px - 9, py - 14, px + 9, py - 10), fill=RED)
    return img


# ---------------------------------------------------------------------------
# MMMU images
# ---------------------------------------------------------------------------


def img_right_triangle() -> Image.Image:
    """Right triangle with legs 6 and 8, hypotenuse marked '?'."""
    img, d = canvas(400, 300)
    a, b, c = (60, 250), (340, 250), (60, 40)
    d.polygon([a, b, c], fill=(225, 235, 250), outline=BLACK, width=3)
    d.rectangle((60, 230, 80, 250), outline=BLACK, width=2)
    text(d, (200, 272), "8", 22, anchor="mm")
    text(d, (40, 145), "6", 22, anchor="mm")
    text(d, (215, 130), "?", 26, RED, "mm")
    return img


def img_equation() -> Image.Image:
    """The linear equation 2x + 3 = 10 on squared paper."""
    img, d = canvas(400, 240, (250, 250, 245))
    for x in range(0, 400, 20):
        d.line((x, 0, x, 240), fill=(215, 225, 240))
    for y in range(0, 240, 20):
        d.line((0, y, 400, y), fill=(215, 225, 240))
    text(d, (200, 60), "Solve for x:", 22, anchor="mm")
    text(d, (200, 140), "2x + 3 = 10", 48, BLUE, "mm")
    return img


def img_circuit() -> Image.Image:
    """Series circuit: 12 V battery and a 4 ohm resistor."""
    img, d = canvas(400, 300)
    d.line((80, 60, 320, 60), fill=BLACK, width=3)
    d.line((80, 60, 80, 240), fill=BLACK, width=3)
    d.line((320, 60, 320, 240), fill=BLACK, width=3)
    d.line((80, 240, 175, 240), fill=BLACK, width=3)
    d.line((225, 240, 320, 240), fill=BLACK, width=3)
    # battery: long and short plates
    d.rectangle((60, 120, 100, 180), fill=WHITE)
    d.line((55, 135, 105, 135), fill=BLACK, width=4)
    d.line((68, 160, 92, 160), fill=BLACK, width=7)
    text(d, (112, 128), "+", 18, anchor="lm")
    text(d, (40, 150), "12 V", 18, anchor="rm")
    # resistor zigzag
    zig: list[tuple[float, float]] = [(175, 240)]
    for i in range(1, 7):
        zig.append((175 + i * 50 / 7, 240 + (-12 if i % 2 else 12)))
    zig.append((225, 240))
    d.line(zig, fill=BLACK, width=3)
    text(d, (200, 275), "R = 4 ohm", 18, anchor="mm")
    arrow(d, (170, 45), (230, 45), RED, 2)
    text(d, (200, 28), "I = ?", 16, RED, "mm")
    return img


def img_velocity_time() -> Image.Image:
    """Velocity-time graph rising linearly from 0 to 9 m/s in 2 s."""
    img, d = canvas(420, 300)
    text(d, (210, 18), "Velocity of a cart", 18, anchor="mm")
    to_px = make_axes(
        d,
        (70, 60, 390, 240),
        (0, 2.2),
        (0, 10),
        [(0, "0"), (0.5, "0.5"), (1, "1.0"), (1.5, "1.5"), (2, "2.0")],
        [(v, str(v)) for v in (0, 3, 6, 9)],
        "time t (s)",
        "v (m/s)",
    )
    d.line((to_px(0, 0), to_px(2, 9)), fill=BLUE, width=4)
    for t, v in ((0, 0), (2, 9)):
        px, py = to_px(t, v)
        d.ellipse((px - 5, py - 5, px + 5, py + 5), fill=BLUE)
    dashed_line(d, to_px(0, 9), to_px(2, 9), GREY)
    dashed_line(d, to_px(2, 0), to_px(2, 9), GREY)
    return img


def img_balance_sheet() -> Image.Image:
    """Balance sheet with assets $50,000 and liabilities $20,000."""
    return table_image(
        "Balance sheet, Dec 31",
        [
            ["Item", "Amount"],
            ["Total assets", "$50,000"],
            ["Total liabilities", "$20,000"],
            ["Owner's equity", "?"],
        ],
        [210, 130],
        (400, 220),
    )


def img_income_statement() -> Image.Image:
    """Income statement: revenue $5,000 and expenses totalling $3,800."""
    return table_image(
        "Income statement, March",
        [
            ["Item", "Amount"],
            ["Revenue", "$5,000"],
            ["Rent expense", "$2,000"],
            ["Wages expense", "$1,500"],
            ["Supplies expense", "$300"],
            ["Net income", "?"],
        ],
        [210, 130],
        (400, 260),
    )


def img_supply_demand() -> Image.Image:
    """Linear supply and demand curves crossing at Q = 40, P = $6."""
    img, d = canvas(420, 320)
    text(d, (210, 18), "Market for notebooks", 18, anchor="mm")
    to_px = make_axes(
        d,
        (70, 60, 390, 260),
        (0, 90),
        (0, 11),
        [(q, str(q)) for q in (0, 20, 40, 60, 80)],
        [(p, f"${p}") for p in (0, 2, 4, 6, 8, 10)],
        "Quantity",
        "Price",
    )
    d.line((to_px(0, 10), to_px(80, 2)), fill=BLUE, width=3)
    d.line((to_px(0, 2), to_px(80, 10)), fill=RED, width=3)
    text(d, to_px(82, 2), "D", 16, BLUE, "lm")
    text(d, to_px(82, 10), "S", 16, RED, "lm")
    dashed_line(d, to_px(0, 6), to_px(40, 6), GREY)
    dashed_line(d, to_px(40, 0), to_px(40, 6), GREY)
    ex, ey = to_px(40, 6)
    d.ellipse((ex - 5, ey - 5, ex + 5, ey + 5), fill=BLACK)
    text(d, (ex + 8, ey - 14), "E", 16, anchor="lm")
    return img


GDP_YEARS = ["2019", "2020", "2021", "2022", "2023"]


def img_gdp(country: str, values: Sequence[float], colour: Color) -> Image.Image:
    """GDP growth bar chart for one country (values in percent)."""
    return bar_chart(
        f"Country {country}: GDP growth (%)",
        GDP_YEARS,
        values,
        [colour],
        value_fmt=lambda v: f"{v:.1f}",
        size=(420, 300),
    )


def img_gdp_x() -> Image.Image:
    """GDP growth of country X."""
    return img_gdp("X", [2.1, -3.0, 4.5, 3.0, 2.4], BLUE)


def img_gdp_y() -> Image.Image:
    """GDP growth of country Y (equal to X in 2022)."""
    return img_gdp("Y", [1.5, -1.0, 2.0, 3.0, 1.8], ORANGE)


def img_grid_painting() -> Image.Image:
    """An abstract painting of black grid lines and primary-colour blocks (De Stijl style)."""
    img, d = canvas(320, 320, (248, 246, 238))
    d.rectangle((0, 0, 190, 180), fill=RED)
    d.rectangle((250, 230, 320, 320), fill=YELLOW)
    d.rectangle((0, 250, 110, 320), fill=BLUE)
    for x in (110, 190, 250):
        d.line((x, 0, x, 320), fill=BLACK, width=9)
    for y in (180, 230, 250):
        d.line((0, y, 320, y), fill=BLACK, width=9)
    return img


def img_map() -> Image.Image:
    """A map with a compass; Cliffside lies north-east of Riverton."""
    img, d = canvas(440, 330, (225, 240, 215))
    d.line(((0, 222), (150, 236), (300, 226), (440, 242)), fill=(90, 150, 220), width=8)
    cities = {
        "Riverton": (220, 175),
        "Ashford": (75, 175),
        "Bellmoor": (220, 290),
        "Cliffside": (340, 65),
        "Dunmore": (90, 60),
        "Eastwick": (360, 275),
    }
    for name, (x, y) in cities.items():
        d.rectangle((x - 6, y - 6, x + 6, y + 6), fill=BLACK)
        text(d, (x, y + 18), name, 15, anchor="mm")
    # compass
    cx, cy = 400, 190
    arrow(d, (cx, cy + 20), (cx, cy - 25), BLACK, 3)
    text(d, (cx, cy - 38), "N", 18, anchor="mm")
    return img


def img_binary_tree() -> Image.Image:
    """Binary tree: 4 -> (2 -> 1, 3), (6 -> 5, 7)."""
    img, d = canvas(420, 300)
    nodes = {
        4: (210, 50),
        2: (110, 140),
        6: (310, 140),
        1: (55, 240),
        3: (165, 240),
        5: (255, 240),
        7: (365, 240),
    }
    for parent, child in ((4, 2), (4, 6), (2, 1), (2, 3), (6, 5), (6, 7)):
        d.line((nodes[parent], nodes[child]), fill=BLACK, width=3)
    for value, (x, y) in nodes.items():
        d.ellipse((x - 24, y - 24, x + 24, y + 24), fill=(255, 240, 200), outline=BLACK, width=3)
        text(d, (x, y), str(value), 22, anchor="mm")
    return img


def img_truth_table() -> Image.Image:
    """Truth table of XOR."""
    return table_image(
        "Truth table of gate G",
        [["A", "B", "Output"], ["0", "0", "0"], ["0", "1", "1"], ["1", "0", "1"], ["1", "1", "0"]],
        [90, 90, 110],
        (360, 230),
    )


# ---------------------------------------------------------------------------
# MM-Vet data
# ---------------------------------------------------------------------------

GEN_WINTER = (
    "The image most likely shows winter. The ground and the roof of the house are covered in "
    "white snow, snowflakes are falling from a grey sky, there is a snowman with a carrot nose "
    "and a red scarf, and the tree has no leaves. All of these are typical signs of the cold "
    "winter season."
)
GEN_RAINFALL = (
    "The image is a bar chart titled 'Monthly rainfall (mm)'. It shows six months from January "
    "to June. Rainfall decreases every month: January has the most rain with 80 mm, followed by "
    "February with 65 mm, March with 50 mm, April with 40 mm and May with 30 mm, while June has "
    "the least with 15 mm. Overall the chart shows a clear downward trend from winter into "
    "summer."
)

# (draw function, question, ground truth, capability as list or comma-separated string)
MMVET_SAMPLES: list[tuple[Callable[[], Image.Image], str, str, list[str] | str]] = [
    (img_fruit_sales, "How many apples were sold?", "14", ["ocr", "spat"]),
    (img_price_sign, "How much does the coffee mug cost?", "$12.99", ["ocr"]),
    (img_count_shapes, "How many triangles are there in the image?", "5 <OR> five", ["rec"]),
    (img_blackboard, "What is the result of the sum written on the blackboard?", "42", "ocr,math"),
    (
        img_floor_plan,
        "What is the area of the bedroom in square meters?",
        "20",
        ["ocr", "spat", "math"],
    ),
    (
        img_floor_plan,
        "Which two rooms are directly to the left and to the right of the bathroom?",
        "kitchen <AND> bedroom",
        ["ocr", "spat"],
    ),
    (
        img_street_sign,
        "What street name is written on the upper sign?",
        "Maple Ave <OR> Maple Avenue",
        ["ocr", "spat"],
    ),
    (img_receipt_grocery, "What is the total amount on the receipt?", "$7.45 <OR> 7.45", ["ocr"]),
    (
        img_receipt_cafe,
        "How much more does the sandwich cost than the coffee?",
        "3.5 <OR> 3.50",
        "ocr,math",
    ),
    (img_clock, "What time is shown on the clock?", "3:30 <OR> half past three", ["rec"]),
    (
        img_traffic_light,
        "Which light of the traffic light is on, and what should a driver do?",
        "red <AND> stop",
        ["rec", "know"],
    ),
    (img_shapes_left, "What shape is to the left of the blue square?", "circle", ["rec", "spat"]),
    (img_shapes_above, "What colour is the shape above the blue square?", "green", ["rec", "spat"]),
    (
        img_shelf,
        "What is the total price of the two items on the top shelf?",
        "$5.75 <OR> 5.75",
        ["math", "ocr", "spat", "rec"],
    ),
    (
        img_temperature,
        "On which day was the temperature highest?",
        "Thursday <OR> Thu",
        ["ocr", "spat"],
    ),
    (
        img_bottle,
        "What fruit is the drink in the bottle made from?",
        "orange <OR> oranges",
        ["ocr", "rec"],
    ),
    (
        img_snow_scene,
        "What season is most likely shown in the image? Explain your reasoning.",
        GEN_WINTER,
        ["rec", "know", "gen"],
    ),
    (img_rainfall, "Describe the chart in detail.", GEN_RAINFALL, ["rec", "ocr", "gen", "spat"]),
    (
        img_magnifier,
        "What is the object in the image typically used for?",
        "making small things look bigger <OR> magnifying <OR> enlarging small text",
        ["rec", "know"],
    ),
    (img_speed_sign, "What is the speed limit shown on the sign?", "30", "ocr,rec"),
]

# Hand-written answers; ``None`` means the model has no answer for that id.
MMVET_ANSWERS: dict[str, list[str | None]] = {
    "demo-alpha": [
        "14",
        "$12.99",
        "There are 5 triangles in the image.",
        "42",
        "The bedroom measures 5 m x 4 m, so its area is 20 square meters.",
        "The kitchen is on the left of the bathroom and the bedroom is on the right.",
        "Maple Ave",
        "$7.45",
        "The sandwich costs $6.00 and the coffee $2.50, so the sandwich is $3.50 more.",
        "3:30",
        "The red light is on, so the driver must stop.",
        "A red circle.",
        "Green",
        "The ball costs $3.50 and the cup costs $2.25, so together they cost $5.75.",
        "Thursday",
        "Orange",
        "This is most likely winter. Everything is covered in snow, including the ground and the "
        "roof of the house, snowflakes are falling, a snowman with a carrot nose and a red scarf "
        "stands in the middle, and the tree is bare without leaves. These details all point to "
        "a cold winter day.",
        "This is a bar chart of monthly rainfall in millimetres for January to June. January is "
        "the wettest month with 80 mm, then February 65 mm, March 50 mm, April 40 mm and May "
        "30 mm, and June is the driest with 15 mm. The rainfall goes down steadily every month.",
        "It is a magnifying glass. It is used to make small things, such as tiny print, look "
        "bigger so they are easier to see.",
        "The speed limit is 30.",
    ],
    "demo-beta": [
        "The chart shows that 14 apples were sold.",
        "The coffee mug costs $12.99 according to the sign.",
        "I think there are 4 triangles.",
        "27 + 15 = 42, so the answer is 42.",
        "20 m^2",
        "The kitchen and the living room.",
        "The upper sign says Maple Avenue.",
        "The total is 7.45 dollars.",
        "It costs 3.5 dollars more.",
        "I think it is half past six.",
        "The red light is on.",
        "I think it is a circle.",
        "The shape above the square is green.",
        "$5.75",
        "The highest temperature was on Friday.",
        "The drink is orange juice, so it is made from oranges.",
        "It is winter because there is snow.",
        "The chart shows rainfall for some months. It goes down over time, with the most rain at "
        "the start.",
        "It is used for reading.",
        "30 km/h",
    ],
    "demo-gamma": [
        "11",
        "It costs 13 dollars.",
        "A triangle is in the picture.",
        "32",
        "9",
        "",
        "5th St",
        "A receipt from a grocery store.",
        "8.50",
        "12 o'clock",
        "Go.",
        "A triangle is on the left.",
        None,
        "$9.25",
        "Monday",
        "Apple",
        "Summer.",
        None,
        "It is a tennis racket used to hit balls.",
        "50",
    ],
}


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as pretty UTF-8 JSON with a trailing newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def build_mmvet(root: Path) -> None:
    """Write mm-vet.json, the images and the demo-model answer files."""
    questions: dict[str, dict[str, Any]] = {}
    for i, (draw_fn, question, answer, capability) in enumerate(MMVET_SAMPLES):
        sid = f"v1_{i}"
        save_png(draw_fn(), root / "images" / f"{sid}.png")
        questions[sid] = {
            "imagename": f"{sid}.png",
            "question": question,
            "answer": answer,
            "capability": capability,
        }
    write_json(root / "mm-vet.json", questions)
    for model in MODELS:
        answers = MMVET_ANSWERS[model]
        assert len(answers) == len(MMVET_SAMPLES), model
        out = {f"v1_{i}": a for i, a in enumerate(answers) if a is not None}
        write_json(root / "answers" / f"{model}.json", out)


# ---------------------------------------------------------------------------
# MMBench data
# ---------------------------------------------------------------------------

MMBENCH_HEADER = [
    "index",
    "question",
    "hint",
    "A",
    "B",
    "C",
    "D",
    "answer",
    "category",
    "image",
    "source",
    "l2-category",
    "comment",
    "split",
]
CIRCULAR_OFFSET = 1_000_000
L2_COARSE = "coarse_perception"
L2_INSTANCE = "finegrained_perception (instance-level)"
L2_CROSS = "finegrained_perception (cross-instance)"
L2_ATTR = "attribute_reasoning"
L2_REL = "relation_reasoning"
L2_LOGIC = "logic_reasoning"

# (index, draw fn, question, hint, options, answer letter, L-3 category, L-2 category)
MMBenchQuestion = tuple[int, Callable[[], Image.Image], str, str, list[str], str, str, str]
MMBENCH_QUESTIONS: list[MMBenchQuestion] = [
    (
        0,
        img_beach,
        "Which scene is shown in the image?",
        "",
        ["beach", "forest", "city street", "kitchen"],
        "A",
        "image_scene",
        L2_COARSE,
    ),
    (
        1,
        img_happy_face,
        "What emotion does the face in the image show?",
        "",
        ["sad", "happy", "angry"],
        "B",
        "image_emotion",
        L2_COARSE,
    ),
    (
        2,
        img_blurry,
        "How would you describe the quality of this image?",
        "Look closely at the edges of the squares and the letters.",
        ["The image is sharp.", "The image is blurry."],
        "B",
        "image_quality",
        L2_COARSE,
    ),
    (
        3,
        img_ball_corner,
        "Where is the red ball in the image?",
        "",
        ["top-left", "top-right", "bottom-left", "bottom-right"],
        "D",
        "object_localization",
        L2_INSTANCE,
    ),
    (
        4,
        img_open_sign,
        "What word is written on the sign?",
        "",
        ["CLOSED", "OPEN", "EXIT", "PUSH"],
        "B",
        "OCR",
        L2_INSTANCE,
    ),
    (
        5,
        img_red_car,
        "What colour is the car?",
        "",
        ["blue", "green", "red"],
        "C",
        "attribute_recognition",
        L2_INSTANCE,
    ),
    (
        6,
        img_house_tree_car,
        "Which object is to the left of the tree?",
        "",
        ["a car", "a house"],
        "B",
        "spatial_relationship",
        L2_CROSS,
    ),
    (
        7,
        img_circle_sizes,
        "Which circle is the largest?",
        "",
        ["the red circle", "the blue circle", "the green circle", "the yellow circle"],
        "C",
        "attribute_comparison",
        L2_CROSS,
    ),
    (
        8,
        img_umbrella,
        "What is the object the person is holding used for?",
        "It is raining in the picture.",
        ["cutting paper", "keeping dry in the rain", "cooking food"],
        "B",
        "function_reasoning",
        L2_ATTR,
    ),
    (
        9,
        img_cup_on_table,
        "What is the relationship between the cup and the table?",
        "",
        ["The cup is on the table.", "The cup is under the table."],
        "A",
        "physical_relation",
        L2_REL,
    ),
    (
        10,
        img_monthly_sales,
        "According to the chart, in which month did the shop sell the most?",
        "The chart shows the monthly sales of a small shop.",
        ["January", "February", "March", "April"],
        "D",
        "structuralized_imagetext_understanding",
        L2_LOGIC,
    ),
    (
        11,
        img_bowling,
        "What will most likely happen next?",
        "The arrow shows the direction in which the ball is rolling.",
        [
            "The pins will be knocked over.",
            "The ball will fly into the air.",
            "The pins will start to grow.",
        ],
        "A",
        "future_prediction",
        L2_LOGIC,
    ),
]

# Per model and question: one entry per circular copy k = 0..n-1.  Each entry is
# (style, value): for styles L/P/S/T/C the value is the ORIGINAL option letter the model
# picks, and the text is rendered with that option's letter in the rotated copy:
#   L "B" | P "(B) option text" | S "The answer is B." | T "option text" |
#   C "I think the answer is (B) because the image shows option text."
# Style R writes the value verbatim (empty strings, off-topic text, "A ..." sentences).
Pick = tuple[str, str]
MMBENCH_PREDICTIONS: dict[str, dict[int, list[Pick]]] = {
    "demo-alpha": {
        0: [("L", "A"), ("L", "A"), ("P", "A"), ("L", "A")],
        1: [("L", "B"), ("P", "B"), ("L", "B")],
        2: [("S", "B"), ("T", "A")],
        3: [("P", "D"), ("L", "D"), ("L", "D"), ("P", "D")],
        4: [("L", "B"), ("L", "B"), ("T", "B"), ("L", "B")],
        5: [("P", "C"), ("L", "C"), ("L", "C")],
        6: [("L", "B"), ("S", "B")],
        7: [("P", "C"), ("L", "C"), ("P", "B"), ("L", "C")],
        8: [("L", "B"), ("L", "B"), ("P", "B")],
        9: [("P", "A"), ("L", "A")],
        10: [("S", "D"), ("L", "D"), ("L", "D"), ("L", "D")],
        11: [("L", "A"), ("P", "A"), ("L", "A")],
    },
    "demo-beta": {
        0: [("C", "A"), ("S", "A"), ("C", "B"), ("S", "A")],
        1: [("C", "B"), ("C", "B"), ("S", "B")],
        2: [("C", "B"), ("C", "B")],
        3: [("S", "D"), ("C", "C"), ("S", "D"), ("C", "D")],
        4: [("C", "B"), ("S", "B"), ("C", "B"), ("R", "I think it says OPEN.")],
        5: [("R", "I think it is a red car."), ("C", "C"), ("S", "A")],
        6: [("C", "A"), ("S", "B")],
        7: [("S", "C"), ("C", "C"), ("S", "C"), ("C", "B")],
        8: [("C", "B"), ("S", "B"), ("C", "B")],
        9: [("C", "A"), ("S", "B")],
        10: [("S", "D"), ("C", "D"), ("S", "C"), ("C", "D")],
        11: [("S", "A"), ("C", "A"), ("S", "A")],
    },
    "demo-gamma": {
        0: [("R", "A forest with tall trees."), ("L", "C"), ("R", ""), ("L", "A")],
        1: [("L", "A"), ("R", "The weather looks nice today."), ("L", "B")],
        2: [("T", "A"), ("L", "A")],
        3: [("L", "A"), ("R", ""), ("P", "B"), ("L", "D")],
        4: [("L", "B"), ("L", "A"), ("R", "A red sign."), ("L", "D")],
        5: [("L", "A"), ("R", "A car is parked on the road."), ("T", "B")],
        6: [("R", "A car is on the left of the tree."), ("L", "A")],
        7: [("L", "D"), ("R", ""), ("L", "B"), ("L", "C")],
        8: [("R", "A person is standing outside."), ("L", "A"), ("L", "C")],
        9: [("L", "B"), ("R", "A cup.")],
        10: [("L", "B"), ("R", "I like shopping."), ("L", "A"), ("L", "D")],
        11: [("L", "B"), ("R", ""), ("L", "A")],
    },
}


def rotate_options(options: Sequence[str], k: int) -> list[str]:
    """Rotate ``options`` left by ``k`` (copy k's option A is the original option number k)."""
    n = len(options)
    return [options[(j + k) % n] for j in range(n)]


def rotated_letter(original_letter: str, k: int, n: int) -> str:
    """Letter that an original option gets in circular copy ``k`` of an ``n``-option question."""
    return LETTERS[(LETTERS.index(original_letter) - k) % n]


def render_pick(pick: Pick, options: Sequence[str], k: int) -> str:
    """Turn a hand-written (style, value) pick into the model's free-text prediction."""
    style, value = pick
    if style == "R":
        return value
    n = len(options)
    letter = rotated_letter(value, k, n)
    option_text = options[LETTERS.index(value)]
    if style == "L":
        return letter
    if style == "P":
        return f"({letter}) {option_text}"
    if style == "S":
        return f"The answer is {letter}."
    if style == "T":
        return option_text
    if style == "C":
        return (
            f"I think the answer is ({letter}) because the image shows {option_text.rstrip('.')}."
        )
    raise ValueError(f"unknown style {style!r}")


def write_tsv(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """Write tab-separated rows (first row is the header) with ``\\n`` line endings."""
    for row in rows:
        for cell in row:
            assert "\t" not in cell and "\n" not in cell and '"' not in cell, cell
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerows(rows)


def build_mmbench(root: Path) -> None:
    """Write mmbench_demo.tsv (with circular copies) and the demo-model prediction TSVs."""
    rows: list[list[str]] = [MMBENCH_HEADER]
    preds: dict[str, list[list[str]]] = {m: [["index", "prediction"]] for m in MODELS}
    for index, draw_fn, question, hint, options, answer, l3, l2 in MMBENCH_QUESTIONS:
        n = len(options)
        image_b64 = base64.b64encode(png_bytes(draw_fn())).decode("ascii")
        for k in range(n):
            rotated = rotate_options(options, k)
            cells = rotated + [""] * (4 - n)
            rows.append(
                [
                    str(index + k * CIRCULAR_OFFSET),
                    question,
                    hint,
                    *cells,
                    rotated_letter(answer, k, n),
                    l3,
                    image_b64 if k == 0 else str(index),
                    "lmmreview-demo",
                    l2,
                    "",
                    "dev",
                ]
            )
            for model in MODELS:
                picks = MMBENCH_PREDICTIONS[model][index]
                assert len(picks) == n, (model, index)
                preds[model].append(
                    [str(index + k * CIRCULAR_OFFSET), render_pick(picks[k], options, k)]
                )
    write_tsv(root / "mmbench_demo.tsv", rows)
    for model in MODELS:
        write_tsv(root / "predictions" / f"{model}.tsv", preds[model])


# ---------------------------------------------------------------------------
# MMMU data
# ---------------------------------------------------------------------------

# id, subject question (with <image n>), options (None = open), answer, images,
# img_type, difficulty, subfield, options_as_json_list, responses per model
MMMU_QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "validation_Math_1",
        "question": "In <image 1>, the two legs of the right triangle are 6 and 8. What is the "
        "length of the hypotenuse?",
        "options": ["8", "10", "12", "14"],
        "answer": "B",
        "images": [img_right_triangle],
        "img_type": ["Geometric Shapes"],
        "difficulty": "Easy",
        "subfield": "Geometry",
        "responses": ["(B)", "The hypotenuse is sqrt(6^2 + 8^2) = 10, so the answer is B.", "A"],
    },
    {
        "id": "validation_Math_2",
        "question": "Solve the equation shown in <image 1> for x.",
        "options": None,
        "answer": "3.5",
        "images": [img_equation],
        "img_type": ["Mathematical Notations"],
        "difficulty": "Easy",
        "subfield": "Algebra",
        "responses": ["x = 3.5", "2x = 7, so x = 3.5", "x = 5"],
    },
    {
        "id": "validation_Physics_1",
        "question": "What is the current I flowing through the resistor in the circuit shown in "
        "<image 1>?",
        "options": ["2 A", "3 A", "4 A", "48 A"],
        "answer": "B",
        "images": [img_circuit],
        "img_type": ["Diagrams"],
        "difficulty": "Easy",
        "subfield": "Electromagnetism",
        "responses": ["The answer is B", "C", "I am not sure about this circuit."],
    },
    {
        "id": "validation_Physics_2",
        "question": "<image 1> shows the velocity of a cart over time. What is its acceleration "
        "in m/s^2?",
        "options": None,
        "answer": ["4.5", "4.50"],
        "images": [img_velocity_time],
        "img_type": ["Plots and Charts"],
        "difficulty": "Medium",
        "subfield": "Classical Mechanics",
        "responses": ["The slope of the line is 9 / 2 = 4.5 m/s^2.", "4.50", "9"],
    },
    {
        "id": "validation_Accounting_1",
        "question": "Based on the balance sheet in <image 1>, what is the owner's equity?",
        "options": ["$20,000", "$30,000", "$50,000", "$70,000"],
        "answer": "B",
        "images": [img_balance_sheet],
        "img_type": ["Tables"],
        "difficulty": "Easy",
        "subfield": "Financial Accounting",
        "responses": [
            "B",
            "Equity equals total assets minus total liabilities, which gives $30,000.",
            "(D)",
        ],
    },
    {
        "id": "validation_Accounting_2",
        "question": "Using the income statement in <image 1>, compute the net income in dollars.",
        "options": None,
        "answer": "1200",
        "images": [img_income_statement],
        "img_type": ["Tables"],
        "difficulty": "Medium",
        "subfield": "Financial Accounting",
        "responses": [
            "Net income is revenue minus expenses: 5,000 - 3,800, so the result is 1,200.",
            "so the result is 1,200",
            "8,800",
        ],
    },
    {
        "id": "validation_Economics_1",
        "question": "What is the equilibrium price in the market shown in <image 1>?",
        "options": ["$2", "$4", "$6", "$8"],
        "answer": "C",
        "images": [img_supply_demand],
        "img_type": ["Plots and Charts"],
        "difficulty": "Easy",
        "subfield": "Microeconomics",
        "responses": ["The answer is C", "(C) $6", ""],
    },
    {
        "id": "validation_Economics_2",
        "question": "<image 1> and <image 2> show the GDP growth of two countries. In which year "
        "did both countries have the same growth rate?",
        "options": GDP_YEARS,
        "answer": "D",
        "images": [img_gdp_x, img_gdp_y],
        "img_type": ["Plots and Charts"],
        "difficulty": "Medium",
        "subfield": "Macroeconomics",
        "responses": [
            "Both countries grew by 3.0% in 2022, so the answer is (D).",
            "(B)",
            "A",
        ],
    },
    {
        "id": "validation_Art_1",
        "question": "The painting in <image 1> is most similar in style to which art movement?",
        "options": ["Impressionism", "De Stijl", "Baroque", "Cubism"],
        "answer": "B",
        "images": [img_grid_painting],
        "img_type": ["Paintings"],
        "difficulty": "Medium",
        "subfield": "Drawing and Painting",
        "json_options": True,
        "responses": [
            "(B) De Stijl",
            "The painting with its black grid lines and blocks of primary colours looks like "
            "Cubism to me.",
            "Impressionism",
        ],
    },
    {
        "id": "validation_Geography_1",
        "question": "According to the map in <image 1>, which town lies to the north-east of "
        "Riverton?",
        "options": ["Ashford", "Bellmoor", "Cliffside", "Dunmore", "Eastwick"],
        "answer": "C",
        "images": [img_map],
        "img_type": ["Maps"],
        "difficulty": "Easy",
        "subfield": "Human Geography",
        "responses": [
            "Cliffside lies to the north-east of Riverton on the map, so the correct option is "
            "Cliffside.",
            "The answer is C",
            "E",
        ],
    },
    {
        "id": "validation_Computer_Science_1",
        "question": "What is the pre-order traversal of the binary tree in <image 1>?",
        "options": ["4 2 1 3 6 5 7", "1 2 3 4 5 6 7", "1 3 2 5 7 6 4", "4 2 6 1 3 5 7"],
        "answer": "A",
        "images": [img_binary_tree],
        "img_type": ["Trees and Graphs"],
        "difficulty": "Medium",
        "subfield": "Data Structure and Algorithm",
        "responses": [
            "A",
            "Pre-order visits the root, then the left and right subtrees: 4 2 1 3 6 5 7.",
            "The answer is B",
        ],
    },
    {
        "id": "validation_Computer_Science_2",
        "question": "Which logic gate G has the truth table shown in <image 1>?",
        "options": ["AND", "OR", "XOR", "NAND"],
        "answer": "C",
        "images": [img_truth_table],
        "img_type": ["Tables"],
        "difficulty": "Hard",
        "subfield": "Computer Architecture",
        "json_options": True,
        "responses": ["(C)", "(A)", "I don't know."],
    },
]


def subject_of(qid: str) -> str:
    """Subject name from an id like ``validation_Computer_Science_1``."""
    return qid.split("_", 1)[1].rsplit("_", 1)[0]


def hf_record(q: dict[str, Any]) -> dict[str, Any]:
    """The Hugging Face MMMU row for question ``q`` (string list literals as in the dataset)."""
    options = q["options"]
    if options is None:
        options_field: Any = "[]"
    elif q.get("json_options"):
        options_field = list(options)
    else:
        options_field = repr(list(options))
    answer = q["answer"]
    record: dict[str, Any] = {
        "id": q["id"],
        "question": q["question"],
        "options": options_field,
        "explanation": "",
    }
    for n in range(1, 8):
        record[f"image_{n}"] = f"images/{q['id']}_{n}.png" if n <= len(q["images"]) else None
    record.update(
        {
            "img_type": repr(q["img_type"]),
            "answer": repr(answer) if isinstance(answer, list) else answer,
            "topic_difficulty": q["difficulty"],
            "question_type": "open" if options is None else "multiple-choice",
            "subfield": q["subfield"],
        }
    )
    return record


def output_record(q: dict[str, Any], response: str) -> dict[str, Any]:
    """One entry of an MMMU ``output.json`` (official example-output layout)."""
    options = q["options"] or []
    answer = q["answer"]
    return {
        "id": q["id"],
        "question_type": "multiple-choice" if options else "short-answer",
        "answer": repr(answer) if isinstance(answer, list) else answer,
        "all_choices": [LETTERS[i] for i in range(len(options))],
        "index2ans": {LETTERS[i]: opt for i, opt in enumerate(options)},
        "response": response,
    }


def build_mmmu(root: Path) -> None:
    """Write questions.jsonl, images, answer_dict_val.json and per-model output.json files."""
    lines = []
    answer_dict: dict[str, dict[str, Any]] = {}
    outputs: dict[str, dict[str, list[dict[str, Any]]]] = {m: {} for m in MODELS}
    for q in MMMU_QUESTIONS:
        for n, draw_fn in enumerate(q["images"], start=1):
            save_png(draw_fn(), root / "images" / f"{q['id']}_{n}.png")
        lines.append(json.dumps(hf_record(q), ensure_ascii=False))
        answer_dict[q["id"]] = {
            "question_type": "multiple-choice" if q["options"] else "short-answer",
            "ground_truth": q["answer"],
        }
        for model, response in zip(MODELS, q["responses"], strict=True):
            outputs[model].setdefault(subject_of(q["id"]), []).append(output_record(q, response))
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_json(root / "answer_dict_val.json", answer_dict)
    for model, by_subject in outputs.items():
        for subject, records in by_subject.items():
            write_json(root / "outputs" / model / subject / "output.json", records)


# ---------------------------------------------------------------------------
# README and entry point
# ---------------------------------------------------------------------------

README = """\
# Sample data

Small, self-made benchmark files for trying out `lmmreview` without downloading anything.
All images are simple drawings (charts, signs, receipts, a clock, shapes...) made by the
script, and every question can be answered from its image (but one HallusionBench question,
asked without its chart on purpose).

The three "models" - **demo-alpha** (strong, sometimes verbose), **demo-beta** (mediocre,
chatty) and **demo-gamma** (weak, sometimes empty or off-topic) - are made-up demo models.
Their answers are hand-written in the script; they are not outputs of any real model.

| Folder | Format | Contents |
|---|---|---|
| `mmvet/` | MM-Vet (official) | `mm-vet.json` (20 samples), `images/`, `answers/<model>.json` |
| `mmbench/` | MMBench TSV | `mmbench_demo.tsv` (12 questions, 38 rows with circular copies), \
`predictions/<model>.tsv` |
| `mmmu/` | MMMU (Hugging Face layout) | `questions.jsonl` (12 questions), `images/`, \
`answer_dict_val.json`, `outputs/<model>/<Subject>/output.json` |
| `generic/` | lmmreview JSONL | `demo.jsonl` (6 questions with free tags, then answer lines), \
`images/` |
| `mmvet-v2/` | MM-Vet v2 (official) | `mm-vet-v2.json` (6 samples, images inline between \
`<IMG>` markers, up to 3 per question), `images/`, `answers/<model>.json` |
| `mmmu-pro/` | MMMU-Pro (official output files) | \
`outputs/<model>_standard(10 options)_<method>.jsonl` (8 questions of 10 options, \
demo-alpha's cot, the others' direct), `images/<id>_1.png` |
| `mathvista/` | MathVista (official output files) | `output_<model>.json` (8 testmini-style \
problems: multiple choice, integer, float and list answers), `images/<pid>.png` |
| `mme/` | MME (official eval_tool result files) | `results/<model>/<subtask>.txt` \
(6 subtasks, 4 of perception and 2 of cognition, one image of two yes/no questions each), \
`images/<subtask>/<image>.png` |
| `hallusionbench/` | HallusionBench (official result files) | \
`<model>/HallusionBench_result.json` (12 yes/no questions: 2 sets of an original and an \
edited figure, 1 question with and without its chart), the judge's \
`hallusion_output_v[ds]_model.json`, figures in `hallusion_bench/` |
| `ocrbench/` | OCRBench (official results files) | `results/<model>.json` (6 items of \
6 question types: a word, a number, a street sign, two receipts, a formula), \
`images/<dataset>/<image>.png` |
| `ocrbench-v2/` | OCRBench v2 (the results files eval.py reads) | `results/<model>.json` \
(6 items of 6 types: a price, a word count, a box around a word, a receipt's key fields, a \
table in HTML, a word asked in Chinese), `images/<image>.png` |
| `mmstar/` | MMStar (VLMEvalKit's TSV and .tsv predictions) | `MMStar.tsv` \
(7 questions across the 6 core capabilities, base64 images), `<setting>/<model>_MMStar.tsv` \
(`with-image/` for the three models; demo-alpha's `without-image/` and `llm/`) |
| `llava-bench/` | LLaVA-Bench in-the-wild (official files) | `llava-bench-in-the-wild/` \
(`questions.jsonl`: 6 questions, 2 per category, on 3 drawings; `answers_gpt4.jsonl`, \
`context.jsonl`, `images/`), `answers/<model>.jsonl`, the official `reviews/<model>.jsonl` |

Notes:

- MM-Vet: three samples give `capability` as a comma-separated string instead of a list;
  `demo-gamma` has no answer for `v1_12` and `v1_17`.
- MMBench: circular copy k of question i has index `i + k * 1000000`, options rotated left
  by k; its `image` cell holds the original index (a reference to the main row's image).
- MMMU: `options` is a string holding a Python list literal except for two rows where it is
  a JSON list; `validation_Physics_2` has a list of acceptable gold answers;
  `validation_Economics_2` uses two images.
- MMMU-Pro: the files are as `mmmu-pro/infer` writes them (no `pred_indexs` or `if_right`
  from `evaluate.py` yet); demo-beta's `Answer: G or B` names two letters (the `Answer:`
  rule finds none), and demo-gamma's `Sorry, no idea.` reaches the random fallback.
- MathVista: each file is as the official evaluation leaves it, with each problem's
  `extraction`, `prediction` and `true_false` (imported as the official extractor's
  judgment); of demo-beta's and demo-gamma's responses, the quick rules settle some (a
  number, a choice's text, an empty response), the official LLM extractor read the rest.
- MME: the official rule reads only an answer's first four characters unless it is exactly
  yes or no: demo-beta's `There is no bicycle.` and `**Yes**` and demo-gamma's `y` and
  `I think yes` read as "other" (wrong), demo-gamma's `None` as no.
- HallusionBench: every model's answers carry the official judge's verdicts
  (`gpt4v_output_gpt_check`, imported as `gpt-4 (imported)`), demo-alpha's "cannot tell"
  without the chart an uncertain one that counts as right; the offline yes/no rule scores
  every model's answer that says exactly one of yes and no (`Yes and no`, `I am not sure.`
  stay unscored).
- OCRBench: a gold need only occur in the answer: demo-beta's `HARBOURS` passes for
  `HARBOUR`, its `3041 7` fails (spaces kept) and its `X^{2}+3=7` fails the formula (the
  handwritten-math rule removes spaces but keeps case); demo-gamma has no `predict` for the
  number (it counts 0).
- OCRBench v2: each type has its official rule, scoring 0 to 1: demo-beta's `4` words for
  3 scores 1 - 1/3, its box 0.81 (IoU), its receipt fields 0.5 (`7.45` is not `$7.45`)
  and its markdown table 0 (the question asks for HTML); demo-gamma's `3 or 4` reads 3,
  and its table, one row short and `1.2` for `1.20`, scores by TEDS. The table needs the
  extra `lmmreview[ocrbench-v2]`; without it, that item stays unscored.
- MMStar: the official rule reads the letter only at the start, after `(`, `option ` or
  `the answer is `: demo-alpha's `The answer is (B)` reads none, demo-beta's `Based on the
  image, C.` reads B and `Answer: B` reads A. demo-alpha's answers without the image and
  its language model's give its S_wv and S_t, hence MG and ML.
- LLaVA-Bench: the reviews are the official judge's, reference first (written for the demo);
  demo-beta's `8,7` reads (a comma is a space), demo-gamma's `8, 4` does not (its tuple is
  [-1, -1]; lmmreview stores it unparseable). `lmmreview judge` asks the reviews again in
  both orders, the model's answer first too.

Regenerate everything (deterministic, byte-identical output) with:

    python sample_data/make_sample_data.py
"""


# ---------------------------------------------------------------------------
# Generic (lmmreview JSONL)
# ---------------------------------------------------------------------------

# (id, image maker, question, options, gold, tags, answers of alpha, beta, gamma)
GENERIC: list[tuple[str, Callable[[], Image.Image], str, list[str], str, dict[str, str],
                    tuple[str, str, str]]] = [
    ("g1", img_traffic_light, "Which light of the traffic light is on?", [], "red",
     {"topic": "signals", "difficulty": "easy"},
     ("The red light is on.", "It shows red, so cars must stop.", "green")),
    ("g2", img_clock, "What time does the clock show?", [], "3:30 <OR> half past three",
     {"topic": "time", "difficulty": "medium"},
     ("3:30", "It is about half past three.", "12:15")),
    ("g3", img_red_car, "What colour is the car?", ["blue", "red", "green"], "B",
     {"topic": "objects", "difficulty": "easy"},
     ("B", "The car is red, so (B).", "A car is parked on the road.")),
    ("g4", img_umbrella, "What is the person holding?", ["an umbrella", "a ball", "a book"], "A",
     {"topic": "objects", "difficulty": "easy"},
     ("A", "an umbrella", "C")),
    ("g5", img_shelf, "How many items are on the top shelf?", [], "2 <OR> two",
     {"topic": "counting", "difficulty": "medium"},
     ("There are 2 items.", "three", "")),
    ("g6", img_bottle, "What drink is in the bottle?", ["milk", "orange juice", "water"], "B",
     {"topic": "objects", "difficulty": "medium"},
     ("B", "orange juice", "A bottle of milk.")),
]  # fmt: skip


def build_generic(root: Path) -> None:
    """``generic/demo.jsonl``: sample lines (open and multiple choice, free tags) then one
    answer line per demo model and sample, with the images beside it."""
    lines: list[dict[str, Any]] = []
    for key, make, question, options, gold, tags, _ in GENERIC:
        save_png(make(), root / "images" / f"{key}.png")
        line: dict[str, Any] = {"id": key, "question": question, "answer": gold}
        if options:
            line["options"] = options
        lines.append({**line, "images": [f"images/{key}.png"], "tags": tags})
    for index, model in enumerate(MODELS):
        lines.extend(
            {"id": key, "model": model, "prediction": answers[index]}
            for key, *_, answers in GENERIC
        )
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    (root / "demo.jsonl").write_text(text, encoding="utf-8")


def main() -> None:
    """Regenerate all sample data next to this script."""
    for sub in ("mmvet", "mmbench", "mmmu", "generic"):
        target = OUT_DIR / sub
        if target.is_dir():
            shutil.rmtree(target)
    build_mmvet(OUT_DIR / "mmvet")
    build_mmbench(OUT_DIR / "mmbench")
    build_mmmu(OUT_DIR / "mmmu")
    build_generic(OUT_DIR / "generic")
    (OUT_DIR / "README.md").write_text(README, encoding="utf-8")
    # The other benchmarks' scripts borrow this one's drawing helpers: loaded only now.
    from lmmreview.sample_data.make_hallusionbench_sample import main as make_hallusionbench
    from lmmreview.sample_data.make_llava_bench_sample import main as make_llava_bench
    from lmmreview.sample_data.make_mathvista_sample import main as make_mathvista
    from lmmreview.sample_data.make_mme_sample import main as make_mme
    from lmmreview.sample_data.make_mmmu_pro_sample import main as make_mmmu_pro
    from lmmreview.sample_data.make_mmstar_sample import main as make_mmstar
    from lmmreview.sample_data.make_mmvet_v2_sample import main as make_mmvet_v2
    from lmmreview.sample_data.make_ocrbench_sample import main as make_ocrbench
    from lmmreview.sample_data.make_ocrbench_v2_sample import main as make_ocrbench_v2

    make_mmvet_v2()
    make_mmmu_pro()
    make_mathvista()
    make_mme()
    make_hallusionbench()
    make_ocrbench()
    make_ocrbench_v2()
    make_mmstar()
    make_llava_bench()
    print(f"sample data written to {OUT_DIR}")


if __name__ == "__main__":
    main()
