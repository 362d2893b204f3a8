"""`lmmreview import vlmevalkit DB FOLDER`: VLMEvalKit run folders built here as its run.py
lays them out (open-compass/VLMEvalKit @ e8e78f05; file:line below at that commit). Every
benchmark file is one the single-file importers' tests already build, renamed to the run's
model: the rows are theirs; the folder, the names and status.json are VLMEvalKit's."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from conftest import dump
from test_hallusionbench_vlmevalkit import _questions as hallusionbench_questions
from test_hallusionbench_vlmevalkit import _workbook as hallusionbench_workbook
from test_import_llava_bench_tools import HEADER as LLAVA_HEADER
from test_import_llava_bench_tools import _rows as llava_rows
from test_import_mme_tools import vlmevalkit_workbook as mme_workbook
from test_import_mmmu_vlmevalkit import RESULT_NAME as MMMU_RESULT
from test_import_mmmu_vlmevalkit import workbook as mmmu_workbook
from test_import_mmstar import HEADER as MMSTAR_HEADER
from test_import_mmstar import rows as mmstar_rows
from test_import_ocrbench_tools import vlmevalkit_workbook as ocrbench_workbook
from test_import_ocrbench_v2_vlmevalkit import workbook as ocrbench_v2_workbook
from test_import_vlmevalkit import (
    mmbench_predictions,
    mmbench_result,
    mmvet_judge_workbook,
    write_xlsx,
)

from lmmreview.db.importers.vlmevalkit_run import plan_run

MODEL = "tiny-llava"
NEW_ID = "T20260409-101500"  # build_eval_id, vlmeval/smp/file.py:453-454
LEGACY_ID = "T20241121_G1a2b3c4d"  # run.py:227,266 @a9343a1e^ (LEGACY_EVAL_ID_PATTERN, file.py:24)
ARGV = ["run.py", "--model", MODEL, "--data", "MMBench_DEV_EN", "MME", "MMVet"]
# The judge status.json names per dataset: get_judge_kwargs(...)['model'] (run.py:757-781;
# defaults run.py:358, :363); OCRBench has none, so no judge_model (popped, status_report.py:65-69)
JUDGES = {
    "MMBench_DEV_EN": "gpt-4o-mini",
    "MMStar": "gpt-4o-mini",
    "MME": "gpt-4o-mini",
    "MMVet": "gpt-4-turbo",
    "LLaVABench": "gpt-4-turbo",
    "MMMU_DEV_VAL": "gpt-4o-mini",
}
MMSTAR_MARKED = "Failed in Prefetch, no GPT-based answer matching under `exact_matching` policy."


def status_json(run: Path, datasets: dict[str, dict[str, Any]]) -> Path:
    """status.json as run.py and vlmeval/smp/status_report.py write it."""
    status = {
        "schema_version": "1.0",  # _init_run_status, status_report.py:53-62
        "eval_id": run.name,
        "created_at": "2026-04-09T10:15:00+08:00",
        "datasets": datasets,  # upsert_dataset_status, status_report.py:296-383
        "model_name": MODEL,
        "updated_at": "2026-04-09T11:02:13+08:00",  # upsert_run_status, :82-97
        "commit": "1a2b3c4d",  # githash(digits=8), run.py:627 (misc.py:166-181)
        "argv": ARGV,  # sys.argv, run.py:673-688 with the rest below
        "api_mode": False,
        "world_size": 1,
        "pred_format": "xlsx",
        "eval_format": "csv",
        "mode": "all",
        "reuse": False,
        "reuse_aux": True,
    }
    path = run / "status.json"  # RUN_STATUS_NAME, file.py:25
    path.write_text(json.dumps(status, indent=2), encoding="utf-8")  # status_report.py:48
    return path


def dataset_status(name: str, state: str = "done") -> dict[str, Any]:
    """One `datasets` entry (status_report.py:370-379): the prediction file relative to the
    run folder, the judge requested, metrics flattened."""
    entry: dict[str, Any] = {
        "status": state,
        "prediction_file": f"{MODEL}_{name}.xlsx",
        "updated_at": "2026-04-09T10:40:00+08:00",
    }
    if name in JUDGES:
        entry["judge_model"] = JUDGES[name]
    if state == "done":
        entry["metrics"] = {"Overall": 50.0}
        entry["primary_metric"] = "Overall"
    return entry


def renamed(file: Path, run: Path) -> Path:
    """A file the single-file tests write (model llava or tiny-llava), as the run's model's."""
    model, _, rest = file.name.partition("_")
    assert model in ("llava", MODEL)
    return file.rename(run / f"{MODEL}_{rest}")


def new_run(outputs: Path) -> Path:
    """outputs/tiny-llava/T20260409-101500/ (run.py:668-671): each dataset's prediction file
    `{model}_{dataset}.xlsx` (get_pred_file_path, file.py:208-219) and what its evaluate
    writes beside it (get_intermediate_file_path, file.py:687-706)."""
    run = outputs / MODEL / NEW_ID
    scratch = outputs / "scratch"
    run.mkdir(parents=True)
    scratch.mkdir()
    mmbench_predictions(run)
    # ImageMCQDataset.evaluate_heuristic: `_{judge}_result` (image_mcq.py:276-278, :312-313)
    result = mmbench_result(scratch)
    result.rename(run / f"{MODEL}_MMBench_DEV_EN_gpt-4o-mini_result.xlsx")
    (run / f"{MODEL}_MMBench_DEV_EN_gpt-4o-mini_result.pkl").write_bytes(b"")  # :289, cache
    (run / f"{MODEL}_MMBench_DEV_EN_acc.csv").write_text("split,Overall\ndev,0.5\n")  # :326
    # ImageYORNDataset.evaluate: `_auxmatch` and `_score.csv` (image_yorn.py:48-49, :107)
    renamed(mme_workbook(scratch, False), run)
    renamed(mme_workbook(scratch, True), run)
    (run / f"{MODEL}_MME_score.csv").write_text("perception,cognition\n175.0,0\n")
    # MMVet: `_{judge}` workbook and its score files (image_vqa.py:2058-2059, :2094-2097)
    mmvet_judge_workbook(run)
    (run / f"{MODEL}_MMVet_gpt-4-turbo_score.csv").write_text("Category,acc\nOverall,25.0\n")
    # LLaVABench: `_openai_result` whatever the judge (image_vqa.py:1906-1907)
    write_xlsx(run / f"{MODEL}_LLaVABench.xlsx", LLAVA_HEADER, llava_rows(False))
    write_xlsx(
        run / f"{MODEL}_LLaVABench_openai_result.xlsx",
        [*LLAVA_HEADER, "gpt4_score", "score"],
        llava_rows(True),
    )
    # OCRBench: the predictions and `_score.json` only (image_vqa.py:567)
    renamed(ocrbench_workbook(scratch), run)
    (run / f"{MODEL}_OCRBench_score.json").write_text('{"Final Score": 5}')
    # MMMU_DEV_VAL: ImageMCQDataset.evaluate_heuristic's `_{judge}_result` (as MMBench's)
    mmmu_workbook(run, f"{MODEL}_MMMU_DEV_VAL.xlsx")
    mmmu_workbook(run, MMMU_RESULT.replace("tiny", MODEL), judged=True)
    # OCRBench_v2: the predictions and `_score.json` only (image_vqa.py:3982)
    ocrbench_v2_workbook(run, MODEL)
    (run / f"{MODEL}_OCRBench_v2_score.json").write_text('{"English Overall Score": 0.5}')
    # A dataset lmmreview has no reader for
    write_xlsx(run / f"{MODEL}_ChartQA_TEST.xlsx", ["index", "prediction"], [[1, "A"]])
    scratch.rmdir()
    datasets = {name: dataset_status(name) for name in ("MMBench_DEV_EN", "MME", "MMVet")}
    datasets |= {name: dataset_status(name) for name in ("LLaVABench", "OCRBench")}
    datasets |= {name: dataset_status(name) for name in ("MMMU_DEV_VAL", "OCRBench_v2")}
    datasets["ChartQA_TEST"] = dataset_status("ChartQA_TEST")
    datasets["MMStar"] = dataset_status("MMStar", "infer")  # no file yet
    status_json(run, datasets)
    return run


def legacy_run(outputs: Path) -> Path:
    """outputs/tiny-llava/T20241121_G1a2b3c4d/ (7739374c to a9343a1e: no status.json), with
    MMStar's predictions and its result under the old extractor name `openai` (chatgpt-0125,
    image_mcq.py:277), one row unmatched with no judge (multiple_choice.py:383)."""
    run = outputs / MODEL / LEGACY_ID
    run.mkdir(parents=True)
    write_xlsx(run / f"{MODEL}_MMStar.xlsx", MMSTAR_HEADER, mmstar_rows())
    hits = [1, 1, 1, 0, 1, 0, 1, 0]  # mcq_vanilla_eval's hit and log, multiple_choice.py:503-504
    logs = [MMSTAR_MARKED if hit == 0 else "A" for hit in hits]
    rows = [[*row, hit, log] for row, hit, log in zip(mmstar_rows(), hits, logs, strict=True)]
    write_xlsx(run / f"{MODEL}_MMStar_openai_result.xlsx", [*MMSTAR_HEADER, "hit", "log"], rows)
    return run


def imports(cli, db: Path) -> dict[str, dict[str, Any]]:
    """`lmmreview imports --json`, by the file's name."""
    listed = json.loads(cli("imports", db, "--json").stdout)
    return {Path(i["file"]).name: i for i in listed}


