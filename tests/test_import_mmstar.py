"""MMStar through the command line: `lmmreview import mmstar` of workbooks in the official
submission format (eval/submits/, MMStar-Benchmark/MMStar @ 7f5f79a) and VLMEvalKit's, in
the three settings; `score` with the strict rule; `export --format json` and `report`
equal to figures derived by hand, MG and ML included. The questions are our own worked
example (MMStar's are not committed); the official figure on LLaVA-Next-34B's published
answers, 781/1500, was checked by hand (docs/benchmarks/mmstar.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, png_base64, write_lines, write_tsv
from test_import_vlmevalkit import write_xlsx

from lmmreview.db import Store
from lmmreview.engine import registry

HEADER = ["index", "question", "answer", "category", "l2_category", "bench", "prediction"]
OPTIONS = "\nOptions: A: red, B: blue, C: green, D: black"
# (index, capability, axis, gold, the answer with the image), our own questions.
WORKED = [
    (1, "coarse perception", "image scene and topic", "A", "A"),
    (2, "coarse perception", "image emotion", "B", "Based on the face, C"),  # reads B
    (3, "fine-grained perception", "object counting", "C", "(C) three"),
    (4, "fine-grained perception", "recognition", "D", "The answer is (D)"),  # reads none
    (5, "instance reasoning", "single-instance reasoning", "A", "option a"),
    (6, "logical reasoning", "diagram reasoning", "B", "Answer: B"),  # reads A
    (7, "science & technology", "biology & chemistry & physics", "C", "the answer is C"),
    (8, "math", "geometry", "D", ""),  # empty: wrong
]
# By hand: 1, 2, 3, 5, 7 right -> 5/8; CP 2/2, FP 1/2, IR 1/1, LR 0/1, ST 1/1, MA 0/1.
FINAL = {"coarse perception": 100.0, "fine-grained perception": 50.0,
         "instance reasoning": 100.0, "logical reasoning": 0.0,
         "science & technology": 100.0, "math": 0.0, "final": 62.5}  # fmt: skip
FINE = {"fine-grained perception": 50.0, "object counting": 100.0, "recognition": 0.0}
# Without the image every answer is "A" (rows 1 and 5 right: 25.0); the language model
# answers "D" but row 8 (1/8: 12.5). MG = 62.5 - 25 = 37.5, ML = max(0, 25 - 12.5) = 12.5.
GAINS = {"S_v": 62.5, "S_wv": 25.0, "S_t": 12.5, "MG": 37.5, "ML": 12.5}


def rows(answers: list[str] | None = None) -> list[list[object]]:
    """The worked example as the official workbook's rows, with `answers` if given."""
    predictions = answers or [row[4] for row in WORKED]
    return [
        [index, f"Which color is thing {index}?{OPTIONS}", gold, capability, axis, "ours", said]
        for (index, capability, axis, gold, _), said in zip(WORKED, predictions, strict=True)
    ]


def _import(cli, db: Path, file: Path, *more: str) -> None:
    result = cli("import", "mmstar", db, file, *more)
    assert result.code == 0, result.stderr


def _tables(cli, db: Path, judge: str = "offline rules") -> dict[str, dict[str, Any]]:
    document = json.loads(cli("export", db, "--format", "json", "--judge", judge).stdout)
    return {(t["name"], r["model"]): r for t in document["tables"] for r in t["rows"]}


@pytest.fixture
def three_settings(cli, tmp_path: Path) -> Path:
    """llava in the three settings (its LLM's answers under its name), beta with the image."""
    db = tmp_path / "mmstar.db"
    _import(cli, db, write_xlsx(tmp_path / "llava_MMStar.xlsx", HEADER, rows()))
    without = write_xlsx(tmp_path / "llava_MMStar_wv.xlsx", HEADER, rows(["A"] * 8))
    _import(cli, db, without, "--model", "llava", "--setting", "without-image")
    llm = write_xlsx(tmp_path / "Yi_MMStar.xlsx", HEADER, rows(["D"] * 7 + ["none"]))
    _import(cli, db, llm, "--model", "llava", "--setting", "llm")
    _import(cli, db, write_xlsx(tmp_path / "beta_MMStar.xlsx", HEADER, rows(["B"] * 8)))
    assert "32 answers scored by the offline rules" in cli("score", db).stdout
    return db


