"""lmms-eval 0.5, 0.6 and 0.7 (0.7.3) --log_samples files and the run's results.json, built
here field by field. lmms-eval cannot run here (it imports torch and transformers at module
level), so each field names the lmms-eval code that writes it, file:line@commit, from the
tags v0.5 8f142bc3, v0.6 e643525c, v0.7 ecfb5990 and v0.7.2 cb45ac4d of
EvolvingLMMs-Lab/lmms-eval (PyPI 0.7.3 writes the same keys as v0.7.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dump, write_json, write_lines
from test_import_lmms_eval import mmvet_line
from test_import_mme_tools import LMMS_EVAL, ROWS
from test_import_mmstar import lmms_eval_samples as mmstar_samples
from test_import_ocrbench_tools import lmms_eval_samples as ocrbench_samples

from lmmreview.db import Store

VERSIONS = ("v0.5", "v0.6", "v0.7", "v0.7.2")
MODEL = "llava-v1.5-7b"  # the folder: sanitize_model_name, evaluation_tracker.py:61-75@v0.7.2
DATE = "20260301_120000"  # utils.get_datetime_str, utils.py:873-881@v0.7.2
# VLM replies for MME's existence/kite.png yes-question, with and without the reasoning
# v0.7 strips (--reasoning_tags, __main__.py:308-311@v0.7; evaluator.py:1128-1136@v0.7.2).
THOUGHT = "<think>a kite, so yes</think>"


def mme_line(number: int, version: str) -> dict[str, Any]:
    """Line `number` of a samples file of the task `mme` as lmms-eval `version` writes it."""
    subtask, image, question, gold, response = ROWS[number]
    metric = "mme_cognition_score" if subtask == "code_reasoning" else "mme_perception_score"
    right = {"There is a kite.": 0, "**Yes**": 0}.get(response, 1)
    line: dict[str, Any] = {
        # the example dict: evaluator.py:581-598@v0.5, :699-717@v0.6, :974-993@v0.7,
        # :1180-1200@v0.7.2 (doc and arguments popped by the tracker, below)
        "doc_id": number,
        "doc_hash": f"{number:064x}",
        # save_results_samples: evaluation_tracker.py:266@v0.5, :265@v0.6 and @v0.7.2
        "input": question,
        # str(target): evaluation_tracker.py:271@v0.5, :270@v0.6, :284@v0.7.2
        "target": gold,
        # process_results' dict: tasks/mme/utils.py:94@v0.5, :90@v0.7.2 (example.update)
        metric: {"question_id": f"{subtask}/{image}", "category": subtask, "score": right},
    }
    if version in ("v0.5", "v0.6"):
        # a list, one per request (sanitize_list): evaluation_tracker.py:268@v0.5, :267@v0.6;
        # resps dropped when equal, :269-270@v0.5
        return line | {"filtered_resps": [response]}
    # token counts per request: evaluator.py:966-972@v0.7 (TokenCounts.to_dict,
    # api/instance.py:17-25@v0.7.2); the single-request wrapper flattened:
    # evaluation_tracker.py:275-278@v0.7.2 (d8fcb9c3, #1210)
    line |= {"filtered_resps": response, "token_counts": [{"input_tokens": 40, "output_tokens": 3}]}
    if response == "There is a kite.":
        # the raw reply kept where it differs: evaluation_tracker.py:280-283@v0.7.2
        line["resps"] = THOUGHT + response
    return line


def samples(folder: Path, lines: list[dict[str, Any]], task: str = "mme") -> Path:
    """Where lmms-eval puts them: evaluation_tracker.py:254-258@v0.7.2."""
    return write_lines(folder / "logs" / MODEL / f"{DATE}_samples_{task}.jsonl", lines)


def results_json(version: str) -> dict[str, Any]:
    """The run's {date}_results.json (evaluation_tracker.py:206-212@v0.7.2)."""
    config: dict[str, Any] = {
        # evaluator.py:295-317@v0.5, :524-546@v0.7.2
        "model": "llava",
        "model_args": "pretrained=liuhaotian/llava-v1.5-7b",
        "batch_size": 1,
        "limit": None,
    }
    record: dict[str, Any] = {
        "results": {"mme": {"mme_perception_score,none": 325.0}},
        "configs": {"mme": {"task": "mme"}},  # every task's yaml config
        "config": config,
        "git_hash": "a1b2c3d",  # evaluator.py:318@v0.5, :559@v0.7.2 (git describe --always)
        "date": DATE,  # evaluator.py:319@v0.5, :562@v0.7.2
        "start_time": 1234.5,  # a perf_counter reading: evaluation_tracker.py:58@v0.7.2
    }
    if version in ("v0.7", "v0.7.2"):
        # vars(cli_args), JSON-safe: evaluator.py:548-557@v0.7.2
        config["resolved_cli_args"] = {
            "model": "llava", "model_args": "pretrained=liuhaotian/llava-v1.5-7b",
            "tasks": "mme", "batch_size": 1, "log_samples": True, "limit": None,
            "output_path": "logs/", "verbosity": 0, "predict_only": False,
        }  # fmt: skip
        # branch@commit of the checkout it ran in: evaluator.py:561@v0.7.2, utils.py:801-805
        record["lmms_eval_version"] = "main@cb45ac4d"
    return record


