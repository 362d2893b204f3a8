"""Command-line arguments and options that several commands share."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated
from urllib.parse import unquote, urlsplit

import typer

from lmmreview.engine.secrets import MIN_SECRET_LENGTH

# Judge runs per answer at most (MM-Vet's paper takes 5): each run is paid for, and a run
# count far above this is a typo that would plan (and bill) without end.
MAX_RUNS = 100
IMAGE_RENDERERS = ("auto", "tgp", "sixel", "halfcell", "unicode", "off")  # open --images
# Seconds a judge request may wait: beyond an hour the server has stalled (`inf` waited
# for ever); `judge --timeout` and the settings' judge.timeout share this bound.
MIN_TIMEOUT, MAX_TIMEOUT = 0.1, 3600.0
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Variables that never hold a key: naming one (api_key_env = "PATH") would send its value
# to the judge server as the key.
NOT_KEY_VARIABLES = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "LC_ALL", "TERM",
     "TMPDIR", "HOSTNAME", "DISPLAY", "EDITOR", "MAIL", "PYTHONPATH"}
)  # fmt: skip
KEY_VARIABLE_EXPECTED = (
    "the NAME of the environment variable holding the key (never the key itself)"
)
_KEY_ADVICE = "give the key through the environment variable api_key_env names, never in the URL"


def url_problem(url: str, key: str | None = None) -> str | None:
    """Why `url` is not an http(s) URL with a host, no credentials, no fragment and not
    the `key` (raw or percent-encoded) anywhere, or None when it is one. The answer never
    quotes the URL: the key may be in it, in any part and any encoding."""
    if key is not None and len(key) >= MIN_SECRET_LENGTH and (key in url or key in unquote(url)):
        return f"the URL holds the API key (not shown): {_KEY_ADVICE}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - the property raises on a port that is not a number
    except ValueError:  # http://[::1 (an unclosed IPv6 bracket), http://h:x
        return "not a URL (its host or port does not parse)"
    if "@" in unquote(parts.netloc):  # u:KEY@host, and u%3AKEY%40host too
        return f"the URL holds a user name or password (not shown): {_KEY_ADVICE}"
    if "#" in url:  # a base URL has no fragment: what follows "#" is likely the key
        return f"the URL has a #fragment (not shown): {_KEY_ADVICE}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http:// or https:// URL with a host"
    return None


def checked_url(url: str | None) -> str | None:
    """An http(s) URL with a host, as given; anything else is a usage error, raised while
    the arguments are read (before any database is opened)."""
    problem = None if url is None else url_problem(url)
    if problem is not None:
        raise typer.BadParameter(problem)
    return url


def key_variable_ok(name: object) -> bool:
    """Whether `name` can name the variable holding the key: a variable name, and none of
    those that hold something else (PATH, HOME...)."""
    return (
        isinstance(name, str)
        and _VARIABLE_NAME.fullmatch(name) is not None
        and name.upper() not in NOT_KEY_VARIABLES
    )


def checked_key_variable(name: str | None) -> str | None:
    """The --api-key-env given, if it can name the key's variable (it is never echoed: a
    key put there by mistake stays off the terminal)."""
    if name is not None and not key_variable_ok(name):
        raise typer.BadParameter(f"expected {KEY_VARIABLE_EXPECTED}, not PATH, HOME and the like")
    return name


def given_path(text: str | Path) -> Path:
    """The parser of every path argument and option: an empty path is a usage error, since
    Path("") is the current folder (`--out ''` wrote files there)."""
    if str(text) == "":
        raise typer.BadParameter("an empty path: give a file or folder name")
    return Path(text)


DbArg = Annotated[
    Path, typer.Argument(metavar="DB", help="The lmmreview database file.", parser=given_path)
]
NewDbArg = Annotated[
    Path,
    typer.Argument(
        metavar="DB", help="The lmmreview database file (created if new).", parser=given_path
    ),
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
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="FILE",
        help="Write here instead of standard output.",
        parser=given_path,
    ),
]
JudgeOpt = Annotated[
    str | None,
    typer.Option(
        "--judge",
        metavar="NAME",
        help="Show this judge's scores (a model, 'offline rules', 'gpt-4 (imported)'; "
        "default: the review.judge setting's, else the first LLM or imported judge, else "
        "the offline rules; the offline rules first where they are the benchmark's "
        "official scoring; "
        "`lmmreview judges` lists them).",
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
        envvar="OPENAI_BASE_URL",  # so the variable is checked like the option
        callback=checked_url,
    ),
]