def test_import_score_export_and_report_give_the_worked_figures(cli, three_settings) -> None:
    tables = _tables(cli, three_settings)
    llava = tables["mmstar.capabilities", "llava"]
    assert llava["values"] == pytest.approx(FINAL)
    assert llava["n"]["final"] == 8  # the questions with the image only
    assert tables["mmstar.FP", "llava"]["values"] == pytest.approx(FINE)
    assert tables["mmstar.settings", "llava"]["values"] == pytest.approx(GAINS)
    # beta has no answers without the image: S_v alone, no MG or ML
    assert tables["mmstar.settings", "beta"]["values"] == pytest.approx({"S_v": 25.0})
    report = cli("report", three_settings).stdout
    assert "│ llava │ 62.5 │ 25.0 │ 12.5 │ 37.5 │ 12.5 │" in report
    assert "│ llava │ 100.0 │ 50.0 │ 100.0 │   0.0 │ 100.0 │ 0.0 │ 62.5 │" in report


def test_an_import_warns_only_of_answers_missing_in_its_own_setting(
    cli, three_settings, tmp_path: Path
) -> None:
    """The dataset holds the three settings' questions (llava's): gamma's answers with the
    image are not for those without it, or its language model's; its real gap is warned of.
    Likewise its answers without the image, which are not for the questions with it."""
    warning = "model 'gamma' has no answer for"
    full = write_xlsx(tmp_path / "gamma_MMStar.xlsx", HEADER, rows(["B"] * 8))
    assert warning not in cli("import", "mmstar", three_settings, full).stderr
    gap = write_xlsx(tmp_path / "gamma_MMStar_wv.xlsx", HEADER, rows(["A"] * 8)[1:])
    more = ("--model", "gamma", "--setting", "without-image")
    result = cli("import", "mmstar", three_settings, gap, *more)
    assert result.code == 0, result.stderr
    assert f"{warning} 1 sample(s): without-image/1\n" in result.stderr
    other = write_xlsx(tmp_path / "delta_MMStar.xlsx", HEADER, rows(["B"] * 8)[:7])
    assert f"{warning.replace('gamma', 'delta')} 1 sample(s): 8\n" in (
        cli("import", "mmstar", three_settings, other).stderr
    )
    logged = lmms_eval_samples(tmp_path)  # with the image, all 8
    result = cli("import", "mmstar-lmms-eval", three_settings, logged, "--model", "lm")
    assert result.code == 0, result.stderr
    assert "has no answer for" not in result.stderr


def test_leakage_is_never_below_zero(cli, tmp_path: Path) -> None:
    db = tmp_path / "mmstar.db"
    _import(cli, db, write_xlsx(tmp_path / "m_MMStar.xlsx", HEADER, rows()))
    for setting, answers in (("without-image", ["A"] * 8), ("llm", ["A", "B", "C", "D"] * 2)):
        file = write_xlsx(tmp_path / f"{setting}.xlsx", HEADER, rows(answers))
        _import(cli, db, file, "--model", "m", "--setting", setting)
    cli("score", db)
    gains = _tables(cli, db)["mmstar.settings", "m"]["values"]
    assert gains == pytest.approx({"S_v": 62.5, "S_wv": 25.0, "S_t": 100.0, "MG": 37.5, "ML": 0.0})


def test_without_other_settings_there_is_no_gain_table(cli, tmp_path: Path) -> None:
    db = tmp_path / "mmstar.db"
    _import(cli, db, write_xlsx(tmp_path / "m_MMStar.xlsx", HEADER, rows()))
    cli("score", db)
    names = {name for name, _ in _tables(cli, db)}
    assert names == {"mmstar.capabilities", "mmstar.CP", "mmstar.FP", "mmstar.IR",
                     "mmstar.LR", "mmstar.ST", "mmstar.MA"}  # fmt: skip


def test_vlmevalkits_workbook_reads_alike(cli, tmp_path: Path) -> None:
    header = ["index", "question", "A", "B", "C", "D", "answer", "category", "l2-category",
              "prediction"]  # fmt: skip
    found = [[r[0], "Which color?", "red", "blue", "green", "black", *r[2:5], r[6]] for r in rows()]
    db = tmp_path / "mmstar.db"
    _import(cli, db, write_xlsx(tmp_path / "InternVL_MMStar.xlsx", header, found))
    cli("score", db)
    assert _tables(cli, db)["mmstar.capabilities", "InternVL"]["values"] == pytest.approx(FINAL)


