"""The review screen's keys, each with an id a keymap in the settings can name (see
`binding_ids` in tui/app.py); the grading keys come from tui/grade_keys.py."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from lmmreview.tui.grade_keys import score_keys


def review_keys() -> list[BindingType]:
    """In the order the footer and the help screen show them."""
    return [
        Binding("j,down", "move(1)", "next", show=False, id="next"),
        Binding("k,up", "move(-1)", "previous", show=False, id="previous"),
        Binding("g,home", "jump_to(0)", "first", show=False, id="first"),
        Binding("end", "jump_to(-1)", "last", show=False, id="last"),
        Binding("pagedown", "page(1)", "page down", show=False, id="page-down"),
        Binding("pageup", "page(-1)", "page up", show=False, id="page-up"),
        Binding("n", "next_where('unreviewed')", "unreviewed", id="next-unreviewed"),
        Binding("N", "next_where('flagged')", "next flagged", show=False, id="next-flagged"),
        Binding("colon", "goto", "jump to id", key_display=":", show=False, id="jump"),
        *score_keys(),
        Binding("X", "choose('X')", "none of the options", show=False, id="choose-none"),
        Binding("p", "pick_option", "pick any option from a list", show=False, id="pick-option"),
        Binding("a", "accept", "accept", id="accept"),
        Binding("u", "undo", "undo", id="undo"),
        Binding("m", "note", "note", show=False, id="note"),
        Binding("f", "flag", "flag", id="flag"),
        Binding("x", "cause", "error cause", show=False, id="cause"),
        Binding(
            "exclamation_mark",
            "erratum",
            "mark the gold wrong",
            key_display="!",
            show=False,
            id="erratum",
        ),
        Binding("slash", "search", "search", key_display="/", show=False, id="search"),
        Binding("v", "filters", "filter", id="filter"),
        Binding("escape", "clear_filters", "clear filters", show=False, id="clear-filters"),
        Binding("b", "breakdown", "tables", id="breakdown"),
        Binding("c", "compare", "compare", id="compare"),
        Binding("r", "rotations", "circular group", show=False, id="rotations"),
        Binding("z", "zoom", "zoom into the image", show=False, id="zoom"),
        Binding("o", "open_image", "open the image outside", show=False, id="open-image"),
        Binding("J", "judge", "judge", id="judge"),
        Binding("w", "switch_judge", "show another judge's scores", show=False, id="switch-judge"),
        Binding("W", "judges", "judges view (against humans)", show=False, id="judges"),
        Binding(
            "P",
            "judges_page",
            "judges view: pictures",
            show=False,
            id="judges-pictures",
        ),
        Binding("e", "export", "export", id="export"),
        Binding("s", "sort", "sort the list", show=False, id="sort"),
        Binding("t", "toggle_advance", "advance after a grade (on/off)", show=False, id="advance"),
        Binding("d", "datasets", "dataset", id="dataset"),
    ]
