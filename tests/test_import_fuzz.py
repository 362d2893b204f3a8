"""A property-based fuzzer over the four import formats, through the real command line.

Every generated input either imports (exit 0) or is refused by exactly one `error:` line
on stderr, exit code 1, no traceback, the existing database byte for byte as it was, and
no file left behind at a new database path. Inputs are documents of the right shape with
hostile values (odd types, huge and non-finite numbers, lone surrogates, markup, escape
sequences, control characters, deep nesting, missing keys, broken images, unclosed quotes),
so they get past the first checks and reach the code behind them.

Bounded and the same on every run in the suite; a long run draws new inputs each time
and keeps failures in .hypothesis/ to replay: LMMREVIEW_FUZZ_EXAMPLES=5000 python -m
pytest tests/test_import_fuzz.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conftest import MMBENCH_HEADER, png_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lmmreview.tui.cli import app

LONG = "LMMREVIEW_FUZZ_EXAMPLES" in os.environ  # a long run explores new inputs each time
settings.register_profile(
    "lmmreview-fuzz",
    max_examples=int(os.environ.get("LMMREVIEW_FUZZ_EXAMPLES", "25")),
    deadline=None,
    derandomize=not LONG,  # the suite sees the same inputs on every run
    print_blob=True,  # a failure prints the decorator that replays it
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    **({} if LONG else {"database": None}),  # a long run keeps failures to replay
)
FUZZ = settings.get_profile("lmmreview-fuzz")


class Raw(str):
    """JSON text written as it is: NaN, 1e400, a 5,000-digit integer, deep nesting."""


RAW = [Raw(t) for t in ("NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e25", "-0.0",
                        "9" * 5000, "[" * 5000 + "]" * 5000, "{\"a\": " * 2000 + "1" + "}" * 2000)]  # fmt: skip
HOSTILE = [
    "", " ", "\x00", "\x1b]52;c;aGVsbG8=\x07", "\x1b[2J\x1b[31mred", "[/]", "[bold]x",
    "[link=file:///etc/passwd]x[/link]", "\ud800", "a\udcffb", "\u2028\x85\x0b\x0c\x1c\u2029",
    "\u200b\ufeff\U000e0041", "NaN", "inf", "1e400", "-1", "0", "A", "a", "X", "../../etc/passwd",
    "/etc/passwd", "x" * 3000, "line\nbreak", "cr\rlf", 'quo"te', '"', "tab\tbed", "é", "😀",
    "<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0", "['a', 'b']", "[", "__import__('os')",
]  # fmt: skip

text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
cell_text = text.filter(lambda t: t == t.encode("utf-8", "replace").decode())  # TSVs are UTF-8
scalar = st.one_of(
    text, st.integers(-(2**70), 2**70), st.floats(), st.booleans(), st.none(), st.sampled_from(RAW)
)
anything = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


def field(plausible: st.SearchStrategy, weight: int = 2) -> st.SearchStrategy:
    """A value of the right kind `weight` times as often as anything at all."""
    return st.one_of(*[plausible] * weight, anything)


def to_json(value: object, ascii_only: bool) -> str:
    """JSON text, with Raw fragments as they are and NaN/Infinity where floats are not finite."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        pairs = (f"{json.dumps(str(k), ensure_ascii=ascii_only)}: {to_json(v, ascii_only)}"
                 for k, v in value.items())  # fmt: skip
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v, ascii_only) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return json.dumps(value, ensure_ascii=ascii_only)


def encoded(text_: str) -> bytes:
    """UTF-8; a lone surrogate written raw (ensure_ascii=False) becomes bytes that are not."""
    return text_.encode("utf-8", "surrogatepass")


def corrupt_pixels_png() -> bytes:
    data = png_bytes(size=(16, 16))
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[start : start + 4])
    body = bytes(length)
    crc = struct.pack(">I", zlib.crc32(b"IDAT" + body))
    return data[: start + 8] + body + crc + data[start + 12 + length :]


GOOD_PNG = png_bytes("teal")
BAD_PNG = corrupt_pixels_png()
IMAGES = ["img/ok.png", "img/bad.png", "img/text.png", "img/dir.png", "img/link.png",
          "img/dangling.png", "img/missing.png", "../outside.png", "/etc/hostname", "", "img"]  # fmt: skip
