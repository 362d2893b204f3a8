"""Images a reviewer can read: the zoom view (z), the system viewer or a temporary file (o),
a one-line "no image", and broken images named by their sample."""

from __future__ import annotations

import io
import sqlite3
import tempfile
from pathlib import Path

import pytest
from PIL import Image as PILImage
from textual.widgets import Input
from textual_image.widget import HalfcellImage
from tui_harness import FIRST, cursor, drive, set_first_image, until

from lmmreview.tui.images import ImageProblem, SampleImages, thumbnail
from lmmreview.tui.zoom import ZoomScreen


def quadrants(size: tuple[int, int] = (800, 600)) -> bytes:
    """A PNG whose four quarters are red, green, blue and white (top left to bottom right)."""
    image = PILImage.new("RGB", size, "white")
    width, height = size[0] // 2, size[1] // 2
    for color, (left, top) in zip(
        ("red", "green", "blue"), ((0, 0), (width, 0), (0, height)), strict=True
    ):
        image.paste(color, (left, top, left + width, top + height))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def colours(image: PILImage.Image) -> set[tuple[int, int, int]]:
    """The colours that make up at least a twentieth of `image`."""
    counts = image.convert("RGB").getcolors(image.width * image.height) or []
    return {c for n, c in counts if n * 20 >= image.width * image.height}


def shown_picture(screen: ZoomScreen) -> PILImage.Image:
    picture = screen.query_one(HalfcellImage).image
    assert isinstance(picture, PILImage.Image)
    return picture


def told(app) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 128, 0), (0, 0, 255), (255, 255, 255)


def test_zoom_view_cuts_and_pans_the_full_resolution_image(demo_db: Path) -> None:
    set_first_image(demo_db, quadrants())
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        assert app.current().key == FIRST
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ZoomScreen) and app.screen.shown)
        zoom = app.screen
        whole = zoom.shown
        seen["whole"] = (whole.box, colours(shown_picture(zoom)))
        seen["status"] = str(zoom.query_one("#zoom-status").content)
        # Zoom in twice, then pan to the top left corner: only the red quarter is left.
        await pilot.press("plus", "plus", *["left", "h", "up", "k"] * 4)
        await until(pilot, lambda: zoom.shown and zoom.shown.box[:2] == (0, 0))
        corner = zoom.shown
        seen["corner"] = (corner, zoom.zoom, colours(shown_picture(zoom)))
        seen["corner status"] = str(zoom.query_one("#zoom-status").content)
        await pilot.press("0")
        await until(pilot, lambda: zoom.shown == whole)

    drive(demo_db, steps)
    box, whole_colours = seen["whole"]
    assert box == (0, 0, 800, 600)
    assert {RED, GREEN, BLUE, WHITE} <= whole_colours
    assert seen["status"] == (
        "image 1/1 · 800×600 px · zoom 1× · showing x 0–800, y 0–600 (800×600 px)"
    )
    corner, factor, corner_colours = seen["corner"]
    assert factor == 4
    assert corner.width < 400 and corner.height < 300  # inside the red quarter
    assert corner_colours == {RED}
    assert seen["corner status"].endswith(
        f"zoom 4× · showing x 0–{corner.width}, y 0–{corner.height} "
        f"({corner.width}×{corner.height} px)"
    )


@pytest.mark.parametrize("key", ["escape", "q", "z"])
def test_zoom_view_closes_with_escape_q_or_z(demo_db: Path, key: str) -> None:
    seen: list[str] = []

    async def steps(app, pilot) -> None:
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ZoomScreen))
        seen.append(type(app.screen).__name__)
        await pilot.press(key)
        await until(pilot, lambda: not isinstance(app.screen, ZoomScreen))
        seen.append(type(app.screen).__name__)
        await pilot.press("j")  # the review screen answers keys again, and q did not quit
        await until(pilot, lambda: cursor(app) == 1)

    app = drive(demo_db, steps)
    assert seen == ["ZoomScreen", "ReviewScreen"]
    assert app.return_code in (None, 0)


def pixels(data: bytes) -> bytes:
    with PILImage.open(io.BytesIO(data)) as image:
        return image.convert("RGB").tobytes()


