"""MM-Vet v2, a benchmark added by new modules only: import, screen, tables, judge prompt."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES, dump, needs_fixture, png_bytes, write_json
from textual.pilot import Pilot
from textual.widgets import Static
from textual_image.widget import HalfcellImage
from tui_harness import drive, text_of, until

from lmmreview.db import Store
from lmmreview.db.judging import JudgeStore
from lmmreview.engine.benchmark import JudgeItem
from lmmreview.engine.benchmarks.mmvet import rules as mmvet
from lmmreview.engine.benchmarks.mmvet.v2 import MMVET_V2, GradingV2
from lmmreview.engine.llm import Call, CallFailed, Reply
from lmmreview.engine.registry import benchmark
from lmmreview.engine.runner import Runner, RunnerSettings
from lmmreview.engine.scoring import Status
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.app import ReviewApp
from lmmreview.tui.images import SampleImages

GOLDEN = FIXTURES / "mmvet"
PAIR = "Which is bigger?<IMG>v2_0_0.png<IMG>\nor <IMG>v2_0_1.png<IMG> ?"


def v2_files(folder: Path, capability: list[str] | str = "rec,seq") -> dict[str, Path]:
    """A v2 question file (the first question interleaves two images), its images, answers."""
    images = folder / "images"
    images.mkdir(parents=True)
    colors = {"v2_0_0.png": "red", "v2_0_1.png": "blue", "v2_1_0.png": "green"}
    for name, color in colors.items():
        (images / name).write_bytes(png_bytes(color, (40, 30)))
    questions = {
        "v2_0": {
            "question": PAIR,
            "answer": "the first<OR>first",
            "capability": capability,
            "added_in": "v2",  # the official file has fields lmmreview ignores
        },
        "v2_1": {
            "question": "<IMG>v2_1_0.png<IMG>What colour?",
            "answer": "green",
            "capability": ["rec"],
        },
    }
    return {
        "questions": write_json(folder / "mm-vet-v2.json", questions),
        "images": images,
        "alpha": write_json(folder / "alpha.json", {"v2_0": "The first.", "v2_1": "green"}),
    }


def import_v2(cli, db: Path, files: dict[str, Path]):
    return cli("import", "mmvet-v2", db, files["questions"], "--images", files["images"],
               "--answers", files["alpha"])  # fmt: skip


def test_interleaved_images_import_show_on_screen_and_make_seq_tables(cli, tmp_path) -> None:
    db, files = tmp_path / "r.db", v2_files(tmp_path / "in")
    result = import_v2(cli, db, files)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        sample = next(s for s in store.samples("mmvet-v2") if s.key == "v2_0")
        assert sample.question == PAIR  # kept with its markers, for the judge prompt
        assert sample.axis("capability") == ("rec", "seq")
        stored = [store.image_bytes(h) for h in store.image_hashes("mmvet-v2", "v2_0")]
        assert stored == [(files["images"] / n).read_bytes() for n in ("v2_0_0.png", "v2_0_1.png")]

    seen: dict[str, object] = {}

    async def look(app: ReviewApp, pilot: Pilot) -> None:
        widget = app.screen.query_one(SampleImages)
        # images are mounted one by one: wait for both (never reached: the test fails)
        await until(pilot, lambda: not widget.pending and len(widget.query(HalfcellImage)) == 2)
        seen["key"] = app.current().key
        seen["drawn"] = len(widget.query(HalfcellImage))
        seen["captions"] = [str(s.content) for s in widget.query(Static) if s.has_class("caption")]
        seen["question"] = text_of(app, "#question")

    drive(db, look, dataset="mmvet-v2")
    assert seen["key"] == "v2_0"
    assert seen["drawn"] == 2
    assert seen["captions"] == ["image 1/2 · 40×30", "image 2/2 · 40×30"]
    assert "Which is bigger?[image 1]" in seen["question"]
    assert "or [image 2] ?" in seen["question"] and "<IMG>" not in seen["question"]

    document = json.loads(cli("export", db, "--format", "json").stdout)
    tables = {t["name"]: t for t in document["tables"]}
    assert tables["mmvet-v2.capabilities"]["columns"] == [
        "rec", "ocr", "know", "gen", "spat", "math", "seq", "total",
    ]  # fmt: skip
    assert tables["mmvet-v2.capabilities"]["column_titles"]["seq"] == "Seq"
    integrations = tables["mmvet-v2.integrations"]
    assert integrations["columns"] == ["rec", "rec_seq", "total"]  # v1's sets first
    assert integrations["column_titles"]["rec_seq"] == "Rec+Seq"
    (alpha,) = integrations["rows"]
    assert (alpha["n"]["rec_seq"], alpha["n"]["total"]) == (1, 2)


def test_an_unknown_capability_is_refused_naming_file_and_id(cli, tmp_path) -> None:
    db = tmp_path / "r.db"
    assert import_v2(cli, db, v2_files(tmp_path / "good")).code == 0
    before = dump(db)
    bad = v2_files(tmp_path / "bad", capability=["rec", "foo"])
    result = import_v2(cli, db, bad)
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: {bad['questions']}: id v2_0: unknown capability 'foo' "
        "(expected some of rec, ocr, know, gen, spat, math, seq)"
    )
    assert dump(db) == before


def test_v1_still_refuses_seq(cli, mmvet_files, tmp_path) -> None:
    """seq is v2's: an MM-Vet v1 file naming it is still refused."""
    questions = json.loads(mmvet_files["questions"].read_text())
    questions["v1_0"]["capability"] = ["rec", "seq"]
    path = write_json(tmp_path / "v1.json", questions)
    result = cli("import", "mmvet", tmp_path / "r.db", path)
    assert result.code == 1 and "id v1_0: unknown capability 'seq'" in result.stderr