image_name = st.one_of(st.sampled_from(IMAGES), text)


def write_data_folder(data: Path) -> None:
    """Image files of every kind the inputs name: good, broken, not images, links."""
    (data / "img" / "dir.png").mkdir(parents=True)
    (data / "img" / "ok.png").write_bytes(GOOD_PNG)
    (data / "img" / "bad.png").write_bytes(BAD_PNG)
    (data / "img" / "text.png").write_text("not a picture")
    (data.parent / "outside.png").write_bytes(GOOD_PNG)
    (data / "img" / "link.png").symlink_to(data.parent / "outside.png")
    (data / "img" / "dangling.png").symlink_to(data / "img" / "gone.png")


# -- the four formats: each strategy gives a function that writes the input files into the
# -- data folder and returns the `lmmreview import` arguments after the database.

Writer = Callable[[Path], list[str]]

IDS = st.one_of(st.sampled_from(["g1", "g2", "g3", "q1", "q2", 7, 0]), text)
MODELS = st.one_of(st.sampled_from(["demo-alpha", "demo-beta", "m"]), text)
short = st.one_of(st.sampled_from(["yes", "no", "A", "B", "red", "3.5"]), text)
ASCII = st.sampled_from([True, True, True, False])  # JSON with \u escapes, or raw characters


@st.composite
def jsonl_input(draw: st.DrawFn) -> Writer:
    sample = st.fixed_dictionaries(
        {"id": field(IDS), "question": field(short)},
        optional={
            "answer": field(st.one_of(short, st.lists(short, max_size=3))),
            "options": field(st.one_of(st.lists(short, min_size=2, max_size=4),
                                       st.dictionaries(st.sampled_from("ABCDab"), short, min_size=2, max_size=4))),
            "images": field(st.one_of(image_name, st.lists(image_name, max_size=3))),
            "tags": field(st.dictionaries(short, st.one_of(short, st.lists(short, max_size=2)), max_size=2)),
            "split": field(short),
            "prediction": field(short),
            "model": field(MODELS),
        },
    )  # fmt: skip
    answer = st.fixed_dictionaries(
        {"id": field(IDS), "prediction": field(short)}, optional={"model": field(MODELS)}
    )
    line = st.one_of(
        *[st.tuples(sample, ASCII).map(lambda t: to_json(*t))] * 4,
        *[st.tuples(answer, ASCII).map(lambda t: to_json(*t))] * 2,
        st.tuples(anything, ASCII).map(lambda t: to_json(*t)),
        text,
    )
    lines = draw(st.lists(line, max_size=5))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    options = draw(
        st.lists(st.sampled_from([["--model", "m"], ["--dataset", "generic"]]), max_size=2)
    )

    def write(data: Path) -> list[str]:
        path = data / "generic.jsonl"  # named as the demo's dataset: answers meet stored ones
        path.write_bytes(encoded(ending.join(lines)))
        return ["jsonl", str(path), *(arg for pair in options for arg in pair)]

    return write


@st.composite
def mmvet_input(draw: st.DrawFn) -> Writer:
    capability = st.one_of(
        st.sampled_from(["rec", "ocr, spat", "math"]),
        st.lists(
            st.sampled_from(["rec", "ocr", "know", "gen", "spat", "math", "vision"]), max_size=3
        ),
    )
    entry = st.fixed_dictionaries(
        {},
        optional={"imagename": field(image_name), "question": field(short),
                  "answer": field(st.one_of(short, st.integers(0, 99))), "capability": field(capability)},
    )  # fmt: skip
    keys = st.one_of(st.sampled_from(["v1_0", "v1_1", "v1_2", "v1_99"]), text)
    questions = draw(field(st.dictionaries(keys, field(entry, 4), max_size=3), 4))
    results = draw(st.lists(field(st.dictionaries(keys, field(short), max_size=3), 4), max_size=2))
    models = draw(st.one_of(st.none(), st.lists(MODELS, min_size=len(results), max_size=len(results)),
                            st.lists(MODELS, max_size=2)))  # fmt: skip
    with_images = draw(st.booleans())
    ascii_only = draw(ASCII)

    def write(data: Path) -> list[str]:
        (data / "mm-vet.json").write_bytes(encoded(to_json(questions, ascii_only)))
        args = ["mmvet", str(data / "mm-vet.json")]
        if with_images:
            args += ["--images", str(data / "img")]
        for number, result in enumerate(results):
            (data / f"r{number}.json").write_bytes(encoded(to_json(result, ascii_only)))
            args += ["--answers", str(data / f"r{number}.json")]
        for name in models or []:
            args += ["--model", name]
        return args

    return write


