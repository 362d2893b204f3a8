"""SVG snapshots of the screens whose look matters, with a fixed image renderer."""

from __future__ import annotations

import io
from pathlib import Path

from conftest import MANY_MODELS, matches_golden
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont
from tui_harness import drive, set_first_image, until

from lmmreview.tui.images import SampleImages
from lmmreview.tui.screens import BreakdownScreen, CompareScreen, HelpScreen
from lmmreview.tui.zoom import ZoomScreen


async def _once_the_images_are_drawn(app, pilot, settle: float = 0.1) -> str:
    """The screen's SVG, taken when its images are decoded and drawn."""
    images = app.screen.query_one(SampleImages)
    await until(pilot, lambda: not images.pending and images.children)
    await pilot.pause(settle)
    return app.export_screenshot()


def test_review_breakdown_and_help_screens(cli, tmp_path: Path) -> None:
    db = tmp_path / "demo.db"  # the status line shows the file name
    cli("demo", db, "--no-open")
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        shots["review"] = await _once_the_images_are_drawn(app, pilot)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BreakdownScreen))
        await pilot.pause(0.2)
        shots["breakdown"] = app.export_screenshot()
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause(0.2)
        shots["help"] = app.export_screenshot()

    drive(db, steps, size=(160, 48))
    for name, svg in shots.items():
        matches_golden(svg, f"tui/{name}.svg")


def test_review_screen_at_80x24_and_the_compare_view(cli, tmp_path: Path) -> None:
    """A small terminal: the image shrinks, the answer and its runs stay, `? help` and
    `q quit` too; the compare view with every model's answer under question and image."""
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        shots["review-80x24"] = await _once_the_images_are_drawn(app, pilot)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen))
        shots["compare"] = await _once_the_images_are_drawn(app, pilot, 0.2)

    drive(db, steps, size=(80, 24))
    for name, svg in shots.items():
        matches_golden(svg, f"tui/{name}.svg")


def test_the_compare_view_with_twenty_models_at_80x24(many_models_db: Path) -> None:
    """Twenty models: readable boxes in a row that scrolls, the highlighted one (the
    eighth, a long name cut in the middle) in view, its place in the title."""
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.focused)
        await pilot.press(*["right"] * 7)
        await until(pilot, lambda: app.screen.highlighted().model == MANY_MODELS[7])
        shots["compare-20-models"] = await _once_the_images_are_drawn(app, pilot, 0.2)

    drive(many_models_db, steps, size=(80, 24))
    matches_golden(shots["compare-20-models"], "tui/compare-20-models.svg")


def small_print_chart() -> bytes:
    """A white 800×500 PNG of four bars labelled in an 11-pixel bitmap font."""
    image = PILImage.new("RGB", (800, 500), "white")
    draw, font = ImageDraw.Draw(image), ImageFont.load_default_imagefont()
    draw.text((20, 10), "Monthly sales (thousands)", fill="black", font=font)
    for number, (month, value) in enumerate([("Jan", 12), ("Feb", 30), ("Mar", 41), ("Apr", 25)]):
        left = 60 + number * 180
        draw.rectangle((left, 460 - value * 10, left + 100, 460), fill="steelblue")
        draw.text((left + 30, 470), f"{month}: {value}", fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_zoom_view(cli, tmp_path: Path) -> None:
    """The zoom view on a chart's top left corner: its small title is readable at 4×."""
    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    set_first_image(db, small_print_chart())
    shots: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ZoomScreen) and app.screen.shown)
        zoom = app.screen
        await pilot.press("plus", "plus", *["left", "up"] * 8)
        await until(pilot, lambda: zoom.zoom == 4 and zoom.shown and zoom.shown.box[:2] == (0, 0))
        await pilot.pause(0.2)
        shots["zoom"] = app.export_screenshot()

    drive(db, steps, size=(80, 24))  # a small terminal: every cell of a picture is in the SVG
    matches_golden(shots["zoom"], "tui/zoom.svg")


def test_the_circular_group_view_and_the_filter_menu_at_80x24_and_160x48(
    cli, tmp_path: Path
) -> None:
    """The group view's rotations, result and footer fit both sizes; the filter menu shows
    its marks, counts and the line on turning a filter off."""
    from textual.widgets import OptionList

    from lmmreview.tui.group_view import GroupScreen
    from lmmreview.tui.screens import Menu

    db = tmp_path / "demo.db"
    cli("demo", db, "--no-open")
    shots: dict[str, str] = {}

    def counted(app) -> bool:
        options = app.screen.query_one(OptionList)
        return str(options.get_option_at_index(0).prompt).endswith(")")

    for size in ((80, 24), (160, 48)):
        name = f"{size[0]}x{size[1]}"

        async def steps(app, pilot, name: str = name) -> None:
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, GroupScreen))
            await pilot.pause(0.2)
            shots[f"rotations-{name}"] = app.export_screenshot()
            await pilot.press("escape", "v")
            await until(pilot, lambda: isinstance(app.screen, Menu) and counted(app))
            await pilot.pause(0.2)
            shots[f"filter-menu-{name}"] = app.export_screenshot()

        drive(db, steps, dataset="mmbench", size=size)
    for name, svg in shots.items():
        matches_golden(svg, f"tui/{name}.svg")
