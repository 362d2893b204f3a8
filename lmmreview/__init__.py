"""lmmreview: audit and grade large multimodal model answers, stored in one SQLite file.

The installed packages are `lmmreview.engine` (pure rules and the judge), `lmmreview.db`
(the store and importers) and `lmmreview.tui` (the command line and the screens); in the
repository they are the top-level folders `engine/`, `db/` and `tui/`.
"""

from functools import cache


def __getattr__(name: str) -> str:
    """`lmmreview.__version__`, read from the installed metadata when first asked for:
    importlib.metadata takes longer to load than the rest of `lmmreview --help`."""
    if name != "__version__":
        raise AttributeError(f"module 'lmmreview' has no attribute {name!r}")
    return _version()


@cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lmmreview")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
