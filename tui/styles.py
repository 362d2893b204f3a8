"""The widgets' and screens' style sheets: tui/styles/<name>.tcss, shipped in the package.

Each is read into the class's DEFAULT_CSS: its rules rank as a widget's own defaults,
below any CSS of the app or a screen, as they did written inline.
"""

from __future__ import annotations

from importlib.resources import files


def stylesheet(name: str) -> str:
    """The text of tui/styles/`name`.tcss."""
    return files("lmmreview.tui").joinpath("styles", f"{name}.tcss").read_text(encoding="utf-8")
