"""The review screen's filters: the menu (v), the search (/) and Esc, which clears them.
Each asks the reviewer, reads what a filter needs (in the database thread), and has the
screen apply the new filter."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lmmreview.engine.review import Filter
from lmmreview.tui.filter_counts import AGAIN, Candidate, IsOn, fill, is_on
from lmmreview.tui.screens import Menu, Prompt
from lmmreview.tui.session import Session

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

TOGGLES = ("unreviewed", "failed", "no_reply", "fallback", "flagged")  # on/off, no value
Value = Callable[[str], Filter]  # the filter a value picked from a list makes


def cause_choices(causes: Mapping[str, str], present: Iterable[str]) -> list[tuple[str, str]]:
    """(id, title) of every cause of the taxonomy, then of any other cause an answer has
    (`present`: given under an older taxonomy)."""
    others = sorted(set(present) - causes.keys())
    return [*causes.items(), *((c, c) for c in others)]


class FilterMenu:
    """The filters of one screen; `dry`: asks nothing and tells nothing, to find the
    filter a choice makes without a further question (for the menu's counts)."""

    def __init__(self, screen: ReviewScreen, dry: bool = False) -> None:
        self.screen = screen
        self.dry = dry

    async def search(self) -> None:
        """Show only the answers whose question, hint, options or answer hold the text
        asked for."""
        screen = self.screen
        text = await screen.app.push_screen_wait(
            Prompt("Search questions, options and answers for:")
        )
        session = screen.session
        if not text or session is None:
            return
        dataset = session.dataset
        ids = await screen.read(lambda r: r.search(dataset, text))
        if ids is None:
            return
        screen.filter(replace(session.filter, text=text, text_ids=ids))

    def clear(self) -> None:
        """Show every answer again, the one under the cursor still under it (after a
        search as after any other filter)."""
        self.screen.filter(Filter())

    async def menu(self) -> None:
        """The filter the reviewer picks from the menu, applied."""
        session = self.screen.session
        if session is not None:
            picked = await self.pick(session)
            if picked is not None:
                self.screen.filter(picked)

    async def _ask(
        self, title: str, choices: list[tuple[str, str]], value: Value | None = None
    ) -> str | None:
        """A choice; `value(choice)`: the filter it makes, to count each choice and mark
        the one in force (choosing it changes nothing)."""
        if self.dry:
            return None
        menu, session = Menu(title, choices), self.screen.session
        if value is None or session is None:
            return await self.screen.app.push_screen_wait(menu)
        current = session.filter

        async def candidate(key: str) -> Filter:
            return value(key)

        return await self._counted(menu, candidate, lambda key, flt: flt == current, current)

    async def _counted(
        self, menu: Menu, candidate: Candidate, on: IsOn, current: Filter
    ) -> str | None:
        """The reviewer's choice in `menu`, its choices counted and marked meanwhile
        (`current`: the filter in force)."""
        counts = fill(menu, candidate, self._count, on, current)
        counting = self.screen.run_worker(counts, group="filter-counts")
        picked = await self.screen.app.push_screen_wait(menu)
        counting.cancel()
        return picked

    def _tell(self, message: str) -> None:
        if not self.dry:
            self.screen.notify(message)

    async def pick(self, session: Session) -> Filter | None:
        """The filter the reviewer picks, from the session's current one (None: none)."""
        current, settings = session.filter, self.screen.settings
        choices = [
            ("unreviewed", "Unreviewed"),
            ("failed", "Judge failed"),
            ("no_reply", "No judge reply (an imported 0.0)"),
            ("fallback", "Fallback extractions"),
            ("flagged", "Flagged"),
            ("assigned", "Assigned to me (lmmreview assign)"),  # only when some are
            ("disagreement", f"|judge - human| > {settings.disagreement:g}"),
            ("spread", f"Judge runs disagree (std > {settings.spread:g})"),
            ("reviewers", "Reviewers disagree"),
            ("judges", f"Judges disagree (|judge - judge| > {settings.disagreement:g})"),
            ("flips", "Judges disagree: A vs B…"),
            ("sources", "Sources disagree (reconcile), by cause…"),
            ("axis", "By breakdown axis…"),
            ("model", "By model…"),
            ("cause", "By error cause…"),
            ("clear", "Clear all filters"),
        ]
        if session.assignment is None and current.assigned is None:
            choices = [c for c in choices if c[0] != "assigned"]
        blind = self.screen.blind  # blind review: no filter by judge results, no names
        menu = Menu(f"Filter ({blind.text(current.describe())})", blind.filters(choices), AGAIN)
        dry = FilterMenu(self.screen, dry=True)
        picked = await self._counted(
            menu,
            lambda key: dry.choose(key, session, current),
            lambda key, flt: is_on(key, flt, current),
            current,
        )
        return await self.choose(picked, session, current)

    async def _count(self, flt: Filter) -> int | None:
        """How many answers `flt` shows: for the filter in force, the list's length (as the
        status line says it); else counted off the UI thread (in memory: no database)."""
        session = self.screen.session
        if session is None:
            return None
        if flt == session.filter:
            return len(session.visible)
        return await asyncio.to_thread(session.count, flt)

    async def choose(self, picked: str | None, session: Session, current: Filter) -> Filter | None:
        """The filter choice `picked` makes from `current` (None: none)."""
        settings = self.screen.settings
        if picked in TOGGLES:
            toggled: dict[str, Any] = {picked: not getattr(current, picked)}
            return replace(current, **toggled)
        if picked == "disagreement":
            limit = None if current.disagreement is not None else settings.disagreement
            return replace(current, disagreement=limit)
        if picked == "spread":
            spread = None if current.spread is not None else settings.spread
            return replace(current, spread=spread)
        if picked == "assigned":
            return self._assigned(session, current)
        if picked == "reviewers":
            return await self._reviewers_disagree(session, current)
        if picked == "judges":
            return await self._judges_disagree(session, current)
        if picked == "flips":
            return await self._flips(session, current)
        if picked == "sources":
            return await self._sources_disagree(session, current)
        if picked == "model":
            models = self.screen.blind.models(sorted(session.answers.models))
            model = await self._ask("Model", models, lambda m: replace(current, model=m))
            return replace(current, model=model) if model else None
        if picked == "cause":
            causes = cause_choices(settings.causes, session.answers.causes())
            cause = await self._ask("Error cause", causes, lambda c: replace(current, cause=c))
            return replace(current, cause=cause) if cause else None
        if picked == "axis":
            return await self._axis(session, current)
        return Filter() if picked == "clear" else None

    def _assigned(self, session: Session, current: Filter) -> Filter | None:
        """Show only the answers assigned to the reviewer, or stop doing so."""
        if current.assigned is not None or session.assignment is None:
            return replace(current, assigned=None)
        return replace(current, assigned=session.assignment.ids)

    async def _reviewers_disagree(self, session: Session, current: Filter) -> Filter | None:
        """Show only the answers whose reviewers' own verdicts differ, or stop doing so."""
        from lmmreview.db.reviewers import disagreeing_answers

        ids = None
        if current.reviewers_disagree is None:
            dataset = session.dataset
            ids = await self.screen.read(lambda r: disagreeing_answers(r.store, dataset))
            if ids is None:
                return None
        return replace(current, reviewers_disagree=ids)

    async def _judges_disagree(self, session: Session, current: Filter) -> Filter | None:
        """Show only the answers whose judges' scores spread by more than the threshold."""
        from lmmreview.db.judges import disagreeing_judges, read_judges

        ids: frozenset[int] | None = None
        if current.judges_disagree is None and len(session.judges) < 2:
            ids = frozenset()  # one judge has none to disagree with: no need to read
        elif current.judges_disagree is None:
            if self.dry:  # reading every judge's scores takes seconds at 1,000,000 answers
                return None
            dataset, limit = session.dataset, self.screen.settings.disagreement
            ids = await self.screen.read(
                lambda r: disagreeing_judges(read_judges(r.store, dataset), limit)
            )
            if ids is None:
                return None
        return replace(current, judges_disagree=ids)

    async def _flips(self, session: Session, current: Filter) -> Filter | None:
        """Show only the answers whose verdict changes between two judges picked (as
        `lmmreview judges --flips A B` lists them), or stop doing so."""
        from lmmreview.db.flips import flip_ids
        from lmmreview.engine.scoring import judge_names

        if current.flips is not None:
            return replace(current, flips=None, flips_between="")
        if self.dry:  # two judges to pick: nothing to count before they are
            return None
        dataset = session.dataset
        judges = await self.screen.read(lambda r: r.store.judges(dataset))
        names = list(judge_names(judges or []).items())
        if len(names) < 2:
            self._tell("This dataset has fewer than two judges.")
            return None
        a = await self._ask("Judge A", [(str(i), name) for i, (_, name) in enumerate(names)])
        others = [(str(i), name) for i, (_, name) in enumerate(names) if str(i) != a]
        b = await self._ask("Judge B", others) if a else None
        if not a or not b:
            return None
        (judge_a, name_a), (judge_b, name_b) = names[int(a)], names[int(b)]
        ids = await self.screen.read(lambda r: flip_ids(r.store, dataset, judge_a, judge_b))
        if ids is None:
            return None
        return replace(current, flips=ids, flips_between=f"{name_a} vs {name_b}")

    async def _sources_disagree(self, session: Session, current: Filter) -> Filter | None:
        """Show only the answers on which two sources of their model disagree (by the cause
        picked, or any), or stop doing so."""
        from lmmreview.db.reconcile import disagreeing_answers
        from lmmreview.engine.reconcile import TITLES, Discrepancy

        if current.sources_disagree is not None:
            return replace(current, sources_disagree=None, sources_title="")
        kinds = [("any", "Any cause"), *((k.value, t) for k, t in TITLES.items())]
        picked = await self._ask("Sources disagree: the cause", kinds)
        if not picked:
            return None
        kind = None if picked == "any" else Discrepancy(picked)
        dataset, benchmark = session.dataset, session.benchmark
        ids = await self.screen.read(
            lambda r: disagreeing_answers(r.store, dataset, benchmark, kind)
        )
        if ids is None:
            return None
        title = TITLES[kind] if kind else ""
        return replace(current, sources_disagree=ids, sources_title=title)

    async def _axis(self, session: Session, current: Filter) -> Filter | None:
        if session.tables is None:
            return None
        values: dict[str, set[str]] = {}
        for sample in session.tables.samples.profiles:  # alike in what filters read
            for name, found in session.benchmark.filter_axes(sample).items():
                values.setdefault(name, set()).update(found)
        axis = await self._ask("Axis", [(a, a) for a in sorted(values)])
        if not axis:
            return None
        value = await self._ask(
            axis, [(v, v) for v in sorted(values[axis])], lambda v: replace(current, axis=(axis, v))
        )
        return replace(current, axis=(axis, value)) if value else None
