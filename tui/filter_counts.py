"""The filter menu's marks and counts: whether each choice is on, and how many answers the
list shows with it on (for one on already: the list as it is; else once it is chosen).
Both come from the filter that choosing it makes (`FilterMenu.choose`, asking nothing), so
a choice added to the menu gets them too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from lmmreview.engine.review import Filter
from lmmreview.tui.screens import Menu, marked

CLEAR = "clear"  # the choice that clears every filter: never marked
AGAIN = "● on (choose again: off) · (n) answers shown with it on"

Candidate = Callable[[str], Awaitable[Filter | None]]  # the filter a choice makes, or None
Count = Callable[[Filter], Awaitable[int | None]]  # answers a filter shows (None: unknown)
IsOn = Callable[[str, Filter | None], bool]  # whether a choice, making this filter, is on


def is_on(key: str, candidate: Filter | None, current: Filter) -> bool:
    """Choice `key` is on when choosing it turns a condition off (a toggle), or when it
    names a field of the filter that is set (a value picked from a list: model, cause)."""
    if key == CLEAR:
        return False
    removes = candidate is not None and set(candidate.conditions()) < set(current.conditions())
    return removes or getattr(current, key, None) not in (None, False)


def counted(label: str, on: bool, count: int | None) -> str:
    """A choice's label with its mark and, once known, its count."""
    return marked(label if count is None else f"{label} ({count:,})", on)


async def fill(menu: Menu, candidate: Candidate, count: Count, on: IsOn, current: Filter) -> None:
    """Mark and count each choice, one after another in the menu's order, once the menu is
    on screen (counts fill in as they come): a choice on counts the list as it is
    (`current`: choosing it again would turn it off), another the list it makes, if it
    needs no more question."""
    await menu.drawn.wait()
    for key, label in list(menu.choices):
        flt = await candidate(key)
        marked = on(key, flt)
        shown = current if marked else flt
        menu.relabel(key, counted(label, marked, None))
        if shown is not None:
            menu.relabel(key, counted(label, marked, await count(shown)))