def judges_of(db: Path) -> dict[str, set[str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT d.name, j.judge_model FROM judgments j JOIN answers a ON a.id = j.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE j.judge_kind = 'imported'"
        ).fetchall()
        rows += conn.execute(
            "SELECT d.name, g.judge_model FROM group_verdicts g JOIN answers a ON a.id = g.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id"
        ).fetchall()
    found: dict[str, set[str]] = {}
    for dataset, judge in rows:
        found.setdefault(dataset, set()).add(judge)
    return found


def test_a_run_folder_imports_every_dataset_lmmreview_reads(cli, tmp_path: Path) -> None:
    run = new_run(tmp_path / "outputs")
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 0, result.stderr
    assert judges_of(db) == {
        "MMBench_DEV_EN": {"gpt-4o-mini"},  # the result file's name
        "mme": {"gpt-4o-mini"},  # auxmatch names none: status.json's
        "mmvet": {"gpt-4-turbo"},
        "llava-bench": {"gpt-4-turbo"},  # `openai` is no judge: status.json's
        "MMMU_DEV_VAL": {"gpt-4o-mini"},
    }
    with sqlite3.connect(db) as conn:
        answered = dict(
            conn.execute(
                "SELECT d.name, COUNT(*) FROM answers a JOIN samples s ON s.id = a.sample_id "
                "JOIN datasets d ON d.id = s.dataset_id GROUP BY d.name"
            ).fetchall()
        )
    assert set(answered) == {
        *("MMBench_DEV_EN", "mme", "mmvet", "llava-bench", "ocrbench"),
        *("MMMU_DEV_VAL", "OCRBench_v2"),
    }
    recorded = imports(cli, db)
    assert set(recorded) == {
        f"{MODEL}_MMBench_DEV_EN_gpt-4o-mini_result.xlsx",
        f"{MODEL}_MME_auxmatch.xlsx",
        f"{MODEL}_MMVet_gpt-4-turbo.xlsx",
        f"{MODEL}_LLaVABench_openai_result.xlsx",
        f"{MODEL}_MMMU_DEV_VAL_gpt-4o-mini_result.xlsx",
    }
    mme = recorded[f"{MODEL}_MME_auxmatch.xlsx"]
    assert mme["run"] == {
        "tool": "VLMEvalKit",
        "commit": "1a2b3c4d",
        "command": " ".join(ARGV),
        "judge": "gpt-4o-mini",
        "date": "2026-04-09 10:15:00",
    }
    assert Path(mme["file"]).parent == run
    assert "left out: ChartQA_TEST" in result.stderr and "no reader" in result.stderr
    assert "left out: MMStar" in result.stderr and "status infer" in result.stderr
    assert "status.json names" in result.stderr  # auxmatch's judge may be exact matching
    again = cli("import", "vlmevalkit", db, run)
    assert again.code == 0, again.stderr
    assert again.stdout.count("already there") == 5


def test_a_legacy_run_without_status_json_and_a_judge_that_was_not_reached(
    cli, tmp_path: Path
) -> None:
    run = legacy_run(tmp_path / "outputs")
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 0, result.stderr
    assert judges_of(db) == {"mmstar": {"exact_matching"}}
    assert "did not reach openai" in result.stderr
    (listed,) = imports(cli, db).values()
    assert listed["run"] == {
        "tool": "VLMEvalKit",
        "commit": "1a2b3c4d",  # the legacy folder's name holds it
        "judge": "exact_matching",
        "date": "2024-11-21",
    }


def test_a_model_folder_of_links_reads_each_from_its_run(cli, tmp_path: Path) -> None:
    """run.py:995-1014 links each dataset's files and status.json into the model folder."""
    outputs = tmp_path / "outputs"
    new, legacy = new_run(outputs), legacy_run(outputs)
    model = outputs / MODEL
    for run in (legacy, new):  # the newer run's status.json link replaces the other's
        for file in run.iterdir():
            link = model / file.name
            link.unlink(missing_ok=True)
            link.symlink_to(file.relative_to(model))
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, model)
    assert result.code == 0, result.stderr
    assert judges_of(db)["mmstar"] == {"exact_matching"}
    assert judges_of(db)["mme"] == {"gpt-4o-mini"}  # the new run's status.json
    recorded = imports(cli, db)
    assert Path(recorded[f"{MODEL}_MMStar_openai_result.xlsx"]["file"]).parent == legacy
    assert recorded[f"{MODEL}_MMStar_openai_result.xlsx"]["run"]["date"] == "2024-11-21"
    assert Path(recorded[f"{MODEL}_MME_auxmatch.xlsx"]["file"]).parent == new


