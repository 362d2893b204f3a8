"""The review screen's rough edges of issue 31, driven by keys on the demo database: the
filter menu's counts and marks, Esc keeping the position, the dataset picker's mark, jump
by part of an id, and MMBench's circular-group view (r)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList
from tui_harness import bare_label, choose, cursor, drive, text_of, until

from lmmreview.tui.answer_list import AnswerList
from lmmreview.tui.screens import MARK, Menu

COUNTABLE = ("unreviewed", "failed", "no_reply", "fallback", "flagged", "disagreement",
             "spread", "reviewers", "judges", "clear")  # fmt: skip


def _labels(app) -> dict[str, str]:
    options = app.screen.query_one(OptionList)
    found = (options.get_option_at_index(i) for i in range(options.option_count))
    return {option.id: str(option.prompt) for option in found}


async def _open_menu(app, pilot) -> dict[str, str]:
    """Press v and wait until every choice that needs no more question has its count."""
    await pilot.press("v")
    await until(pilot, lambda: isinstance(app.screen, Menu))
    await until(pilot, lambda: all(_labels(app)[k].endswith(")") for k in COUNTABLE))
    return _labels(app)


def _count(label: str) -> int:
    return int(label.rsplit("(", 1)[1].rstrip(")").replace(",", ""))


def test_each_filter_count_is_the_length_of_the_list_it_shows(demo_db) -> None:
    seen: dict[str, tuple[int, int]] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5", "j", "f")  # one reviewed, one flagged: counts differ
        await until(pilot, lambda: app.session.reviewed == 1)
        for key in COUNTABLE:
            labels = await _open_menu(app, pilot)
            await choose(app, pilot, key)
            await until(pilot, lambda: not isinstance(app.screen, Menu))
            await pilot.pause(0.1)
            seen[key] = (_count(labels[key]), len(app.session.visible))
            app.review_screen.action_clear_filters()

    drive(demo_db, steps)
    assert all(shown == count for count, shown in seen.values()), seen
    assert seen["unreviewed"][0] == 57 and seen["flagged"][0] == 1 and seen["clear"][0] == 58


def test_active_filters_are_marked_and_choosing_one_again_turns_it_off(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5")  # one reviewed: the list differs with Unreviewed on and off
        await until(pilot, lambda: app.session.reviewed == 1)
        labels = await _open_menu(app, pilot)
        seen["none_marked"] = not any(label.startswith(MARK) for label in labels.values())
        seen["note"] = text_of(app, "#menu-note")
        await choose(app, pilot, "unreviewed")
        await until(pilot, lambda: app.session.filter.unreviewed)
        seen["on"] = len(app.session.visible)
        labels = await _open_menu(app, pilot)
        seen["marked"] = sorted(k for k, label in labels.items() if label.startswith(MARK))
        seen["label"] = labels["unreviewed"]
        await choose(app, pilot, "unreviewed")  # again: off
        await until(pilot, lambda: not app.session.filter.unreviewed)
        seen["off"] = len(app.session.visible)

    drive(demo_db, steps)
    assert seen["none_marked"]
    assert "choose again: off" in seen["note"] and "shown with it on" in seen["note"]
    assert seen["marked"] == ["unreviewed"]
    assert seen["label"] == f"{MARK}Unreviewed (57)"  # the list as it is, with it on
    assert (seen["on"], seen["off"]) == (57, 58)
    assert bare_label(seen["label"]) == "Unreviewed"


def test_esc_after_a_filter_keeps_the_answer_under_the_cursor(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("5", "j", "7")  # the first two reviewed: places differ
        await until(pilot, lambda: app.session.reviewed == 2)
        await pilot.press("v")
        await choose(app, pilot, "unreviewed")
        await until(pilot, lambda: app.session.filter.unreviewed)
        await pilot.press("g", "j", "j", "j")
        seen["filtered"] = (cursor(app), app.current().answer_id)
        await pilot.press("escape")
        await until(pilot, lambda: not app.session.filter.unreviewed)
        await pilot.pause(0.1)
        seen["cleared"] = (cursor(app), app.current().answer_id)

    drive(demo_db, steps)
    (row, answer), (row_after, answer_after) = seen["filtered"], seen["cleared"]
    assert answer_after == answer and (row, row_after) == (3, 5)


async def _ask(app, pilot, key: str, typed: str) -> None:
    """Press `key` (slash: search, colon: jump), type `typed` in the box it opens, Enter."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen.focused, Input))
    app.screen.focused.value = typed
    await pilot.press("enter")


