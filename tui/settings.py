"""The settings a user keeps in a TOML file, and where each effective value came from.

The file is `$XDG_CONFIG_HOME/lmmreview/config.toml` (platformdirs' user config folder
where XDG_CONFIG_HOME is not set). Precedence, highest first: a command-line flag, then
the environment where one applies ($OPENAI_BASE_URL), then the file, then the default
(the reviewer's default is the login name). A file that cannot be read or parsed is an
error for every command; a bad or unknown key is an error, naming the file and the key,
for the commands that read it (a bad `[judge] runs` does not stop `report`). An API
key never belongs here, only the NAME of the variable holding it.
"""

from __future__ import annotations

import errno
import getpass
import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs

from lmmreview.engine.causes import MMMU_CAUSES
from lmmreview.engine.defaults import (
    DEFAULT_FAMILIES,
    DEFAULT_JUDGE_MODEL,
    DISAGREEMENT,
    SPREAD,
)
from lmmreview.engine.scoring import JudgeChoice
from lmmreview.engine.secrets import redact_url
from lmmreview.tui.options import (
    IMAGE_RENDERERS,
    KEY_VARIABLE_EXPECTED,
    MAX_RUNS,
    MAX_TIMEOUT,
    MIN_TIMEOUT,
    key_variable_ok,
    url_problem,
)
from lmmreview.tui.output import fail

DEFAULT_THEME = "textual-dark"
CAUSES = "causes"  # the file's table of error causes
FAMILIES = "families"  # the file's table of model families (name start = family)
MODELS = "models"  # the file's table of the tables' models (stored name = display name)
_CAUSE_ID = re.compile(r"[A-Za-z0-9_-]+")
_TABLE_HEADER = re.compile(r"^\s*\[")
_THEME_LINE = re.compile(r"^\s*theme\s*=")
MAX_FILE_BYTES = 2**20  # a settings file is a few lines; anything larger is a mistake


class SettingsError(ValueError):
    """A settings file that cannot be used; the message is one line naming file and key."""


@dataclass(frozen=True)
class Settings:
    """The effective settings. `sources` maps each file key (e.g. "judge.model") to
    "default", "file", "environment" or "flag"."""

    path: Path
    reviewer: str = ""
    theme: str = DEFAULT_THEME
    images: str = "auto"
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_base_url: str | None = None
    judge_api_key_env: str = "OPENAI_API_KEY"
    judge_runs: int = 5
    judge_concurrency: int = 16
    judge_timeout: float = 60.0
    judge_max_attempts: int = 10  # requests per item, retries included, before it fails
    disagreement: float = DISAGREEMENT
    spread: float = SPREAD
    shown_judge: str | None = None  # the judge tables show by default (None: the first)
    auto_advance: bool = False  # after a grade, the cursor moves to the next answer
    blind: bool = False  # models under aliases, judge scores hidden until a verdict
    shuffle_seed: int | None = None  # the list in a seeded order (None: as imported)
    keymap: Mapping[str, str] = field(default_factory=dict)
    causes: Mapping[str, str] = field(default_factory=lambda: dict(MMMU_CAUSES))  # id -> title
    # model name start -> family, for a judge's self-preference flag (lmmreview judges)
    families: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_FAMILIES))
    # stored name -> display name, in the order the tables list the models (engine.table_options)
    models: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)

    def judge_choice(self, named: str | None = None) -> JudgeChoice:
        """The judge choice every table, export and note of a command or screen follows:
        the judge `named` (--judge), else the review.judge setting's, else the default.
        Made once, here, and passed down."""
        return JudgeChoice(named, self.shown_judge)

    def merged(self, **flags: Any) -> Settings:
        """These settings with the command-line flags that were given (not None) on top."""
        given = {name: value for name, value in flags.items() if value is not None}
        sources = dict(self.sources) | {_KEY_OF[name]: "flag" for name in given}
        return replace(self, **given, sources=sources)

    @property
    def api_key(self) -> str | None:
        """The key in the variable judge.api_key_env names (None: not set)."""
        return os.environ.get(self.judge_api_key_env) or None

    def check_url(self) -> None:
        """Raise SettingsError, naming where the base URL came from but not quoting it,
        when it holds the key (in the path, the query, percent-encoded...)."""
        url = self.judge_base_url
        problem = None if url is None else url_problem(url, self.api_key)
        if problem is not None:
            where = {"flag": "the base URL flag", "environment": "$OPENAI_BASE_URL"}
            source = self.sources.get("judge.base_url", "file")
            raise SettingsError(f"{where.get(source, f'{self.path}: judge.base_url')}: {problem}")

    def rows(self) -> list[tuple[str, object, str]]:
        """(file key, effective value, source) for every setting, then the keymap entries,
        then the error causes, then the model families, then the tables' models."""
        listed = [(key, self._shown(key), self.sources[key]) for key in _SPECS]
        keymap = [(f"keymap.{b}", keys, "file") for b, keys in sorted(self.keymap.items())]
        source = self.sources.get(CAUSES, "default")
        causes = [(f"{CAUSES}.{cause}", title, source) for cause, title in self.causes.items()]
        families = [
            (f"{FAMILIES}.{start}", name, self.sources.get(f"{FAMILIES}.{start}", "default"))
            for start, name in self.families.items()
        ]
        models = [(f"{MODELS}.{name}", shown, "file") for name, shown in self.models.items()]
        return listed + keymap + causes + families + models

    def _shown(self, key: str) -> object:
        value = getattr(self, _SPECS[key].attribute)
        if key == "judge.base_url" and value is not None:
            return redact_url(value, [self.api_key])  # never the key, wherever it sits
        return value

    def check_screen(self, defaults: Mapping[str, str], themes: Collection[str]) -> None:
        """Fail, naming the file and the key, on a keymap id or theme the screen lacks, or a
        keymap giving one key to two bindings. `defaults`: binding id -> its default keys."""
        for binding_id in self.keymap:
            if binding_id not in defaults:
                raise _error(self.path, f"keymap.{binding_id}", "no binding has this id")
        self._check_clashes(defaults)
        if self.theme not in themes:
            raise _error(self.path, "theme", f"no theme {self.theme!r}")

    def _check_clashes(self, defaults: Mapping[str, str]) -> None:
        """Two bindings on one key: only one would run (`q` accepting, not quitting)."""
        owner: dict[str, str] = {}
        # the keymap's bindings first, so a clash names a binding the file changed
        ids = [*self.keymap, *(b for b in defaults if b not in self.keymap)]
        for binding_id in ids:
            for key in _keys(self.keymap.get(binding_id, defaults[binding_id])):
                other = owner.setdefault(key, binding_id)
                if other != binding_id:
                    mine, theirs = (
                        (binding_id, other) if binding_id in self.keymap else (other, binding_id)
                    )
                    raise _error(
                        self.path, f"keymap.{mine}", f"key {key!r} is also bound to {theirs}"
                    )