def test_files_directly_in_a_model_folder_import_without_a_run(cli, tmp_path: Path) -> None:
    """Before 7739374c VLMEvalKit wrote the files in outputs/{model}/ itself."""
    model = tmp_path / MODEL
    model.mkdir()
    mmvet_judge_workbook(model)
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, model)
    assert result.code == 0, result.stderr
    (listed,) = imports(cli, db).values()
    assert listed["run"] == {"tool": "VLMEvalKit", "judge": "gpt-4-turbo"}


def test_a_folder_of_runs_only_names_them(cli, tmp_path: Path) -> None:
    new_run(tmp_path / "outputs")
    result = cli("import", "vlmevalkit", tmp_path / "run.db", tmp_path / "outputs" / MODEL)
    assert result.code == 1
    assert f"name one of its runs ({NEW_ID})" in result.stderr
    assert not (tmp_path / "run.db").exists()
    result = cli("import", "vlmevalkit", tmp_path / "run.db", tmp_path / "outputs")
    assert "no VLMEvalKit prediction files in it: give a run folder" in result.stderr


def test_a_malformed_status_json_is_named_and_nothing_imported(cli, tmp_path: Path) -> None:
    run = new_run(tmp_path / "outputs")
    db = tmp_path / "run.db"
    (run / "status.json").write_text('{"datasets": ')
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 1
    assert str(run / "status.json") in result.stderr
    assert not db.exists()
    (run / "status.json").write_text('{"datasets": ["MME"]}')
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 1
    assert f"{run / 'status.json'}: datasets: expected an object" in result.stderr
    (run / "status.json").write_text('{"datasets": {"MME": {"judge_model": 4}}}')
    result = cli("import", "vlmevalkit", db, run)
    assert f"{run / 'status.json'}: datasets 'MME': judge_model: expected a text" in result.stderr


