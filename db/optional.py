"""The optional dependencies and how to install them, as the errors that need one say."""

from __future__ import annotations

# pip extras do not reach a pipx or uv tool install: each has its own way in.
INSTALL_OPENPYXL = (
    "pip install 'lmmreview[xlsx]' (pip), pipx inject lmmreview openpyxl (pipx), or "
    "uv tool install --with openpyxl lmmreview (uv tool)"
)
INSTALL_INSPECT = (
    "pip install 'lmmreview[inspect]' (pip), pipx inject lmmreview inspect_ai (pipx), or "
    "uv tool install --with inspect_ai lmmreview (uv tool)"
)