def first_image_bytes(db: Path) -> bytes:
    with sqlite3.connect(db) as conn:
        (data,) = conn.execute(
            "SELECT i.bytes FROM images i JOIN sample_images si ON si.image_hash = i.hash "
            "JOIN samples s ON s.id = si.sample_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = 'mmvet' AND s.key = ?",
            (FIRST,),
        ).fetchone()
    return bytes(data)


@pytest.fixture
def temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder, named with an escape character (shown, never obeyed)."""
    folder = tmp_path / "tmp\x1b[31mred"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_o_without_a_viewer_writes_the_image_to_a_temporary_file_and_says_where(
    demo_db: Path, temporary_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no xdg-open
    monkeypatch.delenv("DISPLAY", raising=False)  # as over SSH or in tmux
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("o")
        await until(pilot, lambda: app._notifications)
        seen["told"] = told(app)
        (folder,) = temporary_folder.iterdir()
        (written,) = folder.iterdir()
        seen["written"], seen["bytes"] = written, written.read_bytes()

    drive(demo_db, steps)
    written = seen["written"]
    assert isinstance(written, Path)
    assert written.name.startswith(f"lmmreview-{FIRST}-1-") and written.suffix == ".png"
    assert written.parent.name.startswith("lmmreview-images-")
    assert pixels(seen["bytes"]) == pixels(first_image_bytes(demo_db))
    shown_path = str(written).replace("\x1b", "␛")
    assert seen["told"] == (
        f"No image viewer here (no display): wrote {FIRST}'s image to {shown_path} "
        "(removed when lmmreview closes)."
    )
    assert "\x1b" not in str(seen["told"])
    assert list(temporary_folder.iterdir()) == []  # the screen closed: nothing left behind


def test_o_leaves_no_file_in_the_temporary_folder_once_the_screen_closes(
    demo_db: Path, temporary_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    seen: dict[str, int] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("o")
        await until(pilot, lambda: app._notifications)
        seen["while open"] = len([f for f in temporary_folder.rglob("*") if f.is_file()])

    drive(demo_db, steps)
    assert seen["while open"] == 1
    assert list(temporary_folder.rglob("*")) == []


def test_o_starts_the_system_viewer_and_never_waits_for_it(
    demo_db: Path, temporary_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    programs = tmp_path / "programs"
    programs.mkdir()
    called, release = tmp_path / "viewer-called", tmp_path / "viewer-may-end"
    viewer = programs / "xdg-open"
    # A viewer that stays open until the test lets it go (at most 30 s).
    viewer.write_text(
        "#!/bin/sh\nPATH=/usr/bin:/bin\n"
        f'printf %s "$1" > "{called}"\n'
        f'for i in $(seq 600); do [ -e "{release}" ] && exit 0; sleep 0.05; done\n'
    )
    viewer.chmod(0o755)
    monkeypatch.setenv("PATH", str(programs))
    monkeypatch.setenv("DISPLAY", ":0")
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("o")
        await until(pilot, lambda: app._notifications and called.exists() and called.read_text())
        seen["told"] = told(app)
        seen["bytes"] = Path(called.read_text()).read_bytes()
        await pilot.press("j")  # the screen answers while the viewer is still open
        await until(pilot, lambda: cursor(app) == 1)
        seen["viewer still open"] = not release.exists()

    try:
        drive(demo_db, steps)
    finally:
        release.touch()
    opened = Path(called.read_text())
    assert opened.parent.parent == temporary_folder
    assert pixels(seen["bytes"]) == pixels(first_image_bytes(demo_db))
    assert seen["viewer still open"] is True
    assert not opened.exists() and list(temporary_folder.iterdir()) == []
    assert str(seen["told"]).startswith(f"Opened {FIRST}'s image with xdg-open: ")


def test_no_image_takes_one_line(demo_db: Path) -> None:
    set_first_image(demo_db, None)
    seen: dict[str, int] = {}

    async def steps(app, pilot) -> None:
        images = app.screen.query_one(SampleImages)
        await until(pilot, lambda: not images.pending and images.children)
        await pilot.pause(0.1)
        seen["height"] = images.region.height
        seen["gap"] = app.screen.query_one("#question").region.y - images.region.bottom

    drive(demo_db, steps)
    assert seen == {"height": 1, "gap": 0}


def test_an_empty_filter_result_shows_nothing_about_images(demo_db: Path) -> None:
    """No answer listed, none shown: not even "no image"; the image is back with the list."""
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        images = app.screen.query_one(SampleImages)
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen.focused, Input))
        app.screen.focused.value = "no question says zqxj"
        await pilot.press("enter")
        await until(pilot, lambda: app.session.filter.text and not len(app.session.visible))
        await pilot.pause(0.2)
        seen["empty"] = (images.display, images.region.height)
        await pilot.press("escape")  # the filters cleared: an answer and its image again
        await until(pilot, lambda: len(app.session.visible) and not images.pending)
        await pilot.pause(0.2)
        seen["back"] = (images.display, images.region.height > 1)

    drive(demo_db, steps)
    assert seen == {"empty": (False, 0), "back": (True, True)}


def test_a_broken_image_names_its_sample_and_the_reason(demo_db: Path) -> None:
    set_first_image(demo_db, b"\x89PNG\r\n\x1a\n not really")
    seen: dict[str, str] = {}

    async def steps(app, pilot) -> None:
        images = app.screen.query_one(SampleImages)

        def told() -> bool:  # recomposed: the loading line gave way to the reason
            shown = images.query(".placeholder")
            return not images.pending and "loading" not in str(shown.first().content)

        await until(pilot, lambda: images.query(".placeholder") and told())
        seen["panel"] = images.query_one(".placeholder").content.text.plain
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ZoomScreen))
        status = app.screen.query_one("#zoom-status")
        await until(pilot, lambda: "broken" in str(status.content))
        seen["zoom"] = str(status.content)

    drive(demo_db, steps)
    reason = "v1_0: broken image: not a known image format"
    assert seen["panel"] == reason
    assert seen["zoom"] == f"image 1/1 · {reason}"


def test_pillow_object_reprs_never_reach_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pillow names the file it read in its messages: ours is an in-memory BytesIO."""

    def failing_open(fp: io.BytesIO, *args: object) -> PILImage.Image:
        raise OSError(f"cannot read image file {fp!r}")

    monkeypatch.setattr(PILImage, "open", failing_open)
    problem = thumbnail(b"data", (10, 10))
    assert problem == ImageProblem("broken image: cannot read image file")