def test_a_bad_row_names_its_file_and_row_and_the_database_is_unchanged(
    cli, tmp_path: Path
) -> None:
    run = new_run(tmp_path / "outputs")
    db = tmp_path / "run.db"
    assert cli("import", "ocrbench-vlmevalkit", db, ocrbench_workbook(tmp_path)).code == 0
    before = dump(db)
    header = ["index", "question", "answer", "category", "image_path", "prediction"]
    bad = [[0, "Is it red?", "Maybe", "color", "images/MME/color/1.jpg", "Yes"]]
    write_xlsx(run / f"{MODEL}_MME.xlsx", header, bad)
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 1
    assert f"{run / (MODEL + '_MME.xlsx')}: line 2:" in result.stderr
    assert "nothing of the run was imported" in result.stderr
    assert dump(db) == before


def test_a_failure_on_writing_leaves_nothing_of_the_run(cli, tmp_path: Path) -> None:
    """Found only once written (an answer that differs from the one stored): the whole run
    is rolled back, and the message says so."""
    run = new_run(tmp_path / "outputs")
    db = tmp_path / "run.db"
    other = tmp_path / "other"
    other.mkdir()
    mmvet = mmvet_judge_workbook(other)
    header = ["index", "question", "answer", "category", "prediction"]
    rows = [[0, "What is x in the equation?", "-1<AND>-5", "ocr,math", "x = 7"]]
    write_xlsx(mmvet.with_name(f"{MODEL}_MMVet.xlsx"), header, rows)
    assert cli("import", "mmvet-vlmevalkit", db, other / f"{MODEL}_MMVet.xlsx").code == 0
    before = dump(db)
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 1
    assert "nothing of the run was imported" in result.stderr
    assert dump(db) == before