def test_vlmevalkits_result_workbook_adds_its_verdicts(cli, tmp_path: Path) -> None:
    header = [*HEADER, "hit", "log"]
    # VLMEvalKit's judge reads "The answer is (D)" as D, right, where the strict rule reads
    # none; the rest alike
    hits = [1, 1, 1, 1, 1, 0, 1, 0]
    found = [[*row, hit, f"judged {hit}"] for row, hit in zip(rows(), hits, strict=True)]
    db = tmp_path / "mmstar.db"
    _import(cli, db, write_xlsx(tmp_path / "llava_MMStar_gpt-4o-mini_result.xlsx", header, found))
    cli("score", db)
    assert _tables(cli, db)["mmstar.capabilities", "llava"]["values"] == pytest.approx(FINAL)
    judged = _tables(cli, db, "gpt-4o-mini")["mmstar.capabilities", "llava"]["values"]
    assert judged == pytest.approx(FINAL | {"fine-grained perception": 100.0, "final": 75.0})
    bad = write_xlsx(tmp_path / "m_MMStar_x_result.xlsx", header, [[*rows()[0], "yes", ""]])
    result = cli("import", "mmstar", db, bad, "--dataset", "other")
    assert f"{bad}: line 2: hit 'yes' is not a number from 0 to 1" in result.stderr


def test_the_questions_tsv_gives_the_images_of_the_questions_asked_with_them(
    cli, tmp_path: Path
) -> None:
    tsv = [[index, png_base64("red"), "Which color?"] for index in (1, 2, 99)]
    questions = write_tsv(tmp_path / "MMStar.tsv", ["index", "image", "question"], tsv)
    db = tmp_path / "mmstar.db"
    with_image = write_xlsx(tmp_path / "m_MMStar.xlsx", HEADER, rows()[:2])
    _import(cli, db, with_image, "--questions", str(questions))
    without = write_xlsx(tmp_path / "wv.xlsx", HEADER, rows()[:2])
    _import(
        cli,
        db,
        without,
        "--model",
        "m",
        "--setting",
        "without-image",
        "--questions",
        str(questions),
    )
    with Store.open(db) as store:
        shown = {s.key: len(store.image_hashes("mmstar", s.key)) for s in store.samples("mmstar")}
    assert shown == {"1": 1, "2": 1, "without-image/1": 0, "without-image/2": 0}


def test_it_is_listed_among_lmmreviews_own(cli) -> None:
    assert registry.benchmark("mmstar").title == "MMStar"
    listed = [b["name"] for b in json.loads(cli("benchmarks", "--json").stdout)["benchmarks"]]
    assert listed.index("mme") < listed.index("mmstar") < listed.index("generic")


def _changed(row: int, column: str, value: object) -> list[list[object]]:
    found = rows()
    found[row - 1][HEADER.index(column)] = value
    return found


@pytest.mark.parametrize(
    ("found", "message"),
    [
        (_changed(2, "answer", "E"), "line 3: answer 'E': expected one of A, B, C, D"),
        (_changed(2, "category", "ocr"), "line 3: category 'ocr': not one of MMStar's 6"),
        (_changed(2, "l2_category", "geometry"),
         "line 3: l2 category 'geometry': not one of the axes of 'coarse perception'"),
        (_changed(3, "index", 1), "line 4: index 1 again (also at line 2)"),
        (_changed(3, "index", None), "line 4: empty index"),
    ],
)  # fmt: skip
def test_bad_input_names_file_and_row_and_leaves_the_database(
    cli, three_settings, tmp_path: Path, found: list[list[object]], message: str
) -> None:
    before = dump(three_settings)
    bad = write_xlsx(tmp_path / "bad_MMStar.xlsx", HEADER, found)
    result = cli("import", "mmstar", three_settings, bad)
    assert result.code != 0
    assert f"{bad}: {message}" in result.stderr
    assert dump(three_settings) == before