def test_zoom_view_goes_through_a_samples_images_and_opens_the_one_shown(
    demo_db: Path, temporary_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    seen: list[str] = []
    written: list[tuple[str, bytes]] = []

    async def steps(app, pilot) -> None:
        assert app.current().key == "v2_0"  # two images
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ZoomScreen) and app.screen.shown)
        zoom = app.screen
        status = zoom.query_one("#zoom-status")
        for key in ("right_square_bracket", "right_square_bracket", "left_square_bracket"):
            seen.append(str(status.content).split(" · ")[0])
            await pilot.press(key)
            await until(pilot, lambda: zoom.shown and zoom.shown.box[:2] == (0, 0))
            await until(pilot, lambda: not str(status.content).startswith(seen[-1]))
        seen.append(str(status.content).split(" · ")[0])
        await pilot.press("o")
        await until(pilot, lambda: app._notifications)
        written.extend((f.name, f.read_bytes()) for f in temporary_folder.glob("*/*"))

    drive(demo_db, steps, dataset="mmvet-v2")
    assert seen == ["image 1/2", "image 2/2", "image 1/2", "image 2/2"]
    ((name, data),) = written
    assert name.startswith("lmmreview-v2_0-2-")
    with sqlite3.connect(demo_db) as conn:
        (second,) = conn.execute(
            "SELECT i.bytes FROM images i JOIN sample_images si ON si.image_hash = i.hash "
            "JOIN samples s ON s.id = si.sample_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = 'mmvet-v2' AND s.key = 'v2_0' AND si.position = 2"
        ).fetchone()
    assert pixels(data) == pixels(bytes(second))
    assert list(temporary_folder.iterdir()) == []  # removed when the screen closed
