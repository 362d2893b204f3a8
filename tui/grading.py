"""The review screen's grading keys: each makes one write command (tui/writes.py) on the
answer shown and hands it to the screen's writer (tui/writer.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lmmreview.engine.review import Entry
from lmmreview.engine.scoring import Verdict
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.option_picker import OptionPicker
from lmmreview.tui.screens import Menu, Prompt
from lmmreview.tui.writes import Cause, Flag, Grade, Note

if TYPE_CHECKING:
    from lmmreview.tui.review_screen import ReviewScreen

NO_CAUSE = "(none)"  # the cause picker's choice that clears the cause; no cause id has "("
HINTS = {
    QuestionType.OPEN: "A multiple-choice answer: press the option's letter (X: none).",
    QuestionType.CHOICE: "An open answer: grade with 0-9 and = (1.0).",
}


class Grading:
    """Verdicts, flags, causes and notes on the answer shown."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    async def _gradable(self, kind: QuestionType) -> tuple[Entry, Sample] | None:
        """The current answer and its sample, if a key for `kind` questions can grade it."""
        entry = self.screen.current()
        sample = await self._sample_of(entry) if entry is not None else None
        if entry is None or sample is None:
            return None
        if sample.question_type is not kind:
            self.screen.notify(HINTS[kind])
            return None
        return entry, sample

    async def _sample_of(self, entry: Entry) -> Sample | None:
        """The entry's whole sample (its options too): from its detail, read now if a key
        came before it (None: it cannot be read now)."""
        answer_id = entry.answer_id
        cached = self.screen.pane.details.get(answer_id)
        detail = cached or await self.screen.read(lambda r: r.detail(answer_id))
        return None if detail is None else detail.sample

    async def score(self, value: float) -> None:
        found = await self._gradable(QuestionType.OPEN)
        if found is not None:
            self.grade(found[0], Verdict(round(value, 1)))

    async def choose(self, letter: str) -> None:
        found = await self._gradable(QuestionType.CHOICE)
        if found is not None:
            self._choose(*found, letter)

    def _choose(self, entry: Entry, sample: Sample, letter: str) -> None:
        """Grade `entry` with option `letter` of its `sample`, if it has one."""
        if letter != "X" and letter not in sample.options:
            self.screen.notify(f"No option {letter} here.", severity="warning")
            return
        self.grade(entry, Verdict(None, letter))

    async def pick_option(self) -> None:
        """Options past I have no key of their own: choose any option from a list."""
        found = await self._gradable(QuestionType.CHOICE)
        if found is None:
            return
        letter = await self.screen.app.push_screen_wait(OptionPicker(found[1].options))
        if letter is not None:  # the answer whose options were shown, wherever the cursor is
            self._choose(*found, letter)

    def accept(self) -> None:
        """The judge's result becomes the verdict: its choice, else its mean score."""
        entry = self.screen.current()
        if entry is None or self.screen.blind.refused("Accepting the judge's score"):
            return
        mean = entry.judge_mean()
        if entry.judge_choice is None and mean is None:
            self.screen.notify(
                "Nothing to accept: the judge has no usable result.", severity="warning"
            )
            return
        choice, score = entry.judge_choice, None if entry.judge_choice else round(mean or 0.0, 1)
        self.grade(entry, Verdict(score, choice), "accept")

    def grade(self, entry: Entry, verdict: Verdict, action: str = "grade") -> None:
        """Hand a verdict to the writer, then move to the next answer if it was queued and
        auto-advance is on."""
        command = Grade(verdict, action, self._blind(entry))
        if self.screen.writer.submit(entry, command) and self.screen.auto_advance:
            self.screen.action_move(1)

    def flag(self) -> None:
        entry = self.screen.current()
        if entry is not None:
            self.screen.writer.submit(entry, Flag(not entry.flagged))

    async def cause(self) -> None:
        """Give the answer an error cause from the taxonomy, or clear it."""
        entry = self.screen.current()
        if entry is None:
            return
        choices = [*self.screen.settings.causes.items(), (NO_CAUSE, "(no cause: clear it)")]
        picked = await self.screen.app.push_screen_wait(Menu("Why is this answer wrong?", choices))
        if picked is not None:
            self.screen.writer.submit(entry, Cause(None if picked == NO_CAUSE else picked))

    async def note(self) -> None:
        entry = self.screen.current()
        if entry is None:
            return
        text = await self.screen.app.push_screen_wait(Prompt("Note on this answer:"))
        if text:
            self.screen.writer.submit(entry, Note(text, self._blind(entry)))

    def _blind(self, entry: Entry) -> bool:
        """Whether a change queued now on `entry` is given blind: while its model and judges
        are hidden."""
        return self.screen.blind.hidden(entry.answer_id)