def _keys(keys: str) -> list[str]:
    """The keys of a binding's "j,down" text."""
    return [key.strip() for key in keys.split(",") if key.strip()]


@dataclass(frozen=True)
class _Spec:
    """One key of the file: the attribute it sets and what a valid value is."""

    attribute: str
    check: Callable[[object], bool]
    expected: str  # what the error says a valid value is


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _number(low: float, high: float = float("inf"), whole: bool = False) -> Callable[..., bool]:
    """A check for an int (or, unless `whole`, a float) between `low` and `high`."""

    def check(value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False  # TOML true is no number, though Python's bool is an int
        return (isinstance(value, int) or not whole) and low <= value <= high

    return check


_SPECS: dict[str, _Spec] = {
    "reviewer": _Spec("reviewer", _text, "a name"),
    "theme": _Spec("theme", _text, "a theme name"),
    "images": _Spec(
        "images", lambda v: v in IMAGE_RENDERERS, "one of " + ", ".join(IMAGE_RENDERERS)
    ),
    "judge.model": _Spec("judge_model", _text, "a model name"),
    "judge.base_url": _Spec(
        "judge_base_url",
        lambda v: isinstance(v, str) and url_problem(v) is None,
        "an http:// or https:// URL with a host (no user name or password, no #fragment)",
    ),
    "judge.api_key_env": _Spec(
        "judge_api_key_env", key_variable_ok, f"{KEY_VARIABLE_EXPECTED}, not PATH, HOME..."
    ),
    "judge.runs": _Spec(
        "judge_runs", _number(1, MAX_RUNS, whole=True), f"a whole number from 1 to {MAX_RUNS}"
    ),
    "judge.concurrency": _Spec("judge_concurrency", _number(1, whole=True), "a whole number >= 1"),
    "judge.timeout": _Spec(
        "judge_timeout",
        _number(MIN_TIMEOUT, MAX_TIMEOUT),
        f"seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}",
    ),
    "judge.max_attempts": _Spec(
        "judge_max_attempts", _number(1, whole=True), "a whole number >= 1"
    ),
    "review.disagreement": _Spec("disagreement", _number(0.0, 1.0), "a number from 0 to 1"),
    "review.spread": _Spec("spread", _number(0.0, 0.5), "a number from 0 to 0.5"),
    "review.judge": _Spec("shown_judge", _text, "a judge's name (lmmreview judges lists them)"),
    "review.auto_advance": _Spec("auto_advance", lambda v: isinstance(v, bool), "true or false"),
    "review.blind": _Spec("blind", lambda v: isinstance(v, bool), "true or false"),
    "review.shuffle_seed": _Spec(
        "shuffle_seed", _number(0, 2**63 - 1, whole=True), "a whole number >= 0"
    ),
}
_KEY_OF = {spec.attribute: key for key, spec in _SPECS.items()}


def config_path() -> Path:
    """Where the settings file is: under $XDG_CONFIG_HOME if set, else platformdirs'."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    folder = Path(xdg) / "lmmreview" if xdg else platformdirs.user_config_path("lmmreview", False)
    return folder / "config.toml"


def _error(path: Path, key: str, problem: str) -> SettingsError:
    return SettingsError(f"{path}: {key}: {problem}")


def _text_of(path: Path) -> str:
    """The file's text. Opened without waiting (a FIFO would block every command until
    something writes to it), then refused unless it is a regular file of at most
    MAX_FILE_BYTES; FileNotFoundError when there is none."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise SettingsError(f"{path}: not a regular file; the settings are a TOML file")
        with open(descriptor, "rb", closefd=False) as file:
            data = file.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > MAX_FILE_BYTES:
        raise SettingsError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB; not settings")
    return data.decode("utf-8")