def test_esc_after_a_filter_that_shows_nothing_goes_back_to_the_answer_shown(demo_db) -> None:
    seen: dict[str, object] = {}

    async def back_after(app, pilot, empty) -> str:
        every = len(app.session.visible)
        await empty()
        await until(pilot, lambda: not len(app.session.visible))
        await pilot.press("escape")
        await until(pilot, lambda: len(app.session.visible) == every)
        await pilot.pause(0.1)
        answers = app.review_screen.query_one(AnswerList)  # and its row is in view
        top = answers.scroll_offset.y
        return app.current().key, top <= answers.cursor < top + answers.size.height

    async def steps(app, pilot) -> None:
        await _ask(app, pilot, "colon", "1000003")  # below the first screenful at 80x24
        await until(pilot, lambda: app.current().key == "1000003")
        seen["search"] = await back_after(app, pilot, lambda: _ask(app, pilot, "slash", "zzzz"))

        async def flagged() -> None:
            await pilot.press("v")
            await choose(app, pilot, "flagged")

        seen["flagged"] = await back_after(app, pilot, flagged)

    drive(demo_db, steps, dataset="mmbench", size=(80, 24))
    assert seen == {"search": ("1000003", True), "flagged": ("1000003", True)}


def test_the_dataset_picker_marks_the_dataset_shown(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Menu))
        seen["labels"] = _labels(app)
        options = app.screen.query_one(OptionList)
        seen["highlighted"] = options.get_option_at_index(options.highlighted).id
        await pilot.press("escape")

    drive(demo_db, steps, dataset="mmbench")
    labels = seen["labels"]
    assert [k for k, label in labels.items() if label.startswith(MARK)] == ["mmbench"]
    assert seen["highlighted"] == "mmbench"  # Enter keeps it, arrows start from it
    assert labels["mmvet"] == "  mmvet"  # aligned with the marked one


def test_jump_by_an_exact_id_or_a_unique_part_or_a_pick_among_several(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _ask(app, pilot, "colon", "v1_1")  # exact: wins over v1_10 ... v1_19
        await until(pilot, lambda: app.current().key == "v1_1")
        await _ask(app, pilot, "colon", "17")  # a unique part
        await until(pilot, lambda: app.current().key == "v1_17")
        seen["place"] = cursor(app) == app.session.first_place("v1_17")
        await _ask(app, pilot, "colon", "_1")  # several: a picker of them all
        await until(pilot, lambda: isinstance(app.screen, Menu))
        seen["title"] = str(app.screen.query_one("Label").render())
        seen["picker"] = list(_labels(app))
        await choose(app, pilot, "v1_13")
        await until(pilot, lambda: app.current().key == "v1_13")
        await _ask(app, pilot, "colon", "nowhere")
        await until(pilot, lambda: any("nowhere" in n for n in _notices(app)))
        seen["still"] = app.current().key

    drive(demo_db, steps)
    assert seen["place"]
    assert seen["picker"] == ["v1_1", *(f"v1_1{i}" for i in range(10))]
    assert "11 sample ids hold '_1'" in seen["title"]
    assert seen["still"] == "v1_13"


def test_ids_holding_a_part_exact_first_then_every_holder_in_order() -> None:
    from lmmreview.engine.ids import ids_holding

    ids = [f"q{i}" for i in range(100)]
    assert ids_holding(ids, "q1") == ["q1"]  # exact wins over q10 ... q19
    nines = ids_holding(ids, "9")
    assert nines[:3] == ["q9", "q19", "q29"] and len(nines) == 19
    assert ids_holding(ids, "x") == []


def _notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_the_jump_picker_lists_the_first_few_and_says_how_many(demo_db, monkeypatch) -> None:
    from lmmreview.tui import navigation

    monkeypatch.setattr(navigation, "PICKED", 5)
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _ask(app, pilot, "colon", "00")  # the rotations ("0" is an id itself)
        await until(pilot, lambda: isinstance(app.screen, Menu))
        seen["title"] = str(app.screen.query_one("Label").render())
        seen["picker"] = list(_labels(app))
        await pilot.press("escape")

    drive(demo_db, steps, dataset="mmbench")
    holding = [k for k in _mmbench_ids(demo_db) if "00" in k]
    assert f"{len(holding)} sample ids hold '00', the first 5 listed" in seen["title"]
    assert len(seen["picker"]) == 5 and set(seen["picker"]) <= set(holding)


def _mmbench_ids(db) -> list[str]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT s.key FROM samples s JOIN datasets d ON d.id = s.dataset_id "
            "WHERE d.name = 'mmbench'"
        ).fetchall()
    return [key for (key,) in rows]