def _golden_item() -> JudgeItem:
    example = json.loads((GOLDEN / "v2_filled_prompt_example.input.json").read_text())
    return JudgeItem(1, 0, MMVET_V2.grading, example["question"], (example["answer"],),
                     example["prediction"])  # fmt: skip


@needs_fixture("mmvet/v2_filled_prompt_example.txt")
def test_the_judge_prompt_and_its_retry_are_the_reference_byte_for_byte() -> None:
    item = _golden_item()
    plain, *retries = [call.messages for call in item.work.ladder(item, "gpt-4-0613")]
    assert plain == (("user", (GOLDEN / "v2_filled_prompt_example.txt").read_text()),)
    retry = (GOLDEN / "v2_retry_prompt_example.txt").read_text()
    assert retries and all(messages == (("user", retry),) for messages in retries)
    template = (GOLDEN / "v2_judge_prompt.txt").read_text()
    assert plain[0][1].startswith(template)
    assert item.work.prompt_version() not in ("", mmvet.PROMPT_VERSION)


@needs_fixture("mmvet/v2_filled_prompt_example.txt")
@pytest.mark.parametrize("reply", ["BadRequestError", "BadRequestError 0.0"])
def test_a_refusal_recorded_as_text_is_never_a_score(reply: str) -> None:
    """The reference writes a refused request as content "BadRequestError" scored 0.0."""
    item = _golden_item()
    call = item.work.ladder(item, "gpt-4-0613")[0]
    assert item.work.interpret(item, call, Reply(reply)) is None
    judgment = item.work.exhausted(item, "gpt-4-0613", reply)
    assert (judgment.score, judgment.status) == (None, Status.UNPARSEABLE)


def test_the_screen_marks_each_image_and_the_registry_knows_v2() -> None:
    sample = Sample("v2_9", "A<IMG>x.png<IMG>B<IMG>y.jpeg", QuestionType.OPEN, "a")
    assert benchmark("mmvet-v2").question_text(sample) == "A[image 1]B[image 2]"
    assert isinstance(benchmark("mmvet-v2").judge_work(sample), GradingV2)


def _llm_judgments(db: Path) -> list[tuple[str, float | None]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT j.status, j.score FROM judgments j JOIN answers a ON a.id = j.answer_id "
            "JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id "
            "WHERE j.judge_kind = 'llm' AND d.name = 'mmvet-v2'"
        ).fetchall()


def test_the_judge_scores_the_demo_v2_dataset_with_the_v2_prompt(
    cli, judge_env, fake_judge, demo_db
) -> None:
    result = cli("judge", demo_db, "--dataset", "mmvet-v2", "--runs", "1")
    assert result.code == 0, result.stderr
    judged = _llm_judgments(demo_db)
    assert len(judged) == 6 + 6 + 5  # demo-gamma skips v2_3
    assert {status for status, _ in judged} == {"ok"}
    assert all(score is not None for _, score in judged)
    prompts = list(fake_judge.prompts)
    assert len(prompts) == len(judged)
    assert all(p.startswith(MMVET_V2.grading.prompt("", "", "")[:200]) for p in prompts)
    assert any("| Which picture shows more circles, the first or the second?<br>First: "
               "<image><br>Second: <image> |" in p for p in prompts)  # fmt: skip
    document = json.loads(
        cli("export", demo_db, "--format", "json", "--dataset", "mmvet-v2").stdout
    )
    table = next(t for t in document["tables"] if t["name"] == "mmvet-v2.capabilities")
    alpha = next(row for row in table["rows"] if row["model"] == "demo-alpha")
    assert alpha["values"]["seq"] == 100.0 and alpha["offline"]["total"] == 0


class RefusingJudge:
    """A judge API that refuses every request as a bad request (HTTP 400)."""

    async def complete(self, call: Call) -> Reply:
        raise CallFailed("HTTP 400 BadRequestError: refused", retryable=False)

    async def close(self) -> None:
        return None


def test_a_refused_judge_request_is_recorded_failed_not_zero(demo_db: Path) -> None:
    """Where the reference writes "BadRequestError" with 0.0, the judgment is failed."""
    with Store.open(demo_db) as store:
        storage = JudgeStore(store, "judge-x")
        plan = storage.plan(1, ["mmvet-v2"])
        settings = RunnerSettings("judge-x", give_up_after=1000)
        asyncio.run(Runner(RefusingJudge(), storage, settings).run(plan.chains))
    judged = _llm_judgments(demo_db)
    assert len(judged) == 17
    assert set(judged) == {(Status.ERROR.value, None)}