B64 = {"png": base64.b64encode(GOOD_PNG).decode(), "broken": base64.b64encode(BAD_PNG).decode(),
       "text": base64.b64encode(b"not an image at all, " * 5).decode()}  # fmt: skip
INDEXES = st.one_of(
    st.integers(0, 3).map(str), st.sampled_from(["1000000", "1000001", "2000002", "12.0"]),
    st.sampled_from(["inf", "-inf", "nan", "1e25", "1e400", "-1", "1.5", "", "9" * 40, "0x10"]), cell_text,
)  # fmt: skip


@st.composite
def mmbench_input(draw: st.DrawFn) -> Writer:
    cell = st.one_of(
        st.sampled_from(["yes", "no", "A", "B", "red", "3.5"]),
        cell_text,
        st.sampled_from(['"', '"open', 'a"b', "x\ty", "p\nq", "nan"]),
    )
    image = st.one_of(st.sampled_from([*B64.values(), "0", "1", "55", "@@not base64@@" * 8]), cell)
    columns = {"index": INDEXES, "question": cell, "hint": cell, "A": cell, "B": cell, "C": cell,
               "D": cell, "answer": st.one_of(st.sampled_from("ABCDEa"), cell), "category": cell,
               "image": image, "source": cell, "l2-category": cell, "comment": cell, "split": cell}  # fmt: skip
    header = draw(
        st.one_of(
            *[st.just(MMBENCH_HEADER)] * 4, st.lists(st.sampled_from(MMBENCH_HEADER), max_size=14)
        )
    )
    rows = draw(st.lists(st.tuples(*(columns.get(name, cell) for name in header)), max_size=5))
    quoted = draw(st.sampled_from([True, True, False]))  # by a CSV writer, or pasted raw
    predictions = draw(st.one_of(st.none(), st.lists(st.tuples(INDEXES, cell), max_size=4)))
    suffix = draw(st.sampled_from([".tsv", ".csv"]))
    model = draw(st.one_of(st.none(), MODELS))

    def write(data: Path) -> list[str]:
        path = data / "mmbench.tsv"
        path.write_bytes(encoded(table([list(header), *map(list, rows)], "\t", quoted)))
        args = ["mmbench", str(path), "--dataset", "mmbench"]
        if predictions is not None:
            pred = data / f"pred{suffix}"
            separator = "," if suffix == ".csv" else "\t"
            pred.write_bytes(
                encoded(
                    table([["index", "prediction"], *map(list, predictions)], separator, quoted)
                )
            )
            args += ["--answers", str(pred)]
        return args + (["--model", model] if model is not None else [])

    return write


def table(rows: list[list[str]], separator: str, quoted: bool) -> str:
    """Rows as delimited text: quoted as a CSV writer does, or joined raw."""
    if not quoted:
        return "".join(separator.join(row) + "\n" for row in rows)

    def cell(value: str) -> str:
        special = any(c in value for c in (separator, '"', "\n", "\r"))
        return '"' + value.replace('"', '""') + '"' if special else value

    return "".join(separator.join(map(cell, row)) + "\n" for row in rows)


MMMU_IDS = st.one_of(
    st.sampled_from(["validation_Math_1", "validation_Math_2", "validation_Art_7", "dev_Physics_3", "bogus"]),
    text,
)  # fmt: skip
QTYPES = st.one_of(st.sampled_from(["multiple-choice", "open", "short-answer"]), text)


