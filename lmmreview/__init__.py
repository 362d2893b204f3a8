"""lmmreview: audit and grade large multimodal model answers, stored in one SQLite file.

The installed packages are `lmmreview.engine` (pure rules and the judge), `lmmreview.db`
(the store and importers) and `lmmreview.tui` (the command line and the screens); in the
repository they are the top-level folders `engine/`, `db/` and `tui/`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lmmreview")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