def planned(run: Path) -> list[tuple[str, str, dict[str, str], str]]:
    """What plan_run makes of a folder: (dataset, command, the request's files and judge by
    option, the run's judge)."""
    return [
        (
            p.dataset,
            p.command,
            {k: v.name if isinstance(v, Path) else str(v) for k, v in p.request.values.items()},
            p.run.judge,
        )
        for p in plan_run(run).imports
    ]


def test_which_file_each_reader_reads_and_under_which_judge(tmp_path: Path) -> None:
    """Only the names matter here (nothing is read but status.json): each dataset's
    prediction file and files with verdicts (image_mcq.py:276-278, 656-660; image_vqa.py
    592-593, 2058-2059; image_yorn.py:48), not its caches, counts and score files
    (image_mcq.py:289, :326; image_vqa.py:631, 2094-2097; image_yorn.py:49, :107)."""
    run = tmp_path / MODEL / NEW_ID
    run.mkdir(parents=True)
    for name in (
        *("MMBench_DEV_EN.tsv", "MMBench_DEV_EN_V11.tsv", "MMBench_DEV_EN_V11_gpt4_result.tsv"),
        *("MMBench_DEV_EN_V11_gpt4_result.pkl", "MMBench_DEV_EN_V11_acc.csv"),
        *("MMMU_Pro_10c_COT.tsv", "MMMU_Pro_10c_COT_cotpost.tsv"),
        "MMMU_Pro_10c_COT_cotpost_gpt-4o-mini_result.tsv",
        *("MathVista_MINI.tsv", "MathVista_MINI_gpt-4o-mini.tsv"),
        *("MathVista_MINI_gpt-4o-mini.pkl", "MathVista_MINI_gpt-4o-mini_score.tsv"),
        *("MMVet_Hard.tsv", "MMVet_Hard_gpt-4-turbo.tsv", "MMVet_Hard_gpt-4-turbo_score_fine.tsv"),
        *("HallusionBench.tsv", "HallusionBench_auxmatch.tsv", "HallusionBench_tmp.pkl"),
        *("MMStar_exact_matching_result.tsv", "OCRBench.tsv", "OCRBench_score.json"),
        *("MMMU_DEV_VAL.tsv", "MMMU_DEV_VAL_gpt-4o-mini_result.tsv", "MMMU_DEV_VAL_acc.csv"),
        *("OCRBench_v2.tsv", "OCRBench_v2_score.json"),
        "ChartQA_TEST.tsv",
    ):
        (run / f"{MODEL}_{name}").touch()
    (run / "other_MMStar.tsv").touch()  # another model's
    judges = {"MMBench_DEV_EN_V11": "gpt-4-0125", "HallusionBench": "qwen2.5-72b"}
    status_json(run, {name: {"judge_model": judge} for name, judge in judges.items()})
    assert planned(run) == [
        ("HallusionBench", "hallusionbench-vlmevalkit", {"file": f"{MODEL}_HallusionBench.tsv"}, ""),
        ("HallusionBench", "hallusionbench-vlmevalkit",
         {"file": f"{MODEL}_HallusionBench_auxmatch.tsv", "judge": "qwen2.5-72b"}, "qwen2.5-72b"),
        ("MMBench_DEV_EN", "mmbench-vlmevalkit", {"file": f"{MODEL}_MMBench_DEV_EN.tsv"}, ""),
        ("MMBench_DEV_EN_V11", "mmbench-vlmevalkit",
         {"file": f"{MODEL}_MMBench_DEV_EN_V11_gpt4_result.tsv", "judge": "gpt-4-0125",
          "predictions": f"{MODEL}_MMBench_DEV_EN_V11.tsv"}, "gpt-4-0125"),
        ("MMMU_DEV_VAL", "mmmu-vlmevalkit", {"file": f"{MODEL}_MMMU_DEV_VAL.tsv"}, ""),
        ("MMMU_DEV_VAL", "mmmu-vlmevalkit",
         {"file": f"{MODEL}_MMMU_DEV_VAL_gpt-4o-mini_result.tsv"}, "gpt-4o-mini"),
        ("MMMU_Pro_10c_COT", "mmmu-pro-vlmevalkit", {"file": f"{MODEL}_MMMU_Pro_10c_COT.tsv"}, ""),
        ("MMMU_Pro_10c_COT", "mmmu-pro-vlmevalkit",
         {"file": f"{MODEL}_MMMU_Pro_10c_COT_cotpost_gpt-4o-mini_result.tsv"}, "gpt-4o-mini"),
        ("MMStar", "mmstar", {"file": f"{MODEL}_MMStar_exact_matching_result.tsv"}, "exact_matching"),
        ("MMVet_Hard", "mmvet-vlmevalkit", {"file": f"{MODEL}_MMVet_Hard.tsv"}, ""),
        ("MMVet_Hard", "mmvet-vlmevalkit", {"file": f"{MODEL}_MMVet_Hard_gpt-4-turbo.tsv"}, "gpt-4-turbo"),
        ("MathVista_MINI", "mathvista-vlmevalkit", {"file": f"{MODEL}_MathVista_MINI.tsv"}, ""),
        ("MathVista_MINI", "mathvista-vlmevalkit",
         {"file": f"{MODEL}_MathVista_MINI_gpt-4o-mini.tsv"}, "gpt-4o-mini"),
        ("OCRBench", "ocrbench-vlmevalkit", {"file": f"{MODEL}_OCRBench.tsv"}, ""),
        ("OCRBench_v2", "ocrbench-v2-vlmevalkit", {"file": f"{MODEL}_OCRBench_v2.tsv"}, ""),
    ]  # fmt: skip
    left_out = plan_run(run).left_out
    assert left_out == [f"{MODEL}_ChartQA_TEST.tsv ({run}): no dataset lmmreview reads"]