def _plain(renderable) -> str:
    import io

    from rich.console import Console

    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def _stored(db) -> list[tuple[int, str | None, str]]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT answer_id, choice, action FROM reviews ORDER BY id").fetchall()


def test_the_group_view_grades_the_rotation_under_its_cursor(demo_db) -> None:
    from lmmreview.tui.group_view import GroupScreen

    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _ask(app, pilot, "colon", "1000009")  # a rotation of group 9, not its main row
        await until(pilot, lambda: app.current().key == "1000009")
        start = app.current()
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        view = app.screen
        seen["keys"] = [r.key for r in view.rotations]
        seen["cursor"] = view.cursor
        seen["models"] = {app.session.find(r.answer_id).model for r in view.rotations}
        seen["before"] = text_of(app, "#group-result")
        right = view.rotations[0].sample.golds[0]
        wrong = next(letter for letter in view.rotations[0].sample.options if letter != right)
        await pilot.press("k", "k", wrong)  # the first rotation (k stops there), graded wrong
        await until(pilot, lambda: _stored(demo_db))
        seen["graded"] = view.rotations[0].answer_id
        await until(pilot, lambda: "fails" in text_of(app, "#group-result"))
        seen["rows"] = [_plain(b.content) for b in view.query(".rotation")]
        await pilot.press(right)  # regraded right: the group passes again
        await until(pilot, lambda: len(_stored(demo_db)) == 2)
        await until(pilot, lambda: "passes" in text_of(app, "#group-result"))
        await pilot.press("u")  # undo, as on the review screen: the wrong grade again
        await until(pilot, lambda: "fails" in text_of(app, "#group-result"))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.review_screen)
        await pilot.pause(0.1)
        seen["back"] = (app.current().answer_id, start.answer_id)

    drive(demo_db, steps, dataset="mmbench")
    assert seen["keys"] == ["9", "1000009"] and seen["cursor"] == 1  # on the answer shown
    assert len(seen["models"]) == 1
    assert "CircularEval: passes: every rotation is right" in seen["before"]
    first, second = seen["rows"]
    assert first.startswith("▶ rotation 0  9") and "· wrong" in first
    assert second.startswith("  rotation 1  1000009") and "· right" in second
    stored = _stored(demo_db)
    assert [(a, action) for a, _, action in stored] == [
        (seen["graded"], "grade"), (seen["graded"], "grade"), (seen["graded"], "undo"),
    ]  # fmt: skip
    assert seen["back"][0] == seen["back"][1]


LONG = ("a red kite flying over a crowded beach at noon, seen from the promenade railing",
        "a dense forest path after rain with ferns on both sides and fog between the trees",
        "a city street at night with neon signs reflected in puddles and a passing tram",
        "a small kitchen with a kettle on the stove and herbs drying on the window sill")  # fmt: skip


def _long_options(db) -> None:
    """Group 0's four rotations get long options and a long answer, each rotation its own
    order of them."""
    import json
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn, conn:
        for k, key in enumerate(["0", "1000000", "2000000", "3000000"]):
            texts = LONG[k:] + LONG[:k]
            options = json.dumps(dict(zip("ABCD", texts, strict=True)))
            conn.execute("UPDATE samples SET options = ? WHERE key = ?", (options, key))
            conn.execute(
                "UPDATE answers SET text = ? WHERE sample_id IN "
                "(SELECT id FROM samples WHERE key = ?)",
                (f"The answer is A: {texts[0]}. " * 3, key),
            )


