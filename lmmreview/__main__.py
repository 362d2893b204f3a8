"""`python -m lmmreview`: the same command line as the `lmmreview` script."""

from lmmreview.tui.cli import main

main()
