"""The optional dependencies and how to install them, as the errors that need one say."""

from __future__ import annotations


def install_hint(extra: str, package: str) -> str:
    """How to install an extra: pip extras do not reach a pipx or uv tool install, each
    has its own way in."""
    return (
        f"pip install 'lmmreview[{extra}]' (pip), pipx inject lmmreview {package} (pipx), or "
        f"uv tool install --with {package} lmmreview (uv tool)"
    )


INSTALL_OPENPYXL = install_hint("xlsx", "openpyxl")
INSTALL_PYARROW = install_hint("parquet", "pyarrow")
INSTALL_INSPECT = install_hint("inspect", "inspect_ai")
INSTALL_MATPLOTLIB = install_hint("figures", "matplotlib")
