"""Generic multiple choice with up to 26 options (A to Z): import, offline rules, screen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import dump, write_lines
from textual.widgets import OptionList
from tui_harness import drive, text_of, until

from lmmreview.db import Store
from lmmreview.engine.benchmarks.mmbench import rules as mmbench
from lmmreview.tui.option_picker import OptionPicker

FRUITS = ["apple", "banana", "cherry", "date", "elder", "fig",
          "grape", "hazel", "iris", "jujube", "kiwi", "lemon"]  # fmt: skip
TWELVE = dict(zip("ABCDEFGHIJKL", FRUITS, strict=True))


def _effective(db: Path) -> dict[str, tuple[float | None, str]]:
    """sample id -> (score, source) of model m, as the `effective_scores` view gives them."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT sample_key, score, source FROM effective_scores WHERE model = 'm'"
        ).fetchall()
    return {key: (score, source) for key, score, source in rows}


def test_twelve_options_lower_case_and_list_golds_import_and_score(cli, tmp_path: Path) -> None:
    data = write_lines(
        tmp_path / "many.jsonl",
        [
            {"id": "k", "question": "Which fruit?", "options": FRUITS, "answer": "K",
             "prediction": "I think the answer is K.", "model": "m"},
            {"id": "by-text", "question": "Which fruit?", "options": FRUITS, "answer": "l",
             "prediction": "It is a lemon.", "model": "m"},
            {"id": "lower", "question": "?", "options": ["x", "y", "z"], "answer": " b ",
             "prediction": "B", "model": "m"},
            {"id": "either", "question": "?", "options": {"a": "x", "b": "y", "c": "z"},
             "answer": ["a", "C"], "prediction": "(C)", "model": "m"},
            {"id": "colour", "question": "Colour?", "answer": ["red", "crimson"]},
        ],
    )  # fmt: skip
    db = tmp_path / "r.db"
    result = cli("import", "jsonl", db, data)
    assert result.code == 0, result.stderr
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("many")}
    assert samples["k"].options == TWELVE and samples["k"].golds == ["K"]
    assert samples["by-text"].golds == ["L"]
    assert samples["lower"].golds == ["B"]
    assert samples["either"].golds == ["A", "C"]
    assert samples["colour"].answer == "red" and samples["colour"].alt_answers == ("crimson",)
    assert cli("score", db).code == 0
    assert _effective(db) == {
        "k": (1.0, "offline"),
        "by-text": (1.0, "offline"),
        "lower": (1.0, "offline"),
        "either": (1.0, "offline"),
    }


@pytest.mark.parametrize(
    ("sample", "message"),
    [
        ({"options": [str(n) for n in range(27)], "answer": "A"},
         "27 options: a multiple-choice question needs 2 to 26 (letters A to Z)"),
        ({"options": {"A": "x", "AA": "y"}, "answer": "A"}, "option key 'AA' is not a letter A to Z"),
        ({"options": {"A": "x", "1": "y"}, "answer": "A"}, "option key '1' is not a letter A to Z"),
        ({"options": FRUITS, "answer": "m"}, "answer 'm' is not an option letter"),
        ({"options": FRUITS, "answer": ["a", "Q"]}, "answer 'Q' is not an option letter"),
    ],
    ids=["27-options", "two-letter-key", "digit-key", "gold-past-the-options", "one-gold-of-a-list"],
)  # fmt: skip
def test_bad_options_are_refused_with_file_and_line(
    cli, tmp_path: Path, sample: dict[str, object], message: str
) -> None:
    db = tmp_path / "r.db"
    first = write_lines(tmp_path / "bench.jsonl", [{"id": "a", "question": "?", "answer": "1"}])
    assert cli("import", "jsonl", db, first).code == 0
    before = dump(db)
    bad = write_lines(
        tmp_path / "bench.jsonl",
        [{"id": "a", "question": "?", "answer": "1"}, {"id": "b", "question": "?", **sample}],
    )
    result = cli("import", "jsonl", db, bad)
    assert result.code == 1
    assert result.stderr.strip() == f"error: {bad}: line 2: {message}"
    assert dump(db) == before


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("K", "K"),
        ("(J)", "J"),
        ("I think the answer is K", "K"),  # the pronoun, not option I
        ("I was going to say L", "L"),
        ("I", "I"),
        ("Option I is right", "I"),
        ("I.", "I"),
        ("The kiwi.", "K"),
        ("K or L", None),
    ],
)
def test_step_one_reads_every_option_letter(answer: str, letter: str | None) -> None:
    assert mmbench.match_choice(answer, TWELVE) == letter


def test_the_extraction_prompt_reply_and_fallback_cover_options_past_d() -> None:
    prompt = mmbench.extraction_prompt("Which fruit", TWELVE, "a lemon")
    assert "J. jujube K. kiwi L. lemon\nAnswer: a lemon" in prompt
    assert mmbench.parse_extraction_reply("L", TWELVE) == "L"
    assert mmbench.parse_extraction_reply("X", TWELVE) == "X"
    picks = {mmbench.fallback_choice(TWELVE, str(seed)) for seed in range(400)}
    assert picks == {*TWELVE, "X"}


def test_with_an_option_x_the_letter_x_names_it() -> None:
    options = {chr(ord("A") + n): f"item {n}" for n in range(26)}
    assert mmbench.parse_extraction_reply("X", options) == "X"
    picks = [mmbench.fallback_choice(options, str(seed)) for seed in range(2600)]
    assert set(picks) == set(options)
    assert picks.count("X") < 2 * picks.count("Y")  # X is one label, not two


def test_the_picker_chooses_an_option_past_i_as_a_letter_key_would(cli, tmp_path: Path) -> None:
    data = write_lines(
        tmp_path / "many.jsonl",
        [{"id": "k", "question": "Which fruit?", "options": FRUITS, "answer": "K",
          "prediction": "a lemon", "model": "m"}],
    )  # fmt: skip
    db = tmp_path / "r.db"
    assert cli("import", "jsonl", db, data).code == 0
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, OptionPicker))
        options = app.screen.query_one(OptionList)
        seen["listed"] = [
            str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
        ]
        await pilot.press("K")
        await until(pilot, lambda: app.current().reviewed)
        seen["verdict"] = text_of(app, "#verdict")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, OptionPicker))
        await pilot.press("home", "down", "enter")  # the arrows and Enter: option B
        await until(pilot, lambda: app.current().verdict.choice == "B")
        await pilot.press("u")  # undo takes the picked choice back like any other
        await until(pilot, lambda: app.current().verdict.choice == "K")
        await pilot.press("p", "escape")  # cancelled: nothing changes
        await pilot.pause(0.1)

    drive(db, steps, dataset="many")
    assert seen["listed"] == [f"{letter}  {text}" for letter, text in TWELVE.items()]
    assert "human verdict: K" in str(seen["verdict"])
    with sqlite3.connect(db) as conn:
        reviews = conn.execute(
            "SELECT action, choice, reviewer FROM reviews ORDER BY id"
        ).fetchall()
    assert reviews == [("grade", "K", "tester"), ("grade", "B", "tester"), ("undo", "K", "tester")]