def test_four_rotations_with_long_options_fit_80x24(demo_db) -> None:
    from lmmreview.tui.group_view import GroupScreen

    _long_options(demo_db)
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("r")  # on the first answer: group 0
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        await pilot.pause(0.2)
        blocks = list(app.screen.query(".rotation"))
        seen["heights"] = [block.size.height for block in blocks]
        seen["bottom"] = max(block.region.bottom for block in blocks)
        seen["scroll"] = app.screen.query_one("#group-rotations").max_scroll_y
        seen["options"] = [_plain(b.content).splitlines()[1] for b in blocks]

    drive(demo_db, steps, dataset="mmbench", size=(80, 24))
    assert seen["heights"] == [4, 4, 4, 4]  # id and gold, options, answer, state: a line each
    assert seen["scroll"] == 0 and seen["bottom"] <= 23  # above the footer, no scrolling
    for line in seen["options"]:
        assert all(f"{letter}. " in line for letter in "ABCD") and "…" in line


def test_options_that_differ_only_at_the_end_are_cut_where_they_differ() -> None:
    """MMBench's 'Does the snowboard slide faster with a thin/thick layer of wax?': cut from
    the end, both would read the same; the words they share give way to "…" instead."""
    from rich.console import Console

    from lmmreview.tui.group_view import OptionsLine

    stem = "Does Madelyn's snowboard slide down a hill in less time when it has a "
    options = {"A": stem + "thin layer of wax or a thick layer of wax?", "B": stem + "thick one?"}
    console = Console(width=80, color_system=None)
    with console.capture() as captured:
        console.print(OptionsLine(options, ["A"]))
    line = captured.get()
    assert line.startswith("  A. …thin layer of wax or a thick layer of wax?")
    assert "B. …thick one?" in line and stem not in line
    with console.capture() as captured:  # room for all of it: nothing is taken away
        console.print(OptionsLine({"A": "a thin layer", "B": "a thick layer"}, ["A"]))
    assert captured.get().strip() == "A. a thin layer   B. a thick layer"
    with console.capture() as captured:  # a line each: cut where they differ too
        console.print(OptionsLine({**options, "B": stem + "thick one" * 9}, ["A"], stacked=True))
    first, second = captured.get().splitlines()
    assert first == "  A. …thin layer of wax or a thick layer of wax?"
    assert second.startswith("  B. …thick onethick one") and second.endswith("…")
    wide = {"A": "当雪板上有一层 薄蜡时", "B": "当雪板上有一层 厚蜡时"}  # 2 cells a character
    narrow = Console(width=40, color_system=None)  # fits by characters, not by cells
    with narrow.capture() as captured:
        narrow.print(OptionsLine(wide, ["A"]))
    assert captured.get().strip() == "A. …薄蜡时   B. …厚蜡时"


def test_with_room_each_option_has_a_line_and_differs_where_it_is_cut(demo_db) -> None:
    """At 160×48 four rotations of four options stack (a line per option) and still fit;
    a long option is cut where the options differ."""
    from lmmreview.tui.group_view import GroupScreen

    _long_options(demo_db)
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        await pilot.pause(0.2)
        blocks = list(app.screen.query(".rotation"))
        seen["heights"] = [block.size.height for block in blocks]
        seen["scroll"] = app.screen.query_one("#group-rotations").max_scroll_y
        seen["lines"] = _plain(blocks[0].content).splitlines()

    drive(demo_db, steps, dataset="mmbench", size=(160, 48))
    assert seen["heights"] == [7, 7, 7, 7] and seen["scroll"] == 0
    lines = seen["lines"]
    assert isinstance(lines, list)
    assert [line.strip()[:2] for line in lines[1:5]] == ["A.", "B.", "C.", "D."]


def test_u_in_the_group_view_says_where_a_newest_change_outside_the_group_is(demo_db) -> None:
    from lmmreview.tui.group_view import GroupScreen

    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        graded = app.current()
        await pilot.press("A")  # a verdict on the first answer, outside group 9
        await until(pilot, lambda: _stored(demo_db))
        await _ask(app, pilot, "colon", "1000009")
        await until(pilot, lambda: app.current().key == "1000009")
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        await pilot.press("u")
        await until(pilot, lambda: any("outside this group" in n for n in _notices(app)))
        await pilot.pause(0.2)
        seen["notice"] = next(n for n in _notices(app) if "outside" in n)
        seen["graded"] = f"{graded.key} ({graded.model})"

    drive(demo_db, steps, dataset="mmbench")
    assert f"Your newest change is on {seen['graded']}, outside this group" in seen["notice"]
    assert [action for _, _, action in _stored(demo_db)] == ["grade"]  # nothing undone


