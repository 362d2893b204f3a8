"""`lmmreview config`: the effective settings and where each came from."""

from __future__ import annotations

import json

from lmmreview.tui.cli.screen import check_screen
from lmmreview.tui.options import JsonOpt
from lmmreview.tui.output import out
from lmmreview.tui.safe_text import safe


def show_config(
    as_json: JsonOpt = False,
) -> None:
    """Print the effective settings and where each came from.

    Sources: default, file (the settings file named on top), environment, flag.
    """
    from rich.table import Table as RichTable

    from lmmreview.tui.settings import for_command

    settings = for_command()
    check_screen(settings)
    rows = settings.rows()
    if as_json:
        document = {
            "path": str(settings.path),
            "exists": settings.path.exists(),
            "settings": {key: {"value": value, "source": source} for key, value, source in rows},
        }
        out.print_json(json.dumps(document), ensure_ascii=True)
        return
    state = "" if settings.path.exists() else " (absent: every value is a default)"
    table = RichTable(
        title=safe(f"{settings.path}{state}", one_line=True), title_justify="left", box=None
    )
    for name in ("setting", "value", "source"):
        table.add_column(name, overflow="fold")
    for key, value, source in rows:
        shown = "(none)" if value is None else str(value)
        table.add_row(safe(key, one_line=True), safe(shown, one_line=True), source)
    out.print(table)