def _state(db: Path) -> tuple[dict[str, tuple[str, str | None]], dict[str, str], list[Any]]:
    """What an import stored: samples (question, gold), answers, judgments by key."""
    with Store.open(db) as store:
        found = {s.key: (s.question, s.answer) for s in store.samples("mme")}
        answers = store.answers("mme", MODEL)
        ids = store.answer_ids("mme")
        latest = store.latest_judgments("mme")
    judged = sorted((key, latest[i, 0].score) for (_, key), i in ids.items() if (i, 0) in latest)
    return found, answers, judged


@pytest.mark.parametrize("version", VERSIONS)
def test_every_layout_gives_the_same_import(cli, tmp_path: Path, version: str) -> None:
    path = samples(tmp_path, [mme_line(i, version) for i in range(len(ROWS))])
    db = tmp_path / "mme.db"
    result = cli("import", "mme-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    found, answers, judged = _state(db)
    assert answers == {
        f"{subtask}/{image}/{1 + i % 2}": response
        for i, (subtask, image, _, _, response) in enumerate(ROWS)
    }  # the scored text, reasoning stripped
    assert len(found) == len(ROWS) and len(judged) == len(ROWS)
    raw = "1 line(s) keep the raw response (resps) beside the one lmms-eval scored"
    assert (raw in result.stderr) == version.startswith("v0.7"), result.stderr
    document = json.loads(
        cli("export", db, "--format", "json", "--judge", "lmms-eval rules").stdout
    )
    (table,) = [t for t in document["tables"] if t["name"] == "mme.perception"]
    assert {k: table["rows"][0]["values"][k] for k in LMMS_EVAL} == LMMS_EVAL


def test_a_multi_gpu_file_pairs_by_doc_id(cli, tmp_path: Path) -> None:
    """Three ranks write their docs in turn (create_iterator shards doc i to rank i % 3,
    utils.py:983@v0.7.2; gathered rank by rank, evaluator.py:1210-1226@v0.7.2): kite.png's
    second question (doc 3, rank 0) comes before its first (doc 2, rank 2)."""
    lines = [mme_line(i, "v0.7.2") for i in range(len(ROWS))]
    ranked = [line for rank in range(3) for line in lines[rank::3]]
    assert [line["doc_id"] for line in ranked].index(3) < [x["doc_id"] for x in ranked].index(2)
    in_order = tmp_path / "a" / "mme.db"
    ranks = tmp_path / "b" / "mme.db"
    assert cli("import", "mme-lmms-eval", in_order, samples(tmp_path / "a", lines)).code == 0
    assert cli("import", "mme-lmms-eval", ranks, samples(tmp_path / "b", ranked)).code == 0
    assert _state(ranks) == _state(in_order)
    found, _, _ = _state(ranks)
    assert found["existence/kite.png/1"] == (ROWS[2][2], "Yes")  # doc 2: the first
    with Store.open(ranks) as store:  # the dataset's order, not the file's
        assert [s.key for s in store.samples("mme")][:4] == [
            "existence/apple.png/1", "existence/apple.png/2",
            "existence/kite.png/1", "existence/kite.png/2",
        ]  # fmt: skip


# filtered_resps that hold no one answer: a task with repeats (N requests per doc, e.g.
# mmmu_val_pass64; kept a list in v0.7, evaluation_tracker.py:274-278@v0.7.2) and a
# loglikelihood task's [log-probability, is-greedy] per choice (sanitize_list str()s them,
# utils.py:144-153@v0.7.2).
REFUSED = {
    "repeats": (["Yes", "No"], "holds 2 responses to one question (a task with repeats)"),
    "choices": ([["-1.2", "False"], ["-0.3", "True"]], "a loglikelihood task's scores"),
    "one choice": ([["-0.3", "True"]], "a loglikelihood task's scores"),
    "empty": ([], "holds no text answer"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_no_one_answer_is_refused_naming_file_and_line(cli, tmp_path: Path, case: str) -> None:
    db = tmp_path / "mme.db"
    good = samples(tmp_path / "good", [mme_line(i, "v0.6") for i in range(len(ROWS))])
    assert cli("import", "mme-lmms-eval", db, good).code == 0
    before = dump(db)
    value, message = REFUSED[case]
    lines = [mme_line(i, "v0.7.2") for i in range(len(ROWS))]
    lines[1]["filtered_resps"] = value
    bad = samples(tmp_path / "bad", lines)
    result = cli("import", "mme-lmms-eval", db, bad, "--dataset", "other")
    assert result.code != 0
    assert f"{bad}: line 2: filtered_resps " in result.stderr, result.stderr
    assert message in result.stderr.replace("\n", ""), result.stderr
    assert dump(db) == before


@pytest.mark.parametrize("doc_id", ["3", -1, True, 2.0])
def test_a_doc_id_that_is_no_position_is_refused(cli, tmp_path: Path, doc_id: object) -> None:
    lines = [mme_line(i, "v0.7.2") for i in range(len(ROWS))]
    lines[3]["doc_id"] = doc_id
    path = samples(tmp_path, lines)
    result = cli("import", "mme-lmms-eval", tmp_path / "mme.db", path)
    assert result.code != 0
    assert f"{path}: line 4: doc_id {doc_id!r}: expected a whole number" in result.stderr
    assert not (tmp_path / "mme.db").exists() or dump(tmp_path / "mme.db") == []


def _run(cli, db: Path) -> dict[str, str]:
    (listed,) = json.loads(cli("imports", db, "--json").stdout)
    return listed["run"]


@pytest.mark.parametrize("version", VERSIONS)
def test_results_json_beside_the_samples_is_the_run(cli, tmp_path: Path, version: str) -> None:
    path = samples(tmp_path, [mme_line(i, version) for i in range(len(ROWS))])
    write_json(path.with_name(f"{DATE}_results.json"), results_json(version))
    db = tmp_path / "mme.db"
    assert cli("import", "mme-lmms-eval", db, path).code == 0
    new = version in ("v0.7", "v0.7.2")
    command = (
        "--model llava --model_args pretrained=liuhaotian/llava-v1.5-7b --tasks mme "
        "--batch_size 1 --log_samples --output_path logs/ --verbosity 0"
        if new
        else "--model llava --model_args pretrained=liuhaotian/llava-v1.5-7b --tasks mme"
    )
    expected = {"tool": "lmms-eval", "commit": "a1b2c3d", "command": command, "date": DATE}
    # MME's lines name no judge model: none is guessed
    assert _run(cli, db) == expected | ({"version": "main@cb45ac4d"} if new else {})


def test_the_judge_is_the_one_the_lines_name(cli, tmp_path: Path) -> None:
    """MM-Vet's grades name their model (eval_model, tasks/mmvet/utils.py:111@v0.7.2)."""
    path = samples(tmp_path, [mmvet_line(i, "v0.4") for i in range(3)], "mmvet")
    results = write_json(tmp_path / "elsewhere.json", results_json("v0.7.2"))
    db = tmp_path / "mmvet.db"
    result = cli("import", "mmvet-lmms-eval", db, path, "--results", results)
    assert result.code == 0, result.stderr
    assert _run(cli, db)["judge"] == "gpt-4-0613"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"results": {}}'])
def test_a_malformed_results_json_is_a_warning(cli, tmp_path: Path, text: str) -> None:
    path = samples(tmp_path, [mme_line(i, "v0.7.2") for i in range(len(ROWS))])
    results = path.with_name(f"{DATE}_results.json")
    results.write_text(text, encoding="utf-8")
    db = tmp_path / "mme.db"
    result = cli("import", "mme-lmms-eval", db, path)
    assert result.code == 0, result.stderr
    assert str(results) in result.stderr and "left out" in result.stderr, result.stderr
    assert _run(cli, db) == {}


def test_a_missing_results_file_named_is_refused(cli, tmp_path: Path) -> None:
    path = samples(tmp_path, [mme_line(i, "v0.7.2") for i in range(len(ROWS))])
    db = tmp_path / "mme.db"
    missing = tmp_path / "nope.json"
    result = cli("import", "mme-lmms-eval", db, path, "--results", missing)
    assert result.code != 0 and f"{missing}: no such file" in result.stderr
    assert dump(db) == []


# Two rules lmms-eval changed in v0.7.2: MMStar's (9ca4445d, #1274) and OCRBench's
# (f54dd288, #1278); (command, its samples file, the words of each version's warning).
RULES = {
    "mmstar": (
        "mmstar-lmms-eval", mmstar_samples,
        "the MMStar scores imported follow MMStar's own prefix rule (exact_match)",
        "before 0.7.2 and tasks/_task_utils/mcq_extract.extract_mcq_answer from 0.7.2 on",
    ),
    "ocrbench": (
        "ocrbench-lmms-eval", ocrbench_samples,
        "the OCRBench scores imported follow the rule that lowercases the whole answer first",
        "before 0.7.2 and the rule that keeps case for HME100k from 0.7.2 on",
    ),
}  # fmt: skip


@pytest.mark.parametrize("version", ["v0.5", "v0.7.2"])
@pytest.mark.parametrize("task", RULES)
def test_the_import_says_which_rule_the_scores_follow(
    cli, tmp_path: Path, task: str, version: str
) -> None:
    """Where results.json tells: before v0.7 it has no lmms_eval_version (the old rule);
    from v0.7 its version names a checkout, not a release (either rule)."""
    command, write, old, new = RULES[task]
    path = write(tmp_path)
    write_json(
        path.with_name(path.name.split("_samples_")[0] + "_results.json"), results_json(version)
    )
    result = cli("import", command, tmp_path / "s.db", path)
    assert result.code == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert old in said, said
    expected = "lmms-eval before 0.7" if version == "v0.5" else "lmms-eval 0.7 or later ("
    assert expected in said and (new in said) == (version != "v0.5"), said
    bare = cli("import", command, tmp_path / "t.db", write(tmp_path / "t"))
    assert "scores imported follow" not in bare.stderr  # no results.json: no word