def test_the_group_view_shows_the_errata_in_force_and_the_result_with_them(demo_db) -> None:
    from lmmreview.db import Store
    from lmmreview.db.errata import ErrataStore
    from lmmreview.engine.errata import Erratum
    from lmmreview.tui.group_view import GroupScreen

    with Store.open(
        demo_db, create=False
    ) as store:  # row 9's gold corrected: its rotation 1000009 follows
        sample = ErrataStore(store, "").samples("mmbench", ["9"])["9"]
        wrong = next(letter for letter in sample.options if letter not in sample.golds)
        ErrataStore(store, "ana").set("mmbench", Erratum("9", "wrong", wrong, reason="typo"))
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await _ask(app, pilot, "colon", "1000009")
        await until(pilot, lambda: app.current().key == "1000009")
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, GroupScreen))
        await pilot.pause(0.1)
        seen["result"] = text_of(app, "#group-result")
        seen["rows"] = [_plain(b.content) for b in app.screen.query(".rotation")]

    drive(demo_db, steps, dataset="mmbench")
    first, second = (row.splitlines()[0] for row in seen["rows"])
    assert first.endswith(f"gold {sample.golds[0]} → {wrong} (wrong erratum)")
    assert "→" in second and "(wrong erratum)" in second  # mapped by its option's text
    assert "as published: passes: every rotation is right" in seen["result"]
    assert "with errata: fails: a rotation is wrong" in seen["result"]


@pytest.mark.parametrize("dataset", ["mmvet", "mme"])  # MME: pairs, not rotations
def test_r_on_an_answer_without_circular_groups_says_so_in_one_line(demo_db, dataset) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("r")
        await until(pilot, lambda: _notices(app))
        seen["notices"] = _notices(app)
        seen["screen"] = app.screen is app.review_screen

    drive(demo_db, steps, dataset=dataset)
    assert seen["screen"]
    assert seen["notices"] == ["r shows MMBench's circular groups: this dataset has none."]


def test_circular_result_in_words_per_run() -> None:
    from lmmreview.engine.rotations import FAILS, PASSES, UNDECIDED, circular_result
    from lmmreview.engine.scoring import MICRO, Outcome

    assert circular_result(Outcome((MICRO,), True)) == PASSES
    assert circular_result(Outcome((0,), True)) == FAILS
    assert circular_result(Outcome((None,), False)) == UNDECIDED
    several = circular_result(Outcome((MICRO, 0, None), False))
    assert several == "passes in 1 of 3 runs, fails in 1, undecided in 1"


def test_the_model_menu_counts_each_model_and_marks_the_one_in_force(demo_db) -> None:
    seen: dict[str, object] = {}

    async def steps(app, pilot) -> None:
        await pilot.press("v")
        await choose(app, pilot, "model")
        await until(
            pilot, lambda: isinstance(app.screen, Menu) and "Model" in app.screen.title_text
        )
        await until(pilot, lambda: all(label.endswith(")") for label in _labels(app).values()))
        seen["labels"] = _labels(app)
        await choose(app, pilot, "demo-beta")
        await until(pilot, lambda: app.session.filter.model == "demo-beta")
        seen["shown"] = len(app.session.visible)
        await pilot.press("v")
        await choose(app, pilot, "model")
        await until(
            pilot, lambda: isinstance(app.screen, Menu) and "Model" in app.screen.title_text
        )
        await until(pilot, lambda: _labels(app)["demo-beta"].startswith(MARK))
        seen["marked"] = [k for k, label in _labels(app).items() if label.startswith(MARK)]
        await pilot.press("escape")

    drive(demo_db, steps)
    labels = seen["labels"]
    assert _count(labels["demo-beta"]) == seen["shown"]
    assert sum(_count(label) for label in labels.values()) == 58  # each answer has one model
    assert seen["marked"] == ["demo-beta"]