def test_hallusionbench_waits_for_its_questions(cli, tmp_path: Path) -> None:
    """VLMEvalKit's HallusionBench rows hold answers only (db/benchmarks/hallusionbench/
    vlmevalkit.py): without the official questions in the database they are left out, with
    the reason, and the rest of the run is imported; once they are there, they import."""
    run = tmp_path / MODEL / LEGACY_ID
    run.mkdir(parents=True)
    hallusionbench_workbook(run, model=MODEL)
    mmvet_judge_workbook(run)
    db = tmp_path / "run.db"
    result = cli("import", "vlmevalkit", db, run)
    assert result.code == 0, result.stderr
    assert f"left out: {run / (MODEL + '_HallusionBench_auxmatch.xlsx')}: only answers" in (
        result.stderr
    )
    assert set(judges_of(db)) == {"mmvet"}
    assert cli("import", "hallusionbench", db, hallusionbench_questions(tmp_path)).code == 0
    again = cli("import", "vlmevalkit", db, run)
    assert again.code == 0, again.stderr
    assert judges_of(db)["hallusionbench"] == {"vlmevalkit-yorn"}  # no status.json: its own


def test_a_run_of_datasets_lmmreview_lacks_lists_them_and_makes_no_database(
    cli, tmp_path: Path
) -> None:
    run = tmp_path / MODEL / NEW_ID
    run.mkdir(parents=True)
    write_xlsx(run / f"{MODEL}_ChartQA_TEST.xlsx", ["index", "prediction"], [[1, "A"]])
    status_json(run, {"ChartQA_TEST": dataset_status("ChartQA_TEST")})
    result = cli("import", "vlmevalkit", tmp_path / "run.db", run)
    assert result.code == 0, result.stderr
    assert f"left out: ChartQA_TEST ({run}): lmmreview has no reader for it" in result.stderr
    assert "0 files of 0 datasets imported" in result.stdout
    assert not (tmp_path / "run.db").exists()