def _read(path: Path) -> dict[str, Any]:
    """The file as TOML (an absent file is empty), or an error naming file and position."""
    try:
        text = _text_of(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the links lead to no file: say so, not an errno text
            raise SettingsError(f"{path}: a symbolic link in a loop, leading to no file") from None
        raise SettingsError(f"{path}: cannot read the settings ({exc})") from None
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: cannot read the settings ({exc})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None


def _causes(value: object, path: Path) -> dict[str, str]:
    """The `[causes]` table (id = title, in the file's order) replacing the default
    taxonomy; an empty table, a bad id or a title that is not text is an error."""
    if not isinstance(value, dict) or not value:
        raise _error(path, CAUSES, 'expected a table of cause id = title, e.g. perceptual = "..."')
    for cause, title in value.items():
        if not _CAUSE_ID.fullmatch(cause):
            raise _error(path, f"{CAUSES}.{cause}", "a cause id is letters, digits, _ and -")
        if not _text(title):
            raise _error(path, f"{CAUSES}.{cause}", "expected a title")
    return dict(value)


def _families(value: object, path: Path) -> dict[str, str]:
    """The `[families]` table (model name start = family), added to the default map (an
    entry of the same name start replaces the default's); a family that is not text, or
    an empty name start, is an error."""
    if not isinstance(value, dict):
        raise _error(path, FAMILIES, 'expected a table of name start = family, e.g. qwen = "qwen"')
    for start, name in value.items():
        if not start.strip():
            raise _error(path, FAMILIES, "a model name start is not empty")
        if not _text(name):
            raise _error(path, f"{FAMILIES}.{start}", "expected a family's name")
    return {start.lower(): name for start, name in value.items()}


def _models(value: object, path: Path) -> dict[str, str]:
    """The `[models]` table (stored name = display name, in the tables' order); a display
    name that is not text, or that two models share, is an error."""
    if not isinstance(value, dict):
        raise _error(path, MODELS, 'expected a table of model = display name, e.g. m = "M (7B)"')
    shown: dict[str, str] = {}
    for name, display in value.items():
        if not _text(display):
            raise _error(path, f"{MODELS}.{name}", "expected a display name")
        if display in shown:
            raise _error(path, f"{MODELS}.{name}", f"{shown[display]} is shown as {display!r} too")
        shown[display] = name
    return dict(value)


def models_file(path: Path) -> dict[str, str]:
    """The `[models]` table of a TOML file other than the settings (`--models FILE`); a file
    that cannot be read, or has no such table, is an error naming it."""
    document = _read(path)
    if MODELS not in document:
        if not path.is_file():
            raise SettingsError(f"{path}: no such file")
        raise _error(path, MODELS, "no [models] table in this file")
    return _models(document[MODELS], path)


@dataclass
class _File:
    """What a settings file says: its valid values by dotted key, its keymap, its causes
    (None: the default), its model families, and its bad or unknown keys, each with its
    error."""

    values: dict[str, object] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    causes: dict[str, str] | None = None
    families: dict[str, str] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    problems: dict[str, SettingsError] = field(default_factory=dict)

    def check(self, uses: Collection[str] | None) -> None:
        """Raise the first problem among the keys or tables `uses` names (None: all)."""
        for key, problem in self.problems.items():
            if uses is None or any(key == u or key.startswith(f"{u}.") for u in uses):
                raise problem


def _flatten(document: Mapping[str, Any], path: Path) -> _File:
    """The file's settings; a bad `[causes]` table is an error (the tables read it)."""
    file = _File()
    values: dict[str, object] = {}
    for name, value in document.items():
        if name == CAUSES:
            file.causes = _causes(value, path)
        elif name == FAMILIES:  # a bad table stops only the commands that read it
            try:
                file.families = _families(value, path)
            except SettingsError as problem:
                file.problems[FAMILIES] = problem
        elif name == MODELS:  # a bad table stops only the commands that read it
            try:
                file.models = _models(value, path)
            except SettingsError as problem:
                file.problems[MODELS] = problem
        elif name == "keymap":
            _keymap(value, path, file)
        elif isinstance(value, dict) and name in ("judge", "review"):
            values |= {f"{name}.{key}": inner for key, inner in value.items()}
        else:
            values[name] = value
    for key, value in values.items():
        spec = _SPECS.get(key)
        if spec is None:
            file.problems[key] = _error(path, key, "unknown setting (lmmreview config lists them)")
        elif not spec.check(value):
            file.problems[key] = _error(path, key, f"expected {spec.expected}")
        else:
            file.values[key] = value
    return file


def _keymap(value: object, path: Path, file: _File) -> None:
    """The `[keymap]` table's entries into `file`, a bad one into its problems."""
    if not isinstance(value, dict):
        file.problems["keymap"] = _error(path, "keymap", "expected a table of binding id = keys")
        return
    for binding_id, keys in value.items():
        if _text(keys):
            file.keymap[binding_id] = keys
        else:
            key = f"keymap.{binding_id}"
            file.problems[key] = _error(path, key, 'expected keys, e.g. "y,ctrl+y"')


def _login_name() -> str:
    """The user's login name; a user with no name (a container's bare uid) is named by it."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid-{os.getuid()}"


def load(path: Path | None = None, uses: Collection[str] | None = None) -> Settings:
    """The settings from `path` (default: `config_path()`) over the defaults and the
    environment. Raises SettingsError for a file that cannot be read or parsed, and for
    a bad or unknown key among those `uses` names (keys, or tables such as "judge"; None:
    every key); the other bad keys keep their defaults, for a command that never reads them."""
    path = path if path is not None else config_path()
    file = _flatten(_read(path), path)
    file.check(uses)
    values, keymap, causes = file.values, file.keymap, file.causes
    chosen: dict[str, Any] = {} if causes is None else {"causes": causes}
    sources = {key: "default" for key in _SPECS} | {CAUSES: "default" if causes is None else "file"}
    chosen["families"] = DEFAULT_FAMILIES | file.families
    chosen["models"] = file.models
    sources |= {f"{FAMILIES}.{start}": "file" for start in file.families}
    for key, value in values.items():
        chosen[_SPECS[key].attribute] = value
        sources[key] = "file"
    if "reviewer" not in values:
        chosen["reviewer"] = _login_name()
        sources["reviewer"] = "environment"
    if url := os.environ.get("OPENAI_BASE_URL"):  # the environment beats the file, flags both
        problem = url_problem(url)
        if problem is not None and (uses is None or "judge" in uses):
            raise SettingsError(f"$OPENAI_BASE_URL: {problem}")
        chosen["judge_base_url"] = url
        sources["judge.base_url"] = "environment"
    return Settings(path=path, keymap=keymap, sources=sources, **chosen)


def save_theme(path: Path, theme: str) -> None:
    """Set `theme = "..."` in the file, keeping every other line (comments too) as it is.

    The top-level theme line is replaced, or added before the first table; the result is
    checked to parse with the new theme before it replaces the file, in one rename.
    """
    try:
        lines = _text_of(path).splitlines(keepends=True)
    except FileNotFoundError:
        lines = []
    line = f"theme = {json.dumps(theme)}\n"  # a JSON string is a valid TOML basic string
    top = next((i for i, text in enumerate(lines) if _TABLE_HEADER.match(text)), len(lines))
    found = next((i for i in range(top) if _THEME_LINE.match(lines[i])), None)
    if found is None:
        lines.insert(0, line)
    else:
        lines[found] = line
    text = "".join(lines)
    if tomllib.loads(text).get("theme") != theme:
        raise SettingsError(f"{path}: theme: could not be updated in place")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
    ) as temporary:
        try:
            temporary.write(text)
            temporary.close()
            os.replace(temporary.name, path)
        except BaseException:  # a full disk: leave no half-written file behind
            Path(temporary.name).unlink(missing_ok=True)
            raise


def for_command(uses: Collection[str] | None = None, **flags: Any) -> Settings:
    """The user's settings with a command's flags on top; a file that cannot be read, a
    bad key among those the command `uses` (see `load`), or a base URL holding the key
    (where it uses the judge), ends the command with one line naming the file and the key
    (exit 1)."""
    try:
        settings = load(uses=uses).merged(**flags)
        if uses is None or "judge" in uses:
            settings.check_url()
        return settings
    except SettingsError as exc:
        raise fail(str(exc)) from None