@st.composite
def mmmu_input(draw: st.DrawFn) -> Writer:
    record = st.fixed_dictionaries(
        {"id": field(MMMU_IDS)},
        optional={"question_type": field(QTYPES), "answer": field(st.one_of(short, st.lists(short, max_size=2))),
                  "all_choices": field(st.lists(st.sampled_from("ABCD"), max_size=4)),
                  "index2ans": field(st.dictionaries(st.sampled_from("ABCD"), short, max_size=4)),
                  "response": field(short)},
    )  # fmt: skip
    outputs = draw(st.one_of(st.none(), field(st.lists(field(record, 4), max_size=3), 4),
                             field(st.dictionaries(MMMU_IDS, field(short), max_size=3))))  # fmt: skip
    answer_dict = draw(st.one_of(st.none(), field(st.dictionaries(
        MMMU_IDS, field(st.fixed_dictionaries({"question_type": field(QTYPES), "ground_truth": field(
            st.one_of(short, st.lists(short, max_size=2), st.sampled_from(["['1', '2']", "[", "[1e400]"])))})),
        max_size=3))))  # fmt: skip
    question = st.fixed_dictionaries(
        {"id": field(MMMU_IDS), "question": field(short), "question_type": field(QTYPES)},
        optional={"options": field(st.one_of(st.lists(short, max_size=4),
                                             st.sampled_from(["['8', '10']", "[]", "['a'", "[" * 3000]))),
                  "answer": field(short), "subfield": field(short), "topic_difficulty": field(short),
                  "img_type": field(st.one_of(short, st.sampled_from(["['Diagrams']", "[" * 3000, "[1, [2]]"]))),
                  "image_1": field(image_name), "image_2": field(image_name)},
    )  # fmt: skip
    questions = draw(st.one_of(st.none(), st.lists(question, max_size=3)))
    as_folder = draw(st.booleans())
    model = draw(st.one_of(st.just("m"), st.just("m"), st.none(), MODELS))
    ascii_only = draw(ASCII)

    def write(data: Path) -> list[str]:
        args = ["mmmu"]
        if outputs is not None:
            where = data / "out" / "Math" / "output.json" if as_folder else data / "out.json"
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_bytes(encoded(to_json(outputs, ascii_only)))
            args.append(str(data / "out" if as_folder else where))
        if answer_dict is not None:
            (data / "answers.json").write_bytes(encoded(to_json(answer_dict, ascii_only)))
            args += ["--answer-dict", str(data / "answers.json")]
        if questions is not None:
            lines = [to_json(q, ascii_only) for q in questions]
            (data / "questions.jsonl").write_bytes(encoded("\n".join(lines)))
            args += ["--questions", str(data / "questions.jsonl")]
        return args + (["--model", model] if model is not None else [])

    return write


# -- the property -----------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def run(args: list[str]) -> Outcome:
    """`lmmreview ARGS...` in-process; an exception escaping the command fails the test."""
    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"lmmreview {args} raised {result.exception!r}") from result.exception
    return Outcome(result.exit_code, result.stdout, result.stderr)


def check_clean(outcome: Outcome) -> None:
    """Imported, or refused by one error line with exit code 1 and no traceback."""
    assert "Traceback" not in outcome.stdout + outcome.stderr
    if outcome.code == 0:
        return
    assert outcome.code == 1, outcome
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fuzz_one(template: Path, write: Writer) -> None:
    """Import the written input into a copy of the demo database, then into a new path."""
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        data = work / "data"
        write_data_folder(data)
        args = write(data)
        existing = work / "existing.db"
        shutil.copyfile(template, existing)
        before = digest(existing)
        outcome = run(["import", args[0], str(existing), *args[1:]])
        check_clean(outcome)
        if outcome.code != 0:
            assert digest(existing) == before, outcome.stderr
            assert sorted(p.name for p in work.iterdir()) == ["data", "existing.db", "outside.png"]
        (work / "new").mkdir()
        outcome = run(["import", args[0], str(work / "new" / "r.db"), *args[1:]])
        check_clean(outcome)
        left = sorted(p.name for p in (work / "new").iterdir())
        assert left == ([] if outcome.code else ["r.db"]), (left, outcome.stderr)


@FUZZ
@given(write=jsonl_input())
def test_fuzz_jsonl(demo_template: Path, write: Writer) -> None:
    fuzz_one(demo_template, write)


@FUZZ
@given(write=mmvet_input())
def test_fuzz_mmvet(demo_template: Path, write: Writer) -> None:
    fuzz_one(demo_template, write)


@FUZZ
@given(write=mmbench_input())
def test_fuzz_mmbench(demo_template: Path, write: Writer) -> None:
    fuzz_one(demo_template, write)


@FUZZ
@given(write=mmmu_input())
def test_fuzz_mmmu(demo_template: Path, write: Writer) -> None:
    fuzz_one(demo_template, write)
