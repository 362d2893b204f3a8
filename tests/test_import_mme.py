"""MME through the command line: `lmmreview import mme` of a folder in the official
eval_tool's format, `score` with the official rule, `export --format json` and `report`
equal to figures derived by hand. The lines are our own worked example (MME's questions
are not openly licensed); the official tool's figures on LaVIN's published answers were
checked once by hand (docs/benchmarks/mme.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import dump, first_rows, png_bytes

from lmmreview.db import Store
from lmmreview.db.review import ReviewStore
from lmmreview.engine import registry

ASK = "Please answer yes or no."
# subtask -> (image, question, gold, response) lines, an image's two together, yes first.
WORKED = {
    "existence": [
        ("apple.png", f"Is there an apple in this image? {ASK}", "Yes", "Yes, there is an apple."),
        ("apple.png", f"Is there a banana in this image? {ASK}", "No", "No."),
        ("kite.png", f"Is there a kite in this image? {ASK}", "Yes", "There is a kite."),  # other
        ("kite.png", f"Is there a dog in this image? {ASK}", "No", "none"),  # "none": no
    ],
    "OCR": [
        ("sign.png", f'Does the sign say "STOP"? {ASK}', "Yes", "yes"),
        ("sign.png", f'Does the sign say "GO"? {ASK}', "No", "nope"),
    ],
    "code_reasoning": [
        ("code.png", f"Does this code print 3? {ASK}", "Yes", "**Yes**"),  # other: "**Ye"
        ("code.png", f"Does this code print 4? {ASK}", "No", "no"),
    ],
}
# By hand: existence acc 3/4, acc+ 1/2 -> 125; OCR 100 + 100 -> 200; code_reasoning acc
# 1/2, acc+ 0/1 -> 50. Perception 125 + 200 = 325, Cognition 50.
PERCEPTION = {"perception": 325.0, "existence": 125.0, "OCR": 200.0}
COGNITION = {"cognition": 50.0, "code_reasoning": 50.0}
SUBTASKS = {"existence acc": 75.0, "existence acc+": 50.0, "OCR acc": 100.0, "OCR acc+": 100.0,
            "code_reasoning acc": 50.0, "code_reasoning acc+": 0.0}  # fmt: skip


def mme_results(folder: Path, lines: dict[str, list[tuple[str, ...]]] = WORKED) -> Path:
    """The worked example as eval_tool's results folder: one <subtask>.txt per subtask."""
    folder.mkdir(parents=True, exist_ok=True)
    for subtask, rows in lines.items():
        text = "".join("\t".join(row) + "\n" for row in rows)
        (folder / f"{subtask}.txt").write_text(text, encoding="utf-8")
    return folder


def _imported(cli, tmp_path: Path, *more: str | Path) -> Path:
    db = tmp_path / "mme.db"
    result = cli("import", "mme", db, mme_results(tmp_path / "Your_Results"), *more)
    assert result.code == 0, result.stderr
    return db


def test_import_score_export_and_report_give_the_worked_figures(cli, tmp_path: Path) -> None:
    db = _imported(cli, tmp_path, "--model", "llava")
    assert "8 answers scored by the offline rules" in cli("score", db).stdout
    tables = first_rows(cli, db)
    assert tables["mme.perception"]["model"] == "llava"
    assert tables["mme.perception"]["values"] == pytest.approx(PERCEPTION)
    assert tables["mme.cognition"]["values"] == pytest.approx(COGNITION)
    assert tables["mme.subtasks"]["values"] == pytest.approx(SUBTASKS)
    assert tables["mme.subtasks"]["n"]["existence acc+"] == 2  # images
    report = cli("report", db).stdout
    assert "│ llava │      325.0 │     125.0 │ 200.0 │" in report
    assert "│ llava │      50.0 │           50.0 │" in report


def test_the_demos_scores_count_each_answer_once(cli, demo_db: Path) -> None:
    """The demo's MME: one image (two questions) per subtask, scored offline, one answer
    reviewed. A subtask's score and the totals count answers, each once, though acc and
    acc+ both read them; the N line of the Markdown says so too."""
    with Store.open(demo_db) as store:
        answer = store.answer_ids("mme")[("demo-alpha", "existence/shelf.png/1")]
        ReviewStore(store, "ada").grade(answer, 1.0)
    perception = first_rows(cli, demo_db)["mme.perception"]
    assert perception["n"] == {"perception": 8, "existence": 2, "count": 2, "color": 2, "OCR": 2}
    assert (perception["reviewed"]["perception"], perception["reviewed"]["existence"]) == (1, 1)
    assert (perception["offline"]["perception"], perception["offline"]["existence"]) == (7, 1)
    markdown = cli("export", demo_db, "--format", "md").stdout
    assert "| N | 8 | 2 | 2 | 2 | 2 |" in markdown


