"""`lmmreview figure`: every kind in every format, read back by an SVG parser, Pillow and a
PDF reader; clear errors where a figure cannot be made."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import dump, write_json, write_lines
from PIL import Image
from pypdf import PdfReader

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine.benchmarks.mmvet.rules import PROMPT_VERSION
from lmmreview.engine.scoring import Judgment, Status

MATH = "$x^{"  # mathtext that cannot parse: a model name is text, never markup


def _llm(score: float) -> Judgment:
    return Judgment(run=0, score=score, choice=None, status=Status.OK, method="llm",
                    kind="llm", judge_model="judge-1", prompt_version=PROMPT_VERSION,
                    reply="")  # fmt: skip


@pytest.fixture
def graded_db(cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """Three models on the three-sample MM-Vet set (one named as mathtext), scored by the
    offline rules (graded: 0, 0.5, 1) and a 0/1 LLM judge, every answer graded by a human."""
    files = mmvet_files
    third = write_json(tmp_path / f"{MATH}.json", {"v1_0": "-1 and -5", "v1_1": "green"})
    db = tmp_path / "graded.db"
    assert cli("import", "mmvet", db, files["questions"], "--images", files["images"],
               "--answers", files["alpha"], "--answers", files["beta"],
               "--answers", third).code == 0  # fmt: skip
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        ids = sorted(store.answer_ids("mmvet").values())
        with store.transaction():
            store.add_judgments([(a, _llm(float(i % 2))) for i, a in enumerate(ids)])
        reviews = ReviewStore(store, "tester")
        for i, answer in enumerate(ids):
            reviews.grade(answer, score=(0.0, 0.5, 1.0)[i % 3])
    return db


@pytest.mark.parametrize("kind", ["radar", "bars", "confusion", "reliability"])
def test_each_kind_is_valid_svg_png_and_pdf(
    cli, graded_db: Path, tmp_path: Path, kind: str
) -> None:
    judge = ["--judge", "offline rules"] if kind == "reliability" else []
    made = {}
    for suffix in ("svg", "png", "pdf"):
        out = tmp_path / f"{kind}.{suffix}"
        result = cli("figure", graded_db, kind, "--out", out, *judge)
        assert result.code == 0, result.stderr
        made[suffix] = out
    assert ET.parse(made["svg"]).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    with Image.open(made["png"]) as image:
        image.load()
        assert image.width > 0 and image.height > 0
        assert len(image.getcolors(maxcolors=1 << 20) or ()) > 2  # something was drawn
    assert made["pdf"].read_bytes().startswith(b"%PDF")
    assert len(PdfReader(made["pdf"]).pages) == 1


def test_the_models_drawn_are_those_named_and_an_unknown_one_is_an_error(
    cli, graded_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bars.svg"
    assert cli("figure", graded_db, "bars", "--out", out, "--models", "beta",
               "--models", MATH).code == 0  # fmt: skip
    svg = out.read_text(encoding="utf-8")
    assert "beta" in svg and "alpha" not in svg
    result = cli("figure", graded_db, "radar", "--out", out, "--models", "gamma")
    assert result.code == 1
    assert "no model 'gamma'" in result.stderr


def test_a_figure_that_cannot_be_made_is_one_line_and_no_file(
    cli, graded_db: Path, tmp_path: Path
) -> None:
    before = dump(graded_db)
    cases = [
        (["bars", "--out", tmp_path / "x.jpg"], "unknown suffix '.jpg'; use .svg, .png or .pdf"),
        (["reliability", "--out", tmp_path / "x.svg", "--judge", "judge-1"],
         "judge-1 gives no graded scores, so no reliability diagram"),
        (["radar", "--out", tmp_path / "x.svg", "--table", "nothing"], "no table 'nothing'"),
        (["bars", "--out", tmp_path / "x.svg", "--dataset", "nothing"], "no dataset 'nothing'"),
    ]  # fmt: skip
    for args, message in cases:
        result = cli("figure", graded_db, *args)
        assert result.code == 1, args
        assert message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.glob("x.*"))
    assert dump(graded_db) == before


@pytest.mark.parametrize("kind", ["confusion", "reliability"])
def test_a_judge_figure_needs_human_verdicts(
    cli, mmvet_two_models_db: Path, tmp_path: Path, kind: str, monkeypatch
) -> None:
    assert cli("score", mmvet_two_models_db).code == 0

    def unread(*_: object) -> None:
        raise AssertionError("every judgment read before finding no human verdict")

    monkeypatch.setattr("lmmreview.db.judges.read_judges", unread)
    result = cli("figure", mmvet_two_models_db, kind, "--out", tmp_path / "x.svg")
    assert result.code == 1
    assert "no answer has a human verdict to measure a judge against" in result.stderr
    assert not (tmp_path / "x.svg").exists()


def test_without_matplotlib_the_error_names_the_extra(
    cli, graded_db: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    result = cli("figure", graded_db, "bars", "--out", tmp_path / "x.svg")
    assert result.code == 1
    assert "figure needs matplotlib: pip install 'lmmreview[figures]'" in result.stderr


def test_a_model_whose_name_starts_with_an_underscore_is_in_the_legend(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    hidden = write_json(tmp_path / "_hidden.json", {"v1_0": "-1 and -5", "v1_1": "green"})
    db = tmp_path / "under.db"
    assert cli("import", "mmvet", db, mmvet_files["questions"], "--images",
               mmvet_files["images"], "--answers", hidden).code == 0  # fmt: skip
    assert cli("score", db).code == 0
    for kind in ("bars", "radar"):
        out = tmp_path / f"{kind}.svg"
        assert cli("figure", db, kind, "--out", out).code == 0
        assert "_hidden" in out.read_text(encoding="utf-8"), kind


def test_many_models_are_all_in_the_legend_each_told_apart(cli, tmp_path: Path) -> None:
    models = [f"Qwen/Qwen2-VL-7B-Instruct-run{i:02d}" for i in range(14)]
    lines = [
        {"id": f"q{q}", "prediction": "yes", "model": m}
        | ({"question": "Q?", "answer": "yes", "tags": {"a": ["x", "y", "z"][q]}} if not i else {})
        for q in range(3)
        for i, m in enumerate(models)
    ]
    db = tmp_path / "many.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "m.jsonl", lines)).code == 0
    assert cli("score", db).code == 0
    out = tmp_path / "bars.svg"
    assert cli("figure", db, "bars", "--out", out).code == 0, "bars"
    svg = out.read_text(encoding="utf-8")
    assert all(f"ct-run{i:02d}" in svg for i in range(14))  # cut in the middle, all apart
    assert "<pattern" in svg  # past 12 colours, hatched bars


def test_the_settings_name_and_order_the_models_as_the_tables_do(
    cli, graded_db: Path, config_home: Path, tmp_path: Path
) -> None:
    names = config_home / "lmmreview" / "config.toml"
    names.parent.mkdir(parents=True, exist_ok=True)
    names.write_text('[models]\n"beta" = "Shown Name (7B)"\n', encoding="utf-8")
    out = tmp_path / "named.svg"
    # --models names models as stored; the figure shows them as the paper's tables do,
    # in the order --models gives
    assert cli("figure", graded_db, "bars", "--models", "alpha", "--models", "beta",
               "--out", out).code == 0  # fmt: skip
    drawn = out.read_text(encoding="utf-8")
    assert drawn.index("<!-- alpha -->") < drawn.index("<!-- Shown Name (7B) -->")
    assert "<!-- beta -->" not in drawn