def test_a_missing_column_or_setting_is_refused(cli, three_settings, tmp_path: Path) -> None:
    before = dump(three_settings)
    header = [c for c in HEADER if c != "l2_category"]
    file = write_xlsx(tmp_path / "m_MMStar.xlsx", header, [r[:4] + r[5:] for r in rows()])
    result = cli("import", "mmstar", three_settings, file)
    assert result.code != 0
    assert f"{file}: missing column 'l2_category' (or 'l2-category')" in result.stderr
    good = write_xlsx(tmp_path / "n_MMStar.xlsx", HEADER, rows())
    result = cli("import", "mmstar", three_settings, good, "--setting", "text-only")
    assert result.code != 0
    assert "--setting: 'text-only': expected with-image, without-image, llm" in result.stderr
    assert dump(three_settings) == before


# lmms-eval's verdicts: its extraction (since 2026) reads "The answer is (D)" as D, right,
# where the strict rule reads none; otherwise as the strict rule.
LMMS_EVAL_RIGHT = {1, 2, 3, 4, 5, 7}


def _lmms_eval_line(number: int, layout: str) -> dict[str, Any]:
    index, capability, axis, gold, said = WORKED[number]
    question = f"Which color is thing {index}?{OPTIONS}"
    score = {"question_id": index, "l2_category": axis, "score": int(index in LMMS_EVAL_RIGHT)}
    line: dict[str, Any] = {"doc_id": number, "target": gold, capability: score,
                            "average": score}  # fmt: skip
    if layout == "v0.3":
        doc = {"index": index, "question": question, "answer": gold, "category": capability,
               "l2_category": axis}  # fmt: skip
        return line | {"doc": doc, "arguments": {}, "resps": [[said]], "filtered_resps": [said]}
    return line | {"input": question, "filtered_resps": said}


def lmms_eval_samples(folder: Path, layout: str = "v0.4") -> Path:
    lines = [_lmms_eval_line(i, layout) for i in range(len(WORKED))]
    return write_lines(folder / "logs" / "llava" / "20260101_120000_samples_mmstar.jsonl", lines)


def mmstar_files(folder: Path) -> None:
    """The files docs/formats.md's MMStar examples import."""
    (folder / "llava_text-only").mkdir()
    write_xlsx(folder / "llava_MMStar.xlsx", HEADER, rows())
    write_xlsx(folder / "llava_text-only" / "llava_MMStar.xlsx", HEADER, rows(["A"] * 8))
    write_xlsx(folder / "Yi_MMStar.xlsx", HEADER, rows(["D"] * 8))
    result = [[*row, 1, "matched"] for row in rows()]
    name = "llava_MMStar_gpt-4o-mini_result.xlsx"
    write_xlsx(folder / "vlmevalkit" / name, [*HEADER, "hit", "log"], result)
    lmms_eval_samples(folder)


@pytest.mark.parametrize("layout", ["v0.3", "v0.4"])
def test_lmms_eval_samples_give_both_rules_figures(cli, tmp_path: Path, layout: str) -> None:
    db = tmp_path / "mmstar.db"
    result = cli("import", "mmstar-lmms-eval", db, lmms_eval_samples(tmp_path, layout))
    assert result.code == 0, result.stderr
    cli("score", db)
    official = _tables(cli, db)["mmstar.capabilities", "llava"]["values"]
    assert official == pytest.approx(FINAL)
    lmms_eval = _tables(cli, db, "lmms-eval rules")["mmstar.capabilities", "llava"]["values"]
    assert lmms_eval == pytest.approx(FINAL | {"fine-grained perception": 100.0, "final": 75.0})


def _without_capability(line: dict[str, Any]) -> None:
    del line["coarse perception"]


def _score(value: object) -> Callable[[dict[str, Any]], None]:
    def change(line: dict[str, Any]) -> None:
        line["coarse perception"] = line["coarse perception"] | {"score": value}

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_without_capability, "line 1: no metric named after a capability"),
        (_score(2), "line 1: score 2: expected 1 or 0"),
        (lambda line: line.pop("input"), "line 1: no question and gold"),
        (lambda line: line.update(target="E"), "line 1: answer 'E': expected one of A, B, C, D"),
    ],
)
def test_a_bad_lmms_eval_line_is_refused_naming_it(
    cli, tmp_path: Path, change: Callable[[dict[str, Any]], object], message: str
) -> None:
    line = _lmms_eval_line(0, "v0.4")
    change(line)
    samples = write_lines(tmp_path / "llava" / "x_samples_mmstar.jsonl", [line])
    result = cli("import", "mmstar-lmms-eval", tmp_path / "m.db", samples)
    assert result.code != 0
    assert f"{samples}: {message}" in result.stderr