def test_another_models_pairs_are_its_images_not_its_lines(cli, tmp_path: Path) -> None:
    """A pair is its image's, not its place in the file: a model's file whose lines 1 and 2
    ask about another image than the first model's lines 1 and 2 (the apple's) gets its own
    pair there (acc+ 1/1), and the first model's figures do not move."""
    db = _imported(cli, tmp_path, "--model", "llava")
    cat = [("cat.png", f"Is there a cat in this image? {ASK}", "Yes", "yes"),
           ("cat.png", f"Is there a cow in this image? {ASK}", "No", "no")]  # fmt: skip
    folder = mme_results(tmp_path / "other", {"existence": cat})
    assert cli("import", "mme", db, folder, "--model", "other").code == 0
    assert cli("score", db).code == 0
    document = json.loads(cli("export", db, "--format", "json").stdout)
    rows = {r["model"]: r["values"] for t in document["tables"] if t["name"] == "mme.subtasks"
            for r in t["rows"]}  # fmt: skip
    assert rows["llava"] == pytest.approx(SUBTASKS)
    assert rows["other"]["existence acc"] == rows["other"]["existence acc+"] == 100.0


def test_the_model_is_the_folders_name_and_the_images_come_from_the_release(
    cli, tmp_path: Path
) -> None:
    release = tmp_path / "MME_Benchmark_release_version"
    (release / "existence").mkdir(parents=True)  # images beside the questions
    (release / "OCR" / "images").mkdir(parents=True)  # or in images/
    for image in ("existence/apple.png", "existence/kite.png", "OCR/images/sign.png"):
        (release / image).write_bytes(png_bytes())
    db = tmp_path / "mme.db"
    result = cli("import", "mme", db, mme_results(tmp_path / "LaVIN"), "--images", release)
    assert result.code == 0, result.stderr
    assert "code.png" in result.stderr  # the one missing, warned of
    assert "11 of the 14 subtask files missing" in result.stderr
    assert first_rows(cli, db)["mme.perception"]["model"] == "LaVIN"
    with Store.open(db) as store:
        shown = {s.key: len(store.image_hashes("mme", s.key)) for s in store.samples("mme")}
    assert shown == {"existence/apple.png/1": 1, "existence/apple.png/2": 1,
                     "existence/kite.png/1": 1, "existence/kite.png/2": 1,
                     "OCR/sign.png/1": 1, "OCR/sign.png/2": 1,
                     "code_reasoning/code.png/1": 0, "code_reasoning/code.png/2": 0}  # fmt: skip


def test_it_is_listed_among_lmmreviews_own(cli) -> None:
    assert registry.benchmark("mme").title == "MME"
    document = json.loads(cli("benchmarks", "--json").stdout)
    listed = [b["name"] for b in document["benchmarks"]]
    assert listed.index("hallusionbench") < listed.index("mme") < listed.index("generic")
    official = {b["name"] for b in document["benchmarks"] if b["official_rules"]}
    assert official == {"mmmu", "mmmu-pro", "mme", "ocrbench", "ocrbench-v2", "mmstar"}


def _changed(line: int, row: tuple[str, ...]) -> dict[str, list[tuple[str, ...]]]:
    existence = list(WORKED["existence"])
    existence[line - 1] = row
    return {"existence": existence}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ({"existence": WORKED["existence"][:3]},
         "line 3: 3 lines, an odd number: each image has two questions, one pair"),
        (_changed(2, ("apple.png", "Q?", "No", "No\treally")),
         "line 2: 5 tab-separated fields, expected 4: image, question, gold, response"),
        (_changed(2, ("apple.png", "Q?", "No")), "line 2: 3 tab-separated fields, expected 4"),
        (_changed(2, ("apple.png", "Q?", "Maybe", "no")), "line 2: gold 'Maybe': expected Yes or No"),
        (_changed(3, ("apple.png", "Q?", "Yes", "yes")),
         "line 3: image 'apple.png' has a second pair (also line 1)"),
        ({"existence": []}, "empty: no questions"),
    ],
)  # fmt: skip
def test_bad_input_names_file_and_line_and_leaves_the_database(
    cli, tmp_path: Path, lines: dict[str, list[tuple[str, ...]]], message: str
) -> None:
    db = _imported(cli, tmp_path)
    before = dump(db)
    bad = mme_results(tmp_path / "bad", lines)
    result = cli("import", "mme", db, bad, "--dataset", "mme-2")
    assert result.code != 0
    assert f"{bad / 'existence.txt'}: {message}" in result.stderr
    assert dump(db) == before


def test_a_folder_without_subtask_files_is_refused(cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = cli("import", "mme", tmp_path / "m.db", tmp_path / "empty")
    assert result.code != 0
    assert "holds no subtask file (existence.txt, count.txt" in result.stderr
