"""Command-line arguments and options that several commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DbArg = Annotated[Path, typer.Argument(metavar="DB", help="The lmmreview database file.")]
NewDbArg = Annotated[
    Path, typer.Argument(metavar="DB", help="The lmmreview database file (created if new).")
]
DatasetOpt = Annotated[
    str | None,
    typer.Option(
        "--dataset", metavar="NAME", help="Dataset name in the database.", show_default=False
    ),
]
DatasetsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--dataset",
        metavar="NAME",
        help="Only this dataset (repeatable; default: all).",
        show_default=False,
    ),
]
ZeroOpt = Annotated[
    bool,
    typer.Option(
        "--unscored-as-zero",
        help="Count unscored answers as 0, as the reference scripts do (the notes say how many).",
    ),
]
JudgeUrlOpt = Annotated[
    str | None,
    typer.Option(
        metavar="URL",
        help="OpenAI-compatible judge server (default: $OPENAI_BASE_URL).",
        show_default=False,
    ),
]
