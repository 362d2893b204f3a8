"""The widgets' and screens' style sheets: tui/styles/<name>.tcss, shipped in the package.

Each is read into the class's DEFAULT_CSS: its rules rank as a widget's own defaults,
below any CSS of the app or a screen, as they did written inline.
"""

from __future__ import annotations

from pathlib import Path

# Beside this module, as pip installs the package data (a zipped install would need
# importlib.resources, whose import costs the first screen 2 ms; the demo needs a real
# folder as well: db/demo.py).
_FOLDER = Path(__file__).resolve().parent / "styles"


def stylesheet(name: str) -> str:
    """The text of tui/styles/`name`.tcss."""
    return (_FOLDER / f"{name}.tcss").read_text(encoding="utf-8")
